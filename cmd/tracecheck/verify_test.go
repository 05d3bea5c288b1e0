package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	_ "github.com/sebdah/goldie/v2" // registers -update so `go test ./... -update` runs here too

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/scenarios"
	"github.com/tracecheck/tracecheck/tracediff"
)

// updating reports whether the test binary was run with -update (goldie's
// flag).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

var refreshGoldens sync.Once

// repoRoot is the repository's root, found before any test changes the
// working directory.
var repoRoot = func() string {
	abs, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		panic(err)
	}
	return abs
}()

// committedGoldens is the repository's golden/ directory. Under -update it
// is first rewritten from the renders (as TestGoldens in package golden
// does, concurrently: both write the same bytes atomically), so that every
// test here compares with the goldens this run leaves behind and
// `go test ./... -update` passes in one run.
func committedGoldens(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(repoRoot, "golden")
	refreshGoldens.Do(func() {
		if !updating() {
			return
		}
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
		args := []string{"verify", "--scenario-dir", filepath.Join(repoRoot, "scenarios"), "--golden-dir", dir, "--update=always", "--unreferenced=warn"}
		if code := run(e, args); code != exitOK {
			tb.Fatalf("-update: verify --update=always: exit %d\n%s%s", code, out.String(), errb.String())
		}
	})
	return dir
}

// local and inCI fix what CI detection sees, whatever environment the
// tests run in (CI runs them with CI=true).
func local(t *testing.T) { t.Setenv("CI", "false") }
func inCI(t *testing.T)  { t.Setenv("CI", "true") }

// copyFiles copies the files of src matching pattern into dst (created).
func copyFiles(tb testing.TB, src, pattern, dst string) {
	tb.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		tb.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(src, pattern))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no %s in %s: %v", pattern, src, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// goldenCopy copies the committed goldens into a temporary directory and
// returns it, so tests can break and repair them.
func goldenCopy(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "golden")
	copyFiles(tb, committedGoldens(tb), "*"+golden.Suffix, dir)
	return dir
}

