package reducer

// The model-visible message history: what the reference runtime holds in
// memory and sends to the model on every model.request, and how to rebuild
// it, exactly, from a journal.
//
// The live runner (package scenarios) appends to a []Message as it emits
// events; History rebuilds the same slice from the events alone, replaying
// every context.compact with the same Compactor. Session resume builds on
// History: rebuild, find UnansweredCalls, persist an InterruptedToolResult
// for each, append the new user message, continue.
//
// History is self-checking. The journal records, at each model.request, how
// many messages the model saw and their roles, and at each context.compact
// the dropped count, the character counts and the SHA-256 of the dropped
// messages. History compares its rebuild with every one of those records
// and fails, naming the event and the field, at the first disagreement: a
// rebuilt history that is returned without error is the history the live
// run held (up to the contents the journal cannot see: the system prompt and
// the compaction summary, which come from HistoryConfig and are themselves
// covered by the recorded character counts and digest).

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Message roles, as the reference runtime names them.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one entry of the model-visible history, modelled on the
// reference runtime's Message(role, content, name=None, tool_call_id=None).
//
// Name and ToolCallID are set on tool messages (the tool's name and the id
// of the call answered); the empty string stands for Python's None, and the
// reference never sets either to an empty string.
//
// ToolCalls is carried on assistant messages: the calls that turn requested,
// in order. The reference keeps them only in its events, not on the message,
// so they are not part of the message's wire form (Wire) and count toward
// no character total or digest; they are here so that a rebuilt history
// says which calls still lack a tool message (UnansweredCalls).
type Message struct {
	Role       string
	Content    string
	Name       string
	ToolCallID string
	ToolCalls  []ToolCall
}

// ToolCall is one call a model turn requested: the reference's
// ToolCall(id, name, arguments). Arguments is a JSON object in the order the
// model wrote it.
//
// A call read back from a session file one message at a time (Transcript)
// carries its arguments as text instead, in ArgumentsJSON (what
// Arguments.AppendJSON would write), so that no tree of them is built;
// everywhere else Arguments is set and ArgumentsJSON is nil.
type ToolCall struct {
	ID            string
	Name          string
	Arguments     jsonv.Value
	ArgumentsJSON []byte
}

// ArgumentsValue returns Arguments (parsed from ArgumentsJSON when that is
// set), or {} when it is unset.
func (c ToolCall) ArgumentsValue() jsonv.Value {
	if c.ArgumentsJSON != nil {
		if v, err := jsonv.Parse(c.ArgumentsJSON); err == nil {
			return v
		}
	}
	if !c.Arguments.IsValid() {
		return jsonv.Obj()
	}
	return c.Arguments
}

// AppendArguments appends the arguments as ArgumentsValue().AppendJSON
// writes them, without parsing ArgumentsJSON.
func (c ToolCall) AppendArguments(dst []byte) []byte {
	switch {
	case c.ArgumentsJSON != nil:
		return append(dst, c.ArgumentsJSON...)
	case c.Arguments.IsValid():
		return c.Arguments.AppendJSON(dst)
	}
	return append(dst, "{}"...)
}

// argumentsLen is the length of the arguments as JSON; 0 when unset.
func (c ToolCall) argumentsLen() int {
	switch {
	case c.ArgumentsJSON != nil:
		return len(c.ArgumentsJSON)
	case c.Arguments.IsValid():
		return len(c.Arguments.AppendJSON(nil))
	}
	return 0
}

// Value returns the call as the reference writes it in a model.response
// payload: {"id","name","arguments"}.
func (c ToolCall) Value() jsonv.Value {
	return jsonv.Obj(
		jsonv.M("id", jsonv.Str(c.ID)),
		jsonv.M("name", jsonv.Str(c.Name)),
		jsonv.M("arguments", c.ArgumentsValue()),
	)
}

// withArgumentValue returns c with ArgumentsJSON parsed into Arguments.
func (c ToolCall) withArgumentValue() ToolCall {
	if c.ArgumentsJSON == nil {
		return c
	}
	v, _ := jsonv.Parse(c.ArgumentsJSON) // written by AppendOrdered: valid
	return ToolCall{ID: c.ID, Name: c.Name, Arguments: v}
}

