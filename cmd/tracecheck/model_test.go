package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

var (
	exampleAgent  = filepath.Join("..", "..", "testdata", "modelserver", "example_agent.py")
	s03Golden     = filepath.Join("..", "..", "testdata", "modelserver", "python-agent-s03-tool-dispatch.trace.jsonl")
	s03Cassette   = filepath.Join("..", "..", "testdata", "modelserver", "cassette-s03.jsonl")
	s03Prompt     = "Use the echo tool, then report its result."
	childEnvModel = "TRACECHECK_MODEL_SERVE_CHILD"
)

// TestModelRunMatchesGolden: an external agent run through 'model run'
// yields a model-side trace equal to its committed golden, and a valid one.
func TestModelRunMatchesGolden(t *testing.T) {
	py := needPython(t)
	trace := filepath.Join(t.TempDir(), "run.trace.jsonl")
	code, stdout, stderr := runCmd(t, "", "model", "run", "--scenario", "s03-tool-dispatch", "--trace", trace, "--", py, exampleAgent, s03Prompt)
	if code != exitOK || stdout != "The echo tool returned hello.\n" {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "answered 2 request(s): 2 of 2 turns used, 0 past the script, 0 rejected") {
		t.Errorf("stderr %q lacks the report", stderr)
	}
	got, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(s03Golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the trace differs from %s:\n%s", s03Golden, got)
	}
	if code, _, stderr := runCmd(t, "", "validate", trace); code != exitOK {
		t.Errorf("validate: %d %s", code, stderr)
	}
	// The trace is never overwritten.
	code, _, stderr = runCmd(t, "", "model", "run", "--scenario", "s03-tool-dispatch", "--trace", trace, "--", py, exampleAgent, s03Prompt)
	if code != exitUsage || !strings.Contains(stderr, "already exists") {
		t.Errorf("an existing --trace: exit %d %q", code, stderr)
	}
}

func TestModelRunFailures(t *testing.T) {
	py := needPython(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"agent fails", []string{"--scenario", "s03-tool-dispatch", "--", py, "-c", "import sys; sys.exit(3)"}, exitFailed,
			"tracecheck model run: FAIL the agent exited with status 3\ntracecheck model run: FAIL the script was not fully used: 2 of 2 turns unanswered (turn 1 on)\n"},
		{"unknown scenario", []string{"--scenario", "no-such-scenario", "--", py}, exitUsage, `unknown scenario "no-such-scenario"`},
		{"no command", []string{"--scenario", "s03-tool-dispatch"}, exitUsage, "no agent command: give it after --"},
		{"command not found", []string{"--scenario", "s03-tool-dispatch", "--", "tracecheck-no-such-program"}, exitUsage, "starting the agent"},
		{"scenario file", []string{"--scenario", filepath.Join("..", "..", "testdata", "modelserver", "stream-echo.json"), "--", py, exampleAgent, "--stream", "x"}, exitOK, "2 of 2 turns used"},
		{"cassette miss", []string{"--cassette", s03Cassette, "--", py, exampleAgent, "Say something else."}, exitFailed,
			`nearest: exchange 1 (event evt-000, line 1), first difference at /messages/0/content: recorded "Use the echo tool, then report its result.", sent "Say something else."`},
		{"cassette replay", []string{"--cassette", s03Cassette, "--", py, exampleAgent, s03Prompt}, exitOK, "2 of 2 turns used"},
		{"scenario and cassette", []string{"--scenario", "s03-tool-dispatch", "--cassette", s03Cassette, "--", py}, exitUsage, "not both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, "", append([]string{"model", "run"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

func TestModelServeUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--scenario", "s03-tool-dispatch", "--addr", "0.0.0.0:0"}, "is not a loopback address"},
		{[]string{"--scenario", "s03-tool-dispatch", "--addr", ":8080"}, "is not a loopback address"},
		{[]string{}, "--scenario or --cassette is required"},
		{[]string{"--scenario", "s03-tool-dispatch", "--on-exhausted", "maybe"}, "--on-exhausted must be answer or error"},
		{[]string{"--cassette", "no-such-cassette.jsonl"}, "does not exist"},
		{[]string{"--scenario", "s03-tool-dispatch", "--mode", "live"}, "--mode and --upstream go with --cassette"},
		{[]string{"--cassette", s03Cassette, "--mode", "record"}, "needs an upstream"},
	} {
		code, stdout, stderr := runCmd(t, "", append([]string{"model", "serve"}, tc.args...)...)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d stdout %q stderr %q, want one usage line with %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	code, _, stderr := runCmd(t, "", "model", "record", "--cassette", "x.jsonl")
	if code != exitUsage || !strings.Contains(stderr, "--upstream is required") {
		t.Errorf("record without --upstream: %d %q", code, stderr)
	}
	same := filepath.Join(t.TempDir(), "new.jsonl")
	code, _, stderr = runCmd(t, "", "model", "record", "--upstream", "http://127.0.0.1:9", "--cassette", same, "--trace", same)
	if _, err := os.Stat(same); code != exitUsage || !strings.Contains(stderr, "name the same file") || err == nil {
		t.Errorf("record with --trace = --cassette: %d %q (file made: %v)", code, stderr, err == nil)
	}
}

// TestModelServeChild is not a test: it is the child process of
// TestModelServeSignals, running the CLI with the arguments in its
// environment.
func TestModelServeChild(t *testing.T) {
	raw := os.Getenv(childEnvModel)
	if raw == "" {
		t.Skip("child process of TestModelServeSignals")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		os.Exit(99)
	}
	os.Exit(run(&env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, args))
}

// TestModelServeSignals runs 'model serve' as a subprocess: once its URL is
// read, one request is answered, then SIGINT or SIGTERM stops it with exit
// 0 and a complete trace. No sleeps: the URL line and the exit are awaited.
func TestModelServeSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "trace.jsonl")
			args, _ := json.Marshal([]string{"model", "serve", "--scenario", "s03-tool-dispatch", "--trace", trace})
			cmd := exec.Command(os.Args[0], "-test.run=^TestModelServeChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnvModel+"="+string(args))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			url, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("no URL line: %v\n%s", err, stderr.String())
			}
			url = strings.TrimSpace(url)
			if !strings.HasPrefix(url, "http://127.0.0.1:") {
				t.Errorf("URL %q is not on loopback", url)
			}
			resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			if cmd.ProcessState.ExitCode() != exitOK {
				t.Errorf("exit %d after %s\n%s", cmd.ProcessState.ExitCode(), sig, stderr.String())
			}
			if !strings.Contains(stderr.String(), "answered 1 request(s): 1 of 2 turns used") {
				t.Errorf("stderr %q lacks the report", stderr.String())
			}
			code, stdout, vstderr := runCmd(t, "", "validate", trace)
			if code != exitOK {
				t.Errorf("the trace left after %s: %s%s", sig, stdout, vstderr)
			}
			data, _ := os.ReadFile(trace)
			if n := bytes.Count(data, []byte("\n")); n != 2 {
				t.Errorf("the trace holds %d events, want the exchange's 2", n)
			}
		})
	}
}
