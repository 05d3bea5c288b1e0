package reducer_test

// The resume cases of chapter 20 of the TypeScript harness: a
// fresh session, a resume that appends only the new turn, a session
// interrupted mid-tool-call, an unknown session ID; plus compaction replay
// and the bytes-unchanged guarantee.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/store"
	"github.com/tracecheck/tracecheck/reducer"
	"github.com/tracecheck/tracecheck/scenarios"
)

var fixedClock = func(seq int64) string {
	return time.Date(2026, 8, 11, 0, 0, 0, 0, time.UTC).Add(time.Duration(seq) * time.Second).Format(time.RFC3339)
}

// storeWith writes data as session id's file in a new store.
func storeWith(t *testing.T, id string, data []byte) (*store.Store, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	path, err := st.Path(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return st, path
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// resume resumes and checks what every resume must hold: the bytes before
// are unchanged, only Appended was added, the session still checks, and the
// history returned is the one the file now rebuilds with no call left
// unanswered.
func resume(t *testing.T, st *store.Store, id string, opts reducer.ResumeOptions) *reducer.Resumed {
	t.Helper()
	path, _ := st.Path(id)
	before := read(t, path)
	res, err := reducer.Resume(st, id, opts)
	if err != nil {
		t.Fatal(err)
	}
	after := read(t, path)
	if !bytes.HasPrefix(after, before) || res.Offset != int64(len(before)) {
		t.Fatal("resume changed bytes that were already in the file")
	}
	if added := after[len(before):]; !bytes.Equal(added, journal.EncodeGolden(res.Appended)) {
		t.Fatalf("resume appended more than its events:\n%s", added)
	}
	if len(res.Acks) != len(res.Appended) {
		t.Fatalf("%d acks for %d events", len(res.Acks), len(res.Appended))
	}
	if _, err := st.Check(id, false); err != nil {
		t.Fatal(err)
	}
	evs, _, err := st.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := reducer.History(evs, opts.History)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := wire(hist), wire(res.History); got != want {
		t.Fatalf("returned history differs from the file's:\n%s\n%s", want, got)
	}
	if left := reducer.UnansweredCalls(hist); len(left) > 0 {
		t.Fatalf("unanswered after resume: %v", left)
	}
	return res
}

func wire(msgs []reducer.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.Write(m.Wire().AppendJSON(nil))
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, " call=%s", c.ID)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func types(evs []journal.Event) string {
	var ts []string
	for _, e := range evs {
		ts = append(ts, e.Type)
	}
	return strings.Join(ts, ",")
}

func golden(t *testing.T, name string) []byte {
	t.Helper()
	for _, dir := range []string{"../testdata/good", "../../shared/reference/golden"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			return b
		}
	}
	t.Skipf("golden %s not found", name)
	return nil
}

// Fresh session, then resume: only the resume marker and the new user turn
// are appended, the history grows by exactly that message, and a second
// resume does the same in a third run.
func TestResumeAppendsOnlyTheNewTurn(t *testing.T) {
	data := golden(t, "s07-session-replay.trace.jsonl")
	const id = "session-s07-session-replay"
	st, _ := storeWith(t, id, data)
	events, _, err := st.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	before, err := reducer.History(events, reducer.HistoryConfig{})
	if err != nil {
		t.Fatal(err)
	}

	res := resume(t, st, id, reducer.ResumeOptions{RunID: "run-2", Message: "And branch lineage?", Timestamp: fixedClock})
	if res.RunID != "run-2" || res.PreviousRunID != "run-s07-session-replay-golden" || len(res.Repaired) != 0 {
		t.Fatalf("resumed %+v", res)
	}
	if got := types(res.Appended); got != "session.start,user.message" {
		t.Fatalf("appended %s", got)
	}
	start := res.Appended[0]
	if got := string(start.Payload.AppendJSON(nil)); got != `{"max_turns":8,"tool_count":0,"resumed":true,"resumes_run_id":"run-s07-session-replay-golden"}` {
		t.Fatalf("resume marker payload %s", got)
	}
	for i, e := range res.Appended {
		if e.Sequence != int64(i) || e.Provenance.RunID != "run-2" || e.EventID != fmt.Sprintf("evt-%03d", len(events)+i) {
			t.Fatalf("event %d: %s seq %d run %s", i, e.EventID, e.Sequence, e.Provenance.RunID)
		}
	}
	if start.ParentEventID != "" || res.Appended[1].ParentEventID != start.EventID {
		t.Fatal("parent chain of the new run")
	}
	if u := res.Appended[1]; u.Actor.ID != "learner" || u.Timestamp != "2026-08-11T00:00:01Z" {
		t.Fatalf("user.message %+v", u)
	}
	if len(res.History) != len(before)+1 || wire(res.History[:len(before)]) != wire(before) || res.History[len(before)].Content != "And branch lineage?" {
		t.Fatalf("history:\n%s", wire(res.History))
	}

	res3 := resume(t, st, id, reducer.ResumeOptions{RunID: "run-3", Message: "Once more.", Timestamp: fixedClock})
	if res3.PreviousRunID != "run-2" || len(res3.Repaired) != 0 || types(res3.Appended) != "session.start,user.message" || len(res3.History) != len(before)+2 {
		t.Fatalf("third run %+v", res3)
	}
	rep, err := st.Check(id, false)
	if err != nil || len(rep.Runs) != 3 || rep.Runs[2].ResumesRunID != "run-2" {
		t.Fatalf("runs %+v, %v", rep, err)
	}
}

// A run interrupted between tool.request and tool.result: the resume
// answers the call with the synthesized error right after it, persists it,
// and the next resume has nothing to repair.
func TestResumeInterruptedMidToolCall(t *testing.T) {
	data := read(t, "../journal/store/testdata/interrupted-mid-tool-call.jsonl")
	const id = "session-s03-tool-dispatch"
	st, _ := storeWith(t, id, data)

	res := resume(t, st, id, reducer.ResumeOptions{RunID: "run-2", Message: "Did the echo run?", Timestamp: fixedClock})
	if got := types(res.Appended); got != "session.start,tool.result,user.message" {
		t.Fatalf("appended %s", got)
	}
	if len(res.Repaired) != 1 || res.Repaired[0].ID != "call-001" || res.Repaired[0].Name != "echo" {
		t.Fatalf("repaired %+v", res.Repaired)
	}
	tr := res.Appended[1]
	want := `{"tool_call_id":"call-001","tool":"echo","ok":false,"error":"Error [SESSION_RESUME_INTERRUPTED]: This tool call did not finish before the previous run on this session ended, so no output was recorded. Treat it as not executed and decide whether to retry it.","error_type":"SessionResumeInterrupted"}`
	if got := string(tr.Payload.AppendJSON(nil)); got != want {
		t.Fatalf("synthesized result\n got %s\nwant %s", got, want)
	}
	if tr.Actor != (journal.Actor{Kind: "harness", ID: "reference-agent"}) {
		t.Fatalf("actor %+v", tr.Actor)
	}
	// History: user, assistant(call-001), tool(call-001) right after it, user.
	h := res.History
	if len(h) != 4 || h[1].Role != reducer.RoleAssistant || len(h[1].ToolCalls) != 1 ||
		h[2].Role != reducer.RoleTool || h[2].ToolCallID != "call-001" || !strings.Contains(h[2].Content, "SESSION_RESUME_INTERRUPTED") ||
		h[3].Role != reducer.RoleUser || h[3].Content != "Did the echo run?" {
		t.Fatalf("history:\n%s", wire(h))
	}

	again := resume(t, st, id, reducer.ResumeOptions{RunID: "run-3", Timestamp: fixedClock})
	if len(again.Repaired) != 0 || types(again.Appended) != "session.start" || wire(again.History) != wire(h) {
		t.Fatalf("second resume repaired %v, appended %s", again.Repaired, types(again.Appended))
	}
}

// Resuming an unknown session is an error and creates no file.
func TestResumeUnknownSession(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = reducer.Resume(st, "no-such-session", reducer.ResumeOptions{Message: "hello"})
	if !errors.Is(err, store.ErrNotFound) || err.Error() != "session not found: no-such-session" {
		t.Fatalf("got %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("created %v", ents)
	}
}

func TestResumeRunIDs(t *testing.T) {
	data := golden(t, "s07-session-replay.trace.jsonl")
	const id = "session-s07-session-replay"
	st, path := storeWith(t, id, data)
	_, err := reducer.Resume(st, id, reducer.ResumeOptions{RunID: "run-s07-session-replay-golden"})
	var re *reducer.ResumeError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "already in the session") {
		t.Fatalf("reusing a run id: %v", err)
	}
	if !bytes.Equal(read(t, path), data) {
		t.Fatal("a failed resume wrote")
	}
	a := resume(t, st, id, reducer.ResumeOptions{})
	b := resume(t, st, id, reducer.ResumeOptions{})
	if !strings.HasPrefix(a.RunID, "run-") || len(a.RunID) != 16 || a.RunID == b.RunID || b.PreviousRunID != a.RunID {
		t.Fatalf("generated run ids %q, %q", a.RunID, b.RunID)
	}
}

// A resume while another writer holds the session fails at once.
func TestResumeLocked(t *testing.T) {
	data := golden(t, "s07-session-replay.trace.jsonl")
	const id = "session-s07-session-replay"
	st, _ := storeWith(t, id, data)
	w, err := st.OpenWriter(id, store.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := reducer.Resume(st, id, reducer.ResumeOptions{}); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("got %v", err)
	}
}

// A torn tail left by the crash is reported, and repaired with Repair.
func TestResumeAfterTornTail(t *testing.T) {
	data := read(t, "../journal/store/testdata/interrupted-mid-tool-call.jsonl")
	const id = "session-s03-tool-dispatch"
	st, path := storeWith(t, id, append(append([]byte(nil), data...), `{"trace_version":"0.1.0","event_id":"evt-0`...))
	if _, err := reducer.Resume(st, id, reducer.ResumeOptions{}); !errors.Is(err, store.ErrTornTail) {
		t.Fatalf("got %v", err)
	}
	res, err := reducer.Resume(st, id, reducer.ResumeOptions{Repair: true, RunID: "run-2"})
	if err != nil || len(res.Repaired) != 1 || res.Offset != int64(len(data)) {
		t.Fatalf("%+v, %v", res, err)
	}
	if !bytes.HasPrefix(read(t, path), data) {
		t.Fatal("the complete events were not kept")
	}
}

// Resume replays context.compact: the rebuilt history equals what the live
// run held, for the compaction scenario and for the interrupted one.
func TestResumeHistoryEqualsTheLiveRun(t *testing.T) {
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"s08-context-compaction", "orphan-call", "s03-tool-dispatch"} {
		t.Run(name, func(t *testing.T) {
			var sc *scenarios.Scenario
			for _, s := range all {
				if s.ID == name {
					sc = s
				}
			}
			if sc == nil {
				t.Skipf("no scenario %s", name)
			}
			r, err := scenarios.Render(sc)
			if err != nil {
				t.Fatal(err)
			}
			run := r.Runs[0]
			loop := run.Events[:run.LoopEvents]
			st, _ := storeWith(t, sc.SessionID, journal.EncodeGolden(loop))
			res := resume(t, st, sc.SessionID, reducer.ResumeOptions{RunID: "run-2", History: sc.HistoryConfig(), Timestamp: fixedClock})
			// What the live run held, plus a tool message for each call it
			// left open.
			live, err := reducer.History(loop, sc.HistoryConfig())
			if err != nil {
				t.Fatal(err)
			}
			if name != "orphan-call" && wire(live) != wire(run.History) {
				t.Fatalf("History differs from the live run:\n%s\n%s", wire(run.History), wire(live))
			}
			if got := wire(res.History[:len(live)]); got != wire(live) {
				t.Fatalf("resumed history:\n%s\nlive:\n%s", got, wire(live))
			}
			if len(res.History) != len(live)+len(res.Repaired) {
				t.Fatalf("%d messages after %d repairs, live run %d", len(res.History), len(res.Repaired), len(live))
			}
			if name == "orphan-call" && (len(res.Repaired) != 1 || res.Repaired[0].ID != "call-tests") {
				t.Fatalf("repaired %+v", res.Repaired)
			}
		})
	}
}

