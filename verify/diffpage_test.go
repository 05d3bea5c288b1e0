package verify_test

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/verify"
	"github.com/tracecheck/tracecheck/view"
)

// With Options.DiffPage, a subject that drifted also gets <id>.diff.html
// beside its two traces; one without a golden does not.
func TestRunArtifactsDiffPage(t *testing.T) {
	dir := dirWith(t, map[string]string{"a.trace.jsonl": trace(1), "b.trace.jsonl": trace(9)})
	out := t.TempDir()
	rep := verify.Run(fourSubjects(), golden.DiskStore(dir), verify.Options{Update: verify.UpdateNo, Artifacts: out, Filtered: true, DiffPage: view.WriteDiffFile})
	files := listing(t, out)
	page, ok := files["b.diff.html"]
	if !ok || !strings.Contains(page, "<!doctype html>") || !strings.Contains(page, `"kind":"diff"`) {
		t.Fatalf("no diff page for b: %v", slices.Sorted(maps.Keys(files)))
	}
	if _, ok := files["c.diff.html"]; ok {
		t.Error("a diff page for c, which has no golden")
	}
	for _, r := range rep.Results {
		if r.ID == "b" && (len(r.Artifacts) != 3 || r.Artifacts[2] != filepath.Join(out, "b.diff.html")) {
			t.Errorf("b's artifacts %v", r.Artifacts)
		}
	}
}

// The page of a tolerant subject (a tolerant case) is asked for as a
// tolerant golden's; the others' literally.
func TestRunArtifactsDiffPageTolerant(t *testing.T) {
	dir := dirWith(t, map[string]string{"a.trace.jsonl": trace(9), "b.trace.jsonl": trace(9)})
	subjects := []verify.Subject{subject("a", trace(1)), subject("b", trace(2))}
	subjects[1].Tolerant = true
	asked := map[string]bool{}
	page := func(path string, expected, actual []byte, expName, actName string, tolerant bool) error {
		asked[filepath.Base(path)] = tolerant
		return nil
	}
	verify.Run(subjects, golden.DiskStore(dir), verify.Options{Update: verify.UpdateNo, Artifacts: t.TempDir(), Filtered: true, DiffPage: page})
	if len(asked) != 2 || asked["a.diff.html"] || !asked["b.diff.html"] {
		t.Errorf("pages asked for (tolerant?): %v", asked)
	}
}
