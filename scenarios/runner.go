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
	// PruneIndex is the index in Events of the run's first context.prune
	// (-1 for none), and BeforePrune the live history right before it:
	// reducer.History does not replay a context budget, so Check compares
	// the rebuilt history up to there.
	PruneIndex  int
	BeforePrune []reducer.Message
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

	// ws is the workspace the runs' tools act on, one for the whole
	// render: each run finds it as the run before it left it.
	ws *workspace
}

// recorder emits events with the reference's deterministic identity: ids
// evt-NNN of the sequence, timestamps from ClockStart, each runner event's
// parent the runner's previous event (emit), each tool handler's event's
// parent the event before it (emitSide): the two differ only while a
// handler records events of its own, between a tool.request and its
// tool.result.
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
	fired     bool
}

// errInterrupted unwinds the agent loop when the scenario's interrupt point
// is reached.
var errInterrupted = errors.New("run interrupted")

// emit records an event of the runner: its parent is the runner's
// previous event, and it becomes the parent of the runner's next one.
func (r *recorder) emit(typ string, actor journal.Actor, payload jsonv.Value) error {
	id, err := r.record(typ, actor, payload, r.parent)
	r.parent = id
	return err
}

// emitSide records an event of a tool handler: its parent is the last
// event in the trace (the tool.request, the approval.decision or the
// handler's previous event), and the runner's parent chain is left as it
// was, so the tool.result that follows names the runner's last event.
func (r *recorder) emitSide(typ string, actor journal.Actor, payload jsonv.Value) error {
	parent := r.parent
	if n := len(r.events); n > 0 {
		parent = r.events[n-1].EventID
	}
	_, err := r.record(typ, actor, payload, parent)
	return err
}

func (r *recorder) record(typ string, actor journal.Actor, payload jsonv.Value, parent string) (string, error) {
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
		ParentEventID: parent,
	})
	if r.w != nil {
		if _, err := r.w.AppendEvent(&r.events[len(r.events)-1]); err != nil {
			return id, err
		}
	}
	if r.interrupt != nil && r.interrupt.After == typ {
		r.seen[typ]++
		if r.seen[typ] == r.interrupt.Occurrence {
			r.fired = true
			return id, errInterrupted
		}
	}
	return id, nil
}

// notFired is the error of an interrupt the run never reached: the
// scenario is invalid, since its golden would silently end as if nothing
// had been interrupted. pointer is the interrupt's place in the file.
func (r *recorder) notFired(sc *Scenario, pointer string) error {
	in := r.interrupt
	if in == nil || r.fired {
		return nil
	}
	return &FileError{File: sc.File, Pointer: pointer, Msg: fmt.Sprintf(
		"never fires: interrupt.after is %q, occurrence %d, but the run emits %d %s event(s)%s",
		in.After, in.Occurrence, r.seen[in.After], in.After, onlyLoop(pointer))}
}

// onlyLoop explains, for a resume's interrupt, which events it counts.
func onlyLoop(pointer string) string {
	if pointer == "/interrupt" {
		return " (post-run operations are never interrupted)"
	}
	return " in its agent loop (the resume's own events are not counted)"
}

// agent is the reference runtime's AgentRunner for one run.
type agent struct {
	sc        *Scenario
	rec       *recorder
	model     *fakemodel.Model
	tools     *registry
	env       *toolEnv
	compactor *reducer.Compactor
	msgs      []reducer.Message
	// firstPrune is the index in rec.events of the run's first
	// context.prune (-1 for none), and beforePrune the live history right
	// before it.
	firstPrune  int
	beforePrune []reducer.Message
}

// newAgent returns the agent of one run of sc: rec records its events, the
// scripted model answers with turns, msgs is the history it starts from
// and ws the workspace its tools act on.
func newAgent(sc *Scenario, rec *recorder, turns []fakemodel.Turn, msgs []reducer.Message, ws *workspace) *agent {
	return &agent{
		sc: sc, rec: rec, model: fakemodel.New(turns), tools: &registry{tools: sc.Tools},
		env:       &toolEnv{sc: sc, ws: ws, emit: rec.emitSide},
		compactor: sc.Compactor.Compactor(), msgs: msgs, firstPrune: -1,
	}
}

