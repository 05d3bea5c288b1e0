package reducer

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// HistoryBuilder rebuilds the model-visible history one event at a time,
// with History's rules (History is a loop over it). Its state can be kept
// with a session checkpoint (see resume_checkpoint.go), so that a resume
// applies only the events after it.
//
// A builder that reads a session file (a resume) keeps the messages it
// reads in memory up to heldBytes of them (what a compacted history needs),
// and beyond that keeps no message text: each further message is a
// reference to the line of the event it came from (an offset and a few
// numbers, 40 bytes), read back from the file when the message is needed.
// So the history of a session costs at most heldBytes plus a few dozen
// bytes per message, however long the messages are, and one message at a
// time when it is read. A builder fed events in memory (Apply) keeps all
// its messages.
type HistoryBuilder struct {
	cfg  HistoryConfig
	ents []entry
	// adds are the calls tool.request events added to a message (streamed
	// responses list none), by the index of the message, in order.
	adds []addedCall
	// open is the index of the current turn's assistant message, or -1;
	// openIDs are the IDs of its tool calls.
	open    int
	openIDs map[string]struct{}
	// size is Size: the bytes the messages hold; held, those of the
	// messages and added calls kept in memory.
	size, held int
	// src reads back the events that reference entries name; nil when
	// there are none.
	src     eventSource
	canon   jsonv.Canonicalizer // scratch
	text    []byte              // scratch: an event's payload (Apply)
	scratch []byte              // scratch: a tool result's canonical encoding
}

// eventSource reads an event back by the offset of its line: its type and
// its payload's JSON text, valid until the next call.
type eventSource interface {
	event(off int64) (typ string, payload []byte, err error)
}

// entry is one message: the message itself, or a reference to the event
// line it was read from (msg nil), with the numbers the rules need without
// reading it back.
type entry struct {
	msg   *Message
	off   int64 // a reference: the offset of the event's line
	size  int   // messageBytes of the message
	chars int   // a reference: its Chars
	role  uint8 // a reference: its role, an index into roleNames
}

// addedCall is a call a tool.request added to message ent: a reference
// to the tool.request's line, or the call itself.
type addedCall struct {
	ent  int   // the message's index
	off  int64 // the tool.request's line; < 0: call holds it
	call *ToolCall
}

var roleNames = [...]string{RoleSystem, RoleUser, RoleAssistant, RoleTool}

// typeOfRole is the event type a reference entry of each role was read
// from.
var typeOfRole = [...]string{"", "user.message", "model.response", "tool.result"}

func roleIndex(role string) (uint8, bool) {
	for i, r := range roleNames {
		if r == role {
			return uint8(i), true
		}
	}
	return 0, false
}

func (e *entry) roleName() string {
	if e.msg != nil {
		return e.msg.Role
	}
	return roleNames[e.role]
}

func (e *entry) charCount() int {
	if e.msg != nil {
		return e.msg.Chars()
	}
	return e.chars
}

// NewHistoryBuilder starts the history of a session: the system message
// when cfg.SystemPrompt is set.
func NewHistoryBuilder(cfg HistoryConfig) *HistoryBuilder {
	b := &HistoryBuilder{cfg: cfg, open: -1}
	if cfg.SystemPrompt != "" {
		b.push(Message{Role: RoleSystem, Content: cfg.SystemPrompt}, -1)
	}
	return b
}

// Size returns the bytes the history's messages hold: their roles,
// contents, names and IDs, and their tool calls' IDs, names and arguments
// as JSON. It is what keeping the history costs (a session checkpoint keeps
// it only up to a limit, see resume_checkpoint.go).
func (b *HistoryBuilder) Size() int { return b.size }

// Len returns the number of messages.
func (b *HistoryBuilder) Len() int { return len(b.ents) }

// push appends m: a reference to the event line at off when off >= 0 (and
// m's role is one a line gives), else m itself.
func (b *HistoryBuilder) push(m Message, off int64) {
	e := entry{size: messageBytes(m)}
	if r, ok := roleIndex(m.Role); ok && off >= 0 && r > 0 && b.held+e.size > heldBytes {
		e.off, e.role, e.chars = off, r, m.Chars()
	} else {
		e.msg = &m
		b.held += e.size
	}
	b.ents = append(b.ents, e)
	b.size += e.size
}

// heldBytes bounds the bytes of the messages a builder that reads a file
// keeps in memory (see HistoryBuilder).
const heldBytes = 4 << 20

func messageBytes(m Message) int {
	n := len(m.Role) + len(m.Content) + len(m.Name) + len(m.ToolCallID)
	for _, c := range m.ToolCalls {
		n += callBytes(c)
	}
	return n
}

func callBytes(c ToolCall) int {
	return len(c.ID) + len(c.Name) + c.argumentsLen()
}