// A fresh session: created by the store's writer with its first run, the
// history is the live run's; an empty session file (created, no event yet)
// resumes into its first run, which carries no resume marker.
func TestResumeFreshSession(t *testing.T) {
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var sc *scenarios.Scenario
	for _, s := range all {
		if s.ID == "s01-agent-loop" {
			sc = s
		}
	}
	if sc == nil {
		t.Skip("no s01-agent-loop scenario")
	}
	r, err := scenarios.Render(sc)
	if err != nil {
		t.Fatal(err)
	}
	run := r.Runs[0]
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.OpenWriter(sc.SessionID, store.WriterOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AppendEvents(run.Events); err != nil {
		t.Fatal(err)
	}
	w.Close()
	res := resume(t, st, sc.SessionID, reducer.ResumeOptions{RunID: "run-2", Message: "Again?", History: sc.HistoryConfig(), Timestamp: fixedClock})
	if wire(res.History[:len(run.History)]) != wire(run.History) || len(res.History) != len(run.History)+1 {
		t.Fatalf("history:\n%s\nlive:\n%s", wire(res.History), wire(run.History))
	}

	// A session file without events (the store never leaves one, but a
	// file can be made empty outside it) resumes into its first run.
	path, _ := st.Path("empty")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	prov := run.Events[0].Provenance
	first := resume(t, st, "empty", reducer.ResumeOptions{RunID: "run-1", Message: "Hello.", Provenance: &prov, Timestamp: fixedClock})
	if first.PreviousRunID != "" || types(first.Appended) != "session.start,user.message" || first.Appended[0].Payload.Has("resumed") {
		t.Fatalf("first run of an empty session: %+v", first)
	}
	// So does a session a writer is about to create: the file appears
	// with the run's first events.
	w, err = st.OpenWriter("new", store.WriterOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err = reducer.ResumeWriter(w, reducer.ResumeOptions{RunID: "run-1", Message: "Hello.", Provenance: &prov, Timestamp: fixedClock})
	w.Close()
	if err != nil || types(res.Appended) != "session.start,user.message" {
		t.Fatalf("first run of a new session: %+v, %v", res, err)
	}
	if _, err := st.Check("new", false); err != nil {
		t.Fatal(err)
	}
	// Without a provenance to copy, an empty session cannot be resumed;
	// the error is typed and names no Go field.
	path, _ = st.Path("empty2")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = reducer.Resume(st, "empty2", reducer.ResumeOptions{})
	if !errors.Is(err, reducer.ErrEmptySession) || strings.Contains(err.Error(), "ResumeOptions") {
		t.Fatalf("empty session without provenance: %v", err)
	}
}

// PlanResume computes exactly what a store resume writes.
func TestPlanResumeIsWhatResumeWrites(t *testing.T) {
	data := read(t, "../journal/store/testdata/interrupted-mid-tool-call.jsonl")
	const id = "session-s03-tool-dispatch"
	st, _ := storeWith(t, id, data)
	events, _, err := st.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	opts := reducer.ResumeOptions{RunID: "run-2", Message: "Go on.", Timestamp: fixedClock}
	plan, err := reducer.PlanResume(events, opts)
	if err != nil {
		t.Fatal(err)
	}
	done := resume(t, st, id, opts)
	if !bytes.Equal(journal.EncodeGolden(plan.Appended), journal.EncodeGolden(done.Appended)) || wire(plan.History) != wire(done.History) {
		t.Fatal("PlanResume differs from Resume")
	}
	if _, err := reducer.PlanResume(nil, opts); err == nil {
		t.Fatal("PlanResume of no events")
	}
}
