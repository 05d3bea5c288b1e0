package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const agentFixtures = "../../testdata/agentlog"

func copyFixture(tb testing.TB, dir, rel string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(agentFixtures, rel))
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(dir, filepath.Base(rel))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

func TestLintExitCodesAndText(t *testing.T) {
	clean := filepath.Join(agentFixtures, "codex/clean.jsonl")
	bad := filepath.Join(agentFixtures, "codex/orphan-call-aborted.jsonl")
	info := filepath.Join(agentFixtures, "codex/unknown-record.jsonl")
	cases := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"clean", []string{"lint", clean}, exitOK, "ok " + clean + " (codex, 9 records)"},
		{"info only passes", []string{"lint", info}, exitOK, ":4: UNKNOWN_RECORD"},
		{"problem", []string{"lint", bad}, exitFailed, bad + ":4: ORPHAN_CALL tool call call_rm (shell) has no result; an interruption follows (turn_aborted interrupted at line 5)"},
		{"quiet clean", []string{"lint", "-q", clean}, exitOK, ""},
		{"forced format", []string{"lint", "--from", "trace", clean}, exitFailed, "SCHEMA"},
		{"trace file", []string{"lint", "../../testdata/bad/sequence-gap.jsonl"}, exitFailed, ":3: SEQUENCE_GAP event evt-002 at /sequence"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", c.args...)
			if code != c.code || !strings.Contains(stdout, c.out) || (c.out == "" && stdout != "") {
				t.Errorf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, c.code, stdout, stderr)
			}
		})
	}
}

func TestLintUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"lint"},
		{"lint", "--format", "xml", "x"},
		{"lint", "--from", "nope", "x"},
		{"lint", "--repair", "x"},
		{"lint", "--repair", "--in-place", "--out", "d", "x"},
		{"lint", "--out", "d", "x"},
		{"lint", "/no/such/file.jsonl"},
		{"import"},
		{"import", "--from", "trace", "x"},
		{"lint", "--repair", "--out", "d", "-"},
		{"lint", "-", "-"},
	} {
		if code, _, stderr := runCmd(t, "", args...); code != exitUsage || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// '-' is standard input for lint and import as for every command that
// reads files; import detects the format of standard input from its
// content, as it does for a file.
func TestLintAndImportReadStandardInput(t *testing.T) {
	fixture := filepath.Join("..", "..", "testdata", "agentlog", "codex", "orphan-call-aborted.jsonl")
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(t, string(data), "lint", "-")
	if code != exitFailed || !strings.HasPrefix(stdout, "<stdin>:4: ORPHAN_CALL ") {
		t.Errorf("lint -: exit %d\n%s%s", code, stdout, stderr)
	}
	_, fromFile, _ := runCmd(t, "", "import", fixture)
	code, fromStdin, stderr := runCmd(t, string(data), "import", "-")
	if code != exitOK || fromStdin != fromFile || fromFile == "" {
		t.Errorf("import -: exit %d, stderr %q; the trace differs from import FILE's:\n%s\n%s", code, stderr, fromStdin, fromFile)
	}
	if code, _, stderr := runCmd(t, "", "import", "-"); code != exitFailed || !strings.Contains(stderr, "<stdin>: not a session log import reads") {
		t.Errorf("import - of nothing: exit %d, stderr %q", code, stderr)
	}
}

// TestLintSaysADirectoryHoldsNoLog: an empty directory is no error, but
// the run says it linted nothing.
func TestLintSaysADirectoryHoldsNoLog(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCmd(t, "", "lint", dir)
	if code != exitOK || stdout != "" || !strings.Contains(stderr, "holds no session log (*.jsonl): nothing to lint") {
		t.Errorf("lint of an empty directory: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestLintWalksDirectoriesWithoutFollowingLinks(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "project")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFixture(t, sub, "pi/v3-dangling-parent.jsonl")
	copyFixture(t, dir, "codex/clean.jsonl")
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a log"), 0o644)
	outside := t.TempDir()
	copyFixture(t, outside, "codex/orphan-result.jsonl")
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCmd(t, "", "lint", dir)
	if code != exitFailed || !strings.Contains(stdout, "v3-dangling-parent.jsonl:4: DANGLING_PARENT") ||
		!strings.Contains(stdout, "ok "+filepath.Join(dir, "clean.jsonl")) || strings.Contains(stdout, "orphan-result") || strings.Contains(stdout, "notes.txt") {
		t.Errorf("exit %d\n%s", code, stdout)
	}
}

func TestLintFormats(t *testing.T) {
	bad := filepath.Join(agentFixtures, "claude-code/dangling-parent.jsonl")
	code, stdout, _ := runCmd(t, "", "lint", "--format", "json", bad)
	var doc struct {
		Files []struct {
			File     string
			Format   string
			Findings []struct {
				Line       int
				Code       string
				Severity   string
				IDs        []string
				Repairable bool
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != exitFailed {
		t.Fatalf("json: exit %d, %v\n%s", code, err, stdout)
	}
	f := doc.Files[0]
	if f.Format != "claude-code" || len(f.Findings) != 2 || f.Findings[0].Code != "DANGLING_PARENT" || !f.Findings[0].Repairable ||
		f.Findings[0].IDs[1] != "d-lost" || f.Findings[1].Code != "UNREACHABLE" || f.Findings[1].Line != 4 {
		t.Errorf("json findings: %+v", f)
	}

	_, stdout, _ = runCmd(t, "", "lint", "--format", "github", bad)
	if !strings.Contains(stdout, "::error file="+bad+",line=3,title=DANGLING_PARENT::entry d-u2") {
		t.Errorf("github:\n%s", stdout)
	}

	_, stdout, _ = runCmd(t, "", "lint", "--format", "junit", bad, filepath.Join(agentFixtures, "codex/clean.jsonl"))
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal([]byte(stdout), &suites); err != nil || suites.Tests != 2 || suites.Failures != 1 {
		t.Errorf("junit: %v %+v\n%s", err, suites, stdout)
	}
}

func TestLintRepairOut(t *testing.T) {
	src := t.TempDir()
	p := copyFixture(t, src, "claude-code/concatenated-torn.jsonl")
	copyFixture(t, src, "codex/clean.jsonl")
	orig, _ := os.ReadFile(p)
	out := filepath.Join(t.TempDir(), "repaired")
	code, stdout, stderr := runCmd(t, "", "lint", "--repair", "--out", out, src)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "concatenated-torn.jsonl:3: repaired: moved the torn record (60 bytes) to the side file") ||
		!strings.Contains(stdout, "after repair: ") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if now, _ := os.ReadFile(p); string(now) != string(orig) {
		t.Error("the original changed")
	}
	if _, err := os.Stat(filepath.Join(out, "clean.jsonl")); !os.IsNotExist(err) {
		t.Error("a file with nothing to repair was copied")
	}
	side, err := os.ReadFile(filepath.Join(out, "concatenated-torn.jsonl.sidelined"))
	if err != nil || len(side) != 61 {
		t.Errorf("side file: %v %q", err, side)
	}
	// A second repair into the same place refuses to overwrite.
	code, stdout, _ = runCmd(t, "", "lint", "--repair", "--out", out, p)
	if code != exitFailed || !strings.Contains(stdout, "never overwrites") {
		t.Errorf("second repair: exit %d\n%s", code, stdout)
	}
	// The repaired copy lints clean.
	if code, stdout, _ := runCmd(t, "", "lint", filepath.Join(out, "concatenated-torn.jsonl")); code != exitOK {
		t.Errorf("repaired copy: exit %d\n%s", code, stdout)
	}
}

// TestLintRepairOutRefusesALinkBelowOut: a directory of the walked tree
// whose name, below --out, is a symbolic link to a directory outside
// (OUT/sub -> ../victim) does not receive the repaired copy or its side
// file: the repair of that file fails, naming the link, and the others go
// on.
func TestLintRepairOutRefusesALinkBelowOut(t *testing.T) {
	src := t.TempDir()
	for _, d := range []string{"sub", "top"} {
		if err := os.Mkdir(filepath.Join(src, d), 0o755); err != nil {
			t.Fatal(err)
		}
		copyFixture(t, filepath.Join(src, d), "claude-code/concatenated-torn.jsonl")
	}
	base := t.TempDir()
	out, victim := filepath.Join(base, "out"), filepath.Join(base, "victim")
	for _, d := range []string{out, victim} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../victim", filepath.Join(out, "sub")); err != nil {
		t.Skipf("SKIP: no symbolic links here: %v", err)
	}
	code, stdout, stderr := runCmd(t, "", "lint", "--repair", "--out", out, src)
	if code != exitFailed {
		t.Errorf("exit %d, want %d\n%s%s", code, exitFailed, stdout, stderr)
	}
	if entries, _ := os.ReadDir(victim); len(entries) != 0 {
		t.Errorf("the directory outside --out received %d files", len(entries))
	}
	if !strings.Contains(stdout, filepath.Join(out, "sub")+" is a symbolic link") {
		t.Errorf("the failure does not name the link:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "top", "concatenated-torn.jsonl")); err != nil {
		t.Errorf("the other file was not repaired: %v", err)
	}
}

func TestLintRepairInPlaceKeepsBackup(t *testing.T) {
	dir := t.TempDir()
	p := copyFixture(t, dir, "ts-harness/orphan-call-crash.jsonl")
	orig, _ := os.ReadFile(p)
	code, stdout, stderr := runCmd(t, "", "lint", "--repair", "--in-place", p)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if b, err := os.ReadFile(p + ".bak"); err != nil || string(b) != string(orig) {
		t.Fatalf("backup: %v", err)
	}
	now, _ := os.ReadFile(p)
	if !strings.Contains(string(now), "SESSION_RESUME_INTERRUPTED") || strings.Count(string(now), "\n") != strings.Count(string(orig), "\n")+1 {
		t.Errorf("repaired file:\n%s", now)
	}
	// Nothing left to repair: the file and its backup stay as they are.
	code, _, _ = runCmd(t, "", "lint", "--repair", "--in-place", p)
	if _, err := os.Stat(p + ".bak.1"); code != exitOK || !os.IsNotExist(err) {
		t.Errorf("second in-place repair: exit %d, backup.1 %v", code, err)
	}
}

func TestImportValidates(t *testing.T) {
	for _, rel := range []string{"codex/clean.jsonl", "claude-code/sidechain.jsonl", "pi/v3-tree.jsonl", "ts-harness/subagent.jsonl", "claude-code/concatenated-torn.jsonl"} {
		p := filepath.Join(agentFixtures, rel)
		code, trace, stderr := runCmd(t, "", "import", p)
		if code != exitOK {
			t.Fatalf("%s: import exit %d: %s", rel, code, stderr)
		}
		if code, _, stderr := runCmd(t, trace, "validate", "-"); code != exitOK {
			t.Errorf("%s: imported trace does not validate:\n%s", rel, stderr)
		}
		if code, _, stderr := runCmd(t, trace, "replay", "-"); code != exitOK {
			t.Errorf("%s: replay of the import: %s", rel, stderr)
		}
	}
	code, trace, _ := runCmd(t, "", "import", "--from", "claude-code", filepath.Join(agentFixtures, "claude-code/sidechain.jsonl"))
	if code != exitOK || !strings.Contains(trace, `"type":"agent.message","actor":{"kind":"agent","id":"a1b2c3d4"}`) ||
		!strings.Contains(trace, `"event_id":"s-u1"`) || !strings.Contains(trace, `"parent_event_id":"s-x1"`) {
		t.Errorf("sidechain import:\n%s", trace)
	}
	if code, _, stderr := runCmd(t, "", "import", filepath.Join(agentFixtures, "../good/s07-session-replay.trace.jsonl")); code != exitFailed || !strings.Contains(stderr, "already a Trace") {
		t.Errorf("trace input: exit %d %s", code, stderr)
	}
}
