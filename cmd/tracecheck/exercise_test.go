package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var (
	pythonSolution = filepath.Join("..", "..", "exercises", "python", "solution", "subject.py")
	pythonStarter  = filepath.Join("..", "..", "exercises", "python", "starter", "subject.py")
)

func testSubject(name string) string {
	return filepath.Join("..", "..", "testdata", "exercise", "subjects", name+".sh")
}

func needSh(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		tb.Skip("SKIPPED: no sh to run the test subjects")
	}
}

func TestExerciseListShowReset(t *testing.T) {
	state := filepath.Join(t.TempDir(), "p.json")
	code, out, errs := runCmd(t, "", "exercise", "list", "--state", state)
	if code != exitOK || !strings.Contains(out, "A   Reject a sequence gap") || !strings.Contains(out, "0/5") ||
		!strings.Contains(out, "next: tracecheck exercise show A") {
		t.Fatalf("list: %d %q %q", code, out, errs)
	}
	code, out, _ = runCmd(t, "", "exercise", "list", "--state", state, "--format", "json")
	var list struct {
		Exercises []struct {
			ID       string
			Criteria int
		}
	}
	if code != exitOK || json.Unmarshal([]byte(out), &list) != nil || len(list.Exercises) != 7 || list.Exercises[6].ID != "R" {
		t.Fatalf("list --format json: %d %q", code, out)
	}

	code, out, _ = runCmd(t, "", "exercise", "show", "b", "--state", state)
	if code != exitOK || !strings.Contains(out, "B. Partial replay (the curriculum's lesson s07, exercise B)") ||
		!strings.Contains(out, "1. [ ] B1 partial-view") || !strings.Contains(out, "<- current") || strings.Contains(out, "hint:") {
		t.Fatalf("show b: %d %q", code, out)
	}
	code, out, _ = runCmd(t, "", "exercise", "show", "R", "--hint", "--state", state)
	if code != exitOK || strings.Count(out, "hint:") != 6 || !strings.Contains(out, "SESSION_RESUME_INTERRUPTED") {
		t.Fatalf("show R --hint: %d %q", code, out)
	}

	for _, args := range [][]string{
		{"exercise", "show", "Z"},
		{"exercise", "show"},
		{"exercise", "reset"},
		{"exercise", "reset", "A", "--all"},
		{"exercise", "list", "extra"},
		{"exercise", "frobnicate"},
	} {
		if code, _, errs := runCmd(t, "", append(args, "--state", state)...); code != exitUsage || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want a usage error", args, code, errs)
		}
	}
	if code, out, _ := runCmd(t, "", "exercise", "reset", "--all", "--state", state); code != exitOK || !strings.Contains(out, "reset R") {
		t.Errorf("reset --all: %d %q", code, out)
	}
}

func TestExerciseRunUsageErrors(t *testing.T) {
	state := filepath.Join(t.TempDir(), "p.json")
	st := []string{"--state", state}
	tests := []struct {
		args []string
		want string
	}{
		{append(st, "exercise", "run", "A", "python3", "x.py"), "put -- before the subject's command line"},
		{append(st, "exercise", "run", "A", "--"), "no subject"},
		{append(st, "exercise", "run", "--", "python3"), "no exercise id"},
		{append(st, "exercise", "run", "Q", "--", "python3"), `unknown exercise "Q"`},
		{append(st, "exercise", "run", "A", "--format", "xml", "--", "python3"), "--format must be"},
		{append(st, "exercise", "run", "A", "--timeout", "0s", "--", "python3"), "must be positive"},
		{append(st, "exercise", "run", "A", "--reference", "no/such/dir", "--", "python3"), "is not a directory"},
		{append(st, "exercise", "watch", "A", "--", "python3"), "no exercise id: watch checks the first exercise not done yet"},
		{append(st, "exercise", "watch", "--format", "json", "--", "python3"), "unknown flag: --format"},
		{append(st, "exercise", "watch", "--dir", "no/such/dir", "--", "python3"), "--dir no/such/dir is not a directory"},
		{append(st, "exercise", "watch", "--interval", "0s", "--", "python3"), "--interval must be positive"},
		{append(st, "exercise", "watch", "--through", "Z", "--", "python3"), `--through: unknown exercise "Z" (known: A, B, C, D, E, F, R)`},
		{append(st, "exercise", "watch", "--through", "", "--", "python3"), `--through: unknown exercise ""`},
		{append(st, "exercise", "watch"), "no subject"},
		{append(st, "exercise", "run", "A", "--", "tracecheck-no-such-program"), "cannot start tracecheck-no-such-program"},
		{[]string{"conform", "python3", "x.py"}, "put -- before the subject's command line"},
		{[]string{"conform", "extra", "--", "python3"}, `unexpected argument "extra" before --`},
		{[]string{"conform"}, "no subject"},
	}
	for _, tt := range tests {
		args := tt.args
		if args[0] == "--state" { // flags go after the subcommand: exercise run --state FILE ...
			args = append(append(append([]string(nil), args[2:4]...), args[:2]...), args[4:]...)
		}
		code, out, errs := runCmd(t, "", args...)
		if code != exitUsage || !strings.Contains(errs, tt.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 with %q", args, code, out, errs, tt.want)
		}
		if strings.Count(strings.TrimSuffix(errs, "\n"), "\n") != 0 {
			t.Errorf("%v: the usage error is not one line: %q", args, errs)
		}
	}
	if _, err := os.Stat(state); err == nil {
		t.Error("a usage error wrote the progress file")
	}
}

