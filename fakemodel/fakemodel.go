// Package fakemodel is a scripted, deterministic model double: the
// reference's ScriptedModel. It answers each request with the next turn of
// its script, needs no network or key, and remembers every history it was
// shown so tests can check what the model saw.
//
// A turn answers with content, with tool calls (optionally with content
// too), or as a stream of chunks. When the script is used up the model
// answers ExhaustedText and asks to stop, as the reference does.
//
// A turn may also carry a Fault: what the scripted model server
// (package modelserver) serves instead of the answer, a broken connection,
// an error status, a stall or a malformed body, so that an agent's retry
// and resume paths can be scripted ("fail once, then answer"). A faulted
// turn is used like any other: the request after it gets the next turn.
// This package and the in-process scenario runner, which have no wire,
// answer a faulted turn as scripted and ignore its Fault.
package fakemodel

import (
	"strconv"
	"strings"
	"time"

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// ID is the model id the reference's scripted model reports; runners put it
// in actor.id of model events and in provenance.model.
const ID = "scripted-model-v1"

// ExhaustedText is the answer of a model whose script is used up.
const ExhaustedText = "The scripted model has no remaining turns."

// Turn is one scripted answer: the reference's ModelTurn.
//
// With Chunks the turn is streamed: the runner emits one model.response per
// chunk and the assistant message is the chunks joined. Without, the turn is
// whole: one model.response with Content, Stop and ToolCalls. ToolCalls are
// executed after either kind. Stop is recorded, not obeyed: the runner ends
// the session when a turn requests no tool call, whatever Stop says.
type Turn struct {
	Content   string
	Chunks    []string
	ToolCalls []reducer.ToolCall
	Stop      bool
	// Fault, when set, is served by the model server instead of the
	// answer (for a disconnect, a stall or a malformed stream, after the
	// first events of the answer rendered as usual); nil answers.
	Fault *Fault
}

// Kinds of Fault.
const (
	// FaultDisconnect: the connection breaks mid-answer. A stream is cut
	// after AfterChunks of its events, a whole answer after its headers
	// and part of its body; the answer never completes.
	FaultDisconnect = "disconnect"
	// FaultStatus: the provider's own error answer, with Status, its
	// error body and its retry headers.
	FaultStatus = "status"
	// FaultStall: the headers (and, streamed, the first AfterChunks
	// events) are sent, or with BeforeHeaders nothing at all, then
	// nothing for For; then the connection is closed without completing.
	FaultStall = "stall"
	// FaultMalformed: a stream whose event after the first AfterChunks
	// carries data that is not valid JSON, then its end; a whole answer
	// whose body is not valid JSON.
	FaultMalformed = "malformed"
)

// Fault is a failure the model server serves instead of a turn's answer.
// Which fields count depends on Kind; the others are zero.
type Fault struct {
	Kind string // FaultDisconnect, FaultStatus, FaultStall or FaultMalformed
	// AfterChunks is, for a disconnect, a stall or a malformed stream, how
	// many events of the streamed answer are sent first (0: none, right
	// after the headers). The answer's last event is never sent.
	AfterChunks int
	// Status is the HTTP status of a status fault (400 to 599).
	Status int
	// RetryAfter is the delay a status fault's answer asks for
	// (retry-after and retry-after-ms headers); nil sends none.
	RetryAfter *time.Duration
	// ShouldRetry, when set, is the x-should-retry header of a status
	// fault, which the official SDKs obey over the status.
	ShouldRetry *bool
	// Message replaces the API's own error message of a status fault.
	Message string
	// For is how long a stall lasts (it ends early when the client goes
	// away or the server stops).
	For time.Duration
	// BeforeHeaders makes a stall send nothing at all, not even the
	// status line: what a client's request timeout catches.
	BeforeHeaders bool
}

// Streamed reports whether the turn is a stream of chunks.
func (t Turn) Streamed() bool { return len(t.Chunks) > 0 }

// Text is the assistant message the turn produces: the chunks joined when
// streamed, else Content (the reference's resolved_content).
func (t Turn) Text() string {
	if t.Streamed() {
		return strings.Join(t.Chunks, "")
	}
	return t.Content
}

// Model answers requests from a script. It is not safe for concurrent use.
type Model struct {
	turns    []Turn
	next     int
	requests [][]reducer.Message
}

// New returns a model that answers with turns, in order. The slice is
// copied.
func New(turns []Turn) *Model {
	return &Model{turns: append([]Turn(nil), turns...)}
}

// Respond records the history it is shown and returns the next scripted
// turn, or Exhausted() once the script is used up. tools (the names
// offered) are ignored, as in the reference.
func (m *Model) Respond(history []reducer.Message, tools []string) Turn {
	_ = tools
	m.requests = append(m.requests, reducer.CloneMessages(history))
	return m.Take()
}

// Take is the next scripted turn (Exhausted when none is left), without
// keeping a history for Requests: for a caller that keeps its own record
// of what the model was asked (the scripted model server's trace).
func (m *Model) Take() Turn {
	if m.next >= len(m.turns) {
		return Exhausted()
	}
	t := m.turns[m.next]
	m.next++
	return t
}

// Exhausted is the turn a model with no script left answers.
func Exhausted() Turn { return Turn{Content: ExhaustedText, Stop: true} }

// Remaining is how many scripted turns have not been used.
func (m *Model) Remaining() int { return len(m.turns) - m.next }

// Requests returns a copy of every history the model was shown, in order.
func (m *Model) Requests() [][]reducer.Message {
	out := make([][]reducer.Message, len(m.requests))
	for i, r := range m.requests {
		out[i] = reducer.CloneMessages(r)
	}
	return out
}

// ResponsePayloads returns the model.response payloads a runner records
// when t answers turn (1-based), as the reference runtime writes them: for
// a whole turn one {turn, content, stop, tool_calls}; for a streamed turn
// one {turn, delta, accumulated, final, tool_calls: []} per chunk, the last
// with final true.
func (t Turn) ResponsePayloads(turn int) []jsonv.Value {
	if !t.Streamed() {
		calls := make([]jsonv.Value, len(t.ToolCalls))
		for i, c := range t.ToolCalls {
			calls[i] = c.Value()
		}
		return []jsonv.Value{jsonv.Obj(
			jsonv.M("turn", jsonv.Int(int64(turn))),
			jsonv.M("content", jsonv.Str(t.Content)),
			jsonv.M("stop", jsonv.BoolValue(t.Stop)),
			jsonv.M("tool_calls", jsonv.Arr(calls...)),
		)}
	}
	out := make([]jsonv.Value, len(t.Chunks))
	acc := ""
	for i, chunk := range t.Chunks {
		acc += chunk
		out[i] = jsonv.Obj(
			jsonv.M("turn", jsonv.Int(int64(turn))),
			jsonv.M("delta", jsonv.Str(chunk)),
			jsonv.M("accumulated", jsonv.Str(acc)),
			jsonv.M("final", jsonv.BoolValue(i == len(t.Chunks)-1)),
			jsonv.M("tool_calls", jsonv.Arr()),
		)
	}
	return out
}

// ResponseCount is how many model.response payloads ResponsePayloads
// returns.
func (t Turn) ResponseCount() int {
	if !t.Streamed() {
		return 1
	}
	return len(t.Chunks)
}

// AppendResponsePayload appends payload i of ResponsePayloads(turn) as
// its AppendJSON writes it, building no Values: the model server writes
// these into every exchange's trace lines.
func (t Turn) AppendResponsePayload(dst []byte, turn, i int) []byte {
	dst = jsonv.AppendInt(append(dst, `{"turn":`...), int64(turn))
	if !t.Streamed() {
		dst = jsonv.AppendPyString(append(dst, `,"content":`...), t.Content)
		dst = strconv.AppendBool(append(dst, `,"stop":`...), t.Stop)
		dst = append(dst, `,"tool_calls":[`...)
		for k, c := range t.ToolCalls {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = jsonv.AppendPyString(append(dst, `{"id":`...), c.ID)
			dst = jsonv.AppendPyString(append(dst, `,"name":`...), c.Name)
			dst = append(dst, `,"arguments":`...)
			if c.ArgumentsJSON != nil {
				dst = c.ArgumentsValue().AppendJSON(dst) // its fallbacks, when the text does not parse
			} else {
				dst = c.AppendArguments(dst)
			}
			dst = append(dst, '}')
		}
		return append(dst, "]}"...)
	}
	dst = jsonv.AppendPyString(append(dst, `,"delta":`...), t.Chunks[i])
	// The accumulated text is the chunks' escapes joined: AppendPyString
	// escapes byte by byte, so no joined copy of the chunks is needed.
	dst = append(dst, `,"accumulated":`...)
	for k, chunk := range t.Chunks[:i+1] {
		at := len(dst)
		dst = jsonv.AppendPyString(dst, chunk)
		if k > 0 {
			dst = append(dst[:at], dst[at+1:]...) // the chunk's opening quote
		}
		if k < i {
			dst = dst[:len(dst)-1] // its closing quote
		}
	}
	dst = strconv.AppendBool(append(dst, `,"final":`...), i == len(t.Chunks)-1)
	return append(dst, `,"tool_calls":[]}`...)
}
