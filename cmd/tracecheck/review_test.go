package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scriptedTerminal is a standard input that says it is a terminal: the
// keys a user would press, scripted.
type scriptedTerminal struct{ io.Reader }

func (scriptedTerminal) Terminal() bool { return true }

// pendingGoldens makes a golden directory where verify --update=new left
// two pending goldens: s03 (its golden drifted) and s01 (no golden).
func pendingGoldens(t *testing.T) (dir, s01, s03, want01, want03 string) {
	t.Helper()
	local(t)
	dir = goldenCopy(t)
	s01, s03 = filepath.Join(dir, "s01-agent-loop.trace.jsonl"), filepath.Join(dir, "s03-tool-dispatch.trace.jsonl")
	want01, want03 = mustRead(t, s01), mustRead(t, s03)
	os.Remove(s01)
	os.WriteFile(s03, []byte(strings.Replace(want03, `"hello"`, `"HELLO"`, 1)), 0o644)
	if code, stdout, _ := runCmd(t, "", "verify", "--golden-dir", dir, "--update=new"); code != exitFailed || strings.Count(stdout, "wrote the pending golden") != 2 {
		t.Fatalf("verify --update=new: exit %d\n%s", code, stdout)
	}
	return dir, s01, s03, want01, want03
}

func TestReviewAcceptsAndRejectsWithFlags(t *testing.T) {
	dir, s01, s03, _, want03 := pendingGoldens(t)
	code, stdout, stderr := runCmd(t, "", "review", "--golden-dir", dir, "--accept", "s03-tool-dispatch")
	if code != exitOK || !strings.Contains(stdout, "accepted s03-tool-dispatch: "+s03+" is the golden now\n") || !strings.HasSuffix(stdout, "accepted 1, rejected 0, skipped 0\n") {
		t.Fatalf("--accept: exit %d\n%s%s", code, stdout, stderr)
	}
	if mustRead(t, s03) != want03 {
		t.Error("the accepted golden is not the render")
	}
	code, stdout, _ = runCmd(t, "", "review", "--golden-dir", dir, "--reject")
	if code != exitOK || !strings.Contains(stdout, "rejected s01-agent-loop: removed "+s01+".new\n") {
		t.Fatalf("--reject: exit %d\n%s", code, stdout)
	}
	for _, n := range names(t, dir) {
		if strings.HasSuffix(n, ".new") {
			t.Errorf("left pending: %s", n)
		}
	}
	code, stdout, _ = runCmd(t, "", "verify", "--golden-dir", dir, "--update=no")
	if code != exitFailed || !strings.Contains(stdout, "ok s03-tool-dispatch") || !strings.Contains(stdout, "MISSING s01-agent-loop") {
		t.Errorf("verify after review: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCmd(t, "", "review", "--golden-dir", dir, "--accept")
	if code != exitOK || stdout != "no pending goldens in "+dir+"\n" {
		t.Errorf("nothing pending: exit %d %q", code, stdout)
	}
}

// TestReviewOnATerminal drives the interactive review with scripted keys:
// one key per pending golden.
func TestReviewOnATerminal(t *testing.T) {
	dir, s01, s03, want01, _ := pendingGoldens(t)
	broken := mustRead(t, s03)
	// Sorted: s01 first (accept), then s03 (reject).
	code, stdout, stderr := runCmdIn(t, scriptedTerminal{strings.NewReader("a\nr\n")}, "review", "--golden-dir", dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"reviewing [1/2] s01-agent-loop: " + s01 + ".new\n",
		"  a new golden: " + s01 + " does not exist yet; 5 lines, the first ones:\n",
		"reviewing [2/2] s03-tool-dispatch: " + s03 + ".new\n",
		`/payload/tool_calls/0/arguments/text: expected "HELLO", actual "hello"`,
		// A brand-new golden's prompt says what there is to keep: no old one.
		"a accept (this becomes the golden)  r reject (no golden is written)  s skip (keep it pending)  q quit: accept\n",
		"a accept (keep the new golden)  r reject (keep the old one)  s skip (keep both for now)  q quit: reject\n",
		"accepted 1, rejected 1, skipped 0\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("review lacks %q:\n%s", want, stdout)
		}
	}
	if mustRead(t, s01) != want01 || mustRead(t, s03) != broken {
		t.Error("accept/reject did not leave the goldens as decided")
	}
	if got := names(t, dir); strings.Contains(strings.Join(got, ","), ".new") {
		t.Errorf("pending goldens left: %v", got)
	}
}

func TestReviewSkipAndQuitLeavePending(t *testing.T) {
	dir, s01, s03, _, _ := pendingGoldens(t)
	code, stdout, _ := runCmdIn(t, scriptedTerminal{strings.NewReader("s")}, "review", "--golden-dir", dir)
	if code != exitOK || !strings.Contains(stdout, "skipped s01-agent-loop") || !strings.Contains(stdout, "quit (end of input)") ||
		!strings.HasSuffix(stdout, "accepted 0, rejected 0, skipped 2\n") {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
	for _, p := range []string{s01 + ".new", s03 + ".new"} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s is gone: %v", p, err)
		}
	}
}

