package agentlog

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/tracecheck/tracecheck/agentlog/jsonpeek"
	"github.com/tracecheck/tracecheck/internal/redact"
)

// ImportStats says what an import did.
type ImportStats struct {
	Lines, Records, Events int
	Skipped                int // lines the agent itself would not read (invalid JSON, torn)
	RenamedIDs             int // native ids used twice, written with a suffix
	Redacted               int // secrets (keys, tokens, passwords) replaced by "[REDACTED]"
}

// agentNames: provenance agent_id and surface per format.
var agentNames = [...][2]string{Codex: {"codex", "codex-cli"}, ClaudeCode: {"claude-code", "claude-code"}, Pi: {"pi", "pi"}, TSHarness: {"ts-harness", "ts-harness"}}

// Import reads one native session log and writes it to w as Trace 0.1.0:
// one run, events in file order with sequence 0..n-1. The mapping, and the
// rules for envelope fields the source lacks, are in docs/agent-logs.md.
// name is the file's name (its base name is the session id of last resort).
func Import(r io.Reader, name string, f Format, w io.Writer) (ImportStats, error) {
	if f == Unknown || f == Trace {
		return ImportStats{}, fmt.Errorf("import reads codex, claude-code, pi or ts-harness, not %s", f)
	}
	lines, rr := sniff(r)
	im := &importer{format: f, w: bufio.NewWriterSize(w, 256<<10), emitted: NewIDSet(), tools: map[string]string{}}
	defer im.emitted.Close()
	im.prime(lines, name)
	n, err := scanFile(rr, f, 0, true, im)
	im.stats.Lines = n
	if err == nil {
		err = im.err
	}
	if ierr := im.emitted.Err(); err == nil && ierr != nil {
		err = fmt.Errorf("%s: %v", name, ierr)
	}
	if ferr := im.w.Flush(); err == nil {
		err = ferr
	}
	if err == nil && im.seq == 0 {
		err = fmt.Errorf("%s: no record to import", name)
	}
	return im.stats, err
}

type importer struct {
	format  Format
	w       *bufio.Writer
	buf     []byte
	emitted IDSet
	tools   map[string]string // call id -> tool name, for calls awaiting results
	seq     int64
	stats   ImportStats
	err     error

	session, runID, agentID, surface, snapshot string
	firstTime                                  string
	lastTime                                   []byte // the last accepted timestamp (Record.Timestamp is the line's)
	model, provider                            string
	flags                                      jsonpeek.Flags

	// native: the format has native entry ids. Without them every event
	// id is line-N or line-N#k, unique by construction, and no set of
	// written ids is needed.
	native   bool
	lastLine int
	lineK    int
	// passed, passedOld: entries of a format with native ids that wrote
	// no event (a Claude Code attachment, a pi thinking_level_change) ->
	// the written event their parent chain reaches first, so that an event
	// whose native parent is such an entry names that ancestor as its
	// parent_event_id. Two generations of at most maxPassed entries: the
	// most recent are remembered, and a chain is only ever looked up one
	// link up.
	passed, passedOld map[string]string

	// recent: the last ids added to emitted, which most parents name:
	// comparing costs less than asking the set.
	recent  [4]string
	recentN int

	sessionJS []byte // session_id, encoded once
	provJS    []byte // the provenance object, re-encoded when model or provider changes
	provModel string
	provProv  string
}

// prime fixes what every event repeats, from the sniffed lines: the
// session id, the agent version and the first timestamp.
func (im *importer) prime(lines [][]byte, name string) {
	var d jsonpeek.Doc
	rec := Record{in: newInterner()}
	version := ""
	for _, l := range lines {
		if d.Parse(l) != nil || d.Root().Kind() != jsonpeek.Object {
			continue
		}
		rec.reset(0, d.Root())
		decoders[im.format](&rec)
		if im.session == "" && rec.Session != "" {
			im.session = rec.Session
		}
		if version == "" && rec.Version != "" {
			version = rec.Version
		}
		if im.firstTime == "" {
			if ts := rfc3339(rec.Timestamp); ts != "" {
				im.firstTime = strings.Clone(ts)
			}
		}
	}
	if im.session == "" {
		base := filepath.Base(name)
		im.session = strings.TrimSuffix(base, filepath.Ext(base))
		if im.session == "" || im.session == "." || im.session == "-" {
			im.session = "stdin"
		}
	}
	im.runID = im.session
	im.agentID, im.surface = agentNames[im.format][0], agentNames[im.format][1]
	if version == "" {
		version = "unknown"
	}
	im.snapshot = im.agentID + "-" + version
	im.native = im.format == ClaudeCode || im.format == Pi
	im.sessionJS = appendString(nil, im.session)
}

