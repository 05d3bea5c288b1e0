package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

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

// fixtureStore writes the whole fixture session as a new store's file and
// returns the store and the file's bytes.
func fixtureStore(t *testing.T) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	data := []byte(strings.Join(fixtureLines(t), "") + "\n")
	if err := os.WriteFile(sessionFile(t, dir), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, data
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
			if !strings.Contains(stderr, "stdin line 4: session session-s03-tool-dispatch: event evt-009 rejected: SEQUENCE_GAP") ||
				!strings.HasSuffix(stderr, "the 3 event(s) this call acknowledged before it are stored\n") {
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
	if code != exitFailed || stdout != "" || !strings.Contains(stderr, "stdin line 1:") || !strings.Contains(stderr, "EVENT_ID_CONFLICT") ||
		strings.Contains(stderr, "acknowledged") {
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
	if code != exitFailed || !strings.HasPrefix(stderr, "tracecheck session check: "+path+":5: TORN_TAIL") || !strings.Contains(stderr, "--repair") {
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
	if code != exitUsage || stderr != "tracecheck session check: session not found: nope\n" {
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
	if code != exitOK || !strings.Contains(stdout, "history rebuilt from the file's 5 event(s)\n") ||
		!strings.Contains(stdout, ".checkpoint: 5 events, "+strconv.Itoa(len(data))+" bytes, 1 run(s)\n") {
		t.Fatalf("first checkpoint: %d %q %q", code, stdout, stderr)
	}
	code, stdout, stderr = runCmd(t, "", cp...)
	if code != exitOK || !strings.Contains(stdout, "opened from the previous checkpoint (5 events) and 0 after it\n") ||
		!strings.Contains(stdout, "history rebuilt from the previous checkpoint's history and the 0 event(s) after it\n") {
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

// linkedStore makes the attack: a store whose file for the
// fixture's session is a symbolic link to a file outside it holding the
// first four events and a torn tail (which a repair through the link
// would truncate). It returns the store, the victim and its bytes.
func linkedStore(t *testing.T) (string, string, []byte) {
	t.Helper()
	lines := fixtureLines(t)
	victim := filepath.Join(t.TempDir(), "victim")
	data := []byte(strings.Join(lines[:4], "") + lines[4][:50])
	if err := os.WriteFile(victim, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(victim, sessionFile(t, dir)); err != nil {
		t.Fatal(err)
	}
	return dir, victim, data
}

// No session command follows a link planted under a session's name: each
// fails (exit 1) naming the file and saying it is a link, and the file the
// link points to is untouched byte for byte. Checking the whole store
// reports it too, instead of skipping it.
func TestSessionCommandsRefuseLinks(t *testing.T) {
	lines := fixtureLines(t)
	id := "session-s03-tool-dispatch"
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
	}{
		{"append", lines[4], []string{"session", "append", "--session", id}},
		{"append --repair", lines[4], []string{"session", "append", "--session", id, "--repair"}},
		{"resume --repair", "", []string{"session", "resume", "--session", id, "--repair", "--run-id", "run-2"}},
		{"check", "", []string{"session", "check"}},
		{"check --session", "", []string{"session", "check", "--session", id}},
		{"check --session --repair", "", []string{"session", "check", "--session", id, "--repair"}},
		{"checkpoint --repair", "", []string{"session", "checkpoint", "--session", id, "--repair"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, victim, data := linkedStore(t)
			code, stdout, stderr := runCmd(t, tc.stdin, append(tc.args, "--dir", dir)...)
			if code != exitFailed || !strings.Contains(stderr, sessionFile(t, dir)+": it is a symbolic link, not a regular file") {
				t.Errorf("exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
			}
			if got, _ := os.ReadFile(victim); !bytes.Equal(got, data) {
				t.Errorf("the file outside the store changed:\n%q", got)
			}
			if ents, _ := os.ReadDir(filepath.Dir(victim)); len(ents) != 1 {
				t.Errorf("files appeared beside it: %v", ents)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("files appeared in the store: %v", ents)
			}
		})
	}
}

// session check on a FIFO under a session's name returns at once and
// names the file; a FIFO (or a link to /dev/zero) where the checkpoint
// belongs is ignored with a message, not read.
func TestSessionFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.jsonl")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, "", "session", "check", "--dir", dir, "--session", "f")
	if code != exitFailed || stderr != "tracecheck session check: "+fifo+": it is a named pipe (FIFO), not a regular file (the store opens only regular files and never follows a link)\n" {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}

	lines := fixtureLines(t)
	for _, mk := range []func(string) error{
		func(p string) error { return unix.Mkfifo(p, 0o644) },
		func(p string) error { return os.Symlink("/dev/zero", p) },
	} {
		dir := t.TempDir()
		if err := os.WriteFile(sessionFile(t, dir), []byte(strings.Join(lines[:3], "")), 0o644); err != nil {
			t.Fatal(err)
		}
		cp := sessionFile(t, dir) + ".checkpoint"
		if err := mk(cp); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCmd(t, lines[3], "session", "append", "--dir", dir, "--session", "session-s03-tool-dispatch")
		if code != exitOK || stdout != "ack evt-003\n" || !strings.Contains(stderr, "checkpoint "+cp+" ignored, the whole session file was read: it is a ") {
			t.Fatalf("append: exit %d stdout %q stderr %q", code, stdout, stderr)
		}
	}
}

// A resume whose events the session would reject writes nothing, however
// often it is retried: here the clock runs past year 9999 at the resume's
// second event, after a marker that alone would have been accepted.
func TestSessionResumeAllOrNothing(t *testing.T) {
	dir, data := fixtureStore(t)
	for i := range 3 {
		code, stdout, stderr := runCmd(t, "", "session", "resume", "--dir", dir, "--session", "session-s03-tool-dispatch",
			"--run-id", "run-"+strconv.Itoa(i), "--message", "Again?", "--clock", "9999-12-31T23:59:59Z")
		if code != exitFailed || stdout != "" || !strings.Contains(stderr, "nothing was written") || !strings.Contains(stderr, "/timestamp") {
			t.Fatalf("try %d: exit %d stdout %q stderr %q", i, code, stdout, stderr)
		}
		if got, _ := os.ReadFile(sessionFile(t, dir)); !bytes.Equal(got, data) {
			t.Fatalf("try %d wrote:\n%s", i, got[len(data):])
		}
	}
}

// A session file appears with its first accepted event: an append whose
// first line is rejected, or that reads nothing, leaves none. A checkpoint
// of a session without events says so and writes nothing.
func TestSessionNoEmptyFiles(t *testing.T) {
	lines := fixtureLines(t)
	dir := t.TempDir()
	args := []string{"session", "append", "--dir", dir, "--session", "session-s03-tool-dispatch"}
	bad := strings.Replace(lines[0], `"sequence":0`, `"sequence":3`, 1)
	if code, _, stderr := runCmd(t, bad, args...); code != exitFailed ||
		!strings.HasSuffix(stderr, "tracecheck session append: nothing from that line on was written\n") {
		t.Fatalf("rejected first line: %d %q", code, stderr)
	}
	if code, stdout, stderr := runCmd(t, "", args...); code != exitOK || stdout != "" {
		t.Fatalf("empty stdin: %d %q %q", code, stdout, stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("files were created: %v", ents)
	}
	code, _, stderr := runCmd(t, "", "session", "check", "--dir", dir, "--session", "session-s03-tool-dispatch")
	if code != exitUsage || !strings.Contains(stderr, "session not found") {
		t.Fatalf("check: %d %q", code, stderr)
	}

	// An empty file made outside the store.
	if err := os.WriteFile(sessionFile(t, dir), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(t, "", "session", "checkpoint", "--dir", dir, "--session", "session-s03-tool-dispatch")
	if code != exitOK || stdout != "session session-s03-tool-dispatch holds no event: no checkpoint written\n" {
		t.Fatalf("checkpoint of an empty session: %d %q %q", code, stdout, stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("files were created: %v", ents)
	}
}

// Every string of a session that came from input is quoted in text
// output: IDs holding newlines and ANSI escapes cannot forge an "ok" or
// "ack" line or reach the terminal.
func TestSessionOutputQuotesInput(t *testing.T) {
	hostile := strings.NewReplacer(
		`"session-s03-tool-dispatch"`, `"s\nok forged: 1 events\u001b[2J"`,
		`"evt-00`, `"e\u001b[31m\nack evt-00`,
		`"run-s03-tool-dispatch-golden"`, `"run\u001b]0;pwned\u0007\nok x"`,
		`"call-001"`, `"call\nrepaired: forged"`,
		`"echo"`, `"echo\u001b[1m"`,
	)
	var in strings.Builder
	for _, l := range fixtureLines(t) {
		in.WriteString(hostile.Replace(l))
	}
	id := "s\nok forged: 1 events\x1b[2J"
	dir := t.TempDir()
	var outs []string
	run := func(stdin string, args ...string) {
		t.Helper()
		code, stdout, stderr := runCmd(t, stdin, append(args, "--dir", dir)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		outs = append(outs, stdout, stderr)
	}
	run(in.String()+"\n", "session", "append", "--session", id)
	run("", "session", "check")
	run("", "session", "resume", "--session", id, "--run-id", "run-2\nok y", "--message", "hi")
	run("", "session", "checkpoint", "--session", id)
	// A rejected event whose error cites the offending value (the schema
	// quotes a bad timestamp), and a corrupt file that check reports.
	bad := strings.Replace(hostile.Replace(fixtureLines(t)[0]), `"2026-08-10T00:00:00Z"`, `"x\nok forged\u001b[31m"`, 1)
	bad = strings.Replace(bad, `"sequence":0`, `"sequence":8`, 1)
	code, stdout, stderr := runCmd(t, bad, "session", "append", "--dir", dir, "--session", id)
	if code != exitFailed || !strings.Contains(stderr, "SCHEMA") {
		t.Fatalf("bad timestamp: %d %q", code, stderr)
	}
	outs = append(outs, stdout, stderr)
	path := filepath.Join(dir, func() string { n, _ := store.FileName(id); return n }())
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(bad)
	f.Close()
	code, stdout, stderr = runCmd(t, "", "session", "check", "--dir", dir)
	if code != exitFailed || !strings.Contains(stderr, "SCHEMA") {
		t.Fatalf("check of a bad line: %d %q", code, stderr)
	}
	outs = append(outs, stdout, stderr)
	out := strings.Join(outs, "")
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("control characters reached the output:\n%q", out)
	}
	for _, l := range strings.Split(out, "\n") {
		for _, forged := range []string{"ok forged", "ok x", "ok y", "ack evt-", "repaired: forged"} {
			if strings.HasPrefix(l, forged) {
				t.Fatalf("a forged line: %q in\n%s", l, out)
			}
		}
	}
	for _, want := range []string{
		`ack "e\x1b[31m\nack evt-000"` + "\n",
		`ok "s\nok forged: 1 events\x1b[2J": 5 events in 1 run(s) ("run\x1b]0;pwned\x07\nok x" 5)` + "\n",
		`repaired: "call\nrepaired: forged" ("echo\x1b[1m"): answered with SessionResumeInterrupted` + "\n",
		`run_id: "run-2\nok y"` + "\n",
		`[call "call\nrepaired: forged" "echo\x1b[1m" {"text":"hello"}]`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// resume --repair says that it moved a torn tail aside, in text and in
// JSON, as append, check and checkpoint do.
func TestSessionResumeReportsTheRepair(t *testing.T) {
	lines := fixtureLines(t)
	good := strings.Join(lines, "") + "\n"
	for _, asJSON := range []bool{false, true} {
		dir := t.TempDir()
		if err := os.WriteFile(sessionFile(t, dir), []byte(good+`{"torn`), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"session", "resume", "--dir", dir, "--session", "session-s03-tool-dispatch", "--repair", "--run-id", "run-2"}
		side := sessionFile(t, dir) + ".torn-" + strconv.Itoa(len(good))
		want := "repaired session-s03-tool-dispatch: torn tail of 6 bytes at line 6 (offset " + strconv.Itoa(len(good)) + ") kept in " + side + "; file truncated to 5 complete events\n"
		if asJSON {
			args = append(args, "--json")
			want = `"repaired_torn_tail":{"line":6,"offset":` + strconv.Itoa(len(good)) + `,"bytes":6,"side_file":"` + side + `","events_kept":5}}`
		}
		code, stdout, stderr := runCmd(t, "", args...)
		if code != exitOK || !strings.Contains(stdout, want) {
			t.Fatalf("json %v: exit %d\nstdout %s\nstderr %s\nwant %s", asJSON, code, stdout, stderr, want)
		}
	}
	// A resume that fails after the repair still says it was done.
	dir0 := t.TempDir()
	if err := os.WriteFile(sessionFile(t, dir0), []byte(good+`{"torn`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, "", "session", "resume", "--dir", dir0, "--session", "session-s03-tool-dispatch", "--repair",
		"--run-id", "run-s03-tool-dispatch-golden")
	if code != exitFailed || !strings.HasPrefix(stderr, "tracecheck session resume: repaired session-s03-tool-dispatch: torn tail of 6 bytes") ||
		!strings.Contains(stderr, "is already in the session") {
		t.Fatalf("failed resume after a repair: %d %q", code, stderr)
	}
	// Without a torn tail the member is null.
	dir := t.TempDir()
	if err := os.WriteFile(sessionFile(t, dir), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCmd(t, "", "session", "resume", "--dir", dir, "--session", "session-s03-tool-dispatch", "--json")
	if code != exitOK || !strings.HasSuffix(stdout, `"repaired_torn_tail":null}`+"\n") {
		t.Fatalf("%d %s", code, stdout)
	}
}

// Flag values out of range are usage errors that say the range, and
// nothing is appended.
func TestSessionFlagRanges(t *testing.T) {
	dir, data := fixtureStore(t)
	lines := fixtureLines(t)
	id := "session-s03-tool-dispatch"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"session", "resume", "--session", id, "--compact-trigger", "-5"}, `--compact-trigger must be an integer from 0 to 2147483647, not "-5"`},
		{[]string{"session", "resume", "--session", id, "--compact-keep", "-1", "--compact-trigger", "10"}, `--compact-keep must be an integer from 0 to 2147483647, not "-1"`},
		{[]string{"session", "checkpoint", "--session", id, "--compact-trigger", "x"}, `--compact-trigger must be an integer from 0 to 2147483647, not "x"`},
		{[]string{"session", "append", "--session", id, "--batch", "99999999999999999999"}, `--batch must be an integer from 1 to 1000000, not "99999999999999999999"`},
		{[]string{"session", "append", "--session", id, "--batch", "0"}, `--batch must be an integer from 1 to 1000000, not "0"`},
		{[]string{"session", "resume", "--session", id, "--clock", "2026-08-11 00:00"}, `--clock: 2026-08-11 00:00 is not an RFC 3339 time such as 2026-08-11T00:00:00Z (see 'tracecheck session resume --help')`},
	} {
		code, stdout, stderr := runCmd(t, lines[0], append(tc.args, "--dir", dir)...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d stdout %q stderr %q", tc.args, code, stdout, stderr)
		}
		if strings.Contains(stderr, "2006-01-02") {
			t.Errorf("%v: Go's layout string in %q", tc.args, stderr)
		}
	}
	if got, _ := os.ReadFile(sessionFile(t, dir)); !bytes.Equal(got, data) {
		t.Fatalf("the session changed:\n%s", got[len(data):])
	}
}

// What a resume of a session that compacted needs is named by its flags,
// never by Go fields.
func TestSessionResumeNamesFlags(t *testing.T) {
	data, err := os.ReadFile("../../golden/s08-context-compaction.trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	id := "session-s08-context-compaction"
	dir := t.TempDir()
	name, _ := store.FileName(id)
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "the journal does not record the system prompt: give the one the run used (pass it with --system-prompt)"},
		{[]string{"--system-prompt", "Use explicit artifact handles and preserve verified constraints."},
			"(pass them with --compact-trigger, --compact-keep and --compact-summary)"},
	} {
		for _, cmd := range []string{"resume", "checkpoint"} {
			code, _, stderr := runCmd(t, "", append([]string{"session", cmd, "--dir", dir, "--session", id}, tc.args...)...)
			if code != exitFailed || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "HistoryConfig") {
				t.Errorf("%s %v: exit %d stderr %q", cmd, tc.args, code, stderr)
			}
		}
	}
}
