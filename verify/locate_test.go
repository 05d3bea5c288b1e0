package verify_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/verify"
)

// module makes a tracecheck module with scenarios/ and golden/ and returns
// its root.
func module(tb testing.TB) string {
	tb.Helper()
	root := dirWith(tb, map[string]string{"go.mod": "module " + golden.ModulePath + "\n", "scenarios/": "", "golden/": ""})
	return root
}

// TestLocateOnePlace: where a run with cases reads scenarios, cases and
// goldens, and when the unreferenced check may run.
func TestLocateOnePlace(t *testing.T) {
	mod := module(t)
	outside := t.TempDir()
	cases := dirWith(t, map[string]string{"a.json": "{}"})
	gdir := t.TempDir()
	sdir := t.TempDir()
	tests := []struct {
		name      string
		wd        string
		dirs      verify.Dirs
		scenarios bool   // they run
		goldens   string // the golden directory ("" embedded)
		mixed     bool
		usage     string // a *UsageError holding this
	}{
		{"the module alone", mod, verify.Dirs{}, true, "golden", false, ""},
		{"outside, scenarios alone", outside, verify.Dirs{}, true, "", false, ""},
		{"outside, cases: alone, goldens beside them", outside, verify.Dirs{Cases: cases}, false, cases, false, ""},
		{"cases only", mod, verify.Dirs{Cases: cases, NoScenarios: true}, false, cases, false, ""},
		{"cases only, goldens named", mod, verify.Dirs{Cases: cases, NoScenarios: true, Goldens: gdir}, false, gdir, false, ""},
		{"every directory named", outside, verify.Dirs{Scenarios: sdir, Cases: cases, Goldens: gdir}, true, gdir, false, ""},
		{"in the module, named cases and goldens: the cases alone", mod, verify.Dirs{Cases: cases, Goldens: gdir}, false, gdir, false, ""},
		{"in the module, cases alone, goldens beside them", mod, verify.Dirs{Cases: cases}, false, cases, false, ""},
		{"module scenarios named beside cases need --golden-dir", mod, verify.Dirs{Scenarios: "scenarios", Cases: cases}, false, "", false, "name one directory for both goldens with --golden-dir, or add --no-scenarios"},
		{"named scenarios and cases need --golden-dir", outside, verify.Dirs{Scenarios: sdir, Cases: cases}, false, "", false, "--golden-dir"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(tc.wd) // Locate names the module's directories relative to the working directory
			loc, err := verify.Locate(tc.wd, tc.dirs)
			var ue *verify.UsageError
			if tc.usage != "" {
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.usage) {
					t.Fatalf("err %v, want a usage error with %q", err, tc.usage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if loc.RunScenarios != tc.scenarios || loc.Goldens.Dir() != tc.goldens || (loc.MixedOrigins() != "") != tc.mixed {
				t.Errorf("scenarios run %v, goldens %q, mixed %q", loc.RunScenarios, loc.Goldens.Dir(), loc.MixedOrigins())
			}
			if !loc.RunScenarios && loc.ScenarioOrigin.Kind != verify.OriginNone {
				t.Errorf("scenarios that do not run come from %s", loc.ScenarioOrigin)
			}
		})
	}
	if _, err := verify.Locate(outside, verify.Dirs{Cases: filepath.Join(outside, "nope")}); err == nil || !strings.Contains(err.Error(), "--cases ") {
		t.Errorf("a missing cases directory: %v", err)
	}
	os.WriteFile(filepath.Join(outside, "file"), nil, 0o644)
	var de *verify.DirError
	if _, err := verify.Locate(outside, verify.Dirs{Cases: filepath.Join(outside, "file")}); !errors.As(err, &de) || de.Problem != "not a directory" {
		t.Errorf("a file as the cases directory: %v", err)
	}
}

// TestRunWritesTheCapturedGolden: a subject's golden name and captured
// golden (a tolerant case's) are what verify reads, writes, keeps pending
// and checks for unreferenced goldens.
func TestRunWritesTheCapturedGolden(t *testing.T) {
	dir := dirWith(t, map[string]string{"other.trace.jsonl": trace(1)})
	s := verify.Subject{ID: "a", Golden: "g", Kind: "case", Render: func() verify.Actual {
		return verify.Actual{Bytes: []byte(trace(2)), Events: 2, Golden: []byte(trace(3))}
	}}
	rep := verify.Run([]verify.Subject{s}, golden.DiskStore(dir), verify.Options{Update: verify.UpdateNew, Unreferenced: verify.UnreferencedWarn})
	r := rep.Results[0]
	if r.Status != verify.StatusMissing || r.Golden != "g" || r.File != filepath.Join(dir, "g.trace.jsonl") || r.Pending != filepath.Join(dir, "g.trace.jsonl.new") {
		t.Fatalf("result %+v", r)
	}
	if got := listing(t, dir)["g.trace.jsonl.new"]; got != trace(3) {
		t.Errorf("the pending golden is %q, want the captured golden", got)
	}
	if st := statuses(rep); st["other.trace.jsonl"] != verify.StatusObsolete || len(st) != 2 {
		t.Errorf("statuses %v", st)
	}
	verify.Run([]verify.Subject{s}, golden.DiskStore(dir), verify.Options{Update: verify.UpdateAlways, Filtered: true})
	if got := listing(t, dir)["g.trace.jsonl"]; got != trace(3) {
		t.Errorf("the golden is %q, want the captured golden", got)
	}
	// Compared with the golden as the subject says, under its own name.
	s.Compare = func(expected, actual []byte, expName, actName string) *golden.Drift {
		if string(expected) != trace(3) || string(actual) != trace(2) || actName != "actual a" {
			t.Errorf("compared %q with %q as %s", expected, actual, actName)
		}
		return nil
	}
	if rep := verify.Run([]verify.Subject{s}, golden.DiskStore(dir), verify.Options{Update: verify.UpdateNo, Filtered: true}); !rep.OK {
		t.Errorf("report %+v", rep.Results)
	}
}
