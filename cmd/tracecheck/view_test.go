package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