// A subject that breaks the protocol gets exit 3 and one line naming the
// stdout line and why (then the tail of its stderr, marked as such); it is
// never reported as failing a criterion.
func TestConformProtocolFaults(t *testing.T) {
	needSh(t)
	tests := []struct {
		subject string
		flags   []string
		want    string
	}{
		{"garbage", nil, `stdout line 2 (the response to request 2, op journal): not JSON`},
		{"banner", nil, `stdout line 1 (the response to request 1, op hello): not JSON`},
		{"exits-early", nil, `request 2 (op journal): the subject exited (exit status 1) without answering`},
		{"hangs", []string{"--timeout", "200ms"}, `request 2 (op journal): no response within 200ms (--timeout); the subject was killed`},
		{"wrong-id", nil, `the response's id is 99 where 2 was expected`},
		{"schema-invalid", nil, `does not match the protocol (error_response)`},
		{"huge-line", []string{"--max-response", "4096"}, `the line is longer than 4096 bytes`},
		{"old-protocol", nil, `the subject speaks protocol 2`},
		{"trailing-output", nil, `stdout line 2: output after the last response`},
	}
	for _, tt := range tests {
		for _, cmd := range [][]string{{"conform"}, {"exercise", "run", "A", "--state", filepath.Join(t.TempDir(), "p.json")}} {
			args := append(append(append([]string(nil), cmd...), tt.flags...), "--", "sh", testSubject(tt.subject))
			code, out, errs := runCmd(t, "", args...)
			lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
			prefix := "tracecheck conform: the subject broke the protocol: "
			if cmd[0] == "exercise" {
				prefix = "tracecheck exercise run: the subject broke the protocol: "
			}
			if code != exitProtocol || !strings.HasPrefix(lines[0], prefix) || !strings.Contains(lines[0], tt.want) {
				t.Errorf("%s %v: exit %d, stderr %q; want exit 3 and a line %q...%q", tt.subject, cmd[:2], code, errs, prefix, tt.want)
			}
			for _, l := range lines[1:] {
				if !strings.HasPrefix(l, "  subject stderr | ") {
					t.Errorf("%s: stderr line %q is neither the fault nor the subject's stderr", tt.subject, l)
				}
			}
			if strings.Contains(out, "FAIL") {
				t.Errorf("%s: a protocol fault reported as a failed criterion: %q", tt.subject, out)
			}
		}
	}
}

func TestConformReportsACrashWithItsStderr(t *testing.T) {
	needSh(t)
	_, _, errs := runCmd(t, "", "conform", "--", "sh", testSubject("exits-early"))
	if !strings.Contains(errs, "  subject stderr | RuntimeError: the subject crashed on purpose\n") {
		t.Errorf("stderr %q lacks the subject's stderr tail", errs)
	}
	code, out, _ := runCmd(t, "", "conform", "--format", "exercism", "--", "sh", testSubject("exits-early"))
	var res struct {
		Version int
		Status  string
		Message string
	}
	if code != exitProtocol || json.Unmarshal([]byte(out), &res) != nil || res.Version != 3 || res.Status != "error" ||
		!strings.Contains(res.Message, "exited (exit status 1)") || !strings.Contains(res.Message, "RuntimeError") {
		t.Errorf("exercism: %d %q", code, out)
	}
}