func TestReviewUsageErrors(t *testing.T) {
	dir, _, _, _, _ := pendingGoldens(t)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"review", "--golden-dir", dir}, "standard input is not a terminal: pass --accept or --reject to decide every pending golden (2)"},
		{[]string{"review", "--golden-dir", dir, "--accept", "--reject"}, "--accept and --reject exclude each other"},
		{[]string{"review", "--golden-dir", dir, "--accept", "s07-session-replay"}, `no pending golden for s07-session-replay (pending: s01-agent-loop, s03-tool-dispatch)`},
	} {
		code, stdout, stderr := runCmd(t, "", tc.args...)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d stdout %q stderr %q; want 2 and %q", tc.args, code, stdout, stderr, tc.msg)
		}
	}
	t.Chdir(t.TempDir())
	if code, _, stderr := runCmd(t, "", "review", "--accept"); code != exitUsage || !strings.Contains(stderr, "no golden directory here") {
		t.Errorf("outside the module: exit %d %q", code, stderr)
	}
	if got := names(t, dir); strings.Count(strings.Join(got, ","), ".new") != 2 {
		t.Errorf("a usage error touched the pending goldens: %v", got)
	}
}

// TestCIAutoThenReviewWorkflow is the done check end to end: in CI
// the default writes nothing and fails on a missing golden; on a
// developer's machine it writes the pending golden, review accepts it, and
// verify passes.
func TestCIAutoThenReviewWorkflow(t *testing.T) {
	root := moduleCopy(t)
	t.Chdir(root)
	os.Remove(filepath.Join("golden", "s02-events-streaming.trace.jsonl"))
	before := names(t, "golden")

	inCI(t)
	code, stdout, stderr := runCmd(t, "", "verify", "--update=auto")
	if code != exitFailed || !strings.Contains(stdout, "MISSING s02-events-streaming") || strings.Join(names(t, "golden"), ",") != strings.Join(before, ",") {
		t.Fatalf("CI: exit %d\n%s%s", code, stdout, stderr)
	}
	local(t)
	if code, stdout, _ := runCmd(t, "", "verify"); code != exitFailed || !strings.Contains(stdout, "wrote the pending golden golden/s02-events-streaming.trace.jsonl.new") {
		t.Fatalf("local: exit %d\n%s", code, stdout)
	}
	if code, stdout, _ := runCmd(t, "", "review", "--accept"); code != exitOK || !strings.Contains(stdout, "accepted s02-events-streaming") {
		t.Fatalf("review: exit %d\n%s", code, stdout)
	}
	inCI(t)
	if code, stdout, stderr := runCmd(t, "", "verify"); code != exitOK {
		t.Errorf("CI after review: exit %d\n%s%s", code, stdout, stderr)
	}
}