// provenance returns the encoded provenance object for the current model
// and provider.
func (im *importer) provenance() []byte {
	if im.provJS != nil && im.provModel == im.model && im.provProv == im.provider {
		return im.provJS
	}
	b := append(im.provJS[:0], `{"agent_id":`...)
	b = appendString(b, im.agentID)
	b = append(b, `,"snapshot_id":`...)
	b = appendString(b, im.snapshot)
	b = append(b, `,"surface":`...)
	b = appendString(b, im.surface)
	b = append(b, `,"harness_mode":"native","run_id":`...)
	b = appendString(b, im.runID)
	if im.model != "" {
		b = append(b, `,"model":`...)
		b = appendString(b, im.model)
	}
	if im.provider != "" {
		b = append(b, `,"provider":`...)
		b = appendString(b, im.provider)
	}
	b = append(b, '}')
	im.provJS, im.provModel, im.provProv = b, im.model, im.provider
	return b
}

// idHint: the record's first event will most likely carry its native id.
func (im *importer) idHint(id string) {
	if im.native {
		im.emitted.Prefetch(id)
	}
}

func (im *importer) badLine(int, bool, string)        { im.stats.Skipped++ }
func (im *importer) concatenated(int, [][2]int, bool) {}
func (im *importer) missingNewline(int)               {}
func (im *importer) tooLong(int, int64)               { im.stats.Skipped++ }
func (im *importer) invalidUTF8(int)                  {}

// event is one Trace event being written.
type event struct {
	typ       string
	actorKind string
	actorID   string
	payload   func(b []byte) []byte // appends the payload members after source fields
}

