package agentlog

import (
	"unsafe"

	"github.com/tracecheck/tracecheck/agentlog/jsonpeek"
)

// ItemKind classifies what a native record says, format-neutrally.
type ItemKind uint8

// Item kinds.
const (
	ItemUser       ItemKind = iota + 1 // a user message
	ItemAssistant                      // a model's message
	ItemSystem                         // a system or developer message, or an agent notice
	ItemReasoning                      // the model's reasoning summary
	ItemCall                           // a tool call
	ItemResult                         // a tool call's result
	ItemCompaction                     // history compacted
	ItemAbort                          // a turn interrupted or cancelled (pi's stopReason error and the harness's run_failed too)
	ItemMeta                           // a header, turn context, setting or bookkeeping record
	ItemRunStart                       // a run (turn) started
	ItemRunEnd                         // a run finished
	ItemError                          // the agent reports a failure: a turn that ended in an error, an API error
)

// Item is one thing a record says. A record may say several: a Claude
// Code user line can carry three tool results.
type Item struct {
	Kind    ItemKind
	CallID  string         // calls and results
	CallKey string         // the call's family ("f" function, "c" custom, "s" search) when results only answer their own
	Tool    string         // the tool's name, when the record names it
	Body    jsonpeek.Value // the native value an import carries (content, arguments, output)
	IsError bool
	Text    string // a short note: an abort's reason, a run id
	// Msg: an abort's or a failure's message as the agent wrote it (a
	// string, or content parts), when it has one.
	Msg jsonpeek.Value
	// Replayed: the item is a copy kept inside a compaction (Codex's
	// replacement_history). The checks count it; import does not write it
	// again.
	Replayed bool
}

// Record is the format-neutral view of one native line.
type Record struct {
	Line       int
	NativeType string         // the record's type as the agent names it ("response_item/function_call")
	Unknown    bool           // a record type tracecheck does not know (agents skip it)
	Root       jsonpeek.Value // the whole line

	// Entry tree (Claude Code uuid/parentUuid, pi id/parentId).
	ID        string
	HasID     bool
	Parent    string // the line's own bytes (lineView), as Timestamp
	HasParent bool   // a non-null parent link

	Session   string // the session this line names (sessionId, a header's id)
	Header    bool   // a session header (Codex and harness session_meta, pi session)
	ForkOf    string // a header's parent session (Codex forked_from_id)
	Timestamp string // the line's own bytes (lineView): valid while the line is; a handler that keeps it clones it
	Sidechain bool
	AgentID   string
	Model     string
	Provider  string
	Version   string

	Items []Item

	in *interner // kept across reset
	// idHint, kept across reset, is told a record's entry id as soon as
	// it is decoded (setID): the handler's id set fetches the memory it
	// will read while the rest of the line is decoded.
	idHint func(id string)

	// Compaction. Summary: the record carries (or is) the summary text.
	Compaction bool
	Summary    bool
	Boundary   bool   // a Claude Code compact boundary, whose summary is the next message
	IsSummary  bool   // a Claude Code isCompactSummary message
	DropsCalls bool   // the agent drops the calls before this compaction from what it loads
	FirstKept  string // pi: the compaction's firstKeptEntryId

	// Leaf: the entry can be the one a resume starts from.
	Leaf bool
}

func (r *Record) reset(line int, root jsonpeek.Value) {
	items, in, hint := r.Items[:0], r.in, r.idHint
	*r = Record{Line: line, Root: root, Items: items, in: in, idHint: hint}
}

// setID sets the record's entry id.
func (r *Record) setID(id string) {
	r.ID, r.HasID = id, true
	if r.idHint != nil {
		r.idHint(id)
	}
}

// interner hands out the text of short strings that repeat from line to
// line (types, roles, session ids, versions, models, tool names) without
// allocating it each time: at most internMax distinct strings of at most
// internLen bytes each are kept. A nil interner allocates every time.
type interner struct {
	m   map[string]string
	buf []byte
	// recent holds strings handed out, by a cheap hash of their bytes
	// (slot): most lookups are of a handful of strings (a type, a role, a
	// model), answered by one comparison before the map is asked.
	recent [internSlots]string
}

const internSlots = 256

