package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestStreamingPacing: the limit grows with the inputs read at once.
func TestStreamingPacing(t *testing.T) {
	for _, tc := range []struct {
		n     int
		limit int64
	}{{0, 40 << 20}, {1, 40 << 20}, {2, 80 << 20}, {8, 320 << 20}} {
		if p := streamingPacing(tc.n); p.percent != 400 || p.limit != tc.limit {
			t.Errorf("streamingPacing(%d) = %+v, want percent 400, limit %d", tc.n, p, tc.limit)
		}
	}
}

// TestApplyPacingLeavesTheUsersKnobs: GOGC or GOMEMLIMIT set in the
// environment keeps its knob as the user set it; the other is set.
func TestApplyPacingLeavesTheUsersKnobs(t *testing.T) {
	percent := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	defer func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) }()
	for _, tc := range []struct {
		gogc, gomemlimit string
		wantPercent      int
		wantLimit        int64
	}{
		{"", "", 400, 40 << 20},
		{"50", "", 100, 40 << 20},
		{"", "1GiB", 400, 1 << 40},
		{"50", "1GiB", 100, 1 << 40},
	} {
		t.Setenv("GOGC", tc.gogc)
		t.Setenv("GOMEMLIMIT", tc.gomemlimit)
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(1 << 40) // stands for what the runtime read from the environment
		applyPacing(streamingPacing(1))
		gotPercent := debug.SetGCPercent(100)
		gotLimit := debug.SetMemoryLimit(-1)
		if gotPercent != tc.wantPercent || gotLimit != tc.wantLimit {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: percent %d, limit %d; want %d, %d", tc.gogc, tc.gomemlimit, gotPercent, gotLimit, tc.wantPercent, tc.wantLimit)
		}
	}
}

// TestWhichCommandsPace: lint paces for the files it reads at once, import
// for one, the session commands for their store; a trace command keeps
// the runtime's pacing.
func TestWhichCommandsPace(t *testing.T) {
	dir := t.TempDir()
	var logs []string
	for _, name := range []string{"a.jsonl", "b.jsonl", "c.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "agentlog", "testdata", "claude-code", "api-error.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, p)
	}
	trace := filepath.Join("..", "..", "golden", "s01-agent-loop.trace.jsonl")
	for _, tc := range []struct {
		args  []string
		paced []pacing
	}{
		{[]string{"lint", logs[0]}, []pacing{streamingPacing(1)}},
		{append([]string{"lint", "--jobs", "2"}, logs...), []pacing{streamingPacing(2)}},
		{append([]string{"lint", "--jobs", "8"}, logs...), []pacing{streamingPacing(3)}},
		{[]string{"import", logs[0]}, []pacing{streamingPacing(1)}},
		{[]string{"validate", trace}, nil},
		{[]string{"session", "check", "--dir", dir}, []pacing{sessionPacing}},
	} {
		var paced []pacing
		e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, setPacing: func(p pacing) { paced = append(paced, p) }}
		if code := run(e, tc.args); code == exitUsage {
			t.Fatalf("%v: exit %d", tc.args, code)
		}
		if len(paced) != len(tc.paced) || (len(paced) == 1 && paced[0] != tc.paced[0]) {
			t.Errorf("%v paced %+v, want %+v", tc.args, paced, tc.paced)
		}
	}
}