// Messages returns the history so far, each message read back when the
// builder keeps a reference to it, tool call arguments as Values (as
// History gives them). It shares nothing with the builder.
//
// A builder that reads a session file reads every message back: an error
// doing so (the file changed under it) ends the list there.
func (b *HistoryBuilder) Messages() []Message {
	out, _ := b.messages()
	return out
}

// each calls fn with every message in order, tool call arguments as text
// (ArgumentsJSON) where the builder read them from a file. It stops at the
// first error, of fn or of reading a message back.
func (b *HistoryBuilder) each(fn func(i int, m Message) error) error {
	for i := range b.ents {
		m, err := b.message(i, true)
		if err != nil {
			return err
		}
		if err := fn(i, m); err != nil {
			return err
		}
	}
	return nil
}

// messages returns every message as Messages does, or the first error
// reading one back.
func (b *HistoryBuilder) messages() ([]Message, error) {
	var out []Message // nil for no message, as History always gave it
	err := b.each(func(_ int, m Message) error {
		out = append(out, m.withArgumentValues())
		return nil
	})
	return out, err
}

// eachCalling calls fn with every assistant and tool message in order (the
// messages UnansweredCalls looks at), reading back no other, and those
// without their content.
func (b *HistoryBuilder) eachCalling(fn func(m Message)) error {
	for i := range b.ents {
		if r := b.ents[i].roleName(); r != RoleAssistant && r != RoleTool {
			continue
		}
		m, err := b.message(i, false)
		if err != nil {
			return err
		}
		fn(m)
	}
	return nil
}

// errChanged: a line a reference names no longer holds the event it was
// read from.
var errChanged = errors.New("the session file no longer holds the event the history was read from")

// message returns message i, read back when it is a reference (without
// its content unless withContent). Its ToolCalls are its own.
func (b *HistoryBuilder) message(i int, withContent bool) (Message, error) {
	e := &b.ents[i]
	var m Message
	if e.msg != nil {
		m = *e.msg
		m.ToolCalls = slices.Clone(m.ToolCalls)
	} else {
		if b.src == nil {
			return Message{}, errChanged
		}
		typ, p, err := b.src.event(e.off)
		if err != nil {
			return Message{}, err
		}
		var ok bool
		if typ == typeOfRole[e.role] {
			m, ok, err = b.messageOf(typ, payloadText(p), withContent)
		}
		if err != nil || !ok || m.Role != roleNames[e.role] {
			return Message{}, fmt.Errorf("%w (the %s at offset %d)", errChanged, typeOfRole[e.role], e.off)
		}
	}
	k := sort.Search(len(b.adds), func(k int) bool { return b.adds[k].ent >= i })
	for ; k < len(b.adds) && b.adds[k].ent == i; k++ {
		a := b.adds[k]
		if a.call != nil {
			m.ToolCalls = append(m.ToolCalls, *a.call)
			continue
		}
		typ, p, err := b.src.event(a.off)
		if err != nil {
			return Message{}, err
		}
		if typ != "tool.request" {
			return Message{}, fmt.Errorf("%w (the tool.request at offset %d)", errChanged, a.off)
		}
		m.ToolCalls = append(m.ToolCalls, b.requestCall(payloadText(p)))
	}
	return m, nil
}

// Clone returns a builder that shares nothing with b but the source it
// reads references back from.
func (b *HistoryBuilder) Clone() *HistoryBuilder {
	c := &HistoryBuilder{cfg: b.cfg, ents: slices.Clone(b.ents), adds: slices.Clone(b.adds), open: b.open,
		openIDs: make(map[string]struct{}, len(b.openIDs)), size: b.size, held: b.held, src: b.src}
	for id := range b.openIDs {
		c.openIDs[id] = struct{}{}
	}
	return c
}

// restore makes msgs the history, open the index of the current turn's
// assistant message (or -1): the state a checkpoint kept.
func (b *HistoryBuilder) restore(msgs []Message, open int) {
	b.ents, b.adds, b.size, b.held, b.open, b.openIDs = nil, nil, 0, 0, -1, nil
	for _, m := range msgs {
		b.push(m, -1)
	}
	if open >= 0 {
		b.setOpen(open, msgs[open].ToolCalls)
	}
}

func (b *HistoryBuilder) setOpen(i int, calls []ToolCall) {
	b.open = i
	b.openIDs = make(map[string]struct{}, len(calls))
	for _, c := range calls {
		b.openIDs[c.ID] = struct{}{}
	}
}

func (b *HistoryBuilder) closeTurn() { b.open, b.openIDs = -1, nil }

// Apply applies the next event (see History for the rules). On error the
// builder must not be used further.
func (b *HistoryBuilder) Apply(e *journal.Event) error {
	b.text = e.Payload.AppendJSON(b.text[:0])
	return b.apply(e, payloadText(b.text), -1)
}

