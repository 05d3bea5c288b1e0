package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
	"github.com/tracecheck/tracecheck/reducer"
)

// renderDir renders sc through the store in a test directory and fails on
// any Check problem.
func renderDir(tb testing.TB, sc *Scenario) (*Rendered, string) {
	tb.Helper()
	dir := tb.TempDir()
	r, err := RenderDir(sc, dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, p := range Check(r) {
		tb.Errorf("%s: %s", sc.ID, p)
	}
	return r, dir
}

func types(evs []journal.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

func callIDs(calls []reducer.ToolCall) []string {
	out := []string{}
	for _, c := range calls {
		out = append(out, c.ID)
	}
	return out
}

// messageCounts lists the message_count of every model.request of evs.
func messageCounts(tb testing.TB, evs []journal.Event) []int64 {
	tb.Helper()
	var out []int64
	for _, e := range evs {
		if e.Type != "model.request" {
			continue
		}
		f, _ := e.Payload.Get("message_count")
		n, ok := f.Int64()
		if !ok {
			tb.Fatalf("%s: message_count %s", e.EventID, f.AppendJSON(nil))
		}
		out = append(out, n)
	}
	return out
}

// TestSessionResume checks the session-resume scenario's three runs
// through the durable store: run 1 interrupted mid-tool-call, run 2
// repairing the orphan call and adding a user turn, run 3 with nothing to
// repair, the file append-only throughout.
func TestSessionResume(t *testing.T) {
	sc := builtin(t, "session-resume")
	r, dir := renderDir(t, sc)
	if len(r.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(r.Runs))
	}
	run1, run2, run3 := r.Runs[0], r.Runs[1], r.Runs[2]

	// The golden is the session file's bytes.
	onDisk, err := os.ReadFile(r.SessionFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, r.Bytes) || !bytes.Equal(onDisk, journal.EncodeGolden(r.Events)) {
		t.Error("the rendered bytes are not the session file's")
	}
	if name, _ := store.FileName(sc.SessionID); r.SessionFile != filepath.Join(dir, name) {
		t.Errorf("session file %s, want %s in %s", r.SessionFile, name, dir)
	}

	// Three run ids; every run segment valid on its own.
	ids := []string{run1.RunID, run2.RunID, run3.RunID}
	if diff := cmp.Diff([]string{"run-session-resume-1", "run-session-resume-2", "run-session-resume-3"}, ids); diff != "" {
		t.Errorf("run ids (-want +got):\n%s", diff)
	}
	for _, run := range r.Runs {
		if _, err := journal.New(run.Events); err != nil {
			t.Errorf("run %s on its own: %v", run.RunID, err)
		}
	}
	if errs := journal.Validate(bytes.NewReader(r.Bytes), "session-resume"); len(errs) > 0 {
		t.Errorf("tracecheck validate: %v", errs)
	}

	// Run 1: interrupted right after the tool.request of call-tests.
	last := run1.Events[len(run1.Events)-1]
	if last.Type != "tool.request" || payload(t, last) != `{"tool_call_id":"call-tests","tool":"run_tests","arguments":{"target":"./..."}}` || run1.StopReason != "" {
		t.Errorf("run 1 ends with %s %s (stop reason %q), want the orphan tool.request", last.Type, payload(t, last), run1.StopReason)
	}

	// Run 2: the resume marker, the persisted repair, the new user turn.
	res2 := run2.Resumed
	if res2 == nil || res2.PreviousRunID != run1.RunID {
		t.Fatalf("run 2 resume: %+v", res2)
	}
	if diff := cmp.Diff([]string{"call-tests"}, callIDs(res2.Repaired)); diff != "" {
		t.Errorf("run 2 repaired (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"session.start", "tool.result", "user.message"}, types(res2.Appended)); diff != "" {
		t.Errorf("run 2 resume appended (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(res2.Appended, run2.Events[:len(res2.Appended)], cmp.Comparer(jsonv.Equal)); diff != "" {
		t.Errorf("run 2 does not start with the resume's events (-resume +run):\n%s", diff)
	}
	if got := payload(t, run2.Events[0]); got != `{"max_turns":8,"tool_count":2,"resumed":true,"resumes_run_id":"run-session-resume-1"}` {
		t.Errorf("run 2 session.start %s", got)
	}
	want := `{"tool_call_id":"call-tests","tool":"run_tests","ok":false,"error":"` + reducer.InterruptedToolError + `","error_type":"SessionResumeInterrupted"}`
	if got := payload(t, run2.Events[1]); got != want {
		t.Errorf("run 2 repair\n got %s\nwant %s", got, want)
	}
	if got := payload(t, run2.Events[2]); got != `{"content":"The last run stopped while the tests were running. Run them again, then report."}` {
		t.Errorf("run 2 user.message %s", got)
	}
	// The repair answers the call right after it in the history.
	h := res2.History
	if n := len(h); n < 3 || h[n-3].ToolCalls[0].ID != "call-tests" || h[n-2].Role != reducer.RoleTool || h[n-2].ToolCallID != "call-tests" || h[n-1].Role != reducer.RoleUser {
		t.Errorf("run 2 starting history ends %+v", h[max(0, len(h)-3):])
	}

	// model.request message_count grows from run to run; each resumed run's
	// first request shows the whole resumed history.
	c1, c2, c3 := messageCounts(t, run1.Events), messageCounts(t, run2.Events), messageCounts(t, run3.Events)
	if diff := cmp.Diff([][]int64{{2, 4}, {7, 9}, {11}}, [][]int64{c1, c2, c3}); diff != "" {
		t.Errorf("message counts per run (-want +got):\n%s", diff)
	}
	if c2[0] != int64(len(res2.History)) || c3[0] != int64(len(run3.Resumed.History)) {
		t.Errorf("first requests count %d and %d, resumed histories hold %d and %d", c2[0], c3[0], len(res2.History), len(run3.Resumed.History))
	}
	if len(run2.Requests[0]) != len(res2.History) || len(run2.Requests[0]) <= len(run1.Requests[len(run1.Requests)-1]) {
		t.Errorf("the model saw %d messages in run 2, %d at the end of run 1", len(run2.Requests[0]), len(run1.Requests[len(run1.Requests)-1]))
	}

	// Run 3: nothing left to repair.
	res3 := run3.Resumed
	if res3 == nil || len(res3.Repaired) != 0 || res3.PreviousRunID != run2.RunID {
		t.Fatalf("run 3 resume: %+v", res3)
	}
	if diff := cmp.Diff([]string{"session.start", "user.message"}, types(res3.Appended)); diff != "" {
		t.Errorf("run 3 resume appended (-want +got):\n%s", diff)
	}

	// Append-only: run 1's bytes, then run 1+2's, are an unchanged prefix of
	// the final file, and each resume appended right at their end.
	if !bytes.HasPrefix(run2.File, run1.File) || !bytes.HasPrefix(run3.File, run2.File) || !bytes.Equal(run3.File, r.Bytes) {
		t.Error("the file was not only appended to")
	}
	if !bytes.Equal(run1.File, journal.EncodeGolden(run1.Events)) {
		t.Error("run 1's bytes are not its events")
	}
	if res2.Offset != int64(len(run1.File)) || res3.Offset != int64(len(run2.File)) {
		t.Errorf("resume offsets %d, %d; runs ended at %d, %d", res2.Offset, res3.Offset, len(run1.File), len(run2.File))
	}

	// The store reads the session back as three runs chained by their
	// resume markers, and a further resume would have nothing to repair.
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.Check(sc.SessionID, false)
	if err != nil {
		t.Fatal(err)
	}
	wantRuns := []store.Run{
		{RunID: run1.RunID, FirstLine: 1, Events: 9},
		{RunID: run2.RunID, FirstLine: 10, Events: 10, ResumesRunID: run1.RunID},
		{RunID: run3.RunID, FirstLine: 20, Events: 5, ResumesRunID: run2.RunID},
	}
	if diff := cmp.Diff(wantRuns, rep.Runs); diff != "" {
		t.Errorf("store runs (-want +got):\n%s", diff)
	}
	next, err := reducer.PlanResume(r.Events, reducer.ResumeOptions{RunID: "run-4", History: sc.HistoryConfig()})
	if err != nil || len(next.Repaired) != 0 {
		t.Errorf("a fourth resume: %v, repaired %v", err, next)
	}
}

// TestSessionResumeIDsAndClock: event ids evt-NNN and timestamps follow
// the position in the session file, sequences and the parent chain restart
// with every run.
func TestSessionResumeIDsAndClock(t *testing.T) {
	r := mustRender(t, builtin(t, "session-resume"))
	pos := 0
	for _, run := range r.Runs {
		for i, e := range run.Events {
			wantParent := ""
			if i > 0 {
				wantParent = run.Events[i-1].EventID
			}
			if e.EventID != fmt.Sprintf("evt-%03d", pos) || e.Timestamp != Stamp(int64(pos)) || e.Sequence != int64(i) || e.ParentEventID != wantParent || e.Provenance.RunID != run.RunID {
				t.Errorf("position %d (%s #%d): id %s timestamp %s sequence %d parent %q run %s", pos, run.RunID, i, e.EventID, e.Timestamp, e.Sequence, e.ParentEventID, e.Provenance.RunID)
			}
			pos++
		}
	}
}

// TestStoreResumeMatchesPlanResume: the events the store path appended are
// the ones reducer.PlanResume computes in memory from the file before the
// resume.
func TestStoreResumeMatchesPlanResume(t *testing.T) {
	sc := builtin(t, "session-resume")
	r := mustRender(t, sc)
	for i, run := range r.Runs[1:] {
		base := int64(len(run.Inherited))
		prov := sc.Provenance
		prov.RunID = run.RunID
		plan, err := reducer.PlanResume(run.Inherited, reducer.ResumeOptions{
			RunID: run.RunID, Message: sc.Resumes[i].Message, History: sc.HistoryConfig(), Provenance: &prov,
			Timestamp: func(seq int64) string { return Stamp(base + seq) },
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(plan.Appended, run.Resumed.Appended, cmp.Comparer(jsonv.Equal)); diff != "" {
			t.Errorf("run %s: appended (-plan +store):\n%s", run.RunID, diff)
		}
		if diff := cmp.Diff(plan.History, run.Resumed.History, cmp.Comparer(jsonv.Equal)); diff != "" {
			t.Errorf("run %s: history (-plan +store):\n%s", run.RunID, diff)
		}
	}
}

// TestResumedRunNeedsSessionWideIDs: a resumed run numbered per run, as the
// recorder numbers a first run, would restart at evt-000; the store
// rejects that as a conflict with the stored evt-000.
func TestResumedRunNeedsSessionWideIDs(t *testing.T) {
	sc := builtin(t, "session-resume")
	r := mustRender(t, sc)
	st, err := store.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.OpenWriter(sc.SessionID, store.WriterOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AppendEvents(r.Runs[0].Events); err != nil {
		t.Fatal(err)
	}
	start := r.Runs[1].Events[0]
	start.EventID = "evt-000"
	_, err = w.AppendEvent(&start)
	if !errors.Is(err, store.ErrConflict) {
		t.Errorf("a resumed run's evt-000: err = %v, want ErrConflict", err)
	}
	if got := w.NextEventID(); got != r.Runs[1].Events[0].EventID {
		t.Errorf("NextEventID %s, the rendered resume uses %s", got, r.Runs[1].Events[0].EventID)
	}
}

// TestResumeVariants renders resumes written as data: each must pass Check
// and repair exactly what the run before it left open.
func TestResumeVariants(t *testing.T) {
	const tools = `"tools":[{"name":"echo","handler":{"builtin":"echo"}},{"name":"slow","handler":{"result":"done"}}]`
	tests := []struct {
		name     string
		doc      string
		appended [][]string // per resume: the types of the events it appended
		counts   [][]int64  // per run: message_count of each model.request
	}{
		{
			name: "interrupted again in the second run",
			doc: `{"id":"t","prompt":"go",` + tools + `,
				"turns":[{"tool_calls":[{"id":"c1","name":"slow"}]}],
				"interrupt":{"after":"tool.request"},
				"resumes":[
					{"message":"again","turns":[{"tool_calls":[{"id":"c2","name":"slow"}]}],"interrupt":{"after":"tool.request"}},
					{"message":"report","turns":[{"content":"both calls were interrupted","stop":true}]}],
				"expect":{"event_count":17,"focus_event_types":["tool.result"],"repaired_calls":[["c1"],["c2"]]}}`,
			appended: [][]string{{"session.start", "tool.result", "user.message"}, {"session.start", "tool.result", "user.message"}},
			counts:   [][]int64{{1}, {4}, {7}},
		},
		{
			name: "a completed run has nothing to repair",
			doc: `{"id":"t","prompt":"go",` + tools + `,
				"turns":[{"tool_calls":[{"id":"c1","name":"echo","arguments":{"text":"hi"}}]},{"content":"said hi","stop":true}],
				"resumes":[{"run_id":"run-second","message":"and now?","turns":[{"content":"nothing else","stop":true}]}],
				"expect":{"event_count":14,"focus_event_types":["session.stop"],"run_ids":["run-t-golden","run-second"],"stop_reason":"completed","repaired_calls":[[]]}}`,
			appended: [][]string{{"session.start", "user.message"}},
			counts:   [][]int64{{1, 3}, {5}},
		},
		{
			name: "a resume without a message goes on from the repaired history",
			doc: `{"id":"t","prompt":"go",` + tools + `,
				"turns":[{"content":"first","tool_calls":[{"id":"c1","name":"slow"},{"id":"c2","name":"echo","arguments":{"text":"x"}}]}],
				"interrupt":{"after":"tool.request"},
				"resumes":[{"turns":[{"content":"the calls did not run","stop":true}]}],
				"expect":{"event_count":11,"focus_event_types":["tool.result"],"run_ids":["run-t-golden","run-t-resume-1"],"unanswered_calls":["c1","c2"],"repaired_calls":[["c1","c2"]]}}`,
			appended: [][]string{{"session.start", "tool.result", "tool.result"}},
			counts:   [][]int64{{1}, {4}},
		},
		{
			name: "the resume replays a compaction of the first run",
			doc: `{"id":"t","prompt":"Inspect the artifact and summarize it.","system_prompt":"sys",
				"tools":[{"name":"inspect_artifact","handler":{"builtin":"inspect_artifact"}}],
				"compactor":{"trigger_chars":260,"keep_recent_messages":0,"summary":"The artifact was inspected."},
				"turns":[{"tool_calls":[{"id":"c1","name":"inspect_artifact","arguments":{"path":"a.txt"}}]},{"content":"summarized","stop":true}],
				"resumes":[{"message":"thanks","turns":[{"content":"welcome","stop":true}]}],
				"expect":{"event_count":15,"focus_event_types":["context.compact"],"repaired_calls":[[]]}}`,
			appended: [][]string{{"session.start", "user.message"}},
			counts:   [][]int64{{2, 2}, {4}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := parse(t, tc.doc)
			r, _ := renderDir(t, sc)
			var appended [][]string
			var counts [][]int64
			for i, run := range r.Runs {
				counts = append(counts, messageCounts(t, run.Events))
				if i > 0 {
					appended = append(appended, types(run.Resumed.Appended))
				}
			}
			if diff := cmp.Diff(tc.appended, appended); diff != "" {
				t.Errorf("appended by each resume (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.counts, counts); diff != "" {
				t.Errorf("message counts per run (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResumeAfterACrashAnywhereInTheSecondRun interrupts run 2 of
// session-resume after each event its loop emits: run 3 must then repair
// exactly the calls the live agent had left open, and the whole render must
// still pass Check (history rebuilt equal to the live one, append-only,
// every run valid).
func TestResumeAfterACrashAnywhereInTheSecondRun(t *testing.T) {
	base := builtin(t, "session-resume")
	full := mustRender(t, base)
	run2 := full.Runs[1]
	counts := map[string]int{}
	for _, e := range run2.Events[len(run2.Resumed.Appended):] {
		counts[e.Type]++
		t.Run(fmt.Sprintf("%s#%d", e.Type, counts[e.Type]), func(t *testing.T) {
			sc := *base
			sc.Resumes = slices.Clone(base.Resumes)
			sc.Resumes[0].Interrupt = &Interrupt{After: e.Type, Occurrence: counts[e.Type]}
			sc.Expect.RepairedCalls = nil
			r, err := Render(&sc)
			if err != nil {
				t.Fatal(err)
			}
			crashed := r.Runs[1]
			if last := crashed.Events[len(crashed.Events)-1]; last.EventID != e.EventID {
				t.Fatalf("run 2 stopped at %s, want %s", last.EventID, e.EventID)
			}
			// The call is open from the model.response that asks for it
			// until its tool.result.
			open := []string{}
			if name := fmt.Sprintf("%s#%d", e.Type, counts[e.Type]); name == "model.response#1" || name == "tool.request#1" {
				open = []string{"call-tests-2"}
			}
			if got := callIDs(reducer.UnansweredCalls(crashed.History)); !slices.Equal(got, open) {
				t.Errorf("the live agent left %v open, want %v", got, open)
			}
			sc.Expect.EventCount = len(r.Events)
			sc.Expect.RepairedCalls = [][]string{{"call-tests"}, open}
			for _, p := range Check(r) {
				t.Error(p)
			}
			if !bytes.HasPrefix(full.Bytes, r.Runs[1].File) {
				t.Error("the interrupted run 2 is not a prefix of the full session")
			}
		})
	}
	if counts["tool.request"] != 1 {
		t.Fatalf("run 2 has %d tool.request events, want 1", counts["tool.request"])
	}
}

func TestRenderDirRefusesAnExistingSession(t *testing.T) {
	sc := builtin(t, "session-resume")
	dir := t.TempDir()
	if _, err := RenderDir(sc, dir); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, "session-session-resume.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = RenderDir(sc, dir)
	if err == nil || !strings.Contains(err.Error(), "already in the store") {
		t.Errorf("second render into the same store: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "session-session-resume.jsonl"))
	if !bytes.Equal(before, after) {
		t.Error("the refused render changed the session file")
	}
}

func TestRenderWithoutResumesNeverTouchesTheDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not-created")
	r, err := RenderDir(builtin(t, "s03-tool-dispatch"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.SessionFile != "" || r.Runs[0].File != nil {
		t.Errorf("session file %q", r.SessionFile)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the directory was created: %v", err)
	}
}

// TestCheckReportsBrokenResumes: Check names each broken resume promise.
func TestCheckReportsBrokenResumes(t *testing.T) {
	tests := []struct {
		name   string
		breakR func(r *Rendered)
		want   []string
	}{
		{"wrong repaired calls", func(r *Rendered) {
			r.Scenario.Expect.RepairedCalls = [][]string{{"call-notes"}, {}}
		}, []string{`/expect/repaired_calls/0/0: expected "call-notes", actual "call-tests" (the tool call ids resume 1, run run-session-resume-2, answered)`}},
		{"run 1 rewritten", func(r *Rendered) {
			r.Runs[0].File = bytes.Replace(r.Runs[0].File, []byte("first release"), []byte("first releasf"), 1)
		}, []string{"run run-session-resume-1: the", "bytes of the session file when it ended are not an unchanged prefix of the final file",
			"run run-session-resume-2: the resume appended at offset"}},
		{"resume not at the end", func(r *Rendered) {
			r.Runs[2].Resumed.Offset--
		}, []string{"run run-session-resume-3: the resume appended at offset"}},
		{"a run missing from the file", func(r *Rendered) {
			r.Bytes = r.Runs[1].File
		}, []string{"the runs in the session file: expected [run-session-resume-1(9 events", "run run-session-resume-3: the"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := *builtin(t, "session-resume")
			r, err := Render(&sc)
			if err != nil {
				t.Fatal(err)
			}
			tc.breakR(r)
			problems := Check(r)
			for _, w := range tc.want {
				if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, w) }) {
					t.Errorf("no problem %q in %q", w, problems)
				}
			}
		})
	}
}

func TestResumeParseErrors(t *testing.T) {
	const head = `{"id":"t","prompt":"p","turns":[],`
	tests := []struct {
		name    string
		doc     string
		pointer string
		msg     string
	}{
		{"resume without turns", head + `"resumes":[{"message":"m"}],"expect":{"event_count":5,"focus_event_types":[]}}`, "/resumes/0", "turns"},
		{"unknown resume key", head + `"resumes":[{"turns":[],"prompt":"m"}],"expect":{"event_count":5,"focus_event_types":[]}}`, "/resumes/0", "prompt"},
		{"empty message", head + `"resumes":[{"turns":[],"message":""}],"expect":{"event_count":5,"focus_event_types":[]}}`, "/resumes/0/message", ""},
		{"run id of the first run", head + `"resumes":[{"run_id":"run-t-golden","turns":[]}],"expect":{"event_count":5,"focus_event_types":[]}}`, "/resumes/0/run_id", "already the run_id at /run_id"},
		{"two resumes with one run id", head + `"resumes":[{"run_id":"r","turns":[]},{"run_id":"r","turns":[]}],"expect":{"event_count":5,"focus_event_types":[]}}`, "/resumes/1/run_id", "/resumes/0/run_id"},
		{"default run id taken", head + `"resumes":[{"turns":[]},{"run_id":"run-t-resume-1","turns":[]}],"expect":{"event_count":5,"focus_event_types":[]}}`, "/resumes/1/run_id", "already"},
		{"continue with resumes", head + `"after_run":[{"op":"branch","branch_id":"b","fork_sequence":1},{"op":"continue","branch_id":"b","turns":[]}],"resumes":[{"turns":[]}],"expect":{"event_count":5,"focus_event_types":[]}}`, "/after_run/1", "session of its own"},
		{"repaired calls per resume", head + `"resumes":[{"turns":[]}],"expect":{"event_count":5,"focus_event_types":[],"repaired_calls":[[],[]]}}`, "/expect/repaired_calls", "2 entries for 1 resumes"},
		{"repaired calls not lists", head + `"resumes":[{"turns":[]}],"expect":{"event_count":5,"focus_event_types":[],"repaired_calls":["c"]}}`, "/expect/repaired_calls/0", ""},
		{"resume interrupt at an unknown type", head + `"resumes":[{"turns":[],"interrupt":{"after":"tool.call"}}],"expect":{"event_count":5,"focus_event_types":[]}}`, "/resumes/0/interrupt/after", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.json", []byte(tc.doc))
			var fe FileErrors
			if !errors.As(err, &fe) || len(fe) == 0 {
				t.Fatalf("err = %v, want FileErrors", err)
			}
			if !slices.ContainsFunc(fe, func(e *FileError) bool { return e.Pointer == tc.pointer && strings.Contains(e.Error(), tc.msg) }) {
				t.Errorf("no error at %q mentioning %q in:\n%v", tc.pointer, tc.msg, err)
			}
		})
	}
}

func TestResumeDefaults(t *testing.T) {
	sc := parse(t, `{"id":"t","prompt":"p","turns":[],"resumes":[{"turns":[]},{"run_id":"r3","message":"m","turns":[]}],
		"expect":{"event_count":5,"focus_event_types":[]}}`)
	got := []string{sc.Resumes[0].RunID, sc.Resumes[0].Message, sc.Resumes[0].Pointer, sc.Resumes[1].RunID, sc.Resumes[1].Message}
	if diff := cmp.Diff([]string{"run-t-resume-1", "", "/resumes/0", "r3", "m"}, got); diff != "" {
		t.Errorf("resumes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"run-t-golden", "run-t-resume-1", "r3"}, sc.Expect.RunIDs); diff != "" {
		t.Errorf("default run ids (-want +got):\n%s", diff)
	}
	if sc.Expect.RepairedCalls != nil {
		t.Errorf("repaired calls %v, want unchecked", sc.Expect.RepairedCalls)
	}
}
