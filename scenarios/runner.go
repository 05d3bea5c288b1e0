package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
	"github.com/tracecheck/tracecheck/reducer"
)

// ClockStart is the reference's fixed clock: an event's timestamp is
// ClockStart plus its sequence in seconds. In a session of several runs
// (a scenario with resumes) the clock runs across the whole session: an
// event's timestamp is ClockStart plus its position in the session file,
// which for the first run is its sequence.
var ClockStart = time.Date(2026, 8, 10, 0, 0, 0, 0, time.UTC)

// Stamp is the fixed clock's timestamp of the event at position pos.
func Stamp(pos int64) string {
	return ClockStart.Add(time.Duration(pos) * time.Second).Format("2006-01-02T15:04:05Z")
}

// Stop reasons.
const (
	StopCompleted = "completed"
	StopMaxTurns  = "max-turns"
)

// Run is one run of a rendered scenario: its identity, its events and what
// the live agent held in memory.
type Run struct {
	SessionID string
	RunID     string
	Events    []journal.Event
	// LoopEvents is how many of Events the agent loop emitted; the rest are
	// post-run operations.
	LoopEvents int
	// StopReason is "completed" or "max-turns", or "" when the run was
	// interrupted.
	StopReason string
	// History is the model-visible history the live agent held when its
	// loop ended (after post-run repairs, for the first run).
	History []reducer.Message
	// Requests are the histories the model was shown, one per model.request.
	Requests [][]reducer.Message
	// Inherited is what the run starts from: the parent prefix of a
	// continued branch, or every event before a resumed run in its session
	// file (nil for the first run).
	Inherited []journal.Event
	// Resumed is the resume that started the run (nil unless the run is a
	// resume): the repaired calls, the events the resume appended (the
	// first of Events) and the history the run started from.
	Resumed *reducer.Resumed
	// File is the session file's bytes when the run's writer was closed
	// (scenarios with resumes only): what every later run must leave
	// unchanged.
	File []byte
}

// Rendered is a scenario's rendered trace.
type Rendered struct {
	Scenario *Scenario
	Runs     []*Run
	Events   []journal.Event // every run's events, in file order
	// Bytes is the golden layout of Events; for a scenario with resumes, the
	// bytes of the session file the store wrote (Render checks that the two
	// are the same).
	Bytes []byte
	// SessionFile is the session file of a scenario with resumes rendered
	// into a caller's directory (RenderDir); "" otherwise.
	SessionFile string
}

// recorder emits events with the reference's deterministic identity: ids
// evt-NNN of the sequence, timestamps from ClockStart, each event's parent
// the previous event.
//
// With a store writer (a scenario with resumes) every event is appended
// durably as it is emitted, and its ID and timestamp follow its position
// in the session file: base (the events before the run) plus its
// sequence, the ID being the writer's NextEventID. For the first run that
// is the same evt-NNN of the sequence; a resumed run goes on with the
// session's numbering, since evt-000 is taken (the store would reject it
// with ErrConflict).
type recorder struct {
	sessionID string
	prov      journal.Provenance
	events    []journal.Event
	parent    string
	base      int64
	w         *store.Writer

	interrupt *Interrupt
	seen      map[string]int
}

// errInterrupted unwinds the agent loop when the scenario's interrupt point
// is reached.
var errInterrupted = errors.New("run interrupted")

func (r *recorder) emit(typ string, actor journal.Actor, payload jsonv.Value) error {
	seq := int64(len(r.events))
	id := fmt.Sprintf("evt-%03d", seq)
	if r.w != nil {
		id = r.w.NextEventID()
	}
	r.events = append(r.events, journal.Event{
		TraceVersion:  journal.TraceVersion,
		EventID:       id,
		SessionID:     r.sessionID,
		Sequence:      seq,
		Timestamp:     Stamp(r.base + seq),
		Type:          typ,
		Actor:         actor,
		Payload:       payload,
		Provenance:    r.prov,
		Redaction:     journal.CleanRedaction(),
		ParentEventID: r.parent,
	})
	r.parent = id
	if r.w != nil {
		if _, err := r.w.AppendEvent(&r.events[len(r.events)-1]); err != nil {
			return err
		}
	}
	if r.interrupt != nil && r.interrupt.After == typ {
		r.seen[typ]++
		if r.seen[typ] == r.interrupt.Occurrence {
			return errInterrupted
		}
	}
	return nil
}

// agent is the reference runtime's AgentRunner for one run.
type agent struct {
	sc        *Scenario
	rec       *recorder
	model     *fakemodel.Model
	tools     *registry
	compactor *reducer.Compactor
	msgs      []reducer.Message
}

// newAgent returns the agent of one run of sc: rec records its events, the
// scripted model answers with turns, and msgs is the history it starts
// from.
func newAgent(sc *Scenario, rec *recorder, turns []fakemodel.Turn, msgs []reducer.Message) *agent {
	return &agent{sc: sc, rec: rec, model: fakemodel.New(turns), tools: &registry{tools: sc.Tools}, compactor: sc.Compactor.Compactor(), msgs: msgs}
}

// finish records in run what the agent ended with: its events, its live
// history and the histories its model was shown.
func (a *agent) finish(run *Run) {
	run.Events = a.rec.events
	run.History = a.msgs
	run.Requests = a.model.Requests()
}

func (a *agent) harness() journal.Actor {
	return journal.Actor{Kind: "harness", ID: a.sc.Provenance.AgentID}
}

func (a *agent) modelActor() journal.Actor {
	id := fakemodel.ID
	if m := a.sc.Provenance.Model; m != nil && *m != "" {
		id = *m
	}
	return journal.Actor{Kind: "model", ID: id}
}