func TestConformSubjectWithoutOps(t *testing.T) {
	needSh(t)
	code, out, _ := runCmd(t, "", "conform", "--", "sh", testSubject("unsupported"))
	if code != exitFailed || !strings.Contains(out, "skipped: needs op journal") || !strings.Contains(out, "supports no exercise") {
		t.Errorf("%d %q", code, out)
	}
	code, out, _ = runCmd(t, "", "exercise", "run", "F", "--state", filepath.Join(t.TempDir(), "p.json"), "--", "sh", testSubject("unsupported"))
	if code != exitFailed || !strings.Contains(out, "does not support ops checkpoint, replay_from_checkpoint, which exercise F needs") {
		t.Errorf("run F: %d %q", code, out)
	}
}

func TestConformPythonKits(t *testing.T) {
	needPython(t)
	code, out, errs := runCmd(t, "", "conform", "--seed", "7", "--", "python3", pythonSolution)
	if code != exitOK || !strings.Contains(out, "7 of 7 exercises pass, 0 fail, 0 skipped") {
		t.Fatalf("solution: %d %q %q", code, out, errs)
	}
	code, out, _ = runCmd(t, "", "conform", "--seed", "7", "--", "python3", pythonStarter)
	if code != exitFailed || !strings.Contains(out, "0 of 7 exercises pass, 7 fail") {
		t.Fatalf("starter: %d %q", code, out)
	}
	for _, first := range []string{"A1 accepts-valid-journals", "B1 partial-view", "C1 s02-one-message", "D1 branch-record",
		"E1 appends-new-events", "F1 checkpoint-plus-tail", "R1 repairs-interrupted-call"} {
		if !strings.Contains(out, "FAIL from "+first) {
			t.Errorf("starter: no %q in %q", "FAIL from "+first, out)
		}
	}
	if !strings.Contains(out, "run again with the same cases: tracecheck conform --seed 7 -- python3 ") {
		t.Errorf("starter: no rerun line in %q", out)
	}

	// The same seed gives the same report, in every format.
	for _, format := range []string{"json", "exercism", "junit"} {
		_, a, _ := runCmd(t, "", "conform", "--seed", "7", "--format", format, "--", "python3", pythonStarter)
		_, b, _ := runCmd(t, "", "conform", "--seed", "7", "--format", format, "--", "python3", pythonStarter)
		if a != b {
			t.Errorf("--format %s: two runs with --seed 7 differ", format)
		}
		switch format {
		case "junit":
			if xml.Unmarshal([]byte(a), new(struct{})) != nil || strings.Contains(a, `<testsuites name="tracecheck conform" tests="29" failures="0"`) || !strings.Contains(a, `errors="0"`) {
				t.Errorf("junit: %q", a)
			}
		default:
			var v map[string]any
			if err := json.Unmarshal([]byte(a), &v); err != nil || v["status"] != "fail" {
				t.Errorf("%s: %v %q", format, err, a)
			}
		}
	}
}

