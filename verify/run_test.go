package verify_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/verify"
)

// trace returns a small trace whose session.start payload carries n, so
// two values of n differ in one field.
func trace(n int) string {
	return fmt.Sprintf(`{"sequence":0,"event_id":"evt-000","type":"session.start","payload":{"n":%d}}`+"\n"+
		`{"sequence":1,"event_id":"evt-001","type":"session.stop","payload":{"reason":"completed"}}`+"\n", n)
}

// subject renders data; with invalid reasons it is INVALID.
func subject(id, data string, invalid ...string) verify.Subject {
	return verify.Subject{ID: id, Kind: "fake", File: "subjects/" + id + ".json", Render: func() verify.Actual {
		return verify.Actual{Bytes: []byte(data), Events: strings.Count(data, "\n"), Invalid: invalid}
	}}
}

// dirWith makes a directory holding files (name -> content; a name
// ending in / is a directory).
func dirWith(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// listing is the directory's contents: name -> content ("/" for a
// directory).
func listing(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			out[e.Name()+"/"] = "/"
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func statuses(rep *verify.Report) map[string]verify.Status {
	out := map[string]verify.Status{}
	for _, r := range rep.Results {
		key := r.ID
		if key == "" {
			key = filepath.Base(r.File)
		}
		out[key] = r.Status
	}
	return out
}

// The four subjects every mode test checks: a passes, b drifts, c has no
// golden, d is INVALID.
func fourSubjects() []verify.Subject {
	return []verify.Subject{subject("a", trace(1)), subject("b", trace(2)), subject("c", trace(3)), subject("d", trace(4), "expected 3 events")}
}

func TestRunUpdateModes(t *testing.T) {
	start := map[string]string{"a.trace.jsonl": trace(1), "b.trace.jsonl": trace(9)}
	pendingBoth := map[string]string{"a.trace.jsonl": trace(1), "b.trace.jsonl": trace(9), "b.trace.jsonl.new": trace(2), "c.trace.jsonl.new": trace(3)}
	tests := []struct {
		mode   verify.UpdateMode
		ci     bool
		writes verify.Writes
		files  map[string]string
		status map[string]verify.Status
	}{
		{verify.UpdateAuto, false, verify.WritesPending, pendingBoth,
			map[string]verify.Status{"a": "ok", "b": "drift", "c": "missing", "d": "invalid"}},
		{verify.UpdateAuto, true, verify.WritesNone, start,
			map[string]verify.Status{"a": "ok", "b": "drift", "c": "missing", "d": "invalid"}},
		{verify.UpdateNew, true, verify.WritesPending, pendingBoth,
			map[string]verify.Status{"a": "ok", "b": "drift", "c": "missing", "d": "invalid"}},
		{verify.UpdateAlways, false, verify.WritesGolden, map[string]string{"a.trace.jsonl": trace(1), "b.trace.jsonl": trace(2), "c.trace.jsonl": trace(3)},
			map[string]verify.Status{"a": "ok", "b": "updated", "c": "created", "d": "invalid"}},
		{verify.UpdateAlways, true, verify.WritesGolden, map[string]string{"a.trace.jsonl": trace(1), "b.trace.jsonl": trace(2), "c.trace.jsonl": trace(3)},
			map[string]verify.Status{"a": "ok", "b": "updated", "c": "created", "d": "invalid"}},
		{verify.UpdateNo, false, verify.WritesNone, start,
			map[string]verify.Status{"a": "ok", "b": "drift", "c": "missing", "d": "invalid"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/ci=%v", tc.mode, tc.ci), func(t *testing.T) {
			dir := dirWith(t, start)
			rep := verify.Run(fourSubjects(), golden.DiskStore(dir), verify.Options{Update: tc.mode, CI: tc.ci, Unreferenced: verify.UnreferencedWarn})
			if rep.Writes != tc.writes || rep.OK {
				t.Errorf("writes %s ok %v; want %s, not ok (d is INVALID)", rep.Writes, rep.OK, tc.writes)
			}
			if d := cmp.Diff(tc.files, listing(t, dir)); d != "" {
				t.Errorf("golden directory (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.status, statuses(rep)); d != "" {
				t.Errorf("statuses (-want +got):\n%s", d)
			}
			for _, r := range rep.Results {
				if wantPending := tc.writes == verify.WritesPending && (r.ID == "b" || r.ID == "c"); (r.Pending != "") != wantPending {
					t.Errorf("%s: pending %q", r.ID, r.Pending)
				}
			}
		})
	}
}

func TestRunRemovesOnlyStalePendingGoldens(t *testing.T) {
	for _, tc := range []struct {
		mode    verify.UpdateMode
		ci      bool
		removed bool
	}{
		{verify.UpdateAuto, false, true},
		{verify.UpdateNew, false, true},
		{verify.UpdateAlways, false, true},
		{verify.UpdateAuto, true, false}, // writes nothing, removes nothing
		{verify.UpdateNo, false, false},
	} {
		t.Run(fmt.Sprintf("%s/ci=%v", tc.mode, tc.ci), func(t *testing.T) {
			others := map[string]string{"a.new": "x", "a.trace.jsonl.new.bak": "x", "a.trace.jsonl.new.tmp": "x", "b.trace.jsonl.new": "old"}
			files := map[string]string{"a.trace.jsonl": trace(1), "a.trace.jsonl.new": "stale"}
			for k, v := range others {
				files[k] = v
			}
			dir := dirWith(t, files)
			// b has no subject in this run: its pending golden is not a.
			rep := verify.Run([]verify.Subject{subject("a", trace(1))}, golden.DiskStore(dir), verify.Options{Update: tc.mode, CI: tc.ci, Filtered: true})
			got := listing(t, dir)
			_, kept := got["a.trace.jsonl.new"]
			if kept == tc.removed || (rep.Results[0].RemovedPending != "") != tc.removed {
				t.Errorf("stale a.trace.jsonl.new kept=%v, reported %q; want removed=%v", kept, rep.Results[0].RemovedPending, tc.removed)
			}
			for k, v := range others {
				if got[k] != v {
					t.Errorf("%s was touched", k)
				}
			}
		})
	}
}

// TestRunRemovesKilledWritersTemporaryFiles: a verify --update killed
// mid-write leaves .<name>.tmp-<pid>-<n>; the next write of that target
// removes it.
func TestRunRemovesKilledWritersTemporaryFiles(t *testing.T) {
	const deadPID = 2147480000 // beyond any pid_max: no such process
	for _, mode := range []verify.UpdateMode{verify.UpdateAlways, verify.UpdateNew} {
		t.Run(string(mode), func(t *testing.T) {
			leftovers := []string{
				fmt.Sprintf(".b.trace.jsonl.tmp-%d-1", deadPID),
				fmt.Sprintf(".b.trace.jsonl.new.tmp-%d-2", deadPID),
			}
			dir := dirWith(t, map[string]string{"b.trace.jsonl": trace(9), leftovers[0]: "partial", leftovers[1]: "partial"})
			verify.Run([]verify.Subject{subject("b", trace(2))}, golden.DiskStore(dir), verify.Options{Update: mode, Filtered: true})
			got := listing(t, dir)
			target := map[verify.UpdateMode]string{verify.UpdateAlways: leftovers[0], verify.UpdateNew: leftovers[1]}[mode]
			if _, ok := got[target]; ok {
				t.Errorf("%s left behind after writing its target: %v", target, got)
			}
		})
	}
}

func TestRunUnreferenced(t *testing.T) {
	files := map[string]string{
		"a.trace.jsonl": trace(1), "b.trace.jsonl": trace(2), "z.trace.jsonl": trace(26),
		"notes.txt": "keep", "z.trace.jsonl.new": "keep", ".hidden.trace.jsonl": "keep", "sub.trace.jsonl/": "",
	}
	subjects := []verify.Subject{subject("a", trace(1)), subject("b", trace(2))}
	tests := []struct {
		name    string
		opts    verify.Options
		subj    []verify.Subject
		checked bool
		removed bool
		ok      bool
		z       verify.Status // "" when z is not reported
	}{
		{"warn", verify.Options{Unreferenced: verify.UnreferencedWarn}, subjects, true, false, true, verify.StatusObsolete},
		{"reject", verify.Options{Unreferenced: verify.UnreferencedReject}, subjects, true, false, false, verify.StatusObsolete},
		{"delete", verify.Options{Unreferenced: verify.UnreferencedDelete}, subjects, true, true, true, verify.StatusRemoved},
		{"delete with a filter", verify.Options{Unreferenced: verify.UnreferencedDelete, Filtered: true}, subjects, false, false, true, ""},
		{"delete from mixed origins", verify.Options{Unreferenced: verify.UnreferencedDelete, MixedOrigins: "scenarios from X, goldens from Y"}, subjects, false, false, true, ""},
		{"delete with an INVALID subject", verify.Options{Unreferenced: verify.UnreferencedDelete},
			[]verify.Subject{subject("a", trace(1)), subject("b", trace(2), "broken")}, false, false, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := dirWith(t, files)
			z := filepath.Join(dir, "z.trace.jsonl")
			var notes bytes.Buffer
			tc.opts.Notes = writerFunc(func(p []byte) (int, error) {
				// What is deleted is said before it is deleted.
				if _, err := os.Stat(z); err != nil {
					t.Errorf("note %q written after the deletion", p)
				}
				return notes.Write(p)
			})
			tc.opts.Update = verify.UpdateNo
			rep := verify.Run(tc.subj, golden.DiskStore(dir), tc.opts)
			if rep.Unreferenced.Checked != tc.checked || rep.OK != tc.ok || statuses(rep)["z.trace.jsonl"] != tc.z {
				t.Errorf("checked %v (%s) ok %v z %q; want %v %v %q", rep.Unreferenced.Checked, rep.Unreferenced.Skipped, rep.OK, statuses(rep)["z.trace.jsonl"], tc.checked, tc.ok, tc.z)
			}
			if !tc.checked && rep.Unreferenced.Skipped == "" {
				t.Error("skipped without a reason")
			}
			want := map[string]string{}
			for k, v := range files {
				want[k] = v
				if strings.HasSuffix(k, "/") {
					want[k] = "/"
				}
			}
			if tc.removed {
				delete(want, "z.trace.jsonl")
				if !strings.Contains(notes.String(), "removing 1 unreferenced golden(s)") || !strings.Contains(notes.String(), z) {
					t.Errorf("notes %q do not say what is removed", notes.String())
				}
			}
			if d := cmp.Diff(want, listing(t, dir)); d != "" {
				t.Errorf("golden directory (-want +got):\n%s", d)
			}
		})
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestRunArtifacts(t *testing.T) {
	dir := dirWith(t, map[string]string{"a.trace.jsonl": trace(1), "b.trace.jsonl": trace(9)})
	out := t.TempDir()
	rep := verify.Run(fourSubjects(), golden.DiskStore(dir), verify.Options{Update: verify.UpdateNo, Artifacts: out, Filtered: true})
	want := map[string]string{
		"b.actual.jsonl": trace(2), "b.expected.jsonl": trace(9),
		"c.actual.jsonl": trace(3),
		"d.actual.jsonl": trace(4),
	}
	if d := cmp.Diff(want, listing(t, out)); d != "" {
		t.Errorf("artifacts (-want +got):\n%s", d)
	}
	var kept []string
	for _, r := range rep.Results {
		kept = append(kept, r.Artifacts...)
	}
	sort.Strings(kept)
	if len(kept) != 4 || !slices.Contains(kept, filepath.Join(out, "b.expected.jsonl")) {
		t.Errorf("reported artifacts %v", kept)
	}
}

func TestDetectCI(t *testing.T) {
	tests := []struct {
		env  map[string]string
		ci   bool
		why  string
		name string
	}{
		{map[string]string{}, false, "", "nothing set"},
		{map[string]string{"CI": "true"}, true, "CI", "CI=true"},
		{map[string]string{"CI": "1"}, true, "CI", "CI=1"},
		{map[string]string{"CI": "woodpecker"}, true, "CI", "any other value"},
		{map[string]string{"CI": "false", "GITHUB_ACTIONS": "true"}, false, "CI=false", "CI=false wins"},
		{map[string]string{"CI": "0"}, false, "CI=0", "CI=0"},
		{map[string]string{"CI": ""}, false, "CI=", "CI empty"},
		{map[string]string{"TF_BUILD": "True"}, true, "TF_BUILD", "Azure Pipelines"},
		{map[string]string{"JENKINS_URL": "http://ci/"}, true, "JENKINS_URL", "Jenkins"},
		{map[string]string{"GITHUB_ACTIONS": ""}, false, "", "set but empty"},
	}
	for _, tc := range tests {
		ci, why := verify.DetectCI(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
		if ci != tc.ci || why != tc.why {
			t.Errorf("%s: DetectCI = %v, %q; want %v, %q", tc.name, ci, why, tc.ci, tc.why)
		}
	}
}

func TestParseModes(t *testing.T) {
	for _, m := range []string{"auto", "new", "always", "no"} {
		if got, err := verify.ParseUpdateMode(m); err != nil || string(got) != m {
			t.Errorf("ParseUpdateMode(%q) = %q, %v", m, got, err)
		}
	}
	if _, err := verify.ParseUpdateMode("yes"); err == nil || !strings.Contains(err.Error(), "auto, new, always, no") {
		t.Errorf("ParseUpdateMode(yes): %v", err)
	}
	for _, tc := range []struct {
		s    string
		ci   bool
		want verify.UnreferencedMode
	}{{"", false, "warn"}, {"", true, "reject"}, {"delete", true, "delete"}, {"warn", true, "warn"}} {
		if got, err := verify.ParseUnreferencedMode(tc.s, tc.ci); err != nil || got != tc.want {
			t.Errorf("ParseUnreferencedMode(%q, %v) = %q, %v", tc.s, tc.ci, got, err)
		}
	}
	if _, err := verify.ParseUnreferencedMode("ignore", false); err == nil {
		t.Error("ParseUnreferencedMode(ignore) accepted")
	}
}