func (im *importer) record(rec *Record) {
	if im.err != nil {
		return
	}
	im.stats.Records++
	im.flags = rec.Root.Flags()
	if rec.Model != "" {
		im.model = rec.Model
	}
	if rec.Provider != "" {
		im.provider = rec.Provider
	}
	ts := rfc3339(rec.Timestamp)
	if ts != "" {
		im.lastTime = append(im.lastTime[:0], ts...)
	}
	// Records from one line (a concatenated line) number their events on:
	// line-N, line-N#1, ... stay unique.
	k := 0
	if rec.Line == im.lastLine && !(rec.HasID && rec.ID != "") {
		k = im.lineK
	}
	im.lastLine = rec.Line
	wrote := false
	emit := func(ev event) {
		im.write(rec, k, ts, ev)
		k++
		im.lineK = k
		wrote = true
	}
	for i := range rec.Items {
		it := &rec.Items[i]
		if it.Replayed {
			continue
		}
		if rec.Sidechain && im.format == ClaudeCode {
			emit(im.agentEvent(rec, it))
			continue
		}
		switch it.Kind {
		case ItemUser:
			emit(event{"user.message", "user", "user", func(b []byte) []byte { return im.text(b, "content", it.Body, true) }})
		case ItemAssistant:
			emit(event{"model.response", "model", im.modelID(), func(b []byte) []byte { return im.text(b, "content", it.Body, true) }})
		case ItemReasoning:
			emit(event{"model.response", "model", im.modelID(), func(b []byte) []byte { return im.text(b, "reasoning", it.Body, false) }})
		case ItemSystem:
			emit(event{"instruction.accept", "harness", im.surface, func(b []byte) []byte {
				if it.Text != "" {
					b = appendMember(b, "role", it.Text)
				}
				return im.text(b, "content", it.Body, false)
			}})
		case ItemCall:
			if len(im.tools) < MaxOpenCalls {
				im.tools[it.CallKey+"\x00"+it.CallID] = it.Tool
			}
			emit(event{"tool.request", "model", im.modelID(), func(b []byte) []byte {
				b = appendMember(b, "tool_call_id", it.CallID)
				b = appendMember(b, "tool", it.Tool)
				return im.raw(b, "arguments", it.Body)
			}})
		case ItemResult:
			key := it.CallKey + "\x00" + it.CallID
			tool := it.Tool
			if t, ok := im.tools[key]; ok {
				if tool == "" {
					tool = t
				}
				delete(im.tools, key)
			}
			actor := tool
			if actor == "" {
				actor = "tool"
			}
			emit(event{"tool.result", "tool", actor, func(b []byte) []byte {
				b = appendMember(b, "tool_call_id", it.CallID)
				if tool != "" {
					b = appendMember(b, "tool", tool)
				}
				b = append(b, `,"ok":`...)
				b = strconv.AppendBool(b, !it.IsError)
				if it.IsError {
					return im.text(b, "error", it.Body, false)
				}
				return im.text(b, "result", it.Body, false)
			}})
		case ItemCompaction:
			emit(event{"context.compact", "harness", im.surface, func(b []byte) []byte {
				if it.Text == "boundary" || !it.Body.Exists() || it.Body.Kind() == jsonpeek.Object {
					return im.raw(b, "metadata", it.Body)
				}
				return im.text(b, "summary", it.Body, false)
			}})
		case ItemAbort, ItemError:
			kind := "interrupted"
			if it.Kind == ItemError {
				kind = "failed"
			}
			emit(event{"error", "harness", im.surface, func(b []byte) []byte {
				b = appendKey(b, "kind")
				b = appendPlain(b, kind)
				if it.Msg.Exists() {
					b = im.text(b, "message", it.Msg, true)
				}
				b = appendMember(b, "detail", it.Text)
				return im.raw(b, "native", it.Body)
			}})
		case ItemRunStart:
			emit(event{"session.start", "harness", im.surface, func(b []byte) []byte {
				b = appendMember(b, "run_id", it.Text)
				return im.raw(b, "native", it.Body)
			}})
		case ItemRunEnd:
			emit(event{"session.stop", "harness", im.surface, func(b []byte) []byte {
				b = append(b, `,"reason":"completed"`...)
				return im.raw(b, "result", it.Body)
			}})
		case ItemMeta:
			if ev, ok := im.metaEvent(rec, it); ok {
				emit(ev)
			}
		}
	}
	if !wrote && im.native && rec.HasID && rec.ID != "" {
		if p := im.parentEvent(rec); p != "" {
			im.pass(rec.ID, p)
		}
	}
}

// maxPassed bounds one generation of importer.passed.
const maxPassed = 4096

// pass remembers that entry id wrote no event and that its chain reaches
// the written event parent.
func (im *importer) pass(id, parent string) {
	if im.passed == nil || len(im.passed) >= maxPassed {
		im.passedOld, im.passed = im.passed, make(map[string]string, 64)
	}
	im.passed[id] = strings.Clone(parent) // it may be the line's Record.Parent
}

// parentEvent is the parent_event_id of a record's events: its native
// parent when that wrote an event, else the written event the parent's
// own chain reaches (through entries that wrote none), else "".
func (im *importer) parentEvent(rec *Record) string {
	if !rec.HasParent || rec.Parent == "" || !im.native {
		return ""
	}
	if im.hasEmitted(rec.Parent) {
		return rec.Parent
	}
	if p, ok := im.passed[rec.Parent]; ok {
		return p
	}
	return im.passedOld[rec.Parent]
}

// emit adds id to the written event ids and reports whether it was new.
func (im *importer) emit(id string) bool {
	if !im.emitted.Add(id) {
		return false
	}
	im.recent[im.recentN%len(im.recent)] = id
	im.recentN++
	return true
}

// hasEmitted is emitted.Has(id).
func (im *importer) hasEmitted(id string) bool {
	for _, r := range im.recent[:min(im.recentN, len(im.recent))] {
		if r == id {
			return true
		}
	}
	return im.emitted.Has(id)
}

