package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/internal/procgroup"
	"github.com/tracecheck/tracecheck/internal/testenv"
)

// TestNothingThatLeftTheSessionSurvivesACommand: for every command that
// runs a user's program (exercise run, exercise watch, conform, a command
// case in verify, model run, agent run), a descendant of the program that called setsid()
// and whose parent exited (a daemon) is gone when the command returns.
// Each command waits for what it killed to exit, so the check needs no
// polling.
func TestNothingThatLeftTheSessionSurvivesACommand(t *testing.T) {
	needSh(t)
	runs := []struct {
		name  string
		stdin string
		args  func(t *testing.T, script string) []string
	}{
		{"conform", "", func(t *testing.T, script string) []string {
			return []string{"conform", "--", "sh", "-c", script}
		}},
		{"exercise run", "", func(t *testing.T, script string) []string {
			return []string{"exercise", "run", "A", "--state", filepath.Join(t.TempDir(), "p.json"), "--", "sh", "-c", script}
		}},
		// One check, then q on stdin ends the watch.
		{"exercise watch", "q\n", func(t *testing.T, script string) []string {
			return []string{"exercise", "watch", "--dir", t.TempDir(), "--state", filepath.Join(t.TempDir(), "p.json"), "--", "sh", "-c", script}
		}},
		{"model run", "", func(t *testing.T, script string) []string {
			return []string{"model", "run", "--scenario", "s03-tool-dispatch", "--", "sh", "-c", script}
		}},
		{"a command case", "", func(t *testing.T, script string) []string {
			local(t)
			dir := t.TempDir()
			doc, _ := json.Marshal(map[string]any{
				"command": map[string]any{"argv": []string{"sh", "-c", script}},
				"trace":   map[string]any{"from": "stdout"},
			})
			if err := os.WriteFile(filepath.Join(dir, "daemon.json"), doc, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Chdir(t.TempDir()) // outside the module: the case runs alone
			return []string{"verify", "--cases", dir}
		}},
		{"agent run", "", func(t *testing.T, script string) []string {
			bin := filepath.Join(t.TempDir(), "pi")
			if err := os.WriteFile(bin, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
				t.Fatal(err)
			}
			return []string{"agent", "run", "pi", "--scenario", "s03-tool-dispatch", "--bin", bin, "--out", filepath.Join(t.TempDir(), "run")}
		}},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			e := testenv.NewEscapee(t, 0)
			code, stdout, stderr := runCmd(t, r.stdin, r.args(t, e.Script)...)
			if e.Running(t) {
				t.Errorf("the escapee %d survived %s (exit %d)\n%s%s", e.Pid(t), r.name, code, stdout, stderr)
			}
		})
	}
}

// TestTheRunTokenStaysOutOfWhatIsRecorded: the program a command case runs
// sees the run token (that is how what it leaves is found), a new one each
// run, but the token is in nothing tracecheck records or prints itself:
// neither in the case's report nor in its golden, which a second run
// matches.
func TestTheRunTokenStaysOutOfWhatIsRecorded(t *testing.T) {
	needSh(t)
	local(t)
	dir := t.TempDir()
	seen := filepath.Join(t.TempDir(), "tokens")
	// The program writes the token it sees to a file of the test's, and a
	// trace (the s03 golden) on stdout.
	doc, _ := json.Marshal(map[string]any{
		"command": map[string]any{"argv": []string{"sh", "-c", `echo "$` + procgroup.TokenVar + `" >> "$SEEN"; cat "$FIXTURE"`},
			"env": map[string]string{"SEEN": seen, "FIXTURE": filepath.Join(repoRoot, "cases", "testdata", "s03.trace.jsonl")}},
		"trace": map[string]any{"from": "stdout"},
	})
	if err := os.WriteFile(filepath.Join(dir, "env.json"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	var outputs []string
	for i, args := range [][]string{{"verify", "--cases", dir, "--update=always"}, {"verify", "--cases", dir}} {
		code, stdout, stderr := runCmd(t, "", args...)
		if code != exitOK {
			t.Fatalf("run %d: exit %d\n%s%s", i+1, code, stdout, stderr)
		}
		outputs = append(outputs, stdout, stderr)
	}
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	tokens := strings.Fields(string(b))
	if len(tokens) != 2 || tokens[0] == tokens[1] || len(tokens[0]) < 32 {
		t.Fatalf("the program saw the tokens %q, want two different ones", tokens)
	}
	golden, err := os.ReadFile(filepath.Join(dir, "env.trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, string(golden))
	for _, out := range outputs {
		for _, tok := range tokens {
			if strings.Contains(out, tok[len(tok)-32:]) || strings.Contains(out, procgroup.TokenVar) {
				t.Errorf("a run token is in tracecheck's output:\n%s", out)
			}
		}
	}
}