// apply applies the event e whose payload's text is p. off >= 0 is the
// offset of its line in the source: the messages it adds are kept as
// references to it. e's strings may alias a buffer: nothing keeps them.
func (b *HistoryBuilder) apply(e *journal.Event, p payloadText, off int64) error {
	fail := func(pointer, format string, args ...any) error {
		return &HistoryError{Sequence: e.Sequence, EventID: strings.Clone(e.EventID), Type: strings.Clone(e.Type), Pointer: pointer, Msg: fmt.Sprintf(format, args...)}
	}
	switch e.Type {
	case "user.message", "tool.result":
		m, _, _ := b.messageOf(e.Type, p, true)
		b.push(m, off)
		if e.Type == "user.message" {
			b.closeTurn()
		}
	case "model.request":
		if err := b.checkRequest(p, fail); err != nil {
			return err
		}
		b.closeTurn()
	case "model.response":
		m, ok, err := b.messageOf(e.Type, p, true)
		if err != nil {
			return fail(err.(*callError).pointer, "%s", err.(*callError).msg)
		}
		if ok {
			b.push(m, off)
			b.setOpen(len(b.ents)-1, m.ToolCalls)
		}
	case "tool.request":
		call := b.requestCall(p)
		if b.open < 0 {
			return fail("/tool_call_id", "tool call %q follows no assistant message of the current turn", call.ID)
		}
		if _, listed := b.openIDs[call.ID]; !listed {
			b.addCall(call, off)
		}
	case "context.compact":
		if b.cfg.Compactor == nil {
			err := fail("", "the journal compacts its context here; rebuilding it needs the compactor settings the run used (trigger, kept messages, summary)")
			err.(*HistoryError).Missing = ErrNoCompactor
			return err
		}
		plan, err := b.cfg.Compactor.plan(builderMessages{b})
		if errors.Is(err, ErrNothingToCompact) || errors.Is(err, ErrEmptySummary) {
			return fail("", "%v", err)
		}
		if err != nil {
			return err // a message could not be read back
		}
		if err := histCheckCompaction(plan.Compaction, p, fail); err != nil {
			return err
		}
		b.compacted(plan)
	case "context.prune":
		return fail("", "context.prune cannot be replayed: the context budget is not modelled")
	}
	return nil
}

// addCall adds a tool.request's call to the open assistant message: as a
// reference to its line when off >= 0.
func (b *HistoryBuilder) addCall(call ToolCall, off int64) {
	a := addedCall{ent: b.open, off: off}
	n := callBytes(call)
	if off < 0 || b.held+n <= heldBytes {
		a.call = &call
		b.held += n
	}
	b.adds = append(b.adds, a)
	b.ents[b.open].size += n
	b.size += n
	b.openIDs[call.ID] = struct{}{}
}

// messageOf reads the message an event of type typ with payload p adds
// (its Content only withContent): ok is false when it adds none (a
// streamed response's chunk before the final one). A model.response whose
// tool_calls hold a non-object is a *callError.
func (b *HistoryBuilder) messageOf(typ string, p payloadText, withContent bool) (m Message, ok bool, err error) {
	switch typ {
	case "user.message":
		m = Message{Role: RoleUser}
		if withContent {
			m.Content = p.fields("content")[0].text()
		}
		return m, true, nil
	case "tool.result":
		f := p.fields("ok", "result", "error", "error_type", "tool", "tool_call_id")
		m = Message{Role: RoleTool, Name: f[4].text(), ToolCallID: f[5].text()}
		if withContent {
			m.Content = toolResultText(&b.canon, &b.scratch, f[0], f[1], f[2], f[3])
		}
		return m, true, nil
	case "model.response":
		f := p.fields("content", "final", "accumulated", "tool_calls")
		content := f[0]
		if content == nil {
			if !f[1].isTrue() {
				return Message{}, false, nil
			}
			content = f[2]
		}
		calls, err := b.histCalls(f[3])
		if err != nil {
			return Message{}, false, err
		}
		m = Message{Role: RoleAssistant, ToolCalls: calls}
		if withContent {
			m.Content = content.text()
		}
		return m, true, nil
	}
	return Message{}, false, nil
}

// requestCall is the call a tool.request payload names.
func (b *HistoryBuilder) requestCall(p payloadText) ToolCall {
	f := p.fields("tool_call_id", "tool", "arguments")
	return b.call(f[0], f[1], f[2])
}

// call is a tool call with these members (nil when absent).
func (b *HistoryBuilder) call(id, name, args payloadText) ToolCall {
	c := ToolCall{ID: id.text(), Name: name.text()}
	if args != nil {
		c.ArgumentsJSON = args.ordered(&b.canon)
	}
	return c
}

// callError is a model.response's tool call that is not an object.
type callError struct{ pointer, msg string }

func (e *callError) Error() string { return e.msg }