// metaEvent maps the bookkeeping records that have a Trace counterpart;
// the others are not imported (docs/agent-logs.md lists them).
func (im *importer) metaEvent(rec *Record, it *Item) (event, bool) {
	switch {
	case rec.Header && rec.Sidechain:
		return event{"agent.spawn", "agent", orDefault(rec.AgentID, "subagent"), func(b []byte) []byte { return im.raw(b, "native", it.Body) }}, true
	case rec.Header:
		return event{"session.start", "harness", im.surface, func(b []byte) []byte { return im.raw(b, "native", it.Body) }}, true
	case rec.NativeType == "turn_context":
		return event{"sandbox.configure", "harness", im.surface, func(b []byte) []byte {
			if it.Text != "" {
				b = appendMember(b, "turn_id", it.Text)
			}
			return im.raw(b, "native", it.Body)
		}}, true
	case rec.NativeType == "event_msg/token_count":
		return event{"metric.sample", "harness", im.surface, func(b []byte) []byte { return im.raw(b, "native", it.Body.Get("info")) }}, true
	}
	return event{}, false
}

// agentEvent maps a Claude Code sidechain (subagent) line.
func (im *importer) agentEvent(rec *Record, it *Item) event {
	kinds := map[ItemKind]string{ItemUser: "user", ItemAssistant: "assistant", ItemReasoning: "reasoning", ItemSystem: "system",
		ItemCall: "tool_call", ItemResult: "tool_result", ItemCompaction: "compaction", ItemAbort: "interrupted", ItemMeta: "meta",
		ItemError: "error"}
	return event{"agent.message", "agent", orDefault(rec.AgentID, "subagent"), func(b []byte) []byte {
		b = appendMember(b, "item", kinds[it.Kind])
		if it.CallID != "" {
			b = appendMember(b, "tool_call_id", it.CallID)
		}
		if it.Tool != "" {
			b = appendMember(b, "tool", it.Tool)
		}
		switch it.Kind {
		case ItemUser, ItemAssistant:
			return im.text(b, "content", it.Body, true)
		case ItemReasoning, ItemSystem, ItemCompaction, ItemResult:
			return im.text(b, "content", it.Body, false)
		case ItemError:
			b = im.text(b, "content", it.Msg, true)
			return im.raw(b, "native", it.Body)
		}
		return im.raw(b, "content", it.Body)
	}}
}

func (im *importer) modelID() string { return orDefault(im.model, "model") }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// appendEventID appends the k-th event of a record's id, quoted: the
// native id (or line-N) for the first, "#k" after it for the others, and
// a line suffix when that id was already written. A line-N id of a format
// without native ids is written straight into b: such ids are unique by
// construction and kept nowhere, so they are never made strings.
func (im *importer) appendEventID(b []byte, rec *Record, k int) []byte {
	if !im.native && !(rec.HasID && rec.ID != "") {
		b = append(b, `"line-`...)
		b = strconv.AppendInt(b, int64(rec.Line), 10)
		if k > 0 {
			b = append(b, '#')
			b = strconv.AppendInt(b, int64(k), 10)
		}
		return append(b, '"')
	}
	return appendString(b, im.eventID(rec, k))
}

// eventID is the k-th event id of a record (appendEventID).
func (im *importer) eventID(rec *Record, k int) string {
	base := rec.ID
	if !rec.HasID || rec.ID == "" {
		base = "line-" + strconv.Itoa(rec.Line)
	}
	id := base
	if k > 0 {
		id = base + "#" + strconv.Itoa(k)
	}
	if !im.native {
		return id
	}
	if im.emit(id) {
		return id
	}
	im.stats.RenamedIDs++
	for n := 0; ; n++ {
		alt := id + "@line-" + strconv.Itoa(rec.Line)
		if n > 0 {
			alt += "." + strconv.Itoa(n)
		}
		if im.emit(alt) {
			return alt
		}
	}
}