func (a *agent) start() error {
	return a.rec.emit("session.start", a.harness(), jsonv.Obj(
		jsonv.M("max_turns", jsonv.Int(int64(a.sc.MaxTurns))),
		jsonv.M("tool_count", jsonv.Int(int64(len(a.tools.tools)))),
	))
}

// loop runs turns first..MaxTurns and returns the stop reason.
func (a *agent) loop(first int) (string, error) {
	for turn := first; turn <= a.sc.MaxTurns; turn++ {
		if a.compactor != nil && a.compactor.ShouldCompact(a.msgs) {
			c, err := a.compactor.Compact(a.msgs)
			if err != nil {
				return "", fmt.Errorf("turn %d: %w", turn, err)
			}
			a.msgs = c.Messages
			if err := a.rec.emit("context.compact", a.harness(), c.Payload()); err != nil {
				return "", err
			}
		}
		if err := a.rec.emit("model.request", a.harness(), jsonv.Obj(
			jsonv.M("turn", jsonv.Int(int64(turn))),
			jsonv.M("message_count", jsonv.Int(int64(len(a.msgs)))),
			jsonv.M("roles", jsonv.StrArr(reducer.Roles(a.msgs))),
			jsonv.M("tools", jsonv.StrArr(a.tools.names())),
		)); err != nil {
			return "", err
		}
		t := a.model.Respond(a.msgs, a.tools.names())
		responses := responsePayloads(turn, t)
		for i, p := range responses {
			err := a.rec.emit("model.response", a.modelActor(), p)
			if i == len(responses)-1 {
				// The live history gets the assistant message once the
				// last model.response is out, as History does.
				a.appendAssistant(t, !t.Streamed())
			}
			if err != nil {
				return "", err
			}
		}
		assistant := len(a.msgs) - 1

		for _, call := range t.ToolCalls {
			// A streamed response lists no tool calls; each joins the
			// assistant message as its tool.request is recorded.
			if !slices.ContainsFunc(a.msgs[assistant].ToolCalls, func(c reducer.ToolCall) bool { return c.ID == call.ID }) {
				a.msgs[assistant].ToolCalls = append(a.msgs[assistant].ToolCalls, call)
			}
			if err := a.rec.emit("tool.request", a.modelActor(), jsonv.Obj(
				jsonv.M("tool_call_id", jsonv.Str(call.ID)),
				jsonv.M("tool", jsonv.Str(call.Name)),
				jsonv.M("arguments", call.ArgumentsValue()),
			)); err != nil {
				return "", err
			}
			var payload jsonv.Value
			result, terr := a.tools.execute(call.Name, call.ArgumentsValue())
			if terr != nil {
				payload = jsonv.Obj(
					jsonv.M("tool_call_id", jsonv.Str(call.ID)),
					jsonv.M("tool", jsonv.Str(call.Name)),
					jsonv.M("ok", jsonv.BoolValue(false)),
					jsonv.M("error", jsonv.Str(terr.Msg)),
					jsonv.M("error_type", jsonv.Str(terr.Type)),
				)
			} else {
				payload = jsonv.Obj(
					jsonv.M("tool_call_id", jsonv.Str(call.ID)),
					jsonv.M("tool", jsonv.Str(call.Name)),
					jsonv.M("ok", jsonv.BoolValue(true)),
					jsonv.M("result", result),
					jsonv.M("truncated", jsonv.BoolValue(false)),
				)
			}
			a.appendToolResult(payload)
			if err := a.rec.emit("tool.result", journal.Actor{Kind: "tool", ID: call.Name}, payload); err != nil {
				return "", err
			}
		}

		if len(t.ToolCalls) == 0 {
			return StopCompleted, a.rec.emit("session.stop", a.harness(), jsonv.Obj(
				jsonv.M("reason", jsonv.Str(StopCompleted)),
				jsonv.M("turns", jsonv.Int(int64(turn))),
			))
		}
	}
	if err := a.rec.emit("error", a.harness(), jsonv.Obj(
		jsonv.M("kind", jsonv.Str(StopMaxTurns)),
		jsonv.M("max_turns", jsonv.Int(int64(a.sc.MaxTurns))),
	)); err != nil {
		return "", err
	}
	return StopMaxTurns, a.rec.emit("session.stop", a.harness(), jsonv.Obj(
		jsonv.M("reason", jsonv.Str(StopMaxTurns)),
		jsonv.M("turns", jsonv.Int(int64(a.sc.MaxTurns))),
	))
}

// responsePayloads is the turn's model.response payloads: one per chunk
// of a streamed turn, else one with the content and tool calls.
func responsePayloads(turn int, t fakemodel.Turn) []jsonv.Value {
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

// appendAssistant appends the turn's assistant message; withCalls attaches
// its tool calls (a whole response records them in model.response).
func (a *agent) appendAssistant(t fakemodel.Turn, withCalls bool) {
	m := reducer.Message{Role: reducer.RoleAssistant, Content: t.Text()}
	if withCalls {
		m.ToolCalls = append([]reducer.ToolCall(nil), t.ToolCalls...)
	}
	a.msgs = append(a.msgs, m)
}

func (a *agent) appendToolResult(payload jsonv.Value) {
	name, _ := payload.Get("tool")
	id, _ := payload.Get("tool_call_id")
	a.msgs = append(a.msgs, reducer.Message{
		Role:       reducer.RoleTool,
		Content:    reducer.ToolResultContent(payload),
		Name:       name.Text(),
		ToolCallID: id.Text(),
	})
}
