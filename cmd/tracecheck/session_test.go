package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal/store"
)

const interrupted = "../../journal/store/testdata/interrupted-mid-tool-call.jsonl"

func fixtureLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(interrupted)
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
}

func sessionFile(t *testing.T, dir string) string {
	t.Helper()
	name, _ := store.FileName("session-s03-tool-dispatch")
	return filepath.Join(dir, name)
}

func TestSessionHelp(t *testing.T) {
	for _, sub := range []string{"append", "resume", "check", "checkpoint"} {
		code, stdout, _ := runCmd(t, "", "session", sub, "--help")
		if code != exitOK || !strings.Contains(stdout, "Usage: tracecheck session "+sub) {
			t.Errorf("session %s --help: %d %q", sub, code, stdout)
		}
	}
	code, stdout, _ := runCmd(t, "", "session", "--help")
	if code != exitOK || !strings.Contains(stdout, "append") || !strings.Contains(stdout, "resume") {
		t.Errorf("session --help: %d %q", code, stdout)
	}
	for _, args := range [][]string{
		{"session"},
		{"session", "frob"},
		{"session", "append", "--session", "s"},
		{"session", "append", "--dir", "d"},
		{"session", "resume", "--dir", "d"},
		{"session", "check"},
		{"session", "checkpoint", "--dir", "d"},
		{"session", "append", "--dir", "d", "--session", "s", "--batch", "0"},
	} {
		if code, _, stderr := runCmd(t, "", args...); code != exitUsage || stderr == "" {
			t.Errorf("%v: code %d stderr %q", args, code, stderr)
		}
	}
}

func TestSessionAppend(t *testing.T) {
	lines := fixtureLines(t)
	for _, batch := range []string{"1", "3"} {
		t.Run("batch="+batch, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			args := []string{"session", "append", "--dir", dir, "--session", "session-s03-tool-dispatch", "--batch", batch}
			code, stdout, stderr := runCmd(t, strings.Join(lines[:3], ""), args...)
			if code != exitOK || stdout != "ack evt-000\nack evt-001\nack evt-002\n" {
				t.Fatalf("code %d stdout %q stderr %q", code, stdout, stderr)
			}
			// A retry, two new events, then a rejected one: exit 1 naming its
			// stdin line, everything before it stored, nothing after.
			bad := strings.Replace(lines[1], `"sequence":1`, `"sequence":7`, 1)
			bad = strings.Replace(bad, "evt-001", "evt-009", 1)
			in := lines[2] + lines[3] + strings.TrimSuffix(lines[4], "\n") + "\n" + bad + lines[0]
			code, stdout, stderr = runCmd(t, in, args...)
			if code != exitFailed || stdout != "ack evt-002 duplicate\nack evt-003\nack evt-004\n" {
				t.Fatalf("code %d stdout %q stderr %q", code, stdout, stderr)
			}
			if !strings.Contains(stderr, "stdin line 4: session session-s03-tool-dispatch: event evt-009 rejected: SEQUENCE_GAP") {
				t.Fatalf("stderr %q", stderr)
			}
			got, err := os.ReadFile(sessionFile(t, dir))
			if err != nil || string(got) != strings.Join(lines, "")+"\n" {
				t.Fatalf("file:\n%s", got)
			}
		})
	}
}

