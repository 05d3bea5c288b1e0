package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"os"
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

// Render runs the scenario and its post-run operations and returns the
// trace. It does not check expectations; see Check. A scenario with
// resumes is rendered through the session store in a temporary directory
// that is removed before Render returns (RenderDir).
func Render(sc *Scenario) (*Rendered, error) {
	return RenderDir(sc, "")
}

// RenderDir is Render with the store directory of a scenario with resumes:
// the session file is written there (dir is created when missing and must
// not hold the session yet) and kept, and Rendered.SessionFile names it.
// With dir "" a temporary directory is used and removed. A scenario without
// resumes is rendered in memory and never touches dir.
//
// A scenario with resumes goes through the durable store the way a live
// agent would: the first run is written event by event through a
// store.Writer that creates the session (an interrupt leaves the file as a
// crash would), and the writer is closed; each resume reopens the session
// with a new writer, resumes it with reducer.ResumeWriter (the resume
// marker, the persisted repairs, the new user message) and goes on with
// the agent loop from the history the resume rebuilt from the file,
// appending every event as it is emitted. The golden is the file's bytes.
func RenderDir(sc *Scenario, dir string) (*Rendered, error) {
	r, err := render(sc, dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sc.ID, err)
	}
	return r, nil
}

func render(sc *Scenario, dir string) (*Rendered, error) {
	var st *store.Store
	var w *store.Writer
	if len(sc.Resumes) > 0 {
		keep := dir != ""
		if !keep {
			tmp, err := os.MkdirTemp("", "tracecheck-"+sc.ID+"-")
			if err != nil {
				return nil, err
			}
			defer os.RemoveAll(tmp)
			dir = tmp
		}
		var err error
		if st, err = store.Create(dir); err != nil {
			return nil, err
		}
		if w, err = st.OpenWriter(sc.SessionID, store.WriterOptions{Create: true}); err != nil {
			return nil, err
		}
		defer w.Close()
		if !w.Created() {
			return nil, fmt.Errorf("session %s is already in the store %s: render into a directory without it", sc.SessionID, dir)
		}
		out, err := renderFirst(sc, w)
		if err != nil {
			return nil, err
		}
		if err := out.resumeAll(st, w); err != nil {
			return nil, err
		}
		if keep {
			out.SessionFile = w.Path()
		}
		return out, nil
	}
	return renderFirst(sc, nil)
}

// renderFirst runs the first run and its post-run operations; with w, each
// event is appended to the session as it is emitted.
func renderFirst(sc *Scenario, w *store.Writer) (*Rendered, error) {
	rec := &recorder{sessionID: sc.SessionID, prov: sc.Provenance, interrupt: sc.Interrupt, seen: map[string]int{}, w: w}
	var msgs []reducer.Message
	if sc.SystemPrompt != "" {
		msgs = append(msgs, reducer.Message{Role: reducer.RoleSystem, Content: sc.SystemPrompt})
	}
	a := newAgent(sc, rec, sc.Turns, msgs)

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
		return nil, err
	}
	rec.interrupt = nil // post-run operations are never interrupted
	run.LoopEvents = len(rec.events)
	out := &Rendered{Scenario: sc, Runs: []*Run{run}}

	branches := map[string]reducer.BranchRecord{}
	branchPayloads := map[string]jsonv.Value{}
	for _, op := range sc.AfterRun {
		if err := out.apply(op, a, branches, branchPayloads); err != nil {
			return nil, fmt.Errorf("%s (%s): %w", op.Pointer, op.Op, err)
		}
	}
	a.finish(run)
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
	a := newAgent(sc, rec, op.Turns, hist)
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
	run.LoopEvents = len(rec.events)
	a.finish(run)
	return run, nil
}

// resumeAll closes the first run's writer w, then runs every resume of the
// scenario, each through its own writer, and sets the rendered bytes from
// the session file.
func (out *Rendered) resumeAll(st *store.Store, w *store.Writer) error {
	first := out.Runs[0]
	if err := w.Close(); err != nil {
		return err
	}
	var err error
	if first.File, err = os.ReadFile(w.Path()); err != nil {
		return err
	}
	for _, rs := range out.Scenario.Resumes {
		run, err := out.resume(st, rs)
		if err != nil {
			return fmt.Errorf("%s: %w", rs.Pointer, err)
		}
		out.Runs = append(out.Runs, run)
		out.Events = append(out.Events, run.Events...)
	}
	file := out.Runs[len(out.Runs)-1].File
	if enc := journal.EncodeGolden(out.Events); !bytes.Equal(file, enc) {
		return fmt.Errorf("the session file %s (%d bytes) is not the golden layout of the rendered events (%d bytes)", w.Path(), len(file), len(enc))
	}
	out.Bytes = file
	return nil
}

// resume reopens the session, resumes it as run rs and runs the agent loop
// from the resumed history, appending each event as it is emitted.
func (out *Rendered) resume(st *store.Store, rs Resume) (*Run, error) {
	sc := out.Scenario
	w, err := st.OpenWriter(sc.SessionID, store.WriterOptions{})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	base := int64(w.Position().Events)
	prov := sc.Provenance
	prov.RunID = rs.RunID
	res, err := reducer.ResumeWriter(w, reducer.ResumeOptions{
		RunID:      rs.RunID,
		Message:    rs.Message,
		History:    sc.HistoryConfig(),
		Provenance: &prov,
		// The resume's events are the first of the run: sequence 0, 1, ...
		// at session positions base, base+1, ...
		Timestamp: func(seq int64) string { return Stamp(base + seq) },
	})
	if err != nil {
		return nil, err
	}
	pos := w.Position()
	if pos.RunID != rs.RunID || pos.NextSequence != int64(len(res.Appended)) {
		return nil, fmt.Errorf("after the resume the session stands at run %s sequence %d, want run %s sequence %d", pos.RunID, pos.NextSequence, rs.RunID, len(res.Appended))
	}
	rec := &recorder{
		sessionID: sc.SessionID,
		prov:      prov,
		events:    slices.Clone(res.Appended),
		parent:    pos.LastEventID,
		base:      base,
		w:         w,
		interrupt: rs.Interrupt,
		seen:      map[string]int{},
	}
	a := newAgent(sc, rec, rs.Turns, reducer.CloneMessages(res.History))
	run := &Run{SessionID: sc.SessionID, RunID: res.RunID, Inherited: slices.Clone(out.Events), Resumed: res}
	// A resumed run is a new call of the agent: its turns count from 1.
	run.StopReason, err = a.loop(1)
	if err != nil && !errors.Is(err, errInterrupted) {
		return nil, err
	}
	run.LoopEvents = len(rec.events)
	a.finish(run)
	if err := w.Close(); err != nil {
		return nil, err
	}
	if run.File, err = os.ReadFile(w.Path()); err != nil {
		return nil, err
	}
	return run, nil
}