// histCalls reads a model.response payload's tool_calls (nil when it has
// none).
func (b *HistoryBuilder) histCalls(tc payloadText) ([]ToolCall, error) {
	var out []ToolCall
	var err error
	i := 0
	tc.elems(func(c payloadText) bool {
		if k := c.kind(); k != jsonv.Object {
			err = &callError{"/payload/tool_calls/" + strconv.Itoa(i), fmt.Sprintf("a tool call is a JSON %s, not an object", k)}
			return false
		}
		f := c.fields("id", "name", "arguments")
		out = append(out, b.call(f[0], f[1], f[2]))
		i++
		return true
	})
	return out, err
}

// checkRequest compares a model.request's record of what the model saw
// with the rebuilt history.
func (b *HistoryBuilder) checkRequest(p payloadText, fail func(string, string, ...any) error) error {
	f := p.fields("roles", "message_count")
	if r := f[0]; r != nil {
		var want []string
		r.elems(func(x payloadText) bool {
			want = append(want, x.scalar().Text())
			return true
		})
		got := b.roles()
		if strings.Join(want, ",") != strings.Join(got, ",") {
			err := fail("/payload/roles", "the model saw roles [%s], the rebuilt history has [%s]", textsafe.Quote(strings.Join(want, ",")), strings.Join(got, ","))
			if len(want) > 0 && want[0] == RoleSystem && (len(got) == 0 || got[0] != RoleSystem) {
				he := err.(*HistoryError)
				he.Msg += "; the journal does not record the system prompt: give the one the run used"
				he.Missing = ErrNoSystemPrompt
			}
			return err
		}
	}
	if f[1] != nil {
		n := f[1].scalar()
		if got, isInt := n.Int64(); !isInt || got != int64(len(b.ents)) {
			return fail("/payload/message_count", "the model saw %s messages, the rebuilt history has %d (roles %s)", textsafe.Quote(n.Text()), len(b.ents), strings.Join(b.roles(), ","))
		}
	}
	return nil
}

func (b *HistoryBuilder) roles() []string {
	out := make([]string, len(b.ents))
	for i := range b.ents {
		out[i] = b.ents[i].roleName()
	}
	return out
}

func histCheckCompaction(c Compaction, p payloadText, fail func(string, string, ...any) error) error {
	ints := []struct {
		key string
		got int
	}{
		{"dropped_messages", c.Dropped},
		{"original_chars", c.OriginalChars},
		{"final_chars", c.FinalChars},
		{"summary_chars", c.SummaryChars()},
	}
	keys := make([]string, len(ints))
	for i, f := range ints {
		keys[i] = f.key
	}
	vals := p.fields(append(keys, "source_sha256")...)
	for i, f := range ints {
		if vals[i] == nil {
			continue
		}
		v := vals[i].scalar()
		if n, isInt := v.Int64(); !isInt || n != int64(f.got) {
			return fail("/payload/"+f.key, "the live run recorded %s, the rebuild gives %d", textsafe.Quote(v.Text()), f.got)
		}
	}
	if sum := vals[len(ints)]; sum != nil && sum.scalar().Text() != c.SourceSHA256 {
		return fail("/payload/source_sha256", "the live run compacted messages with digest %s, the rebuilt history's dropped messages have %s", textsafe.Quote(sum.scalar().Text()), c.SourceSHA256)
	}
	return nil
}

// builderMessages is the builder's history as Compactor.plan reads it.
type builderMessages struct{ b *HistoryBuilder }

func (s builderMessages) Len() int                       { return len(s.b.ents) }
func (s builderMessages) Role(i int) string              { return s.b.ents[i].roleName() }
func (s builderMessages) Chars(i int) int                { return s.b.ents[i].charCount() }
func (s builderMessages) Message(i int) (Message, error) { return s.b.message(i, true) }

// compacted replaces the history by the plan's: the system message (when
// there is one), the checkpoint message and the kept recent messages.
func (b *HistoryBuilder) compacted(p compactionPlan) {
	var ents []entry
	if p.system {
		ents = append(ents, b.ents[0])
	}
	ents = append(ents, entry{msg: &p.checkpoint, size: messageBytes(p.checkpoint)})
	shift := len(ents) - p.recent
	ents = append(ents, b.ents[p.recent:]...)
	var adds []addedCall
	for _, a := range b.adds {
		if a.ent >= p.recent {
			a.ent += shift
			adds = append(adds, a)
		}
	}
	b.ents, b.adds = ents, adds
	b.size, b.held = 0, 0
	for i := range ents {
		b.size += ents[i].size
		if ents[i].msg != nil {
			b.held += messageBytes(*ents[i].msg)
		}
	}
	for _, a := range adds {
		if a.call != nil {
			b.held += callBytes(*a.call)
		}
	}
	b.closeTurn()
}
