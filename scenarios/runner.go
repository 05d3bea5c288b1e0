package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// ClockStart is the reference's fixed clock: an event's timestamp is
// ClockStart plus its sequence in seconds.
var ClockStart = time.Date(2026, 8, 10, 0, 0, 0, 0, time.UTC)

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
	// Inherited is the parent prefix a continued branch starts from (nil for
	// the first run).
	Inherited []journal.Event
}

// Rendered is a scenario's rendered trace.
type Rendered struct {
	Scenario *Scenario
	Runs     []*Run
	Events   []journal.Event // every run's events, in file order
	Bytes    []byte          // the golden layout of Events
}

// recorder emits events with the reference's deterministic identity: ids
// evt-NNN of the sequence, timestamps from ClockStart, each event's parent
// the previous event.
type recorder struct {
	sessionID string
	prov      journal.Provenance
	events    []journal.Event
	parent    string

	interrupt *Interrupt
	seen      map[string]int
}

// errInterrupted unwinds the agent loop when the scenario's interrupt point
// is reached.
var errInterrupted = errors.New("run interrupted")

func (r *recorder) emit(typ string, actor journal.Actor, payload jsonv.Value) error {
	seq := int64(len(r.events))
	id := fmt.Sprintf("evt-%03d", seq)
	r.events = append(r.events, journal.Event{
		TraceVersion:  journal.TraceVersion,
		EventID:       id,
		SessionID:     r.sessionID,
		Sequence:      seq,
		Timestamp:     ClockStart.Add(time.Duration(seq) * time.Second).Format("2006-01-02T15:04:05Z"),
		Type:          typ,
		Actor:         actor,
		Payload:       payload,
		Provenance:    r.prov,
		Redaction:     journal.CleanRedaction(),
		ParentEventID: r.parent,
	})
	r.parent = id
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
		if t.Streamed() {
			acc := ""
			for i, chunk := range t.Chunks {
				acc += chunk
				if err := a.rec.emit("model.response", a.modelActor(), jsonv.Obj(
					jsonv.M("turn", jsonv.Int(int64(turn))),
					jsonv.M("delta", jsonv.Str(chunk)),
					jsonv.M("accumulated", jsonv.Str(acc)),
					jsonv.M("final", jsonv.BoolValue(i == len(t.Chunks)-1)),
					jsonv.M("tool_calls", jsonv.Arr()),
				)); err != nil {
					// The live history gets the assistant message once the
					// final chunk is out, as History does.
					if i == len(t.Chunks)-1 {
						a.appendAssistant(t, false)
					}
					return "", err
				}
			}
		} else {
			calls := make([]jsonv.Value, len(t.ToolCalls))
			for i, c := range t.ToolCalls {
				calls[i] = c.Value()
			}
			if err := a.rec.emit("model.response", a.modelActor(), jsonv.Obj(
				jsonv.M("turn", jsonv.Int(int64(turn))),
				jsonv.M("content", jsonv.Str(t.Content)),
				jsonv.M("stop", jsonv.BoolValue(t.Stop)),
				jsonv.M("tool_calls", jsonv.Arr(calls...)),
			)); err != nil {
				a.appendAssistant(t, true)
				return "", err
			}
		}
		a.appendAssistant(t, !t.Streamed())
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

// Render runs the scenario and its post-run operations and returns the
// trace. It does not check expectations; see Check.
func Render(sc *Scenario) (*Rendered, error) {
	tools := &registry{tools: sc.Tools}
	rec := &recorder{sessionID: sc.SessionID, prov: sc.Provenance, interrupt: sc.Interrupt, seen: map[string]int{}}
	a := &agent{sc: sc, rec: rec, model: fakemodel.New(sc.Turns), tools: tools, compactor: sc.Compactor.Compactor()}
	if sc.SystemPrompt != "" {
		a.msgs = append(a.msgs, reducer.Message{Role: reducer.RoleSystem, Content: sc.SystemPrompt})
	}

	run := &Run{SessionID: sc.SessionID, RunID: sc.RunID}
	err := a.start()
	if err == nil {
		// The reference builds [system, user] before session.start; the
		// events are the same, but holding the user message only once it
		// is recorded keeps the live history equal to what History
		// rebuilds at every point of the journal.
		a.msgs = append(a.msgs, reducer.Message{Role: reducer.RoleUser, Content: sc.Prompt})
		err = rec.emit("user.message", journal.Actor{Kind: "user", ID: "learner"}, jsonv.Obj(jsonv.M("content", jsonv.Str(sc.Prompt))))
	}
	if err == nil {
		run.StopReason, err = a.loop(1)
	}
	if err != nil && !errors.Is(err, errInterrupted) {
		return nil, fmt.Errorf("%s: %w", sc.ID, err)
	}
	rec.interrupt = nil // post-run operations are never interrupted
	run.LoopEvents = len(rec.events)
	out := &Rendered{Scenario: sc, Runs: []*Run{run}}

	branches := map[string]reducer.BranchRecord{}
	branchPayloads := map[string]jsonv.Value{}
	for _, op := range sc.AfterRun {
		if err := out.apply(op, a, branches, branchPayloads); err != nil {
			return nil, fmt.Errorf("%s: %s (%s): %w", sc.ID, op.Pointer, op.Op, err)
		}
	}
	run.Events = rec.events
	run.History = a.msgs
	run.Requests = a.model.Requests()
	for _, r := range out.Runs {
		out.Events = append(out.Events, r.Events...)
	}
	out.Bytes = journal.EncodeGolden(out.Events)
	return out, nil
}

// apply performs one post-run operation on the first run's journal as it
// stands.
func (out *Rendered) apply(op Operation, a *agent, branches map[string]reducer.BranchRecord, payloads map[string]jsonv.Value) error {
	rec := a.rec
	j, err := journal.New(rec.events)
	if err != nil {
		return fmt.Errorf("the run's journal is invalid: %w", err)
	}
	switch op.Op {
	case OpReplay:
		st := reducer.Replay(j)
		if op.Through != nil {
			if st, err = reducer.ReplayThrough(j, *op.Through); err != nil {
				return err
			}
		}
		stop := jsonv.NullValue()
		if st.StopReason != nil {
			stop = jsonv.Str(*st.StopReason)
		}
		return rec.emit("session.replay", a.harness(), jsonv.Obj(
			jsonv.M("applied_events", jsonv.Int(int64(len(st.AppliedSequences)))),
			jsonv.M("stop_reason", stop),
			jsonv.M("fingerprint", jsonv.Str(st.Fingerprint)),
		))
	case OpBranch:
		b, err := reducer.Branch(j, op.ForkSequence, op.BranchID)
		if err != nil {
			return err
		}
		p := jsonv.Obj(
			jsonv.M("branch_id", jsonv.Str(b.BranchID)),
			jsonv.M("parent_run_id", jsonv.Str(b.ParentRunID)),
			jsonv.M("fork_sequence", jsonv.Int(b.ForkSequence)),
			jsonv.M("inherited_events", jsonv.Int(int64(len(b.InheritedEventIDs)))),
			jsonv.M("parent_fingerprint", jsonv.Str(b.ParentFingerprint)),
		)
		branches[op.BranchID] = b
		payloads[op.BranchID] = p
		return rec.emit("session.branch", a.harness(), p)
	case OpRepair:
		for _, call := range reducer.UnansweredCalls(a.msgs) {
			p := reducer.InterruptedToolResult(call)
			a.appendToolResult(p)
			if err := rec.emit("tool.result", a.harness(), p); err != nil {
				return err
			}
		}
		return nil
	case OpContinue:
		b, ok := branches[op.BranchID]
		if !ok {
			return fmt.Errorf("no branch %q", op.BranchID)
		}
		run, err := out.continueBranch(op, b, payloads[op.BranchID], j.Events()[:b.ForkSequence+1])
		if err != nil {
			return err
		}
		out.Runs = append(out.Runs, run)
		return nil
	}
	return fmt.Errorf("unknown operation %q", op.Op)
}

// continueBranch runs a branch as a new run: session.start, the lineage
// (session.branch, the parent's record), then the agent loop from the
// history rebuilt from the inherited prefix.
func (out *Rendered) continueBranch(op Operation, b reducer.BranchRecord, lineage jsonv.Value, prefix []journal.Event) (*Run, error) {
	sc := out.Scenario
	last := prefix[len(prefix)-1]
	hist, err := reducer.History(prefix, sc.HistoryConfig())
	if err != nil {
		return nil, err
	}
	switch {
	case last.Type == "user.message":
	case last.Type == "tool.result" && len(reducer.UnansweredCalls(hist)) == 0:
	default:
		return nil, fmt.Errorf("fork_sequence %d (%s) is not a turn boundary: a branch continues after user.message or after the last tool.result of a turn", b.ForkSequence, last.Type)
	}
	next := 1
	for _, e := range prefix {
		if e.Type == "model.request" {
			if t, ok := e.Payload.Get("turn"); ok {
				if n, ok := t.Int64(); ok && int(n) >= next {
					next = int(n) + 1
				}
			}
		}
	}
	prov := sc.Provenance
	prov.RunID = op.RunID
	rec := &recorder{sessionID: op.SessionID, prov: prov, seen: map[string]int{}}
	a := &agent{sc: sc, rec: rec, model: fakemodel.New(op.Turns), tools: &registry{tools: sc.Tools}, compactor: sc.Compactor.Compactor(), msgs: hist}
	run := &Run{SessionID: op.SessionID, RunID: op.RunID, Inherited: prefix}
	if err := a.start(); err != nil {
		return nil, err
	}
	if err := rec.emit("session.branch", a.harness(), lineage); err != nil {
		return nil, err
	}
	if run.StopReason, err = a.loop(next); err != nil {
		return nil, err
	}
	run.Events = rec.events
	run.LoopEvents = len(rec.events)
	run.History = a.msgs
	run.Requests = a.model.Requests()
	return run, nil
}