func TestSessionAppendConflictAndLock(t *testing.T) {
	lines := fixtureLines(t)
	dir := t.TempDir()
	args := []string{"session", "append", "--dir", dir, "--session", "session-s03-tool-dispatch"}
	if code, _, stderr := runCmd(t, lines[0], args...); code != exitOK {
		t.Fatal(stderr)
	}
	conflict := strings.Replace(lines[0], `"max_turns":8`, `"max_turns":9`, 1)
	code, stdout, stderr := runCmd(t, conflict, args...)
	if code != exitFailed || stdout != "" || !strings.Contains(stderr, "stdin line 1:") || !strings.Contains(stderr, "EVENT_ID_CONFLICT") {
		t.Fatalf("conflict: %d %q %q", code, stdout, stderr)
	}
	st, _ := store.Open(dir)
	w, err := st.OpenWriter("session-s03-tool-dispatch", store.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	code, _, stderr = runCmd(t, lines[1], args...)
	if code != exitFailed || !strings.Contains(stderr, "locked by another writer") {
		t.Fatalf("locked: %d %q", code, stderr)
	}
}

func TestSessionCheckAndRepair(t *testing.T) {
	lines := fixtureLines(t)
	dir := t.TempDir()
	path := sessionFile(t, dir)
	good := strings.Join(lines[:4], "")
	if err := os.WriteFile(path, []byte(good+lines[4][:50]), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(t, "", "session", "check", "--dir", dir)
	if code != exitFailed || !strings.Contains(stderr, ":5: TORN_TAIL") || !strings.Contains(stderr, "--repair") {
		t.Fatalf("torn: %d %q %q", code, stdout, stderr)
	}
	code, stdout, stderr = runCmd(t, "", "session", "check", "--dir", dir, "--session", "session-s03-tool-dispatch", "--repair")
	if code != exitOK || !strings.Contains(stdout, "repaired session-s03-tool-dispatch: torn tail of 50 bytes at line 5") ||
		!strings.Contains(stdout, "ok session-s03-tool-dispatch: 4 events in 1 run(s)") {
		t.Fatalf("repair: %d %q %q", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != good {
		t.Fatal("not truncated to the complete events")
	}
	if b, _ := os.ReadFile(path + ".torn-" + strconv.Itoa(len(good))); string(b) != lines[4][:50] {
		t.Fatalf("side file %q", b)
	}

	// Corruption in the middle: named, exit 1, not repaired.
	bad := lines[0] + "{oops\n" + strings.Join(lines[2:], "")
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCmd(t, "", "session", "check", "--dir", dir, "--repair")
	if code != exitFailed || !strings.Contains(stderr, ":2: INVALID_JSON") {
		t.Fatalf("corrupt: %d %q", code, stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != bad {
		t.Fatal("a corrupt file was changed")
	}
	code, _, stderr = runCmd(t, "", "session", "check", "--dir", dir, "--session", "nope")
	if code != exitUsage || !strings.Contains(stderr, "session not found: nope") {
		t.Fatalf("unknown: %d %q", code, stderr)
	}
}

func TestSessionResume(t *testing.T) {
	lines := fixtureLines(t)
	dir := t.TempDir()
	path := sessionFile(t, dir)
	data := strings.Join(lines, "") + "\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"session", "resume", "--dir", dir, "--session", "session-s03-tool-dispatch", "--run-id", "run-2", "--message", "Did the echo run?", "--clock", "2026-08-11T00:00:00Z"}
	code, stdout, stderr := runCmd(t, "", args...)
	if code != exitOK {
		t.Fatalf("%d %q", code, stderr)
	}
	for _, want := range []string{
		"run_id: run-2\n",
		"resumes_run_id: run-s03-tool-dispatch-golden\n",
		"repaired: call-001 (echo): answered with SessionResumeInterrupted\n",
		"appended: evt-005 session.start (sequence 0)\nappended: evt-006 tool.result (sequence 1)\nappended: evt-007 user.message (sequence 2)\n",
		"history: 4 messages\n",
		`  3 tool echo call-001: "{\"error\": \"Error [SESSION_RESUME_INTERRUPTED]: This tool call did not finish`,
		`  4 user: "Did the echo run?"`,
	} {
		if !strings.Contains(stdout, want) {
			t.Fatalf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	after, _ := os.ReadFile(path)
	if !bytes.HasPrefix(after, []byte(data)) || bytes.Count(after, []byte("\n")) != 8 {
		t.Fatalf("file after resume:\n%s", after)
	}
	// Again: nothing to repair, a new run, JSON output.
	code, stdout, stderr = runCmd(t, "", "session", "resume", "--dir", dir, "--session", "session-s03-tool-dispatch", "--run-id", "run-3", "--json")
	if code != exitOK || !strings.HasPrefix(stdout, `{"session_id":"session-s03-tool-dispatch","run_id":"run-3","resumes_run_id":"run-2","repaired_tool_call_ids":[],"appended_event_ids":["evt-008"],"history":[`) {
		t.Fatalf("%d %q %q", code, stdout, stderr)
	}
	code, _, stderr = runCmd(t, "", "session", "resume", "--dir", dir, "--session", "session-s03-tool-dispatch", "--run-id", "run-3")
	if code != exitFailed || !strings.Contains(stderr, `run "run-3" is already in the session`) {
		t.Fatalf("reused run id: %d %q", code, stderr)
	}
	code, stdout, _ = runCmd(t, "", "session", "check", "--dir", dir)
	if code != exitOK || !strings.Contains(stdout, "9 events in 3 run(s) (run-s03-tool-dispatch-golden 5, run-2 3, run-3 1)") {
		t.Fatalf("check: %d %q", code, stdout)
	}

	empty := t.TempDir()
	code, _, stderr = runCmd(t, "", "session", "resume", "--dir", empty, "--session", "nope", "--message", "hi")
	if code != exitUsage || !strings.Contains(stderr, "session not found: nope") {
		t.Fatalf("unknown: %d %q", code, stderr)
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Fatalf("created %v", ents)
	}
}

// session checkpoint writes the checkpoint; the next one starts from it,
// and a resume from it prints and writes what a resume without it does.
func TestSessionCheckpoint(t *testing.T) {
	lines := fixtureLines(t)
	data := []byte(strings.Join(lines, "") + "\n")
	dirs := []string{t.TempDir(), t.TempDir()} // with a checkpoint, without
	for _, dir := range dirs {
		if err := os.WriteFile(sessionFile(t, dir), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id := "session-s03-tool-dispatch"
	cp := []string{"session", "checkpoint", "--dir", dirs[0], "--session", id}
	code, stdout, stderr := runCmd(t, "", cp...)
	if code != exitOK || !strings.Contains(stdout, "history rebuilt from every event and 5 event(s)\n") ||
		!strings.Contains(stdout, ".checkpoint: 5 events, "+strconv.Itoa(len(data))+" bytes, 1 run(s)\n") {
		t.Fatalf("first checkpoint: %d %q %q", code, stdout, stderr)
	}
	code, stdout, stderr = runCmd(t, "", cp...)
	if code != exitOK || !strings.Contains(stdout, "opened from the previous checkpoint (5 events) and 0 after it\n") ||
		!strings.Contains(stdout, "history rebuilt from the previous checkpoint's history and 0 event(s)\n") {
		t.Fatalf("second checkpoint: %d %q %q", code, stdout, stderr)
	}
	var outs []string
	for _, dir := range dirs {
		code, stdout, stderr := runCmd(t, "", "session", "resume", "--dir", dir, "--session", id, "--run-id", "run-2",
			"--message", "Did the echo run?", "--clock", "2026-08-11T00:00:00Z")
		if code != exitOK {
			t.Fatalf("%d %q", code, stderr)
		}
		after, _ := os.ReadFile(sessionFile(t, dir))
		outs = append(outs, stdout+string(after))
	}
	if outs[0] != outs[1] {
		t.Fatalf("resume from the checkpoint:\n%s\nwithout:\n%s", outs[0], outs[1])
	}
	code, _, stderr = runCmd(t, "", "session", "checkpoint", "--dir", dirs[0], "--session", "nope")
	if code != exitUsage || !strings.Contains(stderr, "session not found: nope") {
		t.Fatalf("unknown: %d %q", code, stderr)
	}
}
