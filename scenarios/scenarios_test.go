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
	"time"

	"github.com/google/go-cmp/cmp"
	_ "github.com/sebdah/goldie/v2" // registers -update so `go test ./... -update` runs here too

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// builtin returns the embedded scenario id.
func builtin(tb testing.TB, id string) *Scenario {
	tb.Helper()
	all, err := Builtin()
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range all {
		if s.ID == id {
			return s
		}
	}
	tb.Fatalf("no built-in scenario %q", id)
	return nil
}

// mustRender renders sc and fails on any Check problem.
func mustRender(tb testing.TB, sc *Scenario) *Rendered {
	tb.Helper()
	r, err := Render(sc)
	if err != nil {
		tb.Fatal(err)
	}
	for _, p := range Check(r) {
		tb.Errorf("%s: %s", sc.ID, p)
	}
	return r
}

// parse parses a scenario document written in the test.
func parse(tb testing.TB, doc string) *Scenario {
	tb.Helper()
	s, err := Parse("t.json", []byte(doc))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func payload(tb testing.TB, e journal.Event) string {
	tb.Helper()
	return string(e.Payload.AppendJSON(nil))
}

func TestBuiltinScenariosRenderValidAndDeterministic(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 8 {
		t.Fatalf("only %d built-in scenarios", len(all))
	}
	for _, sc := range all {
		t.Run(sc.ID, func(t *testing.T) {
			a := mustRender(t, sc)
			b := mustRender(t, sc)
			if !bytes.Equal(a.Bytes, b.Bytes) {
				t.Error("two renders differ")
			}
			if !bytes.HasSuffix(a.Bytes, []byte("}\n")) || bytes.Contains(a.Bytes, []byte("\r")) {
				t.Error("not LF-terminated JSONL")
			}
		})
	}
}

func TestFixedClockIDsAndParentChain(t *testing.T) {
	r := mustRender(t, builtin(t, "branch-continue"))
	for _, run := range r.Runs {
		for i, e := range run.Events {
			wantTS := ClockStart.Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05Z")
			if e.Sequence != int64(i) || e.EventID != fmt.Sprintf("evt-%03d", i) || e.Timestamp != wantTS {
				t.Errorf("%s event %d: sequence %d id %s timestamp %s", run.RunID, i, e.Sequence, e.EventID, e.Timestamp)
			}
			wantParent := ""
			if i > 0 {
				wantParent = run.Events[i-1].EventID
			}
			if e.ParentEventID != wantParent {
				t.Errorf("%s event %d: parent %q, want %q", run.RunID, i, e.ParentEventID, wantParent)
			}
			if e.SessionID != run.SessionID || e.Provenance.RunID != run.RunID {
				t.Errorf("%s event %d: identity %s/%s", run.RunID, i, e.SessionID, e.Provenance.RunID)
			}
		}
	}
}

func TestMaxTurnsStopsWithAnError(t *testing.T) {
	sc := parse(t, `{"id":"t","prompt":"loop","max_turns":3,
		"tools":[{"name":"echo","handler":{"builtin":"echo"}}],
		"turns":[
			{"tool_calls":[{"id":"c1","name":"echo","arguments":{"text":"1"}}]},
			{"tool_calls":[{"id":"c2","name":"echo","arguments":{"text":"2"}}]},
			{"tool_calls":[{"id":"c3","name":"echo","arguments":{"text":"3"}}]},
			{"content":"never asked","stop":true}],
		"expect":{"event_count":16,"focus_event_types":["error"],"stop_reason":"max-turns"}}`)
	r := mustRender(t, sc)
	ev := r.Events
	n := len(ev)
	if got := ev[n-2].Type + " " + payload(t, ev[n-2]); got != `error {"kind":"max-turns","max_turns":3}` {
		t.Errorf("second-to-last event: %s", got)
	}
	if got := ev[n-1].Type + " " + payload(t, ev[n-1]); got != `session.stop {"reason":"max-turns","turns":3}` {
		t.Errorf("last event: %s", got)
	}
	if r.Runs[0].StopReason != StopMaxTurns {
		t.Errorf("stop reason %q", r.Runs[0].StopReason)
	}
	if len(r.Runs[0].Requests) != 3 {
		t.Errorf("the model was asked %d times, want 3 (max_turns)", len(r.Runs[0].Requests))
	}
}

func TestExhaustedScriptCompletes(t *testing.T) {
	sc := parse(t, `{"id":"t","prompt":"hi","turns":[],
		"expect":{"event_count":5,"focus_event_types":["session.stop"],"stop_reason":"completed",
		"assistant_messages":["The scripted model has no remaining turns."]}}`)
	r := mustRender(t, sc)
	if got := payload(t, r.Events[3]); got != `{"turn":1,"content":"The scripted model has no remaining turns.","stop":true,"tool_calls":[]}` {
		t.Errorf("model.response payload %s", got)
	}
	if r.Runs[0].StopReason != StopCompleted {
		t.Errorf("stop reason %q", r.Runs[0].StopReason)
	}
}

// TestHistoryMatchesTheLiveRunAtEveryInterruption interrupts scenarios after
// every event they emit and checks that reducer.History rebuilds, from the
// prefix alone, exactly the history the live agent held at that moment: the
// contract session resume relies on.
func TestHistoryMatchesTheLiveRunAtEveryInterruption(t *testing.T) {
	for _, id := range []string{
		"s03-tool-dispatch", "s08-context-compaction", "streaming-final-delta", "tool-failures", "max-turns",
		"s04-workspace-tools", "s05-instructions", "s09-memory-skills", "s10-approval-policy", "s11-sandbox-network",
		"s12-project-trust", "s13-checkpoint-rollback", "approval-denied", "checkpoint-dirty-workspace", "sandbox-network-denied",
	} {
		base := builtin(t, id)
		full, err := Render(base)
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]int{}
		for _, e := range full.Events[:full.Runs[0].LoopEvents] {
			counts[e.Type]++
			sc := *base
			sc.AfterRun = nil
			sc.Interrupt = &Interrupt{After: e.Type, Occurrence: counts[e.Type]}
			r, err := Render(&sc)
			if err != nil {
				t.Fatal(err)
			}
			run := r.Runs[0]
			if last := run.Events[len(run.Events)-1]; last.EventID != e.EventID {
				t.Fatalf("%s: interrupting after %s #%d stopped at %s, want %s", id, e.Type, counts[e.Type], last.EventID, e.EventID)
			}
			if !bytes.HasPrefix(full.Bytes, r.Bytes) {
				t.Fatalf("%s: the interrupted render is not a prefix of the full one", id)
			}
			h, err := reducer.History(run.Events, sc.HistoryConfig())
			if err != nil {
				t.Fatalf("%s after %s: %v", id, e.EventID, err)
			}
			if diff := cmp.Diff(run.History, h, cmp.Comparer(jsonv.Equal)); diff != "" {
				t.Errorf("%s interrupted after %s (%s): history (-live +rebuilt):\n%s", id, e.EventID, e.Type, diff)
			}
		}
	}
}

