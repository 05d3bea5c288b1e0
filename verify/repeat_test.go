package verify_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/shard"
	"github.com/tracecheck/tracecheck/verify"
)

// repeated is a subject of group case run k times whose run n renders
// render(n); runs counts the renders asked for.
func repeated(id, group string, k int, render func(n int) string, runs *int) verify.Subject {
	act := func(n int) verify.Actual {
		*runs++
		data := render(n)
		return verify.Actual{Bytes: []byte(data), Events: strings.Count(data, "\n")}
	}
	return verify.Subject{ID: id, Kind: "case", File: "cases/" + group + ".json", Group: group, Repeat: k,
		Render: func() verify.Actual { return act(1) },
		Again:  act}
}

// flaky renders trace(1) on odd runs and trace(2) on even ones.
func flaky(n int) string {
	if n%2 == 0 {
		return trace(2)
	}
	return trace(1)
}

func stable(int) string { return trace(1) }

// TestRepeatPassK: a subject run 4 times that drifts on every second run
// has 2/4 passed and fails (pass^k false), the detail of its first failing
// run in full and only a line for the other; one run 3 times that always
// matches passes 3/3.
func TestRepeatPassK(t *testing.T) {
	dir := dirWith(t, map[string]string{"flaky.trace.jsonl": trace(1), "stable.trace.jsonl": trace(1)})
	var nf, ns int
	subjects := []verify.Subject{repeated("flaky", "flaky", 4, flaky, &nf), repeated("stable", "stable", 3, stable, &ns)}
	rep := verify.Run(subjects, golden.DiskStore(dir), verify.Options{Update: verify.UpdateNo})
	if nf != 4 || ns != 3 {
		t.Fatalf("rendered %d and %d times, want 4 and 3", nf, ns)
	}
	if rep.OK {
		t.Error("the run passed with a case at 2/4")
	}
	f, s := rep.Results[0], rep.Results[1]
	if f.Status != verify.StatusDrift || !f.Failed || f.Repeat == nil || f.Repeat.Passed != 2 || f.Repeat.Count != 4 || f.Repeat.PassK || f.Repeat.Shown != 2 {
		t.Fatalf("flaky: %+v %+v", f, f.Repeat)
	}
	var got []string
	for _, r := range f.Repeat.Runs {
		got = append(got, string(r.Status))
	}
	if d := cmp.Diff([]string{"ok", "drift", "ok", "drift"}, got); d != "" {
		t.Errorf("the runs' statuses (-want +got):\n%s", d)
	}
	// Run 2 is the result (its drift in full); run 4 keeps one line.
	if f.Drift == nil || f.Repeat.Runs[1].Summary != "" || f.Repeat.Runs[3].Summary != f.Drift.Summary() {
		t.Errorf("detail: drift %v, runs %+v", f.Drift, f.Repeat.Runs)
	}
	if s.Status != verify.StatusOK || s.Failed || s.Repeat.Passed != 3 || !s.Repeat.PassK || s.Repeat.Shown != 1 {
		t.Fatalf("stable: %+v %+v", s, s.Repeat)
	}
	want := &verify.Reliability{PassK: 1, Cases: []verify.CaseRuns{{Case: "flaky", Count: 4, Passed: 2}, {Case: "stable", Count: 3, Passed: 3, PassK: true}}}
	if d := cmp.Diff(want, rep.Reliability); d != "" {
		t.Errorf("reliability (-want +got):\n%s", d)
	}

	var text bytes.Buffer
	rep.WriteText(&text)
	for _, line := range []string{
		"DRIFT flaky (2/4 passed; the detail is run 2's)\n",
		"  run 4: DRIFT: " + f.Drift.Summary() + "\n",
		"ok stable events=2 (3/3 passed)\n",
		"pass^k: 1 of 2 repeated cases passed every run\n  flaky 2/4 passed, pass^k false\n  stable 3/3 passed, pass^k true\n",
	} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("the text report lacks %q:\n%s", line, text.String())
		}
	}
	if n := strings.Count(text.String(), "\n  --- "); n != 1 {
		t.Errorf("%d unified diffs in the report, want 1 (run 2's):\n%s", n, text.String())
	}

	// JUnit: a testcase per run, the failing ones failed.
	var junit bytes.Buffer
	if err := rep.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var names, failed []string
	for _, c := range doc.Suites[0].Cases {
		names = append(names, c.Name)
		if c.Failure != nil {
			failed = append(failed, c.Name)
		}
	}
	if doc.Tests != 7 || doc.Failures != 2 || strings.Join(names, " ") != "flaky#1 flaky#2 flaky#3 flaky#4 stable#1 stable#2 stable#3" || strings.Join(failed, " ") != "flaky#2 flaky#4" {
		t.Errorf("JUnit: %d tests, %d failures, %v, failed %v", doc.Tests, doc.Failures, names, failed)
	}
	run2, run4 := doc.Suites[0].Cases[1].Failure, doc.Suites[0].Cases[3].Failure
	if !strings.Contains(run2.Text, "--- ") || strings.Contains(run4.Text, "--- ") || !strings.Contains(run4.Text, "kept for run 2 only: flaky#2") {
		t.Errorf("JUnit detail: run 2 %q, run 4 %q", run2.Text, run4.Text)
	}

	// A flaky case is not something an update fixes: no next step.
	if step, ok := rep.NextStep(verify.Invocation{Program: "tracecheck"}); ok {
		t.Errorf("next step %+v for a flaky case", step)
	}
}