// finish records in run what the agent ended with: its events, its live
// history and the histories its model was shown.
func (a *agent) finish(run *Run) {
	run.Events = a.rec.events
	run.History = a.msgs
	run.Requests = a.model.Requests()
	run.PruneIndex, run.BeforePrune = a.firstPrune, a.beforePrune
}

func (a *agent) harness() journal.Actor { return harnessActor(a.sc.Provenance.AgentID) }

func harnessActor(id string) journal.Actor { return journal.Actor{Kind: "harness", ID: id} }

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
		if err := a.fitContext(turn); err != nil {
			return "", err
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
		responses := t.ResponsePayloads(turn)
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
			payload, err := a.callTool(call)
			if err != nil {
				return "", err
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

// fitContext runs, before turn's model request, the compactor and then
// the context budget, each recording its event when it changes the
// history.
func (a *agent) fitContext(turn int) error {
	if a.compactor != nil && a.compactor.ShouldCompact(a.msgs) {
		c, err := a.compactor.Compact(a.msgs)
		if err != nil {
			return fmt.Errorf("turn %d: %w", turn, err)
		}
		a.msgs = c.Messages
		if err := a.rec.emit("context.compact", a.harness(), c.Payload()); err != nil {
			return err
		}
	}
	if b := a.sc.Budget; b != nil {
		if f := b.fit(a.msgs); f.pruned() {
			if a.firstPrune < 0 {
				a.firstPrune, a.beforePrune = len(a.rec.events), reducer.CloneMessages(a.msgs)
			}
			a.msgs = f.msgs
			return a.rec.emit("context.prune", a.harness(), f.payload())
		}
	}
	return nil
}

// callTool decides and runs one tool call and returns its tool.result
// payload: with an approval gate, approval.request and approval.decision
// first (a call not allowed fails with ApprovalDenied and never runs);
// then the tool, whose failure is a result too; a successful result is cut
// to the context budget. The error is not the tool's: it ends the run.
func (a *agent) callTool(call reducer.ToolCall) (jsonv.Value, error) {
	args := call.ArgumentsValue()
	if ap := a.sc.Approval; ap != nil {
		rule := ap.match(call.Name)
		d := ap.resolve(rule, call.Name, args)
		fp := requestFingerprint(call.Name, args)
		if err := a.rec.emit("approval.request", a.harness(), d.requestPayload(call.ID, call.Name, fp)); err != nil {
			return jsonv.Value{}, err
		}
		if err := a.rec.emit("approval.decision", a.harness(), d.decisionPayload(call.ID, call.Name, fp)); err != nil {
			return jsonv.Value{}, err
		}
		if !d.allowed {
			return failedResult(call, &ToolError{ApprovalDenied, d.reason}), nil
		}
	}
	result, err := a.tools.execute(call.Name, args, a.env)
	var te *ToolError
	if errors.As(err, &te) {
		return failedResult(call, te), nil
	}
	if err != nil {
		return jsonv.Value{}, err
	}
	truncated := false
	if b := a.sc.Budget; b != nil {
		result, truncated = b.truncate(result)
	}
	return jsonv.Obj(
		jsonv.M("tool_call_id", jsonv.Str(call.ID)),
		jsonv.M("tool", jsonv.Str(call.Name)),
		jsonv.M("ok", jsonv.BoolValue(true)),
		jsonv.M("result", result),
		jsonv.M("truncated", jsonv.BoolValue(truncated)),
	), nil
}

// failedResult is the tool.result payload of a failed call.
func failedResult(call reducer.ToolCall, e *ToolError) jsonv.Value {
	return jsonv.Obj(
		jsonv.M("tool_call_id", jsonv.Str(call.ID)),
		jsonv.M("tool", jsonv.Str(call.Name)),
		jsonv.M("ok", jsonv.BoolValue(false)),
		jsonv.M("error", jsonv.Str(e.Msg)),
		jsonv.M("error_type", jsonv.Str(e.Type)),
	)
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