func TestOrphanCallRepair(t *testing.T) {
	r := mustRender(t, builtin(t, "orphan-call"))
	run := r.Runs[0]
	if run.StopReason != "" {
		t.Errorf("an interrupted run has stop reason %q", run.StopReason)
	}
	last := run.Events[run.LoopEvents-1]
	if last.Type != "tool.request" {
		t.Fatalf("the run ends with %s, want the orphan tool.request", last.Type)
	}
	var repairs []journal.Event
	for _, e := range run.Events[run.LoopEvents:] {
		if e.Type == "tool.result" {
			repairs = append(repairs, e)
		}
	}
	if len(repairs) != 1 {
		t.Fatalf("%d repair events, want 1", len(repairs))
	}
	want := `{"tool_call_id":"call-tests","tool":"run_tests","ok":false,"error":"` + reducer.InterruptedToolError + `","error_type":"SessionResumeInterrupted"}`
	if got := payload(t, repairs[0]); got != want {
		t.Errorf("repair payload\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(reducer.InterruptedToolError, "Error [SESSION_RESUME_INTERRUPTED]: This tool call did not finish before the previous run on this session ended, so no output was recorded. Treat it as not executed and decide whether to retry it.") {
		t.Error("the repair text is not the TypeScript harness's (chapter 20)")
	}
	// Replay before and after the repair.
	var replays []string
	for _, e := range run.Events {
		if e.Type == "session.replay" {
			p, _ := e.Payload.Get("stop_reason")
			n, _ := e.Payload.Get("applied_events")
			replays = append(replays, n.Text()+"/"+string(p.AppendJSON(nil)))
		}
	}
	if diff := cmp.Diff([]string{"7/null", "9/null"}, replays); diff != "" {
		t.Errorf("replays (-want +got):\n%s", diff)
	}
	if u := reducer.UnansweredCalls(run.History); len(u) != 0 {
		t.Errorf("after repair, unanswered: %v", u)
	}
	j, err := journal.New(run.Events)
	if err != nil {
		t.Fatal(err)
	}
	st := reducer.Replay(j)
	if len(st.ToolResults) != 2 {
		t.Errorf("replayed tool results: %d, want the real one and the repair", len(st.ToolResults))
	}
}

func TestStreamingReplayKeepsOneMessagePerResponse(t *testing.T) {
	r := mustRender(t, builtin(t, "streaming-final-delta"))
	j, err := journal.New(r.Runs[0].Events)
	if err != nil {
		t.Fatal(err)
	}
	var finals, deltas []string
	for _, e := range r.Events {
		if e.Type != "model.response" {
			continue
		}
		d, _ := e.Payload.Get("delta")
		deltas = append(deltas, d.Text())
		if f, _ := e.Payload.Get("final"); f.IsTrue() {
			a, _ := e.Payload.Get("accumulated")
			finals = append(finals, a.Text())
		}
	}
	got := reducer.Replay(j).AssistantMessages
	if diff := cmp.Diff(finals, got); diff != "" {
		t.Errorf("assistant messages (-final accumulated +replayed):\n%s", diff)
	}
	if len(got) != 3 || len(deltas) != 7 {
		t.Errorf("%d messages from %d deltas; want 3 from 7", len(got), len(deltas))
	}
}

func TestBranchContinueLeavesTheParentUnchanged(t *testing.T) {
	sc := builtin(t, "branch-continue")
	r := mustRender(t, sc)
	if len(r.Runs) != 2 {
		t.Fatalf("%d runs, want parent and branch", len(r.Runs))
	}
	parent, branch := r.Runs[0], r.Runs[1]

	// The parent's bytes are what it renders without the continuation.
	alone := *sc
	alone.AfterRun = slices.DeleteFunc(slices.Clone(sc.AfterRun), func(op Operation) bool { return op.Op == OpContinue })
	alone.Expect.EventCount, alone.Expect.RunIDs = len(parent.Events), []string{sc.RunID}
	ra := mustRender(t, &alone)
	if !bytes.Equal(ra.Bytes, journal.EncodeGolden(parent.Events)) || !bytes.HasPrefix(r.Bytes, ra.Bytes) {
		t.Error("continuing the branch changed the parent's events")
	}

	// The lineage: the branch run's session.branch names the parent prefix
	// and its fingerprint.
	lineage := branch.Events[1]
	if lineage.Type != "session.branch" {
		t.Fatalf("branch run event 1 is %s", lineage.Type)
	}
	fork, _ := lineage.Payload.Get("fork_sequence")
	forkSeq, _ := fork.Int64()
	fp, _ := lineage.Payload.Get("parent_fingerprint")
	prefix := parent.Events[:forkSeq+1]
	if got := reducer.Fingerprint(prefix); got != fp.Text() {
		t.Errorf("parent_fingerprint %s, fingerprint of the parent prefix %s", fp.Text(), got)
	}
	if diff := cmp.Diff(prefix, branch.Inherited, cmp.Comparer(jsonv.Equal)); diff != "" {
		t.Errorf("inherited prefix (-parent +branch):\n%s", diff)
	}
	if branch.RunID == parent.RunID || branch.SessionID == parent.SessionID {
		t.Errorf("branch identity %s/%s is the parent's", branch.SessionID, branch.RunID)
	}
	// The branch's model saw the inherited history, and answered anew.
	reqs := branch.Requests
	if len(reqs) != 1 || len(reqs[0]) != 3 || reqs[0][2].Role != reducer.RoleTool {
		t.Errorf("branch model requests: %+v", reqs)
	}
	if branch.StopReason != StopCompleted {
		t.Errorf("branch stop reason %q", branch.StopReason)
	}
}

func TestContinueNeedsATurnBoundary(t *testing.T) {
	sc := builtin(t, "branch-continue")
	bad := *sc
	bad.AfterRun = slices.Clone(sc.AfterRun)
	for i, op := range bad.AfterRun {
		if op.Op == OpBranch {
			op.ForkSequence = 3 // the model.response of turn 1: mid-turn
			bad.AfterRun[i] = op
		}
	}
	_, err := Render(&bad)
	if err == nil || !strings.Contains(err.Error(), "not a turn boundary") || !strings.Contains(err.Error(), "/after_run/2") {
		t.Errorf("err = %v, want a turn-boundary error naming the operation", err)
	}
}

func TestParseErrorsNameFileAndField(t *testing.T) {
	const ok = `"prompt":"p","turns":[],"expect":{"event_count":5,"focus_event_types":[]}`
	tests := []struct {
		name    string
		file    string
		doc     string
		pointer string
		msg     string
	}{
		{"not JSON", "t.json", `{"id":`, "", "not valid JSON"},
		{"missing prompt", "t.json", `{"id":"t","turns":[],"expect":{"event_count":1,"focus_event_types":[]}}`, "", "prompt"},
		{"bad id", "t.json", `{"id":"Not A Slug",` + ok + `}`, "/id", ""},
		{"id does not match the file", "other.json", `{"id":"t",` + ok + `}`, "/id", "other.json"},
		{"unknown key", "t.json", `{"id":"t","promt":"x",` + ok + `}`, "", "promt"},
		{"empty chunks", "t.json", `{"id":"t","prompt":"p","turns":[{"chunks":[]}],"expect":{"event_count":5,"focus_event_types":[]}}`, "/turns/0/chunks", ""},
		{"content and chunks", "t.json", `{"id":"t","prompt":"p","turns":[{"content":"a","chunks":["b"]}],"expect":{"event_count":5,"focus_event_types":[]}}`, "/turns/0", ""},
		{"unknown event type", "t.json", `{"id":"t","prompt":"p","turns":[],"expect":{"event_count":5,"focus_event_types":["model.think"]}}`, "/expect/focus_event_types/0", ""},
		{"duplicate tool", "t.json", `{"id":"t","tools":[{"name":"a","handler":{"builtin":"echo"}},{"name":"a","handler":{"result":1}}],` + ok + `}`, "/tools/1/name", "already declared"},
		{"two handlers", "t.json", `{"id":"t","tools":[{"name":"a","handler":{"builtin":"echo","result":1}}],` + ok + `}`, "/tools/0/handler", ""},
		{"branch op without fork", "t.json", `{"id":"t","after_run":[{"op":"branch","branch_id":"b"}],` + ok + `}`, "/after_run/0", "fork_sequence"},
		{"replay op with a stray key", "t.json", `{"id":"t","after_run":[{"op":"replay","branch_id":"b"}],` + ok + `}`, "/after_run/0", "branch_id"},
		{"continue of an unknown branch", "t.json", `{"id":"t","after_run":[{"op":"continue","branch_id":"b","turns":[]}],` + ok + `}`, "/after_run/0/branch_id", "no earlier branch"},
		{"blank summary", "t.json", `{"id":"t","compactor":{"trigger_chars":1,"keep_recent_messages":0,"summary":"  "},` + ok + `}`, "/compactor/summary", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.file, []byte(tc.doc))
			var fe FileErrors
			if !errors.As(err, &fe) || len(fe) == 0 {
				t.Fatalf("err = %v, want FileErrors", err)
			}
			found := false
			for _, e := range fe {
				if e.File == tc.file && e.Pointer == tc.pointer && strings.Contains(e.Error(), tc.msg) {
					found = true
				}
			}
			if !found {
				t.Errorf("no error at %s %q mentioning %q in:\n%v", tc.file, tc.pointer, tc.msg, err)
			}
		})
	}
}

func TestLoadDirReportsEveryBrokenFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, doc string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.json", `{"id":"a","prompt":"p","turns":[],"expect":{"event_count":5,"focus_event_types":[]}}`)
	write("b.json", `{"id":"b","turns":[],"expect":{"event_count":5,"focus_event_types":[]}}`)
	write("c.json", `[]`)
	_, err := LoadDir(dir)
	msg := fmt.Sprint(err)
	if !strings.Contains(msg, filepath.Join(dir, "b.json")) || !strings.Contains(msg, filepath.Join(dir, "c.json")) || strings.Contains(msg, "a.json") {
		t.Errorf("err = %v; want problems of b.json and c.json only", err)
	}
	os.Remove(filepath.Join(dir, "b.json"))
	os.Remove(filepath.Join(dir, "c.json"))
	got, err := LoadDir(dir)
	if err != nil || len(got) != 1 || got[0].ID != "a" || got[0].File != filepath.Join(dir, "a.json") {
		t.Errorf("LoadDir = %v, %v", got, err)
	}
}

func TestCheckReportsEachBrokenExpectation(t *testing.T) {
	base := `"prompt":"p","tools":[{"name":"leaky","handler":{"result":{"notes":[{"chain_of_thought":"secret"}]}}}],
		"turns":[{"tool_calls":[{"id":"c","name":"leaky"}]},{"content":"done","stop":true}]`
	tests := []struct {
		name   string
		expect string
		want   []string
	}{
		{"chain of thought in a payload", `{"event_count":9,"focus_event_types":[]}`,
			[]string{"event evt-005 (sequence 5, tool.result) carries forbidden hidden reasoning at /payload/result/notes/0/chain_of_thought"}},
		{"wrong count, focus, run ids and replay", `{"event_count":4,"focus_event_types":["context.compact"],"run_ids":["run-x"],"stop_reason":"max-turns","assistant_messages":["done"],"unanswered_calls":["c"]}`,
			[]string{"/expect/event_count: expected 4 events, actual 9", "forbidden hidden reasoning", "/expect/focus_event_types: expected a context.compact event, actual none",
				"/expect/run_ids: expected [run-x], actual [run-t-golden]", `/expect/stop_reason: expected "max-turns", actual "completed" (replayed)`,
				`/expect/assistant_messages: expected ["done"], actual ["", "done"] (replayed)`, "/expect/unanswered_calls: expected [c], actual [] (tool call ids left open by the run)"}},
		{"one assistant message differs", `{"event_count":9,"focus_event_types":[],"assistant_messages":["", "finished"]}`,
			[]string{"forbidden hidden reasoning", `/expect/assistant_messages/1: expected "finished", actual "done" (replayed)`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := parse(t, `{"id":"t",`+base+`,"expect":`+tc.expect+`}`)
			r, err := Render(sc)
			if err != nil {
				t.Fatal(err)
			}
			problems := Check(r)
			for _, w := range tc.want {
				if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, w) }) {
					t.Errorf("no problem %q in %q", w, problems)
				}
			}
			if len(problems) != len(tc.want) {
				t.Errorf("%d problems, want %d: %q", len(problems), len(tc.want), problems)
			}
		})
	}
}