func (im *importer) write(rec *Record, k int, ts string, ev event) {
	b := im.buf[:0]
	b = append(b, `{"trace_version":"0.1.0","event_id":`...)
	b = im.appendEventID(b, rec, k)
	b = append(b, `,"session_id":`...)
	b = append(b, im.sessionJS...)
	b = append(b, `,"sequence":`...)
	b = strconv.AppendInt(b, im.seq, 10)
	b = append(b, `,"timestamp":`...)
	missing := false
	switch {
	case ts != "":
	case len(im.lastTime) > 0:
		ts = string(im.lastTime)
	case im.firstTime != "":
		ts = im.firstTime
	default:
		ts, missing = "1970-01-01T00:00:00Z", true
	}
	b = appendPlain(b, ts)
	b = append(b, `,"type":`...)
	b = appendPlain(b, ev.typ)
	b = append(b, `,"actor":{"kind":`...)
	b = appendPlain(b, ev.actorKind)
	b = append(b, `,"id":`...)
	b = appendString(b, orDefault(ev.actorID, ev.actorKind))
	b = append(b, `},"payload":`...)
	payloadAt := len(b)
	b = append(b, `{"source_line":`...)
	b = strconv.AppendInt(b, int64(rec.Line), 10)
	b = appendMember(b, "native_type", rec.NativeType)
	if rec.Timestamp != "" && rec.Timestamp != ts {
		b = appendMember(b, "native_timestamp", rec.Timestamp)
	}
	if missing {
		b = append(b, `,"timestamp_missing":true`...)
	}
	if rec.Session != "" && rec.Session != im.session {
		b = appendMember(b, "native_session_id", rec.Session)
	}
	b = ev.payload(b)
	b = append(b, '}')
	// What the agent's log held in the clear is not stored again: a
	// key, a token or a password in the payload is replaced, and the
	// event says where.
	clean, secrets := redact.JSON(b[payloadAt:])
	if len(secrets) > 0 {
		b = append(b[:payloadAt], clean...)
		im.stats.Redacted += len(secrets)
	}
	b = append(b, `,"provenance":`...)
	b = append(b, im.provenance()...)
	if len(secrets) == 0 {
		b = append(b, `,"redaction":{"status":"clean","fields":[]}`...)
	} else {
		b = append(b, `,"redaction":{"status":"redacted","fields":[`...)
		for i, ptr := range secrets {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, "/payload"+ptr)
		}
		b = append(b, `]}`...)
	}
	if p := im.parentEvent(rec); p != "" {
		b = append(b, `,"parent_event_id":`...)
		b = appendString(b, p)
	}
	b = append(b, "}\n"...)
	im.buf = b
	if _, err := im.w.Write(b); err != nil && im.err == nil {
		im.err = err
	}
	im.seq++
	im.stats.Events++
}

// strictFlags are the parse flags that keep raw bytes out of a Trace file.
const strictFlags = jsonpeek.DuplicateKey | jsonpeek.LoneSurrogate | jsonpeek.InvalidUTF8 | jsonpeek.NumberOverflow |
	jsonpeek.TooDeep | jsonpeek.KeysUnchecked

// maxRawValue bounds one native value copied into an event, so that no
// event line exceeds the Trace reader's line limit (journal.DefaultMaxLineBytes).
const maxRawValue = 15 << 20

// text appends ,"key":"<the content as text>" (appendPartsText) when v
// exists: a string is copied as it is, an array of parts becomes the text
// the model reads, and with always an object (one part) too; when the text
// leaves out part of what the parts held (an image), the native value
// follows as native_<key>. Any other value, an over-long one, or one on a
// line a strict reader would refuse, goes in as raw writes it.
func (im *importer) text(b []byte, key string, v jsonpeek.Value, always bool) []byte {
	k := v.Kind()
	if !(k == jsonpeek.Array || always && k == jsonpeek.Object) || len(v.Raw()) > maxRawValue || im.flags&strictFlags != 0 {
		return im.raw(b, key, v)
	}
	b = appendKey(b, key)
	b = append(b, '"')
	b, lossy := appendPartsText(b, v)
	b = append(b, '"')
	if lossy {
		b = im.raw(b, "native_"+key, v)
	}
	return b
}

