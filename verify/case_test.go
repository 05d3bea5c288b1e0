package verify_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/cases"
	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/scenarios"
	"github.com/tracecheck/tracecheck/verify"
)

// TestCaseSubjectsShareOneRun: a case with a trace and a model is two
// subjects, <id> and <id>.model, with their own goldens and verdicts, and
// one run of the command.
func TestCaseSubjectsShareOneRun(t *testing.T) {
	dir := t.TempDir()
	trace, _ := filepath.Abs(filepath.Join("..", "golden", "s01-agent-loop.trace.jsonl"))
	doc := fmt.Sprintf(`{"command":{"argv":["sh","-c","echo run >> runs.log; cat %s"]},"trace":{"from":"stdout"},"golden":"g","model":{"scenario":"s01-agent-loop"}}`, trace)
	os.WriteFile(filepath.Join(dir, "c.json"), []byte(doc), 0o644)
	c, err := cases.LoadFile(filepath.Join(dir, "c.json"), verify.ScenarioLookup(scenarios.EmbeddedSource()))
	if err != nil {
		t.Fatal(err)
	}
	subjects := verify.CaseSubjects(context.Background(), []*cases.Case{c})
	gdir := t.TempDir()
	rep := verify.Run(subjects, golden.DiskStore(gdir), verify.Options{Update: verify.UpdateAlways, Filtered: true})
	if len(rep.Results) != 2 {
		t.Fatalf("results %+v", rep.Results)
	}
	a, m := rep.Results[0], rep.Results[1]
	if a.ID != "c" || a.Golden != "g" || a.Kind != verify.KindCase || a.Status != verify.StatusCreated || a.Events != 5 {
		t.Errorf("the trace: %+v", a)
	}
	// The command never asked the model: the model-side trace is INVALID
	// and nothing is written for it.
	if m.ID != "c.model" || m.Golden != "g.model" || m.Status != verify.StatusInvalid || !strings.Contains(strings.Join(m.Problems, "\n"), "the script was not fully used") {
		t.Errorf("the model-side trace: %+v", m)
	}
	if got := strings.Count(mustReadFile(t, filepath.Join(dir, "runs.log")), "run\n"); got != 1 {
		t.Errorf("the command ran %d times", got)
	}
	if l := listing(t, gdir); len(l) != 1 || l["g.trace.jsonl"] == "" {
		t.Errorf("golden directory %v", l)
	}
}

func mustReadFile(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
