package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestView(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "page.html")
	s07 := "../../golden/s07-session-replay.trace.jsonl"
	drift := "../../testdata/view/s07-drift.trace.jsonl"
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
		page   string // a string the page written to out (or stdout) holds
	}{
		{"a valid trace", []string{"view", s07, "-o", out}, exitOK, "wrote " + out + " (7 events, 0 problems)", `<title>s07-session-replay.trace.jsonl`},
		{"to standard output", []string{"view", s07}, exitOK, "7 events, 0 problems", `<!doctype html>`},
		{"through", []string{"view", s07, "--through", "2", "-o", out}, exitOK, "7 events", "replayed through sequence 2"},
		{"single-dash long flag", []string{"view", s07, "-through=2", "-output", out}, exitOK, "7 events", "replayed through sequence 2"},
		{"an invalid trace is shown, and fails", []string{"view", "../../testdata/bad/sequence-gap.jsonl", "-o", out}, exitFailed, "3 events, 1 problem", "SEQUENCE_GAP"},
		{"blank lines are no events", []string{"view", "../../testdata/view/unreadable-lines.jsonl", "-o", out}, exitFailed, "(2 events, 150 unreadable lines, at least 100 problems)", "BLANK_LINE"},
		{"several files", []string{"view", s07, "../../golden/session-resume.trace.jsonl", "-o", out}, exitOK, "31 events, 0 problems", "4 runs of 2 sessions"},
		{"diff", []string{"view", "--diff", s07, drift, "-o", out}, exitFailed, "3 differing events", `"kind":"diff"`},
		{"diff of identical traces", []string{"view", "--diff", s07, s07, "-o", out}, exitOK, "identical", "Identical"},
		{"an agent's session log is imported, and linted", []string{"view", "../../testdata/agentlog/claude-code/orphan-call-interrupted.jsonl", "-o", out}, exitFailed, "5 events, 1 problem", "ORPHAN_CALL"},
		{"no file", []string{"view"}, exitUsage, "no FILE given", ""},
		{"missing file", []string{"view", "nope.jsonl"}, exitUsage, "nope.jsonl: no such file or directory", ""},
		{"a directory", []string{"view", dir}, exitUsage, "is a directory", ""},
		{"stdin", []string{"view", "-"}, exitUsage, "'-' is not supported", ""},
		{"diff wants two", []string{"view", "--diff", s07}, exitUsage, "--diff wants GOLDEN and ACTUAL, got 1", ""},
		{"through with diff", []string{"view", "--diff", s07, drift, "--through", "1"}, exitUsage, "--through does not go with --diff", ""},
		{"negative through", []string{"view", s07, "--through", "-1"}, exitUsage, "--through must be a sequence", ""},
		{"through past int64", []string{"view", s07, "--through", "99999999999999999999"}, exitUsage, `--through must be an integer from -9223372036854775808 to 9223372036854775807, not "99999999999999999999"`, ""},
		{"through not an integer", []string{"view", s07, "--through", "1e3"}, exitUsage, `--through must be an integer, not "1e3"`, ""},
		{"through with two signs", []string{"view", s07, "--through", "+-3"}, exitUsage, `--through must be an integer, not "+-3"`, ""},
		{"through past the end", []string{"view", s07, "--through", "7"}, exitUsage, "--through 7 is past the end of every run (the last sequence is 6)", ""},
		{"bad flag", []string{"view", "--frob", s07}, exitUsage, "unknown flag: --frob", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(out)
			code, stdout, stderr := runCmd(t, "", tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.stderr)
			}
			if tt.page == "" {
				if stdout != "" {
					t.Errorf("stdout %q", stdout)
				}
				return
			}
			page := stdout
			if strings.Contains(strings.Join(tt.args, " "), out) {
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				page = string(b)
			}
			if !strings.Contains(page, tt.page) {
				t.Errorf("the page lacks %q", tt.page)
			}
		})
	}
}

// -o never overwrites a trace it reads.
func TestViewKeepsItsInput(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.jsonl")
	data, err := os.ReadFile("../../golden/s07-session-replay.trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, "", "view", trace, "-o", trace)
	if code != exitUsage || !strings.Contains(stderr, "is one of the input files") {
		t.Errorf("exit %d stderr %q", code, stderr)
	}
	if after, _ := os.ReadFile(trace); string(after) != string(data) {
		t.Error("the trace was changed")
	}
}

// A FIFO (with no writer: opening it to read would wait forever) or a
// pipe given as <(...) is refused before it is opened, as not a regular
// file: a usage error naming it, by view, view --diff and import. Each
// command runs in a goroutine so that a command that blocks fails the test
// (after the guard, the test's own writer releases it) rather than hangs
// it.
func TestFIFOIsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "trace.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	procSubst := fmt.Sprintf("/dev/fd/%d", pr.Fd()) // what <(...) passes
	s07 := "../../golden/s07-session-replay.trace.jsonl"
	out := filepath.Join(dir, "page.html")
	for _, tt := range []struct {
		name string
		args []string
		path string
	}{
		{"view", []string{"view", fifo, "-o", out}, fifo},
		{"view, second file", []string{"view", s07, fifo, "-o", out}, fifo},
		{"view --diff", []string{"view", "--diff", s07, fifo, "-o", out}, fifo},
		{"view of <(...)", []string{"view", procSubst, "-o", out}, procSubst},
		{"import", []string{"import", fifo}, fifo},
		{"import of <(...)", []string{"import", procSubst}, procSubst},
	} {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				code           int
				stdout, stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, stdout, stderr := runCmd(t, "", tt.args...)
				done <- result{code, stdout, stderr}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(time.Minute):
				// A guard, not a measure: release the command, then fail.
				if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					w.Close()
				}
				pw.Close()
				<-done
				t.Fatalf("%v blocked on %s", tt.args, tt.path)
			}
			if r.code != exitUsage || !strings.Contains(r.stderr, tt.path+": not a regular file") || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", r.code, r.stdout, r.stderr, tt.path+": not a regular file")
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a page was written")
			}
		})
	}
}

// view sets a soft memory limit while it builds a page and puts the
// process's own back when it is done.
func TestViewPutsTheMemoryLimitBack(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: view leaves the limit alone")
	}
	before := debug.SetMemoryLimit(-1)
	out := filepath.Join(t.TempDir(), "page.html")
	if code, _, stderr := runCmd(t, "", "view", "../../golden/s07-session-replay.trace.jsonl", "-o", out); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if after := debug.SetMemoryLimit(-1); after != before {
		t.Errorf("the memory limit is %d after view, %d before", after, before)
	}
}
