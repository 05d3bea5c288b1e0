package golden_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/scenarios"
)

// referenceDirs hold the reference implementation's golden traces: the
// curriculum's lessons s01, s02, s03, s07 and s08, and s04-s06 and s09-s13,
// in the shared/ directory beside the repository root (../shared from the
// module root).
var referenceDirs = []string{
	filepath.Join("..", "..", "shared", "reference", "golden"),
	filepath.Join("..", "..", "shared", "reference", "lessons-s04-s13"),
}

// referenceLessons is how many golden lessons the curriculum has.
const referenceLessons = 13

// TestGoldens renders every built-in scenario, validates it, and compares
// it with golden/<id>.trace.jsonl. `go test ./... -update` rewrites the
// goldens from the renders (valid renders only).
func TestGoldens(t *testing.T) {
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	g := goldie.New(t,
		goldie.WithFixtureDir("."), // this package's directory is golden/
		goldie.WithNameSuffix(golden.Suffix),
		goldie.WithDiffFn(func(actual, expected string) string {
			d := golden.Compare([]byte(expected), []byte(actual), "golden", "rendered")
			if d == nil {
				return ""
			}
			return d.Text("golden")
		}),
	)
	for _, sc := range all {
		t.Run(sc.ID, func(t *testing.T) {
			r, err := scenarios.Render(sc)
			if err != nil {
				t.Fatal(err)
			}
			if problems := scenarios.Check(r); len(problems) > 0 {
				t.Fatalf("invalid render, not compared:\n%s", strings.Join(problems, "\n"))
			}
			g.Assert(t, sc.ID, r.Bytes)
		})
	}
}

// TestNoObsoleteGoldens fails on a golden file no scenario renders.
func TestNoObsoleteGoldens(t *testing.T) {
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, s := range all {
		known[s.ID] = true
	}
	ids, err := golden.DiskStore(".").IDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if !known[id] {
			t.Errorf("golden/%s has no scenario: remove it with tracecheck verify --unreferenced=delete", golden.FileName(id))
		}
	}
}

// TestReferenceConformance is the conformance proof: for every scenario
// marked reference, the committed golden and a fresh render are both
// byte-identical to the reference implementation's golden trace, found in
// one of referenceDirs. Where shared/ is absent (a checkout on its own) it
// skips and says so; where only one of the folders is there, the lessons
// of the other are skipped one by one.
func TestReferenceConformance(t *testing.T) {
	refFiles := map[string]string{} // id -> reference golden
	var missing []string
	for _, dir := range referenceDirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			missing = append(missing, dir)
			continue
		}
		for _, e := range entries {
			if id, ok := strings.CutSuffix(e.Name(), golden.Suffix); ok {
				if other, dup := refFiles[id]; dup {
					t.Errorf("reference golden %s is in both %s and %s", e.Name(), filepath.Dir(other), dir)
				}
				refFiles[id] = filepath.Join(dir, e.Name())
			}
		}
	}
	if len(missing) == len(referenceDirs) {
		t.Skipf("SKIP: reference goldens not found at %s (the shared/ directory beside the repository): the byte-identity of the %d reference lessons is not checked", strings.Join(referenceDirs, " and "), referenceLessons)
	}
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]bool{}
	for _, sc := range all {
		if !sc.Reference {
			continue
		}
		refs[sc.ID] = true
		t.Run(sc.ID, func(t *testing.T) {
			ref, ok := refFiles[sc.ID]
			if !ok {
				if len(missing) > 0 {
					t.Skipf("SKIP: no reference golden for %s; not found: %s", sc.ID, strings.Join(missing, ", "))
				}
				t.Fatalf("no reference golden %s in %s", golden.FileName(sc.ID), strings.Join(referenceDirs, " or "))
			}
			want, err := os.ReadFile(ref)
			if err != nil {
				t.Fatal(err)
			}
			committed, err := os.ReadFile(golden.FileName(sc.ID))
			if err != nil {
				t.Fatal(err)
			}
			r, err := scenarios.Render(sc)
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range []struct {
				name  string
				bytes []byte
			}{{"committed golden", committed}, {"render", r.Bytes}} {
				if d := golden.Compare(want, got.bytes, "reference", got.name); d != nil {
					t.Errorf("%s differs from the reference:\n%s", got.name, d.Text(ref))
				} else if !bytes.Equal(want, got.bytes) {
					t.Errorf("%s differs from the reference %s, though no event differs", got.name, ref)
				}
			}
			if !t.Failed() {
				t.Logf("byte-identical to %s (%d events, %d bytes): committed golden and render", ref, len(r.Events), len(want))
			}
		})
	}
	if len(refs) != referenceLessons {
		t.Errorf("%d reference scenarios, want the curriculum's %d golden lessons", len(refs), referenceLessons)
	}
	for id, ref := range refFiles {
		if !refs[id] {
			t.Errorf("reference golden %s has no reference scenario", ref)
		}
	}
}

// TestEmbeddedGoldensAreTheCommittedOnes guards the copy an installed
// binary verifies against. With -update, TestGoldens may just have
// rewritten a golden on disk, which this test binary embedded before the
// change: such a difference is what the next build embeds, so the test
// names the files and skips instead of failing, and `go test ./... -update`
// passes in one run (the next `go test ./...` compares them again).
func TestEmbeddedGoldensAreTheCommittedOnes(t *testing.T) {
	disk, emb := golden.DiskStore("."), golden.EmbeddedStore()
	ids, err := disk.IDs()
	if err != nil {
		t.Fatal(err)
	}
	eids, err := emb.IDs()
	if err != nil {
		t.Fatal(err)
	}
	var differ []string
	if strings.Join(ids, ",") != strings.Join(eids, ",") {
		differ = append(differ, fmt.Sprintf("the set of goldens (embedded %v, on disk %v)", eids, ids))
	}
	for _, id := range ids {
		a, _ := disk.Read(id)
		b, _ := emb.Read(id)
		if !bytes.Equal(a, b) {
			differ = append(differ, golden.FileName(id))
		}
	}
	switch {
	case len(differ) == 0:
	case updating():
		t.Skipf("-update rewrote %s after this test binary embedded the earlier copy; the next build embeds the new one (run go test again to compare them)", strings.Join(differ, ", "))
	default:
		t.Errorf("the embedded copy differs from the file (rebuild): %s", strings.Join(differ, ", "))
	}
}

// updating reports whether the test binary was run with -update (the flag
// goldie defines).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}