// slot is recent's index for b: its length and three of its bytes.
func slot(b []byte) int {
	n := len(b)
	if n == 0 {
		return 0
	}
	return int((uint(n)*31 ^ uint(b[0]) ^ uint(b[n-1])<<2 ^ uint(b[n/2])<<4) % internSlots)
}

const (
	internMax = 4096
	internLen = 128
)

func newInterner() *interner { return &interner{m: map[string]string{}} }

// str is v.Str().
func (in *interner) str(v jsonpeek.Value) string {
	b, ok := v.Plain()
	if in == nil || !ok || len(b) > internLen {
		return v.Str()
	}
	k := slot(b)
	if r := in.recent[k]; r == string(b) {
		return r
	}
	s, ok := in.m[string(b)]
	if !ok {
		s = in.keep(b)
	}
	in.recent[k] = s
	return s
}

// join is prefix + v.Str().
func (in *interner) join(prefix string, v jsonpeek.Value) string {
	b, ok := v.Plain()
	if in == nil || !ok || len(prefix)+len(b) > internLen {
		return prefix + v.Str()
	}
	in.buf = append(append(in.buf[:0], prefix...), b...)
	k := slot(in.buf)
	if r := in.recent[k]; r == string(in.buf) {
		return r
	}
	s, ok := in.m[string(in.buf)]
	if !ok {
		s = in.keep(in.buf)
	}
	in.recent[k] = s
	return s
}

func (in *interner) keep(b []byte) string {
	s := string(b)
	if len(in.m) < internMax {
		in.m[s] = s
	}
	return s
}

func (r *Record) add(it Item) { r.Items = append(r.Items, it) }

// str returns a string member, or "".
func str(v jsonpeek.Value, keys ...string) string { return v.Path(keys...).Str() }

// lineView is v.Str() without a copy when the string has no escapes: it
// shares the line's bytes, so it is valid only while the line is (until
// the next record), and whoever keeps it clones it. For the fields nearly
// every line has and handlers look up rather than keep (Record.Timestamp,
// Record.Parent), that saves an allocation a line each.
func lineView(v jsonpeek.Value) string {
	if b, ok := v.Plain(); ok && len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return v.Str()
}

// textHasPrefix reports whether a message content (a string, or an array
// of parts with text members) starts with p in its first text.
func textHasPrefix(content jsonpeek.Value, p string) bool {
	if content.Kind() == jsonpeek.String {
		return content.HasPrefix(p)
	}
	found := false
	content.Elems(func(_ int, e jsonpeek.Value) bool {
		if t := e.Get("text"); t.Kind() == jsonpeek.String {
			found = t.HasPrefix(p)
			return false
		}
		return true
	})
	return found
}

// assistantBlocks adds the items of an assistant message's content blocks
// (Claude Code and pi share the shape): a tool call is a block whose type
// is one of callTypes, with its arguments under argsKey; thinking blocks
// are reasoning; text and any other block are the model's output.
func assistantBlocks(rec *Record, content jsonpeek.Value, keys *jsonpeek.Keys, callTypes ...string) {
	content.Elems(func(_ int, b jsonpeek.Value) bool {
		var f [maxBlockKeys]jsonpeek.Value
		b.Lookup(keys, f[:])
		typ := f[bType]
		for _, ct := range callTypes {
			if typ.Is(ct) {
				rec.add(Item{Kind: ItemCall, CallID: f[bID].Str(), Tool: rec.in.str(f[bName]), Body: f[bArgs]})
				return true
			}
		}
		switch {
		case typ.Is("thinking"), typ.Is("redacted_thinking"):
			rec.add(Item{Kind: ItemReasoning, Body: f[bThinking]})
		case typ.Is("text"):
			rec.add(Item{Kind: ItemAssistant, Body: f[bText]})
		default:
			rec.add(Item{Kind: ItemAssistant, Body: b})
		}
		return true
	})
}

// blockKeys are the keys assistantBlocks reads of a content block, the
// call's arguments under argsKey, and then more, a format's own (at most
// maxBlockKeys in all): one walk over a block's members, not one per key.
func blockKeys(argsKey string, more ...string) *jsonpeek.Keys {
	return jsonpeek.NewKeys(append([]string{"type", "id", "name", argsKey, "thinking", "text"}, more...)...)
}

const (
	bType = iota
	bID
	bName
	bArgs
	bThinking
	bText
	blockKeyCount
	maxBlockKeys = 12
)
