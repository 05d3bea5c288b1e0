// Package fakemodel is a scripted, deterministic model double: the
// reference's ScriptedModel. It answers each request with the next turn of
// its script, needs no network or key, and remembers every history it was
// shown so tests can check what the model saw.
//
// A turn answers with content, with tool calls (optionally with content
// too), or as a stream of chunks. When the script is used up the model
// answers ExhaustedText and asks to stop, as the reference does.
package fakemodel

import (
	"strings"

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