func TestToolArgumentValidation(t *testing.T) {
	params, err := jsonv.Parse([]byte(`{"type":"object","additionalProperties":false,"required":["path","n"],
		"properties":{"path":{"type":"string"},"n":{"type":"integer"},"x":{"type":"number"},"flag":{"type":"boolean"},"list":{"type":"array"},"obj":{"type":"object"},"any":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	r := &registry{tools: []Tool{{Name: "t", Parameters: params, Handler: Handler{Result: jsonv.Str("done")}}}}
	tests := []struct {
		args string
		want string // "" when the call succeeds
	}{
		{`{"path":"a","n":1}`, ""},
		{`{"path":"a","n":1,"x":2.5,"flag":true,"list":[],"obj":{},"any":null}`, ""},
		{`{"path":"a"}`, "ToolValidationError: missing required arguments: n"},
		{`{}`, "ToolValidationError: missing required arguments: path, n"},
		{`{"path":"a","n":1,"zeta":1,"beta":2}`, "ToolValidationError: unknown arguments: beta, zeta"},
		{`{"path":"a","n":1.0}`, "ToolValidationError: n must be integer"},
		{`{"path":"a","n":true}`, "ToolValidationError: n must be integer"},
		{`{"path":7,"n":1}`, "ToolValidationError: path must be string"},
	}
	for _, tc := range tests {
		args, err := jsonv.Parse([]byte(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		_, terr := r.execute("t", args, nil)
		got := ""
		if terr != nil {
			got = terr.Error()
		}
		if got != tc.want {
			t.Errorf("execute(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
	if _, terr := r.execute("nope", jsonv.Obj(), nil); terr == nil || terr.Error() != "ToolValidationError: unknown tool: nope" {
		t.Errorf("unknown tool: %v", terr)
	}
	echo := &registry{tools: []Tool{{Name: "echo", Handler: Handler{Builtin: BuiltinEcho}}}}
	if _, terr := echo.execute("echo", jsonv.Obj(), nil); terr == nil || terr.Error() != "ToolExecutionError: echo failed: 'text'" {
		t.Errorf("echo without text: %v", terr)
	}
}

func TestModelSawTheCompactedCheckpoint(t *testing.T) {
	r := mustRender(t, builtin(t, "s08-context-compaction"))
	reqs := r.Runs[0].Requests
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	second := reqs[1]
	if len(second) != 2 || second[0].Role != reducer.RoleSystem || !strings.HasPrefix(second[1].Content, reducer.CheckpointPrefix) {
		t.Errorf("second request saw %+v", second)
	}
}