// withArgumentValues returns m with its calls' ArgumentsJSON parsed into
// Arguments, as every []Message this package returns holds them.
func (m Message) withArgumentValues() Message {
	cloned := false
	for i, c := range m.ToolCalls {
		if c.ArgumentsJSON != nil {
			if !cloned {
				m.ToolCalls, cloned = slices.Clone(m.ToolCalls), true
			}
			m.ToolCalls[i] = c.withArgumentValue()
		}
	}
	return m
}

// Chars is the message's length as the reference measures it: Python's
// len(content), which counts code points, not bytes.
func (m Message) Chars() int { return utf8.RuneCountInString(m.Content) }

// Wire returns the message as the reference's Message.to_wire():
// {"role","content"} plus "name" and "tool_call_id" when set. ToolCalls are
// not part of it.
func (m Message) Wire() jsonv.Value {
	ms := []jsonv.Member{jsonv.M("role", jsonv.Str(m.Role)), jsonv.M("content", jsonv.Str(m.Content))}
	if m.Name != "" {
		ms = append(ms, jsonv.M("name", jsonv.Str(m.Name)))
	}
	if m.ToolCallID != "" {
		ms = append(ms, jsonv.M("tool_call_id", jsonv.Str(m.ToolCallID)))
	}
	return jsonv.Obj(ms...)
}

// TotalChars sums Chars over msgs: the reference's
// sum(len(message.content) for message in messages).
func TotalChars(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += m.Chars()
	}
	return n
}

// Roles lists the role of each message, as a model.request payload does.
func Roles(msgs []Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role
	}
	return out
}

// CloneMessages returns a copy of msgs that shares no slice with it.
func CloneMessages(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
		out[i] = m
	}
	return out
}

// ToolResultContent is the content of the tool message the reference
// appends for a tool.result payload: json.dumps(value, ensure_ascii=False,
// sort_keys=True) with Python's default separators ", " and ": ". value is
// the payload's "result" when ok is true, else {"ok": false, "error": ...,
// "error_type": ...}.
func ToolResultContent(payload jsonv.Value) string {
	var c jsonv.Canonicalizer
	f := payloadText(payload.AppendJSON(nil)).fields("ok", "result", "error", "error_type")
	var scratch []byte
	return toolResultText(&c, &scratch, f[0], f[1], f[2], f[3])
}

// AppendPySpaced appends v as Python's json.dumps(v, ensure_ascii=False,
// sort_keys=True) writes it with the default separators: ", " between items
// and ": " after keys. (jsonv's encoders are the compact form.)
func AppendPySpaced(dst []byte, v jsonv.Value) []byte {
	switch v.Kind() {
	case jsonv.Array:
		dst = append(dst, '[')
		for i, e := range v.Elems() {
			if i > 0 {
				dst = append(dst, ',', ' ')
			}
			dst = AppendPySpaced(dst, e)
		}
		return append(dst, ']')
	case jsonv.Object:
		ms := append([]jsonv.Member(nil), v.Members()...)
		// Bytewise order of UTF-8 is code point order: Python's sort_keys.
		sort.SliceStable(ms, func(i, j int) bool { return ms[i].Key < ms[j].Key })
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',', ' ')
			}
			dst = jsonv.AppendPyString(dst, m.Key)
			dst = append(dst, ':', ' ')
			dst = AppendPySpaced(dst, m.Value)
		}
		return append(dst, '}')
	}
	return v.AppendJSON(dst)
}

// InterruptedToolError is the text of the synthesized tool output that
// session resume records for a tool call that never got a result (chapter
// 20 of the TypeScript harness: its SESSION_RESUME_INTERRUPTED repair).
const InterruptedToolError = "Error [SESSION_RESUME_INTERRUPTED]: This tool call did not finish before the previous run on this session ended, so no output was recorded. Treat it as not executed and decide whether to retry it."

// InterruptedToolErrorType is the error_type of that synthesized result, in
// the style of the reference's exception class names (ToolValidationError,
// ApprovalDenied).
const InterruptedToolErrorType = "SessionResumeInterrupted"

// InterruptedToolResult is the tool.result payload that repairs an
// unanswered call: {tool_call_id, tool, ok: false, error, error_type}, the
// reference's failure shape. Appending it to the journal makes History
// append the matching tool message, so a later resume finds nothing left to
// repair.
func InterruptedToolResult(call ToolCall) jsonv.Value {
	return jsonv.Obj(
		jsonv.M("tool_call_id", jsonv.Str(call.ID)),
		jsonv.M("tool", jsonv.Str(call.Name)),
		jsonv.M("ok", jsonv.BoolValue(false)),
		jsonv.M("error", jsonv.Str(InterruptedToolError)),
		jsonv.M("error_type", jsonv.Str(InterruptedToolErrorType)),
	)
}

