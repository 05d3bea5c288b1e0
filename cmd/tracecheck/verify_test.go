package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "github.com/sebdah/goldie/v2" // registers -update so `go test ./... -update` runs here too

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/scenarios"
)

// goldenCopy copies the committed goldens into a temporary directory and
// returns it, so tests can break and repair them.
func goldenCopy(tb testing.TB) string {
	tb.Helper()
	src := filepath.Join("..", "..", "golden")
	dir := filepath.Join(tb.TempDir(), "golden")
	if err := os.Mkdir(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	ids, err := golden.DiskStore(src).IDs()
	if err != nil || len(ids) == 0 {
		tb.Fatalf("no goldens in %s: %v", src, err)
	}
	for _, id := range ids {
		b, err := os.ReadFile(filepath.Join(src, golden.FileName(id)))
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, golden.FileName(id)), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

func builtinIDs(tb testing.TB) []string {
	tb.Helper()
	all, err := scenarios.Builtin()
	if err != nil {
		tb.Fatal(err)
	}
	ids := make([]string, len(all))
	for i, s := range all {
		ids[i] = s.ID
	}
	return ids
}

func TestVerifyAllOK(t *testing.T) {
	dir := goldenCopy(t)
	code, stdout, stderr := runCmd(t, "", "verify", "--golden-dir", dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	ids := builtinIDs(t)
	if len(lines) != len(ids) {
		t.Fatalf("%d lines for %d scenarios:\n%s", len(lines), len(ids), stdout)
	}
	re := regexp.MustCompile(`^ok ([a-z0-9-]+) events=([0-9]+)$`)
	for i, l := range lines {
		m := re.FindStringSubmatch(l)
		if m == nil || m[1] != ids[i] {
			t.Errorf("line %q, want ok %s events=N", l, ids[i])
		}
	}
}

// TestGoldensPassValidate: every committed golden passes tracecheck validate.
func TestGoldensPassValidate(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "golden", "*"+golden.Suffix))
	if err != nil || len(files) != len(builtinIDs(t)) {
		t.Fatalf("%d golden files for %d scenarios: %v", len(files), len(builtinIDs(t)), err)
	}
	code, stdout, stderr := runCmd(t, "", append([]string{"validate"}, files...)...)
	if code != exitOK {
		t.Errorf("validate: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestVerifyOneScenario(t *testing.T) {
	code, stdout, stderr := runCmd(t, "", "verify", "--golden-dir", goldenCopy(t), "s07-session-replay")
	if code != exitOK || stdout != "ok s07-session-replay events=7\n" || stderr != "" {
		t.Errorf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}

func TestVerifyUsageErrors(t *testing.T) {
	dir := goldenCopy(t)
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"unknown scenario", []string{"verify", "--golden-dir", dir, "s99-nope"}, `unknown scenario "s99-nope"`},
		{"prune alone", []string{"verify", "--golden-dir", dir, "--prune"}, "--prune only goes with --update"},
		{"bad format", []string{"verify", "--golden-dir", dir, "--format", "xml"}, "--format must be text or json"},
		{"unknown flag", []string{"verify", "--frob"}, "unknown flag"},
		{"list with an argument", []string{"list", "extra"}, "unexpected argument"},
	}
	for _, tc := range tests {
		code, stdout, stderr := runCmd(t, "", tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%s: exit %d stdout %q stderr %q; want 2 and %q", tc.name, code, stdout, stderr, tc.msg)
		}
	}
}

// TestVerifyDriftThenUpdate is the "done" check: one byte changed in
// a golden makes verify exit 1 with a report naming the event and the field;
// --update restores it byte for byte.
func TestVerifyDriftThenUpdate(t *testing.T) {
	for _, spelling := range []string{"--update", "-update"} {
		t.Run(spelling, func(t *testing.T) {
			dir := goldenCopy(t)
			path := filepath.Join(dir, "s03-tool-dispatch.trace.jsonl")
			orig := mustRead(t, path)
			broken := strings.Replace(orig, `"result":{"echo":"hello"}`, `"result":{"echo":"hellp"}`, 1)
			if broken == orig {
				t.Fatal("the golden does not hold the expected tool result")
			}
			os.WriteFile(path, []byte(broken), 0o644)

			code, stdout, stderr := runCmd(t, "", "verify", "--golden-dir", dir)
			if code != exitFailed {
				t.Fatalf("exit %d, want 1\n%s", code, stdout)
			}
			for _, want := range []string{
				"DRIFT s03-tool-dispatch\n",
				"first difference at line 6, event sequence=5 event_id=evt-005 type=tool.result\n",
				`/payload/result/echo: expected "hellp", actual "hello"`,
				"@@ -5,3 +5,3 @@",
				"ok s01-agent-loop events=5\n",
			} {
				if !strings.Contains(stdout, want) {
					t.Errorf("report lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stderr, "--update") {
				t.Errorf("stderr does not say how to accept the change: %q", stderr)
			}

			code, stdout, _ = runCmd(t, "", "verify", "--golden-dir", dir, spelling)
			if code != exitOK || !strings.Contains(stdout, "updated s03-tool-dispatch events=9\n") || strings.Count(stdout, "updated") != 1 {
				t.Fatalf("%s: exit %d\n%s", spelling, code, stdout)
			}
			if mustRead(t, path) != orig {
				t.Error("--update did not restore the golden byte for byte")
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("left behind: %s", e.Name())
				}
			}
			if code, stdout, _ := runCmd(t, "", "verify", "--golden-dir", dir); code != exitOK {
				t.Errorf("after --update: exit %d\n%s", code, stdout)
			}
		})
	}
}

func TestVerifyMissingAndObsolete(t *testing.T) {
	dir := goldenCopy(t)
	os.Remove(filepath.Join(dir, "s01-agent-loop.trace.jsonl"))
	old := filepath.Join(dir, "s00-retired.trace.jsonl")
	os.WriteFile(old, []byte("{}\n"), 0o644)

	code, stdout, _ := runCmd(t, "", "verify", "--golden-dir", dir)
	if code != exitFailed || !strings.Contains(stdout, "MISSING s01-agent-loop") || !strings.Contains(stdout, "OBSOLETE "+old) {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
	// Naming scenarios checks only those: no obsolete report.
	if code, stdout, _ := runCmd(t, "", "verify", "--golden-dir", dir, "s02-events-streaming"); code != exitOK || strings.Contains(stdout, "OBSOLETE") {
		t.Errorf("verify one: exit %d\n%s", code, stdout)
	}
	// --update creates the missing one but keeps reporting the obsolete one.
	code, stdout, _ = runCmd(t, "", "verify", "--golden-dir", dir, "--update")
	if code != exitFailed || !strings.Contains(stdout, "created s01-agent-loop events=5") || !strings.Contains(stdout, "OBSOLETE") {
		t.Fatalf("--update: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCmd(t, "", "verify", "--golden-dir", dir, "-update", "--prune")
	if code != exitOK || !strings.Contains(stdout, "removed "+old) {
		t.Fatalf("--update --prune: exit %d\n%s", code, stdout)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("the obsolete golden is still there")
	}
	if code, stdout, _ := runCmd(t, "", "verify", "--golden-dir", dir); code != exitOK {
		t.Errorf("afterwards: exit %d\n%s", code, stdout)
	}
}

func TestVerifyJSON(t *testing.T) {
	dir := goldenCopy(t)
	path := filepath.Join(dir, "s08-context-compaction.trace.jsonl")
	os.WriteFile(path, []byte(strings.Replace(mustRead(t, path), `"summary_chars":145`, `"summary_chars":146`, 1)), 0o644)
	code, stdout, _ := runCmd(t, "", "verify", "--golden-dir", dir, "--format", "json")
	if code != exitFailed {
		t.Fatalf("exit %d", code)
	}
	var rep struct {
		GoldenDir string `json:"golden_dir"`
		OK        bool   `json:"ok"`
		Results   []struct {
			ID     string        `json:"id"`
			Status string        `json:"status"`
			Events int           `json:"events"`
			Drift  *golden.Drift `json:"drift"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if rep.OK || rep.GoldenDir != dir || len(rep.Results) != len(builtinIDs(t)) {
		t.Fatalf("report: %+v", rep)
	}
	for _, r := range rep.Results {
		switch {
		case r.ID == "s08-context-compaction":
			d := r.Drift
			if r.Status != "drift" || d == nil || d.EventID != "evt-006" || d.Type != "context.compact" || *d.Sequence != 6 ||
				len(d.Fields) != 1 || d.Fields[0] != (golden.FieldDiff{Path: "/payload/summary_chars", Expected: "146", Actual: "145"}) {
				t.Errorf("s08: %+v %+v", r, d)
			}
		case r.Status != "ok" || r.Events == 0 || r.Drift != nil:
			t.Errorf("%s: %+v", r.ID, r)
		}
	}
}

func TestVerifyNeverWritesAnInvalidRender(t *testing.T) {
	sdir := t.TempDir()
	// The expectations are wrong (5 events): the render is invalid.
	os.WriteFile(filepath.Join(sdir, "bad.json"), []byte(`{"id":"bad","prompt":"p","turns":[{"content":"x","stop":true}],
		"tools":[{"name":"t","handler":{"result":{"chain_of_thought":"hidden"}}}],
		"expect":{"event_count":4,"focus_event_types":[]}}`), 0o644)
	gdir := filepath.Join(t.TempDir(), "golden")
	code, stdout, _ := runCmd(t, "", "verify", "--scenario-dir", sdir, "--golden-dir", gdir, "--update")
	if code != exitFailed || !strings.Contains(stdout, "INVALID bad\n  - /expect/event_count: expected 4 events, actual 5") {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
	if _, err := os.Stat(filepath.Join(gdir, "bad.trace.jsonl")); !os.IsNotExist(err) {
		t.Error("an invalid render was written")
	}
}

func TestScenarioFileErrorsNameFileAndField(t *testing.T) {
	sdir := t.TempDir()
	os.WriteFile(filepath.Join(sdir, "broken.json"), []byte(`{"id":"broken","prompt":"p","turns":[{"chunks":[]}],"expect":{"event_count":1,"focus_event_types":[]}}`), 0o644)
	for _, cmd := range []string{"verify", "list"} {
		code, _, stderr := runCmd(t, "", cmd, "--scenario-dir", sdir)
		if code != exitUsage || !strings.Contains(stderr, filepath.Join(sdir, "broken.json")+": /turns/0/chunks: ") {
			t.Errorf("%s: exit %d stderr %q", cmd, code, stderr)
		}
	}
}

func TestVerifyEmbeddedOutsideTheModule(t *testing.T) {
	t.Chdir(t.TempDir())
	code, stdout, stderr := runCmd(t, "", "verify")
	if code != exitOK || strings.Count(stdout, "ok ") != len(builtinIDs(t)) {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runCmd(t, "", "verify", "--format", "json", "s01-agent-loop")
	if code != exitOK || !strings.Contains(stdout, `"embedded": true`) {
		t.Errorf("json: exit %d\n%s", code, stdout)
	}
	code, _, stderr = runCmd(t, "", "verify", "--update")
	if code != exitUsage || !strings.Contains(stderr, "cannot be written") {
		t.Errorf("--update on embedded goldens: exit %d stderr %q", code, stderr)
	}
}

func TestList(t *testing.T) {
	code, stdout, stderr := runCmd(t, "", "list")
	if code != exitOK {
		t.Fatalf("exit %d %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "ID") || len(lines) != len(builtinIDs(t))+1 {
		t.Fatalf("list:\n%s", stdout)
	}
	if !regexp.MustCompile(`(?m)^s08-context-compaction +10 +yes +tool\.result, context\.compact, model\.request, session\.stop$`).MatchString(stdout) {
		t.Errorf("no s08 row:\n%s", stdout)
	}
	if !regexp.MustCompile(`(?m)^orphan-call +10 +- +`).MatchString(stdout) {
		t.Errorf("no orphan-call row:\n%s", stdout)
	}

	code, stdout, _ = runCmd(t, "", "list", "--format", "json")
	var entries []struct {
		ID     string   `json:"id"`
		Events int      `json:"events"`
		Focus  []string `json:"focus_event_types"`
	}
	if err := json.Unmarshal([]byte(stdout), &entries); code != exitOK || err != nil || len(entries) != len(builtinIDs(t)) {
		t.Fatalf("list json: exit %d err %v\n%s", code, err, stdout)
	}
	for _, e := range entries {
		if e.Events == 0 || len(e.Focus) == 0 {
			t.Errorf("entry %+v", e)
		}
	}
}

// TestSessionResumeGoldenIsAStoreSession: the session-resume golden is a
// session file the store accepts as it is (three runs chained by their
// resume markers), and resuming it once more repairs nothing and leaves
// every byte of it unchanged.
func TestSessionResumeGoldenIsAStoreSession(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "golden", golden.FileName("session-resume")))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "session-session-resume.jsonl")
	if err := os.WriteFile(file, want, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(t, "", "session", "check", "--dir", dir)
	if code != exitOK || stdout != "ok session-session-resume: 24 events in 3 run(s) (run-session-resume-1 9, run-session-resume-2 10, run-session-resume-3 5)\n" {
		t.Fatalf("session check: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCmd(t, "", "session", "resume", "--dir", dir, "--session", "session-session-resume",
		"--run-id", "run-session-resume-4", "--message", "Anything else?",
		"--system-prompt", "You are a release assistant. Use the tools, then answer briefly.")
	if code != exitOK || strings.Contains(stdout, "repaired") || !strings.Contains(stdout, "resumes_run_id: run-session-resume-3") {
		t.Fatalf("session resume: exit %d\n%s%s", code, stdout, stderr)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), string(want)) || len(got) == len(want) {
		t.Error("the resume did not only append to the golden")
	}
}

// TestVerifySessionResumeDrift: a changed byte in the resumed part of the
// session-resume golden is a drift naming the event and the field, and
// --update restores the golden.
func TestVerifySessionResumeDrift(t *testing.T) {
	dir := goldenCopy(t)
	path := filepath.Join(dir, golden.FileName("session-resume"))
	orig := mustRead(t, path)
	broken := strings.Replace(orig, `"message_count":9,`, `"message_count":8,`, 1)
	if broken == orig {
		t.Fatal("no message_count 9 in the golden")
	}
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCmd(t, "", "verify", "--golden-dir", dir, "session-resume")
	if code != exitFailed || !strings.Contains(stdout, "DRIFT session-resume") ||
		!strings.Contains(stdout, "event sequence=7 event_id=evt-016 type=model.request") ||
		!strings.Contains(stdout, "/payload/message_count: expected 8, actual 9") {
		t.Fatalf("verify: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCmd(t, "", "verify", "--golden-dir", dir, "--update", "session-resume")
	if code != exitOK || stdout != "updated session-resume events=24\n" || mustRead(t, path) != orig {
		t.Errorf("verify --update: exit %d %q", code, stdout)
	}
}
