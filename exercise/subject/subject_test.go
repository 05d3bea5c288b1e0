package subject

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracecheck/tracecheck/journal/jsonv"

	_ "github.com/sebdah/goldie/v2" // defines -update, so that `go test ./... -update` runs here too
)

// script returns the command line of a test subject in
// testdata/exercise/subjects.
func script(tb testing.TB, name string) []string {
	tb.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		tb.Skip("SKIPPED: no sh to run the test subjects")
	}
	return []string{sh, filepath.Join("..", "..", "testdata", "exercise", "subjects", name+".sh")}
}

// start starts a test subject; the test closes it.
func start(tb testing.TB, name string, opts Options) *Subject {
	tb.Helper()
	s, err := Start(script(tb, name), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func events() jsonv.Member { return jsonv.M("events", jsonv.Arr()) }

// Every way a subject can break the protocol is one *ProtocolError naming
// the stdout line (when there is one) and why; the subject is killed and
// every later call returns the same error.
func TestProtocolFaults(t *testing.T) {
	tests := []struct {
		subject string
		opts    Options
		line    int
		want    string // in Error()
	}{
		{"garbage", Options{}, 2, `stdout line 2 (the response to request 2, op journal): not JSON (INVALID_JSON at column 1`},
		{"banner", Options{}, 1, `stdout line 1 (the response to request 1, op hello): not JSON`},
		{"exits-early", Options{}, 0, `request 2 (op journal): the subject exited (exit status 1) without answering (stdout ended after line 1)`},
		{"hangs", Options{Timeout: 200 * time.Millisecond}, 0, `request 2 (op journal): no response within 200ms (--timeout); the subject was killed`},
		{"silent", Options{StartupTimeout: 200 * time.Millisecond, Timeout: 100 * time.Millisecond}, 0, `request 1 (op hello): no response within 200ms (--startup-timeout); the subject was killed`},
		// A startup time below the request time is kept as it was set.
		{"silent", Options{StartupTimeout: 100 * time.Millisecond, Timeout: time.Hour}, 0, `request 1 (op hello): no response within 100ms (--startup-timeout); the subject was killed`},
		{"wrong-id", Options{}, 2, `the response's id is 99 where 2 was expected`},
		{"schema-invalid", Options{}, 2, `the response does not match the protocol (error_response): /error: missing properties: 'message'`},
		{"huge-line", Options{MaxResponseBytes: 4096}, 2, `stdout line 2 (the response to request 2, op journal): the line is longer than 4096 bytes (--max-response)`},
		{"old-protocol", Options{}, 1, `the subject speaks protocol 2; tracecheck speaks protocol 1`},
	}
	for _, tt := range tests {
		t.Run(tt.subject, func(t *testing.T) {
			s := start(t, tt.subject, tt.opts)
			var err error
			if _, err = s.Hello(); err == nil {
				_, err = s.Call("journal", events())
			}
			var pe *ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *ProtocolError", err)
			}
			if pe.Line != tt.line || !strings.Contains(pe.Error(), tt.want) {
				t.Fatalf("got line %d %q,\nwant line %d containing %q", pe.Line, pe.Error(), tt.line, tt.want)
			}
			if strings.Contains(pe.Error(), "\n") {
				t.Errorf("the error is not one line: %q", pe.Error())
			}
			if _, again := s.Call("journal", events()); again != err {
				t.Errorf("a call after the fault returned %v, want the same error", again)
			}
			if cerr := s.Close(); cerr != err {
				t.Errorf("Close returned %v, want the same error", cerr)
			}
		})
	}
}

func TestStderrTailOfACrash(t *testing.T) {
	s := start(t, "exits-early", Options{})
	if _, err := s.Hello(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Call("journal", events()); err == nil {
		t.Fatal("no error from a subject that exited")
	}
	s.Close()
	got := s.StderrTail(1)
	if len(got) != 1 || got[0] != "RuntimeError: the subject crashed on purpose" {
		t.Errorf("StderrTail(1) = %q", got)
	}
	if all := s.StderrTail(10); len(all) != 2 || all[0] != "Traceback (most recent call last):" {
		t.Errorf("StderrTail(10) = %q", all)
	}
}

func TestStderrTailIsBounded(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("SKIPPED: no sh")
	}
	// 200 KB of numbered lines on stderr, then exit.
	s, err := Start([]string{sh, "-c", `i=0; while [ $i -lt 20000 ]; do echo "line $i of the log" >&2; i=$((i+1)); done`}, Options{StderrTailBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	s.Close() // it wrote nothing on stdout: not a protocol error
	got := s.StderrTail(1000)
	if len(got) == 0 || len(got) > 1024/10 || got[len(got)-1] != "line 19999 of the log" {
		t.Errorf("kept %d lines, last %q", len(got), got[len(got)-1:])
	}
	if !strings.HasPrefix(got[0], "line ") {
		t.Errorf("the first kept line is a fragment: %q", got[0])
	}
}

func TestTrailingOutputIsAProtocolError(t *testing.T) {
	s := start(t, "trailing-output", Options{})
	if _, err := s.Hello(); err != nil {
		t.Fatal(err)
	}
	err := s.Close()
	var pe *ProtocolError
	if !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(pe.Error(), `output after the last response`) || !strings.Contains(pe.Error(), `"bye"`) {
		t.Fatalf("Close = %v", err)
	}
}

func TestUnknownCommandIsAStartError(t *testing.T) {
	_, err := Start([]string{"tracecheck-no-such-program"}, Options{})
	var se *StartError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want a *StartError", err)
	}
	if _, err := Start(nil, Options{}); !errors.As(err, &se) {
		t.Fatalf("no command: got %v, want a *StartError", err)
	}
}

// Decode judges a response line exactly as a process's would be judged.
func TestDecode(t *testing.T) {
	req := jsonv.Obj(jsonv.M("id", jsonv.Int(7)), jsonv.M("op", jsonv.Str("append")))
	tests := []struct {
		line string
		want string // "" for a valid response
	}{
		{`{"id":7,"ok":true,"result":"appended"}`, ""},
		{`{"id":7,"ok":false,"error":{"message":"no","code":"CONFLICT"}}`, ""},
		{`{"id":7,"ok":true,"result":"stored"}`, "does not match the protocol (append_response): /result"},
		{`{"id":7,"ok":false,"error":{"message":"no","code":"NOPE"}}`, "/error/code"},
		{`{"id":8,"ok":true,"result":"appended"}`, "id is 8 where 7 was expected"},
		{`{"ok":true}`, "not a response: /: missing properties: 'id'"},
		{`[1,2]`, "a JSON array, not an object"},
		{`{"id":7,"id":7,"ok":true}`, "DUPLICATE_KEY"},
		{``, "a blank line"},
	}
	for _, tt := range tests {
		resp, err := Decode(req, []byte(tt.line))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.line, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: got %v, want an error containing %q", tt.line, err, tt.want)
		case tt.want == "" && !resp.OK && resp.Error.Code != "CONFLICT":
			t.Errorf("%s: error %+v", tt.line, resp.Error)
		}
	}
}