// UnansweredCalls returns, in order, the tool calls of assistant messages
// that no later tool message answers (matched by tool_call_id, each tool
// message answering the earliest open call with its id). A run interrupted
// after tool.request and before tool.result leaves exactly those. Calls
// whose assistant message was compacted away are not reported: the model no
// longer sees them.
func UnansweredCalls(history []Message) []ToolCall {
	var t callTracker
	for _, m := range history {
		t.see(m)
	}
	return t.open
}

// callTracker is UnansweredCalls one message at a time: open holds the
// calls no tool message has answered yet, in order.
type callTracker struct {
	open []ToolCall
}

func (t *callTracker) see(m Message) {
	switch m.Role {
	case RoleAssistant:
		t.open = append(t.open, m.ToolCalls...)
	case RoleTool:
		for i := range t.open {
			if t.open[i].ID == m.ToolCallID {
				t.open = slices.Delete(t.open, i, i+1)
				break
			}
		}
	}
}

// HistoryConfig is what the live run held that its journal does not record.
// The reference's events carry neither the system prompt nor the text of a
// compaction summary (only counts and a digest), so rebuilding needs the
// same agent configuration the run used.
type HistoryConfig struct {
	// SystemPrompt opens the history when non-empty, as the runtime's
	// system message does.
	SystemPrompt string
	// Compactor replays context.compact events. A journal with a
	// context.compact event cannot be rebuilt without it.
	Compactor *Compactor
}

// What a history rebuild lacked, when that is why it failed: a
// HistoryError whose Missing is one of these matches it with errors.Is,
// so that a caller can say how to supply it (the CLI names its flag).
var (
	// ErrNoSystemPrompt: the journal's model.request shows a system
	// message, and HistoryConfig.SystemPrompt is empty.
	ErrNoSystemPrompt = errors.New("the journal does not record the system prompt")
	// ErrNoCompactor: the journal holds a context.compact, and
	// HistoryConfig.Compactor is nil.
	ErrNoCompactor = errors.New("the journal does not record the compactor's settings")
)

// HistoryError says where a journal and its rebuilt history disagree.
type HistoryError struct {
	Sequence int64
	EventID  string
	Type     string
	Pointer  string // the payload field that disagrees, as a JSON pointer
	Msg      string
	// Missing is ErrNoSystemPrompt or ErrNoCompactor when the rebuild
	// lacked that configuration; nil otherwise.
	Missing error
}

// Unwrap returns Missing.
func (e *HistoryError) Unwrap() error { return e.Missing }

func (e *HistoryError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "history: %s %s (sequence %d)", textsafe.Quote(e.Type), textsafe.Quote(e.EventID), e.Sequence)
	if e.Pointer != "" {
		fmt.Fprintf(&b, " at %s", e.Pointer)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// History rebuilds the model-visible history at the end of events: the
// slice the live runner held after emitting the last of them. events may
// span several runs of one session (a resumed session's runs, in order);
// the history simply continues across them.
//
// Rules, mirroring the reference runtime:
//   - the history opens with the system message when cfg.SystemPrompt is set;
//   - user.message appends a user message;
//   - model.response appends one assistant message per turn: a whole
//     response at once (content, with its tool_calls), a streamed response at
//     its final chunk (accumulated); non-final chunks append nothing;
//   - tool.request adds its call to the turn's assistant message when the
//     response did not list it (streamed responses list none);
//   - tool.result appends a tool message (name = tool, tool_call_id, content
//     = ToolResultContent);
//   - context.compact replaces the history by cfg.Compactor's compaction and
//     checks every recorded number and the digest;
//   - model.request checks message_count and roles against the rebuild;
//   - context.prune is not supported (no scenario uses a context budget) and
//     is an error; every other event type leaves the history unchanged.
func History(events []journal.Event, cfg HistoryConfig) ([]Message, error) {
	b := NewHistoryBuilder(cfg)
	for i := range events {
		if err := b.Apply(&events[i]); err != nil {
			return nil, err
		}
	}
	return b.Messages(), nil
}

// pyStrip is Python's str.strip() with no argument: it removes leading and
// trailing characters for which str.isspace() is true. That is Go's
// unicode.IsSpace plus the information separators U+001C..U+001F.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
	})
}