// TestRepeatUpdateWritesRunOne: an update writes the golden from run 1
// only and compares the other runs with it; a pending golden is run 1's
// too, and then the other runs meet the golden as it was.
func TestRepeatUpdateWritesRunOne(t *testing.T) {
	dir := dirWith(t, map[string]string{})
	var n int
	rep := verify.Run([]verify.Subject{repeated("flaky", "flaky", 4, flaky, &n)}, golden.DiskStore(dir), verify.Options{Update: verify.UpdateAlways})
	r := rep.Results[0]
	if got := listing(t, dir)["flaky.trace.jsonl"]; got != trace(1) {
		t.Errorf("the golden is %q, want run 1's %q", got, trace(1))
	}
	if r.Status != verify.StatusDrift || r.Repeat.Runs[0].Status != verify.StatusCreated || r.Repeat.Passed != 2 || r.Repeat.Shown != 2 {
		t.Fatalf("%+v %+v", r, r.Repeat)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "  run 1 created the golden (an update writes the first run only); runs 2-4 were compared with it\n") {
		t.Errorf("the report does not say which run was written:\n%s", text.String())
	}

	// The change on even runs, consistent: every run drifts from the
	// golden, run 1's render is the pending golden, and the next step
	// reviews it.
	dir = dirWith(t, map[string]string{"always.trace.jsonl": trace(1)})
	rep = verify.Run([]verify.Subject{repeated("always", "always", 3, func(int) string { return trace(2) }, &n)}, golden.DiskStore(dir), verify.Options{Update: verify.UpdateNew})
	r = rep.Results[0]
	if r.Status != verify.StatusDrift || r.Repeat.Passed != 0 || r.Pending != filepath.Join(dir, "always.trace.jsonl.new") || listing(t, dir)["always.trace.jsonl.new"] != trace(2) {
		t.Fatalf("%+v %+v", r, r.Repeat)
	}
	text.Reset()
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "  wrote the pending golden "+r.Pending+" from run 1 (an update writes the first run only)\n") {
		t.Errorf("the report:\n%s", text.String())
	}
	if step, ok := rep.NextStep(verify.Invocation{Program: "tracecheck"}); !ok || !strings.HasPrefix(step.Command, "tracecheck review") {
		t.Errorf("next step %+v %v", step, ok)
	}
	// Without the pending golden, --update=new is what would fix it.
	rep = verify.Run([]verify.Subject{repeated("always", "always", 3, func(int) string { return trace(2) }, &n)}, golden.DiskStore(dir), verify.Options{Update: verify.UpdateNo})
	if step, ok := rep.NextStep(verify.Invocation{Program: "tracecheck"}); !ok || !strings.Contains(step.Command, "--update=new") {
		t.Errorf("next step %+v %v", step, ok)
	}
}

// TestRepeatGroup: a case's subjects share its runs, so a run of the case
// passes only when each of them passes it.
func TestRepeatGroup(t *testing.T) {
	dir := dirWith(t, map[string]string{"c.trace.jsonl": trace(1), "c.model.trace.jsonl": trace(1)})
	var n int
	third := func(k int) string {
		if k == 3 {
			return trace(3)
		}
		return trace(1)
	}
	rep := verify.Run([]verify.Subject{repeated("c", "c", 4, stable, &n), repeated("c.model", "c", 4, third, &n)}, golden.DiskStore(dir), verify.Options{Update: verify.UpdateNo})
	want := &verify.Reliability{Cases: []verify.CaseRuns{{Case: "c", Count: 4, Passed: 3}}}
	if d := cmp.Diff(want, rep.Reliability); d != "" {
		t.Errorf("reliability (-want +got):\n%s", d)
	}
}

// TestMergeKeepsRepeats: sharded and merged, repeated cases keep their
// runs, their counts and the pass^k figure, byte for byte in every format.
func TestMergeKeepsRepeats(t *testing.T) {
	dir := dirWith(t, map[string]string{"flaky.trace.jsonl": trace(1), "stable.trace.jsonl": trace(1), "once.trace.jsonl": trace(1)})
	var n int
	items := []verify.Item{}
	for _, s := range []verify.Subject{repeated("flaky", "flaky", 4, flaky, &n), repeated("stable", "stable", 3, stable, &n), subject("once", trace(1))} {
		id := s.ID
		items = append(items, verify.Item{ID: id, Kind: verify.KindCase, File: "cases/" + id + ".json", Goldens: []string{id}, Subjects: []verify.Subject{s},
			Definition: func() ([]byte, error) { return []byte(id), nil }})
	}
	opts := verify.Options{Update: verify.UpdateNo, Unreferenced: verify.UnreferencedReject}
	whole := verify.Run(verify.Subjects(items), golden.DiskStore(dir), opts)
	want := reports(t, whole)
	if !strings.Contains(want["text"], "pass^k: 1 of 2 repeated cases") || !strings.Contains(want["junit"], `name="flaky#4"`) {
		t.Fatalf("the whole run:\n%s", want["text"])
	}
	for _, total := range []int{2, 3} {
		files := make([]string, total)
		for i := range files {
			files[i] = fmt.Sprintf("r%d.json", i+1)
		}
		m, err := shard.Merge(files, runShards(t, dir, items, total, opts))
		if err != nil {
			t.Fatalf("N=%d: %v", total, err)
		}
		rep, _, err := verify.Merge(m, verify.MergeOptions{Unreferenced: verify.UnreferencedReject})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(whole.Reliability, rep.Reliability); d != "" {
			t.Errorf("N=%d: reliability (-whole +merged):\n%s", total, d)
		}
		for f, w := range reports(t, rep) {
			if d := cmp.Diff(want[f], w); d != "" {
				t.Errorf("N=%d --format %s (-whole +merged):\n%s", total, f, d)
			}
		}
	}
}