// moduleCopy makes a tracecheck module in a temporary directory (go.mod,
// scenarios/, golden/ copied from the repository) and returns its root: a
// working tree to change without touching the repository's.
func moduleCopy(tb testing.TB) string {
	tb.Helper()
	root := tb.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+golden.ModulePath+"\n\ngo 1.26\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	copyFiles(tb, filepath.Join(repoRoot, "scenarios"), "*.json", filepath.Join(root, "scenarios"))
	copyFiles(tb, committedGoldens(tb), "*"+golden.Suffix, filepath.Join(root, "golden"))
	return root
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

// names lists a directory's entries, sorted.
func names(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// scenarioFile writes a copy of built-in scenario from into dir as id,
// with edit applied to its text.
func scenarioFile(tb testing.TB, dir, from, id string, edit func(string) string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "scenarios", from+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	text := strings.Replace(string(b), `"id": "`+from+`"`, `"id": "`+id+`"`, 1)
	if id != from && text == string(b) {
		tb.Fatalf("%s.json does not spell its id as expected", from)
	}
	if edit != nil {
		text = edit(text)
	}
	path := filepath.Join(dir, id+".json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// writeInvalid writes a scenario whose expectations are wrong (5 events
// rendered, 4 expected), so it renders INVALID.
func writeInvalid(tb testing.TB, dir, id string) {
	tb.Helper()
	doc := `{"id":"` + id + `","prompt":"p","turns":[{"content":"x","stop":true}],
		"tools":[{"name":"t","handler":{"result":{"ok":true}}}],
		"expect":{"event_count":4,"focus_event_types":[]}}`
	if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte(doc), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func header(scenarios, goldens string) string {
	return fmt.Sprintf("scenarios: %s; goldens: %s\n", scenarios, goldens)
}

func TestVerifyAllOK(t *testing.T) {
	local(t)
	dir := goldenCopy(t)
	code, stdout, stderr := runCmd(t, "", "verify", "--golden-dir", dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	ids := builtinIDs(t)
	if len(lines) != len(ids)+1 || lines[0]+"\n" != header("../../scenarios (working tree)", dir+" (--golden-dir)") {
		t.Fatalf("%d lines for %d scenarios:\n%s", len(lines), len(ids), stdout)
	}
	re := regexp.MustCompile(`^ok ([a-z0-9-]+) events=([0-9]+)$`)
	for i, l := range lines[1:] {
		m := re.FindStringSubmatch(l)
		if m == nil || m[1] != ids[i] {
			t.Errorf("line %q, want ok %s events=N", l, ids[i])
		}
	}
}

// TestGoldensPassValidate: every committed golden passes tracecheck validate.
func TestGoldensPassValidate(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(committedGoldens(t), "*"+golden.Suffix))
	if err != nil || len(files) != len(builtinIDs(t)) {
		t.Fatalf("%d golden files for %d scenarios: %v", len(files), len(builtinIDs(t)), err)
	}
	code, stdout, stderr := runCmd(t, "", append([]string{"validate"}, files...)...)
	if code != exitOK {
		t.Errorf("validate: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestVerifyOneScenario(t *testing.T) {
	local(t)
	dir := goldenCopy(t)
	code, stdout, stderr := runCmd(t, "", "verify", "--golden-dir", dir, "s07-session-replay")
	want := header("../../scenarios (working tree)", dir+" (--golden-dir)") + "ok s07-session-replay events=7\n"
	if code != exitOK || stdout != want || stderr != "" {
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
		{"unknown scenario", []string{"verify", "--golden-dir", dir, "s99-nope"}, `unknown scenario "s99-nope" (known: approval-denied, `},
		{"bad format", []string{"verify", "--golden-dir", dir, "--format", "xml"}, "--format must be text, json, junit or github, not \"xml\""},
		{"bad update", []string{"verify", "--update=sometimes"}, `--update must be one of auto, new, always, no, not "sometimes"`},
		{"update value without =", []string{"verify", "--golden-dir", dir, "--update", "new"}, `"new" after a bare --update is taken as a scenario id: write --update=new`},
		{"bad unreferenced", []string{"verify", "--unreferenced=ignore"}, `--unreferenced must be one of warn, reject, delete`},
		{"prune against unreferenced", []string{"verify", "--prune", "--unreferenced=warn"}, "--prune (deprecated) means --unreferenced=delete"},
		{"unknown flag", []string{"verify", "--frob"}, "unknown flag"},
		{"list with an argument", []string{"list", "extra"}, "unexpected argument"},
	}
	for _, tc := range tests {
		code, stdout, stderr := runCmd(t, "", tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d stdout %q stderr %q; want 2 and one line with %q", tc.name, code, stdout, stderr, tc.msg)
		}
	}
}

// TestVerifyDriftThenUpdate is the "done" check: one byte changed in
// a golden makes verify exit 1 with a report naming the event and the field,
// and the exact command that accepts it; that command (and its -update
// spelling) restores the golden byte for byte.
func TestVerifyDriftThenUpdate(t *testing.T) {
	local(t)
	for _, spelling := range []string{"--update", "-update", "--update=always"} {
		t.Run(spelling, func(t *testing.T) {
			dir := goldenCopy(t)
			path := filepath.Join(dir, "s03-tool-dispatch.trace.jsonl")
			orig := mustRead(t, path)
			broken := strings.Replace(orig, `"result":{"echo":"hello"}`, `"result":{"echo":"hellp"}`, 1)
			if broken == orig {
				t.Fatal("the golden does not hold the expected tool result")
			}
			os.WriteFile(path, []byte(broken), 0o644)

			code, stdout, stderr := runCmd(t, "", "verify", "--golden-dir", dir, "--update=no")
			if code != exitFailed {
				t.Fatalf("exit %d, want 1\n%s", code, stdout)
			}
			for _, want := range []string{
				"DRIFT s03-tool-dispatch\n",
				"1 event differs (1 changed, 0 missing, 0 extra); the golden has 9 events, the actual trace 9\n",
				"  changed sequence=5 event_id=evt-005 type=tool.result (expected line 6, actual line 6)\n",
				`/payload/result/echo: expected "hellp", actual "hello"`,
				"@@ -4,5 +4,5 @@",
				"ok s01-agent-loop events=5\n",
			} {
				if !strings.Contains(stdout, want) {
					t.Errorf("report lacks %q:\n%s", want, stdout)
				}
			}
			if want := "run: tracecheck verify --golden-dir " + dir + " --update=new; tracecheck review --golden-dir " + dir + "\n"; !strings.HasSuffix(stderr, want) {
				t.Errorf("stderr %q does not end with %q", stderr, want)
			}

			code, stdout, _ = runCmd(t, "", "verify", "--golden-dir", dir, spelling)
			if code != exitOK || !strings.Contains(stdout, "updated s03-tool-dispatch events=9\n") || strings.Count(stdout, "updated") != 1 {
				t.Fatalf("%s: exit %d\n%s", spelling, code, stdout)
			}
			if mustRead(t, path) != orig {
				t.Error("--update did not restore the golden byte for byte")
			}
			for _, n := range names(t, dir) {
				if strings.HasPrefix(n, ".") || strings.HasSuffix(n, golden.PendingSuffix) {
					t.Errorf("left behind: %s", n)
				}
			}
			if code, stdout, _ := runCmd(t, "", "verify", "--golden-dir", dir); code != exitOK {
				t.Errorf("after --update: exit %d\n%s", code, stdout)
			}
		})
	}
}

func TestVerifyJSON(t *testing.T) {
	local(t)
	dir := goldenCopy(t)
	path := filepath.Join(dir, "s08-context-compaction.trace.jsonl")
	os.WriteFile(path, []byte(strings.Replace(mustRead(t, path), `"summary_chars":145`, `"summary_chars":146`, 1)), 0o644)
	code, stdout, _ := runCmd(t, "", "verify", "--golden-dir", dir, "--format", "json", "--update=no")
	if code != exitFailed {
		t.Fatalf("exit %d", code)
	}
	var rep struct {
		Scenarios struct{ Origin, Dir string } `json:"scenarios"`
		Goldens   struct{ Origin, Dir, Flag string }
		GoldenDir string                   `json:"golden_dir"`
		OK        bool                     `json:"ok"`
		Next      struct{ Command string } `json:"next_step"`
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
	if rep.OK || rep.GoldenDir != dir || len(rep.Results) != len(builtinIDs(t)) ||
		rep.Scenarios.Origin != "working-tree" || rep.Goldens.Origin != "flag" || rep.Goldens.Flag != "--golden-dir" || rep.Goldens.Dir != dir ||
		rep.Next.Command != "tracecheck verify --golden-dir "+dir+" --update=new; tracecheck review --golden-dir "+dir {
		t.Fatalf("report: %+v", rep)
	}
	for _, r := range rep.Results {
		switch {
		case r.ID == "s08-context-compaction":
			d := r.Drift
			if r.Status != "drift" || d == nil || d.Differences != 1 || len(d.Events) != 1 || d.Events[0].EventID != "evt-006" ||
				d.Events[0].Type != "context.compact" || d.Events[0].Sequence != 6 || d.Line != 7 ||
				len(d.Events[0].Fields) != 1 || d.Events[0].Fields[0] != (tracediff.FieldDiff{Pointer: "/payload/summary_chars", Expected: "146", Actual: "145"}) {
				t.Errorf("s08: %+v %+v", r, d)
			}
		case r.Status != "ok" || r.Events == 0 || r.Drift != nil:
			t.Errorf("%s: %+v", r.ID, r)
		}
	}
}

func TestVerifyNeverWritesAnInvalidRender(t *testing.T) {
	local(t)
	for _, mode := range []string{"--update", "--update=new", "--update=auto"} {
		sdir := t.TempDir()
		os.WriteFile(filepath.Join(sdir, "bad.json"), []byte(`{"id":"bad","prompt":"p","turns":[{"content":"x","stop":true}],
		"tools":[{"name":"t","handler":{"result":{"chain_of_thought":"hidden"}}}],
		"expect":{"event_count":4,"focus_event_types":[]}}`), 0o644)
		gdir := t.TempDir()
		code, stdout, stderr := runCmd(t, "", "verify", "--scenario-dir", sdir, "--golden-dir", gdir, mode)
		if code != exitFailed || !strings.Contains(stdout, "INVALID bad\n  - /expect/event_count: expected 4 events, actual 5") {
			t.Fatalf("%s: exit %d\n%s", mode, code, stdout)
		}
		if n := names(t, gdir); len(n) != 0 {
			t.Errorf("%s: an invalid render was written: %v", mode, n)
		}
		if strings.Contains(stderr, "run:") {
			t.Errorf("%s: a next step after an INVALID render that no update fixes: %q", mode, stderr)
		}
	}
}

func TestScenarioFileErrorsNameFileAndField(t *testing.T) {
	sdir := t.TempDir()
	os.WriteFile(filepath.Join(sdir, "broken.json"), []byte(`{"id":"broken","prompt":"p","turns":[{"chunks":[]}],"expect":{"event_count":1,"focus_event_types":[]}}`), 0o644)
	for _, args := range [][]string{{"verify"}, {"list"}, {"render", "broken"}} {
		code, _, stderr := runCmd(t, "", append(args, "--scenario-dir", sdir)...)
		if code != exitUsage || !strings.Contains(stderr, filepath.Join(sdir, "broken.json")+": /turns/0/chunks: ") {
			t.Errorf("%v: exit %d stderr %q", args, code, stderr)
		}
	}
}

// TestVerifyEmbeddedOutsideTheModule: outside the module both scenarios
// and goldens are the binary's own, and the report says so. Under -update
// the goldens on disk may have just been rewritten after this test binary
// embedded the earlier ones: the comparison is then the next build's to
// make, and the test says so and skips.
func TestVerifyEmbeddedOutsideTheModule(t *testing.T) {
	local(t)
	if updating() {
		var stale []string
		emb, disk := golden.EmbeddedStore(), golden.DiskStore(committedGoldens(t))
		for _, id := range builtinIDs(t) {
			a, _ := emb.Read(id)
			b, _ := disk.Read(id)
			if !bytes.Equal(a, b) {
				stale = append(stale, id)
			}
		}
		if len(stale) > 0 {
			t.Skipf("-update rewrote the goldens of %s after this test binary embedded them; run go test again to verify the embedded copies", strings.Join(stale, ", "))
		}
	}
	t.Chdir(t.TempDir())
	code, stdout, stderr := runCmd(t, "", "verify")
	if code != exitOK || strings.Count(stdout, "\nok ") != len(builtinIDs(t)) ||
		!strings.HasPrefix(stdout, header("embedded in the binary (read-only)", "embedded in the binary (read-only)")) {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runCmd(t, "", "verify", "--format", "json", "s01-agent-loop")
	if code != exitOK || !strings.Contains(stdout, `"embedded": true`) || strings.Count(stdout, `"origin": "embedded"`) != 2 {
		t.Errorf("json: exit %d\n%s", code, stdout)
	}
	for _, args := range [][]string{{"--update"}, {"--update=new"}, {"--unreferenced=delete"}} {
		code, _, stderr = runCmd(t, "", append([]string{"verify"}, args...)...)
		if code != exitUsage || !strings.Contains(stderr, "cannot be written") {
			t.Errorf("%v on embedded goldens: exit %d stderr %q", args, code, stderr)
		}
	}
}

// TestVerifyReadsTheWorkingTreeInsideTheModule reproduces issue 8.2: a
// binary keeps the scenarios it was built with, but inside the module
// verify reads the working tree's scenarios and goldens together. This test
// binary plays the stale binary: its embedded scenarios are the
// repository's, the module copy's working tree moves on.
func TestVerifyReadsTheWorkingTreeInsideTheModule(t *testing.T) {
	local(t)
	root := moduleCopy(t)
	t.Chdir(filepath.Join(root, "golden")) // any directory of the module
	wt := header("../scenarios (working tree)", ". (working tree)")

	// A new scenario file added after the build: rendered, its golden not
	// OBSOLETE.
	scenarioFile(t, filepath.Join(root, "scenarios"), "s01-agent-loop", "new-after-build", nil)
	code, stdout, _ := runCmd(t, "", "verify", "--update=no")
	if code != exitFailed || !strings.HasPrefix(stdout, wt) || !strings.Contains(stdout, "MISSING new-after-build") {
		t.Fatalf("new scenario: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCmd(t, "", "verify", "--update=always", "new-after-build")
	if code != exitOK || !strings.Contains(stdout, "created new-after-build events=5") {
		t.Fatalf("writing its golden: exit %d\n%s", code, stdout)
	}
	code, stdout, stderr := runCmd(t, "", "verify", "--unreferenced=delete")
	if code != exitOK || strings.Contains(stdout, "OBSOLETE") || strings.Contains(stdout, "removed") || !strings.Contains(stdout, "ok new-after-build events=5") {
		t.Fatalf("after writing it: exit %d\n%s%s", code, stdout, stderr)
	}

	// A scenario's prompt edited after the build: the working tree's
	// scenario drifts from its golden.
	scenarioFile(t, filepath.Join(root, "scenarios"), "s01-agent-loop", "s01-agent-loop", func(s string) string {
		return strings.Replace(s, `"prompt": "`, `"prompt": "Edited: `, 1)
	})
	code, stdout, _ = runCmd(t, "", "verify", "--update=no", "s01-agent-loop")
	if code != exitFailed || !strings.Contains(stdout, "DRIFT s01-agent-loop") || !strings.Contains(stdout, "/payload/content") {
		t.Fatalf("edited prompt: exit %d\n%s", code, stdout)
	}
}

// TestVerifyPruneAfterAnInvalidScenarioDirDeletesNothing reproduces issue
// 8.1: from the repository, --scenario-dir holding one INVALID scenario
// with --update --prune removed every committed golden.
func TestVerifyPruneAfterAnInvalidScenarioDirDeletesNothing(t *testing.T) {
	local(t)
	root := moduleCopy(t)
	t.Chdir(root)
	before := names(t, "golden")
	cases := []struct {
		name  string
		setup func(dir string)
		args  []string
		code  int
		why   string
	}{
		{"one INVALID scenario, goldens of the module", func(d string) { writeInvalid(t, d, "bad") },
			[]string{"--update", "--prune"}, exitFailed, "scenarios come from"},
		{"one valid scenario, goldens of the module", func(d string) { scenarioFile(t, d, "s02-events-streaming", "s02-events-streaming", nil) },
			[]string{"--update", "--prune"}, exitOK, "scenarios come from"},
		{"one INVALID scenario, paired with the module's goldens", func(d string) { writeInvalid(t, d, "bad") },
			[]string{"--golden-dir", "golden", "--update", "--prune"}, exitFailed, "1 INVALID"},
		{"the golden directory named alone", func(string) {},
			[]string{"--golden-dir", "golden", "--unreferenced=delete"}, exitOK, "scenarios come from"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sdir := t.TempDir()
			tc.setup(sdir)
			args := []string{"verify"}
			if tc.name != "the golden directory named alone" {
				args = append(args, "--scenario-dir", sdir)
			}
			code, stdout, stderr := runCmd(t, "", append(args, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, "did nothing: ") || !strings.Contains(stderr, tc.why) {
				t.Errorf("exit %d\n%s%s", code, stdout, stderr)
			}
			if got := names(t, "golden"); strings.Join(got, ",") != strings.Join(before, ",") {
				t.Errorf("goldens after the run: %v, before %v", got, before)
			}
		})
	}
	// A scenario directory that does not load stops before anything.
	sdir := t.TempDir()
	os.WriteFile(filepath.Join(sdir, "x.json"), []byte("{"), 0o644)
	if code, _, _ := runCmd(t, "", "verify", "--scenario-dir", sdir, "--golden-dir", "golden", "--update", "--prune"); code != exitUsage {
		t.Errorf("a scenario that does not load: exit %d", code)
	}
	if got := names(t, "golden"); strings.Join(got, ",") != strings.Join(before, ",") {
		t.Errorf("goldens after a failed load: %v", got)
	}
}

// TestVerifyUnreferenced: warn by default on a developer's machine, reject
// in CI, delete on demand (saying what first), never with a filter.
func TestVerifyUnreferenced(t *testing.T) {
	root := moduleCopy(t)
	t.Chdir(root)
	old := filepath.Join("golden", "s00-retired.trace.jsonl")
	keep := []string{"notes.txt", "s00-retired.trace.jsonl.new", ".hidden.trace.jsonl"}
	os.WriteFile(old, []byte("{}\n"), 0o644)
	for _, k := range keep {
		os.WriteFile(filepath.Join("golden", k), []byte("x"), 0o644)
	}

	local(t)
	code, stdout, _ := runCmd(t, "", "verify")
	if code != exitOK || !strings.Contains(stdout, "OBSOLETE "+old+" (no scenario or case renders it; remove it with --unreferenced=delete)") {
		t.Fatalf("local default (warn): exit %d\n%s", code, stdout)
	}
	inCI(t)
	code, stdout, stderr := runCmd(t, "", "verify")
	if code != exitFailed || !strings.Contains(stdout, "OBSOLETE "+old) || !strings.HasSuffix(stderr, "run: tracecheck verify --unreferenced=delete\n") {
		t.Fatalf("CI default (reject): exit %d\n%s%s", code, stdout, stderr)
	}
	// Issue 9.8: with an ID the check cannot run, and says so.
	code, stdout, stderr = runCmd(t, "", "verify", "--update=always", "--unreferenced=delete", "s01-agent-loop")
	if code != exitOK || strings.Contains(stdout, "removed") || !strings.Contains(stderr, "--unreferenced=delete did nothing: ids were named: it needs a full run") {
		t.Fatalf("with an ID: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatal("the unreferenced golden went with a filtered run")
	}
	code, stdout, stderr = runCmd(t, "", "verify", "--unreferenced=delete")
	if code != exitOK || !strings.Contains(stdout, "removed "+old+"\n") ||
		!strings.Contains(stderr, "tracecheck verify: removing 1 unreferenced golden(s), which no scenario or case renders (--unreferenced=delete):\n  "+old+"\n") {
		t.Fatalf("delete: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("the unreferenced golden is still there")
	}
	for _, k := range keep {
		if _, err := os.Stat(filepath.Join("golden", k)); err != nil {
			t.Errorf("%s was touched: %v", k, err)
		}
	}
}

func TestVerifyPruneIsADeprecatedSpellingOfDelete(t *testing.T) {
	local(t)
	dir := goldenCopy(t)
	old := filepath.Join(dir, "s00-retired.trace.jsonl")
	os.WriteFile(old, []byte("{}\n"), 0o644)
	sdir := t.TempDir()
	copyFiles(t, filepath.Join(repoRoot, "scenarios"), "*.json", sdir)
	code, stdout, stderr := runCmd(t, "", "verify", "--scenario-dir", sdir, "--golden-dir", dir, "--update", "-prune")
	if code != exitOK || !strings.Contains(stdout, "removed "+old) || !strings.Contains(stderr, "--prune is deprecated: use --unreferenced=delete") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestVerifyUpdateModes: what each --update writes, on a developer's
// machine and in CI. In CI the default writes nothing and a missing golden
// fails the run.
func TestVerifyUpdateModes(t *testing.T) {
	tests := []struct {
		name    string
		ci      bool
		args    []string
		code    int
		pending bool // s01 and s03 .new written
		golden  bool // s01 created and s03 rewritten
	}{
		{"default on a developer's machine", false, nil, exitFailed, true, false},
		{"auto in CI", true, []string{"--update=auto"}, exitFailed, false, false},
		{"default in CI", true, nil, exitFailed, false, false},
		{"new in CI", true, []string{"--update=new"}, exitFailed, true, false},
		{"no", false, []string{"--update=no"}, exitFailed, false, false},
		{"bare --update", false, []string{"--update"}, exitOK, false, true},
		{"-update", true, []string{"-update"}, exitOK, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.ci {
				inCI(t)
			} else {
				local(t)
			}
			dir := goldenCopy(t)
			s01, s03 := filepath.Join(dir, "s01-agent-loop.trace.jsonl"), filepath.Join(dir, "s03-tool-dispatch.trace.jsonl")
			want01, want03 := mustRead(t, s01), mustRead(t, s03)
			os.Remove(s01)
			os.WriteFile(s03, []byte(strings.Replace(want03, `"hello"`, `"HELLO"`, 1)), 0o644)
			before := names(t, dir)

			code, stdout, stderr := runCmd(t, "", append([]string{"verify", "--golden-dir", dir}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			_, err01 := os.Stat(s01 + ".new")
			_, err03 := os.Stat(s03 + ".new")
			if (err01 == nil) != tc.pending || (err03 == nil) != tc.pending {
				t.Errorf("pending goldens: s01 %v, s03 %v; want written=%v", err01, err03, tc.pending)
			}
			if tc.pending {
				if mustRead(t, s01+".new") != want01 || mustRead(t, s03+".new") != want03 {
					t.Error("a pending golden is not the render")
				}
				if !strings.Contains(stdout, "MISSING s01-agent-loop") || !strings.Contains(stdout, "wrote the pending golden "+s01+".new") ||
					!strings.HasSuffix(stderr, "review the pending goldens (accept or reject each), run: tracecheck review --golden-dir "+dir+"\n") {
					t.Errorf("report:\n%s%s", stdout, stderr)
				}
			}
			_, err := os.Stat(s01)
			if (err == nil) != tc.golden {
				t.Errorf("s01 golden exists: %v, want %v", err == nil, tc.golden)
			}
			if !tc.golden && !tc.pending {
				if got := names(t, dir); strings.Join(got, ",") != strings.Join(before, ",") {
					t.Errorf("wrote something: %v", got)
				}
				if !strings.Contains(stdout, "MISSING s01-agent-loop") || !strings.Contains(stdout, "DRIFT s03-tool-dispatch") {
					t.Errorf("report:\n%s", stdout)
				}
			}
			if tc.ci && !tc.golden && !tc.pending && !strings.Contains(stderr, "in CI --update=auto writes nothing") {
				t.Errorf("stderr does not say why nothing was written: %q", stderr)
			}
			if tc.golden && (mustRead(t, s01) != want01 || mustRead(t, s03) != want03) {
				t.Error("the goldens are not the renders")
			}
		})
	}
}

// TestVerifyRemovesStalePendingGoldens: a scenario that passes again loses
// the pending golden an earlier run left for it; nothing else goes.
func TestVerifyRemovesStalePendingGoldens(t *testing.T) {
	local(t)
	dir := goldenCopy(t)
	stale := filepath.Join(dir, "s01-agent-loop.trace.jsonl.new")
	os.WriteFile(stale, []byte("old render\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "s01-agent-loop.new"), []byte("x"), 0o644)
	code, stdout, _ := runCmd(t, "", "verify", "--golden-dir", dir, "s01-agent-loop")
	if code != exitOK || !strings.Contains(stdout, "removed the stale pending golden "+stale) {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the stale pending golden is still there")
	}
	if _, err := os.Stat(filepath.Join(dir, "s01-agent-loop.new")); err != nil {
		t.Error("a file that is not a pending golden was removed")
	}
}

func TestVerifyArtifacts(t *testing.T) {
	local(t)
	dir := goldenCopy(t)
	s03 := filepath.Join(dir, "s03-tool-dispatch.trace.jsonl")
	want03 := mustRead(t, s03)
	broken := strings.Replace(want03, `"hello"`, `"HELLO"`, 1)
	os.WriteFile(s03, []byte(broken), 0o644)
	out := filepath.Join(t.TempDir(), "artifacts", "verify")
	code, _, stderr := runCmd(t, "", "verify", "--golden-dir", dir, "--update=no", "--artifacts", out)
	if code != exitFailed || !strings.Contains(stderr, "--artifacts: kept 3 file(s) in "+out) {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if got := names(t, out); strings.Join(got, ",") != "s03-tool-dispatch.actual.jsonl,s03-tool-dispatch.diff.html,s03-tool-dispatch.expected.jsonl" {
		t.Fatalf("artifacts: %v", got)
	}
	if mustRead(t, filepath.Join(out, "s03-tool-dispatch.actual.jsonl")) != want03 || mustRead(t, filepath.Join(out, "s03-tool-dispatch.expected.jsonl")) != broken {
		t.Error("the artifacts are not the render and the golden")
	}
	if page := mustRead(t, filepath.Join(out, "s03-tool-dispatch.diff.html")); !strings.HasPrefix(page, "<!doctype html>") || !strings.Contains(page, "/payload/tool_calls/0/arguments/text") {
		t.Error("the diff page does not show the differing field")
	}
	for _, bad := range []string{dir, s03} {
		if code, _, stderr := runCmd(t, "", "verify", "--golden-dir", dir, "--artifacts", bad); code != exitUsage || !strings.Contains(stderr, "--artifacts") {
			t.Errorf("--artifacts %s: exit %d %q", bad, code, stderr)
		}
	}
}

// TestVerifyNextStepWorks: the command printed after a failed verify, run
// as printed, fixes what can be fixed; after failures no update fixes, or
// with read-only goldens, none is printed.
func TestVerifyNextStepWorks(t *testing.T) {
	local(t)
	gdir := goldenCopy(t)
	sdir := filepath.Join(t.TempDir(), "my scenarios")
	copyFiles(t, filepath.Join(repoRoot, "scenarios"), "*.json", sdir)
	writeInvalid(t, sdir, "bad")
	s03 := filepath.Join(gdir, "s03-tool-dispatch.trace.jsonl")
	os.WriteFile(s03, []byte(strings.Replace(mustRead(t, s03), `"hello"`, `"HELLO"`, 1)), 0o644)

	code, _, stderr := runCmd(t, "", "verify", "--scenario-dir", sdir, "--golden-dir", gdir, "--update=no")
	want := "tracecheck verify --scenario-dir '" + sdir + "' --golden-dir " + gdir + " --update=new s03-tool-dispatch; tracecheck review --golden-dir " + gdir
	if code != exitFailed || !strings.HasSuffix(stderr, "run: "+want+"\n") {
		t.Fatalf("exit %d stderr %q\nwant it to end with %q", code, stderr, want)
	}
	// The next step as a user takes it: pending goldens written, then
	// reviewed (accepted here, as a user who meant the change would).
	next := []string{"verify", "--scenario-dir", sdir, "--golden-dir", gdir, "--update=new", "s03-tool-dispatch"}
	if code, stdout, _ := runCmd(t, "", next...); code != exitFailed || !strings.Contains(stdout, "wrote the pending golden") {
		t.Errorf("the next step's verify: exit %d\n%s", code, stdout)
	}
	if code, stdout, stderr := runCmd(t, "", "review", "--golden-dir", gdir, "--accept"); code != exitOK {
		t.Errorf("the next step's review: exit %d\n%s%s", code, stdout, stderr)
	}
	// Only the INVALID one is left: no command would fix it.
	code, _, stderr = runCmd(t, "", "verify", "--scenario-dir", sdir, "--golden-dir", gdir, "--update=no")
	if code != exitFailed || strings.Contains(stderr, "run:") {
		t.Errorf("after INVALID only: exit %d stderr %q", code, stderr)
	}
	// Embedded goldens are read-only: no command.
	t.Chdir(t.TempDir())
	edited := t.TempDir()
	scenarioFile(t, edited, "s01-agent-loop", "s01-agent-loop", func(s string) string {
		return strings.Replace(s, `"prompt": "`, `"prompt": "Edited: `, 1)
	})
	code, stdout, stderr := runCmd(t, "", "verify", "--scenario-dir", edited)
	if code != exitFailed || !strings.Contains(stdout, "DRIFT s01-agent-loop") || strings.Contains(stderr, "run:") {
		t.Errorf("embedded goldens: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestDirectoriesMustBeDirectories: a scenario or golden directory that is
// a file or missing is a one-line usage error in every command, and
// --update never creates a mistyped golden directory.
func TestDirectoriesMustBeDirectories(t *testing.T) {
	local(t)
	file := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(file, []byte("# hi\n"), 0o644)
	missing := filepath.Join(t.TempDir(), "goldne")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"verify", "--scenario-dir", file}, "--scenario-dir " + file + ": not a directory"},
		{[]string{"verify", "--scenario-dir", missing}, "--scenario-dir " + missing + ": no such directory"},
		{[]string{"verify", "--golden-dir", file}, "--golden-dir " + file + ": not a directory"},
		{[]string{"verify", "--golden-dir", missing, "--update"}, "--golden-dir " + missing + ": no such directory"},
		{[]string{"list", "--scenario-dir", file}, "not a directory"},
		{[]string{"list", "--scenario-dir", missing}, "no such directory"},
		{[]string{"render", "s01-agent-loop", "--scenario-dir", file}, "not a directory"},
		{[]string{"review", "--golden-dir", file, "--accept"}, "not a directory"},
		{[]string{"review", "--golden-dir", missing, "--accept"}, "no such directory"},
	} {
		code, stdout, stderr := runCmd(t, "", tc.args...)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d stdout %q stderr %q; want 2 and one line with %q", tc.args, code, stdout, stderr, tc.msg)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("--update created the mistyped golden directory")
	}
}

// TestVerifyCreatesTheModulesGoldenDirectory: the one directory a write
// may create is the module's own golden/.
func TestVerifyCreatesTheModulesGoldenDirectory(t *testing.T) {
	local(t)
	root := moduleCopy(t)
	os.RemoveAll(filepath.Join(root, "golden"))
	t.Chdir(root)
	code, stdout, _ := runCmd(t, "", "verify", "--update=always", "s01-agent-loop")
	if code != exitOK || !strings.Contains(stdout, "created s01-agent-loop") {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
	if got := names(t, "golden"); strings.Join(got, ",") != "s01-agent-loop.trace.jsonl" {
		t.Errorf("golden/: %v", got)
	}
}

func TestVerifyHelpListsEveryFlag(t *testing.T) {
	code, stdout, _ := runCmd(t, "", "verify", "--help")
	usage, _, _ := strings.Cut(stdout, "\n\n")
	if code != exitOK {
		t.Fatal(code)
	}
	for _, f := range regexp.MustCompile(`(?m)^\s+(?:-\w, )?(--[a-z-]+)`).FindAllStringSubmatch(stdout, -1) {
		if f[1] != "--help" && !strings.Contains(usage, "["+f[1]) {
			t.Errorf("the usage line does not list %s:\n%s", f[1], usage)
		}
	}
	for _, want := range []string{"--scenario-dir DIR", "--update[=auto|new|always|no]", "GITHUB_ACTIONS", "TF_BUILD", "JENKINS_URL"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

// TestVerifyQuotesAGoldenThatIsNotJSON: issue 9.15, a golden that is not
// JSON is quoted and cut, never dumped into the terminal.
func TestVerifyQuotesAGoldenThatIsNotJSON(t *testing.T) {
	local(t)
	dir := goldenCopy(t)
	junk := "\x1b]0;pwned\x07\x1b[2J" + strings.Repeat("\x00\xfe binary ", 2000)
	os.WriteFile(filepath.Join(dir, "s01-agent-loop.trace.jsonl"), []byte(junk), 0o644)
	code, stdout, stderr := runCmd(t, "", "verify", "--golden-dir", dir, "--update=no", "s01-agent-loop")
	if code != exitFailed || strings.ContainsAny(stdout+stderr, "\x1b\x07\x00\xfe") {
		t.Fatalf("exit %d, raw bytes in the output: %q", code, stdout)
	}
	if !strings.Contains(stdout, `-"\x1b]0;pwned\x07\x1b[2J\x00\xfe binary`) || !strings.Contains(stdout, fmt.Sprintf("... (%d bytes)", len(junk))) {
		t.Errorf("the golden is not quoted and cut:\n%s", stdout)
	}
	if len(stdout) > 4000 {
		t.Errorf("%d bytes of report for one scenario", len(stdout))
	}
}

func TestVerifyCIFormats(t *testing.T) {
	local(t)
	root := moduleCopy(t)
	t.Chdir(root)
	t.Setenv("GITHUB_WORKSPACE", "")
	s03 := filepath.Join("golden", "s03-tool-dispatch.trace.jsonl")
	os.WriteFile(s03, []byte(strings.Replace(mustRead(t, s03), `"hello"`, `"HELLO"`, 1)), 0o644)

	code, stdout, _ := runCmd(t, "", "verify", "--format", "github", "--update=no")
	if code != exitFailed || strings.Count(stdout, "\n") != 1 ||
		!strings.HasPrefix(stdout, "::error file=golden/s03-tool-dispatch.trace.jsonl,line=4,title=tracecheck verify%3A DRIFT s03-tool-dispatch::") ||
		!strings.Contains(stdout, `/payload/tool_calls/0/arguments/text: expected "HELLO", actual "hello"`) {
		t.Errorf("github: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCmd(t, "", "verify", "--format", "junit", "--update=no")
	if code != exitFailed || !strings.HasPrefix(stdout, "<?xml") ||
		!strings.Contains(stdout, fmt.Sprintf(`<testsuites name="tracecheck" tests="%d" failures="1" errors="0" skipped="0">`, len(builtinIDs(t)))) ||
		!strings.Contains(stdout, `<testcase name="s03-tool-dispatch" classname="tracecheck.verify.scenario" file="golden/s03-tool-dispatch.trace.jsonl" line="4">`) {
		t.Errorf("junit: exit %d\n%s", code, stdout)
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

// TestListReadsTheWorkingTree: like verify, list shows the module's
// scenarios as they are on disk.
func TestListReadsTheWorkingTree(t *testing.T) {
	root := moduleCopy(t)
	scenarioFile(t, filepath.Join(root, "scenarios"), "s01-agent-loop", "added-later", nil)
	t.Chdir(root)
	code, stdout, _ := runCmd(t, "", "list")
	if code != exitOK || !regexp.MustCompile(`(?m)^added-later +5 +`).MatchString(stdout) {
		t.Errorf("exit %d\n%s", code, stdout)
	}
}

// TestSessionResumeGoldenIsAStoreSession: the session-resume golden is a
// session file the store accepts as it is (three runs chained by their
// resume markers), and resuming it once more repairs nothing and leaves
// every byte of it unchanged.
func TestSessionResumeGoldenIsAStoreSession(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(committedGoldens(t), golden.FileName("session-resume")))
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
	local(t)
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
	code, stdout, _ := runCmd(t, "", "verify", "--golden-dir", dir, "--update=no", "session-resume")
	if code != exitFailed || !strings.Contains(stdout, "DRIFT session-resume") ||
		!strings.Contains(stdout, "changed run=2 sequence=7 event_id=evt-016 type=model.request") ||
		!strings.Contains(stdout, "/payload/message_count: expected 8, actual 9") {
		t.Fatalf("verify: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCmd(t, "", "verify", "--golden-dir", dir, "--update", "session-resume")
	if code != exitOK || !strings.HasSuffix(stdout, "\nupdated session-resume events=24\n") || mustRead(t, path) != orig {
		t.Errorf("verify --update: exit %d %q", code, stdout)
	}
}

// runCmdIn is runCmd with a standard input of the caller's.
func runCmdIn(tb testing.TB, stdin io.Reader, args ...string) (int, string, string) {
	tb.Helper()
	var out, errb bytes.Buffer
	code := run(&env{stdin: stdin, stdout: &out, stderr: &errb}, args)
	return code, out.String(), errb.String()
}