// raw appends ,"key":<the native value> when it exists. Bytes a strict
// reader would refuse (see package jsonpeek) go in as a string under
// key+"_text" instead, with invalid UTF-8 replaced.
func (im *importer) raw(b []byte, key string, v jsonpeek.Value) []byte {
	if !v.Exists() {
		return b
	}
	if n := len(v.Raw()); n > maxRawValue {
		b = appendKey(b, key+"_omitted_bytes")
		return strconv.AppendInt(b, int64(n), 10)
	}
	if im.flags&strictFlags != 0 {
		return appendMember(b, key+"_text", string(v.Raw()))
	}
	b = appendKey(b, key)
	return append(b, v.Raw()...)
}

// appendMember appends ,"key":"val". key is one of this package's own
// member names (ASCII letters and underscores), which need no escaping.
func appendMember(b []byte, key, val string) []byte {
	b = appendKey(b, key)
	return appendString(b, val)
}

// appendKey appends ,"key": for one of this package's own member names.
func appendKey(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// appendPlain appends s quoted as it is: s is one of this package's own
// names (an event type, an actor kind), a line-N id or a timestamp
// rfc3339 accepted, none of which holds a byte JSON escapes.
func appendPlain(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendString appends s as a JSON string in the golden layout: non-ASCII
// as is, controls escaped, invalid UTF-8 replaced with U+FFFD. Runs of
// bytes that need none of that are found 8 at a time and copied whole.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0 // s[start:i] is still to copy as it is
	for i := 0; i < len(s); {
		for i+8 <= len(s) {
			x := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
			if m := (x | (x - 0x20*lsb) | (x ^ '"'*lsb - lsb) | (x ^ '\\'*lsb - lsb)) & msb; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = append(b, "\uFFFD"...)
				start = i + 1
			}
			i += size
			continue
		}
		var esc string
		switch {
		case c == '"':
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\n':
			esc = `\n`
		case c == '\r':
			esc = `\r`
		case c == '\t':
			esc = `\t`
		case c < 0x20:
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			i++
			start = i
			continue
		default:
			i++ // a false hit of the word test
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Bit tricks for testing 8 bytes at once (as package jsonpeek does): a
// byte's top bit in the mask is set when it is >= 0x80, < 0x20, '"' or
// '\\'; the lowest set bit is exact.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// rfc3339 returns ts when it is an RFC 3339 date-time the Trace schema
// accepts (the strict subset: 'T', seconds, an optional fraction, 'Z' or
// an offset), else "".
func rfc3339(ts string) string {
	if len(ts) < 20 || ts[10] != 'T' {
		return ""
	}
	if ok, decided := utcDateTime(ts); decided {
		if ok {
			return ts
		}
		return ""
	}
	if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
		return ""
	}
	if ts[17:19] == "60" { // leap seconds: the schema's rules are narrower than Go's
		return ""
	}
	return ts
}

// utcDateTime decides rfc3339 for what agents write nearly always,
// YYYY-MM-DDTHH:MM:SS, a fraction or none, and Z, without time.Parse
// (5% of import's CPU on a Claude Code log): ok is whether it is a valid
// date-time; decided is false for any other form, which time.Parse
// decides.
func utcDateTime(ts string) (ok, decided bool) {
	n := len(ts)
	if n < 20 || ts[n-1] != 'Z' || ts[4] != '-' || ts[7] != '-' || ts[13] != ':' || ts[16] != ':' {
		return false, false
	}
	if n > 20 {
		if ts[19] != '.' || n == 21 {
			return false, false
		}
		for i := 20; i < n-1; i++ {
			if ts[i] < '0' || ts[i] > '9' {
				return false, false
			}
		}
	}
	var v [6]int // year, month, day, hour, minute, second
	for k, f := range [6][2]int{{0, 4}, {5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}} {
		for i := f[0]; i < f[1]; i++ {
			c := ts[i]
			if c < '0' || c > '9' {
				return false, false
			}
			v[k] = v[k]*10 + int(c-'0')
		}
	}
	month, day := v[1], v[2]
	if month < 1 || month > 12 || day < 1 || v[3] > 23 || v[4] > 59 || v[5] > 59 {
		return false, true
	}
	days := 31
	switch month {
	case 2:
		days = 28
		if y := v[0]; y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			days = 29
		}
	case 4, 6, 9, 11:
		days = 30
	}
	return day <= days, true
}