// exercise run keeps progress: passing criteria are recorded, the next
// exercise is named, and a progress file it cannot read is left alone.
func TestExerciseRunKeepsProgress(t *testing.T) {
	needPython(t)
	state := filepath.Join(t.TempDir(), "sub", "exercises.json")
	code, out, errs := runCmd(t, "", "exercise", "run", "A", "--state", state, "--", "python3", pythonSolution)
	if code != exitOK || !strings.Contains(out, "A: 5 of 5 criteria pass") || !strings.Contains(out, "exercise A passes. next: tracecheck exercise show B") {
		t.Fatalf("run A: %d %q %q", code, out, errs)
	}
	code, out, _ = runCmd(t, "", "exercise", "list", "--state", state)
	if code != exitOK || !strings.Contains(out, "5/5 done") {
		t.Fatalf("list after A: %q", out)
	}
	code, out, _ = runCmd(t, "", "exercise", "run", "B", "--seed", "3", "--state", state, "--", "python3", pythonStarter)
	if code != exitFailed || !strings.Contains(out, "FAIL B1 partial-view") || !strings.Contains(out, "not implemented yet") ||
		!strings.Contains(out, "at /ok: expected true, actual false") || !strings.Contains(out, "hint: ") ||
		!strings.Contains(out, "run again with the same cases: tracecheck exercise run B --seed 3 -- python3 ") {
		t.Fatalf("run B on the starter: %d %q", code, out)
	}
	// A regression of A on the starter removes A's first criterion.
	if code, _, _ := runCmd(t, "", "exercise", "run", "A", "--state", state, "--", "python3", pythonStarter); code != exitFailed {
		t.Fatalf("run A on the starter: exit %d", code)
	}
	data, err := os.ReadFile(state)
	if err != nil || !bytes.Contains(data, []byte(`"rejects-empty"`)) || bytes.Contains(data, []byte(`"accepts-valid-journals"`)) {
		t.Fatalf("progress after the regression: %s %v", data, err)
	}

	bad := []byte("{not a progress file")
	if err := os.WriteFile(state, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCmd(t, "", "exercise", "run", "A", "--state", state, "--", "python3", pythonSolution)
	if code != exitUsage || !strings.Contains(errs, "progress file "+state) {
		t.Errorf("a bad progress file: %d %q", code, errs)
	}
	if got, _ := os.ReadFile(state); !bytes.Equal(got, bad) {
		t.Error("the bad progress file was changed")
	}
}

func TestExerciseServe(t *testing.T) {
	in := `{"id":1,"op":"hello","protocol":1,"limits":{"timeout_ms":1000,"max_response_bytes":1000}}` + "\n" +
		`{"id":2,"op":"journal","events":[]}` + "\n"
	code, out, errs := runCmd(t, in, "exercise", "serve")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != exitOK || len(lines) != 2 || !strings.HasPrefix(lines[0], `{"id":1,"ok":true,"protocol":1,`) ||
		lines[1] != `{"id":2,"ok":false,"error":{"message":"events: a session journal needs at least one event","code":"EMPTY_JOURNAL"}}` {
		t.Errorf("serve: %d %q %q", code, out, errs)
	}
}

// lineWriter sends each line written to it on a channel, so that a test
// can wait for a line instead of sleeping.
type lineWriter struct {
	buf   []byte
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.lines <- string(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
}

// TestExerciseWatch drives `exercise watch` as a learner does: the starter
// fails exercise A and watch waits; h shows the hints; saving the solution
// over the starter makes it check again, pass A and go on through every
// exercise to the end, exit 0. A second watch on the starter ends on q.
// It waits for lines of output, never for a time.
func TestExerciseWatch(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	subj := filepath.Join(dir, "subject.py")
	copyFile(t, pythonStarter, subj)
	state := filepath.Join(t.TempDir(), "p.json")
	args := []string{"exercise", "watch", "--dir", dir, "--interval", "20ms", "--state", state, "--seed", "3", "--", "python3", subj}

	stdinR, stdinW := io.Pipe()
	out := &lineWriter{lines: make(chan string, 1024)}
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(&env{stdin: stdinR, stdout: out, stderr: &errb}, args) }()
	var seen []string
	exit := -1 // the exit status once watch has ended
	waitFor := func(want string) {
		t.Helper()
		deadline := time.After(2 * time.Minute) // a hung watch fails the test instead of the suite
		for {
			if exit >= 0 {
				// Ended: every line it wrote is already in the channel.
				select {
				case l := <-out.lines:
					seen = append(seen, l)
					if strings.Contains(l, want) {
						return
					}
					continue
				default:
					t.Fatalf("watch ended (exit %d) before %q; output:\n%s\nstderr: %s", exit, want, strings.Join(seen, "\n"), errb.String())
				}
			}
			select {
			case l := <-out.lines:
				seen = append(seen, l)
				if strings.Contains(l, want) {
					return
				}
			case exit = <-done:
			case <-deadline:
				t.Fatalf("no %q; output:\n%s", want, strings.Join(seen, "\n"))
			}
		}
	}
	waitFor("FAIL A1 accepts-valid-journals")
	waitFor("watching ")
	io.WriteString(stdinW, "h\n")
	waitFor("hint:")
	waitFor("watching ")
	copyFile(t, pythonSolution, subj)
	waitFor("changed: ")
	waitFor("exercise A passes.")
	waitFor("exercise R passes.")
	waitFor("Every exercise is done: tracecheck conform -- python3 ")
	if exit < 0 {
		exit = <-done
	}
	if exit != exitOK {
		t.Fatalf("exit %d after every exercise passed; stderr %q", exit, errb.String())
	}
	stdinW.Close()

	// Progress was kept: a new watch on the starter starts where it left off
	// only after a reset, so reset A and quit with q.
	if code, _, errs := runCmd(t, "", "exercise", "reset", "A", "--state", state); code != exitOK {
		t.Fatalf("reset: %d %s", code, errs)
	}
	copyFile(t, pythonStarter, subj)
	code, got, errs := runCmd(t, "q\n", args...)
	if code != exitOK || !strings.Contains(got, "exercise run A, seed 3") || !strings.Contains(got, "watching ") || strings.Contains(got, "exercise run B") {
		t.Errorf("watch then q: exit %d, stdout %q, stderr %q", code, got, errs)
	}
}

func copyFile(tb testing.TB, from, to string) {
	tb.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// watch --through F works through lesson s07's exercises A-F and stops
// there, saying how to go on with R; started again with A-F done, it says
// so at once and checks nothing.
func TestExerciseWatchThrough(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	watch := func(through string) []string {
		return []string{"exercise", "watch", "--dir", dir, "--state", filepath.Join(dir, ".p.json"), "--seed", "3", "--through", through, "--", "python3", pythonSolution}
	}
	code, out, errs := runCmd(t, "", watch("F")...)
	done := "Every exercise through F is done (--through F). Next: tracecheck exercise watch -- python3 " + pythonSolution + " goes on with exercise R.\n"
	if code != exitOK || !strings.Contains(out, "exercise F passes.") || !strings.HasSuffix(out, done) {
		t.Fatalf("--through F: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if strings.Contains(out, "exercise run R") || strings.Contains(out, "Every exercise is done") {
		t.Errorf("--through F checked R: %q", out)
	}
	code, out, _ = runCmd(t, "", watch("f")...)
	if code != exitOK || out != done {
		t.Errorf("--through f again: exit %d, stdout %q; want only %q", code, out, done)
	}
	code, out, _ = runCmd(t, "", watch("R")...)
	if code != exitOK || !strings.Contains(out, "exercise run R, seed 3") || !strings.Contains(out, "Every exercise is done: tracecheck conform -- python3 ") {
		t.Errorf("--through R: exit %d, stdout %q", code, out)
	}
}

// requestLine returns the JSON after "request:" in a text report.
func requestLine(tb testing.TB, out string) string {
	tb.Helper()
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "       request:   "); ok {
			return rest
		}
	}
	tb.Fatalf("no request line in %q", out)
	return ""
}

// --show-request prints a failed criterion's whole request, the JSON line
// sent (the same request --format json reports); without it the event
// lists are shortened and the flag is named.
func TestExerciseShowRequest(t *testing.T) {
	needPython(t)
	run := func(stdin string, args ...string) string {
		t.Helper()
		state := filepath.Join(t.TempDir(), "p.json")
		code, out, errs := runCmd(t, stdin, append(args[:2:2], append([]string{"--state", state, "--seed", "3"}, append(args[2:], "--", "python3", pythonStarter)...)...)...)
		if code != exitFailed && !(args[1] == "watch" && code == exitOK) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
		return out
	}
	short := requestLine(t, run("", "exercise", "run", "B"))
	if !strings.Contains(short, `"events":"<`) || !strings.HasSuffix(short, " (shortened; --show-request shows it whole)") {
		t.Errorf("without --show-request: %q", short)
	}
	whole := requestLine(t, run("", "exercise", "run", "B", "--show-request"))
	var got struct {
		Op     string
		Events []map[string]any
	}
	if err := json.Unmarshal([]byte(whole), &got); err != nil || got.Op != "replay" || len(got.Events) < 3 {
		t.Fatalf("--show-request: %v, %q", err, whole)
	}
	var report struct {
		Exercises []struct {
			Criteria []struct {
				Failure *struct{ Request json.RawMessage }
			}
		}
	}
	if err := json.Unmarshal([]byte(run("", "exercise", "run", "B", "--format", "json")), &report); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, report.Exercises[0].Criteria[0].Failure.Request); err != nil {
		t.Fatal(err)
	}
	if compact.String() != whole {
		t.Errorf("--show-request printed\n%s\n--format json's request is\n%s", whole, compact.String())
	}

	watched := requestLine(t, run("q\n", "exercise", "watch", "--show-request"))
	if err := json.Unmarshal([]byte(watched), &got); err != nil || got.Op != "journal" || len(got.Events) < 3 {
		t.Errorf("watch --show-request: %v, %q", err, watched)
	}
}
