package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
	"github.com/tracecheck/tracecheck/reducer"
)

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
	var fe *FileError
	if errors.As(err, &fe) {
		return nil, err // it names the file and the field already
	}
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
	ws := newWorkspace(sc.Workspace)
	a := newAgent(sc, rec, sc.Turns, msgs, ws)

	run := &Run{SessionID: sc.SessionID, RunID: sc.RunID}
	var err error
	if sc.Trust != nil {
		err = a.preflight(sc.Trust)
	}
	if err == nil {
		err = a.start()
	}
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
	if err := rec.notFired(sc, "/interrupt"); err != nil {
		return nil, err
	}
	rec.interrupt = nil // post-run operations are never interrupted
	run.LoopEvents = len(rec.events)
	out := &Rendered{Scenario: sc, Runs: []*Run{run}, ws: ws}

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
	a := newAgent(sc, rec, op.Turns, hist, out.ws)
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
	a := newAgent(sc, rec, rs.Turns, reducer.CloneMessages(res.History), out.ws)
	run := &Run{SessionID: sc.SessionID, RunID: res.RunID, Inherited: slices.Clone(out.Events), Resumed: res}
	// A resumed run is a new call of the agent: its turns count from 1.
	run.StopReason, err = a.loop(1)
	if err != nil && !errors.Is(err, errInterrupted) {
		return nil, err
	}
	if err := rec.notFired(sc, rs.Pointer+"/interrupt"); err != nil {
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
