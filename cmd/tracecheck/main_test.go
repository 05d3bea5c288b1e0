package main

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/internal/testenv"
)

// runCmd runs the CLI in-process and returns exit code, stdout and stderr.
func runCmd(tb testing.TB, stdin string, args ...string) (int, string, string) {
	tb.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	code := run(e, args)
	return code, out.String(), errb.String()
}

func TestUsageAndHelp(t *testing.T) {
	code, _, stderr := runCmd(t, "")
	if code != exitUsage || !strings.Contains(stderr, "Usage: tracecheck COMMAND") {
		t.Errorf("no args: code %d stderr %q", code, stderr)
	}
	code, stdout, _ := runCmd(t, "", "--help")
	if code != exitOK || !strings.Contains(stdout, "validate") {
		t.Errorf("--help: code %d stdout %q", code, stdout)
	}
	code, _, stderr = runCmd(t, "", "frobnicate")
	if code != exitUsage || stderr != "tracecheck: unknown command frobnicate (see 'tracecheck --help')\n" {
		t.Errorf("unknown command: code %d stderr %q", code, stderr)
	}
	// Every command answers --help on stdout with exit 0 and names itself.
	for _, c := range commands() {
		code, stdout, stderr := runCmd(t, "", c.name, "--help")
		if code != exitOK || !strings.Contains(stdout, "Usage: tracecheck "+c.name) {
			t.Errorf("%s --help: code %d stdout %q stderr %q", c.name, code, stdout, stderr)
		}
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runCmd(t, "", "version")
	if code != exitOK || !strings.HasPrefix(stdout, "tracecheck ") || !strings.Contains(stdout, "trace 0.1.0") {
		t.Errorf("version: %d %q", code, stdout)
	}
}

func TestSingleDashLongFlags(t *testing.T) {
	fs := newFlags(&env{stderr: new(bytes.Buffer)}, "x", "x", "")
	fs.Bool("update", false, "")
	fs.String("format", "text", "")
	fs.BoolP("quiet", "q", false, "")
	got := singleDashLong(fs, []string{"-update", "-format=json", "-format", "json", "-q", "-unknown", "--update", "-", "--", "-update"})
	want := []string{"--update", "--format=json", "--format", "json", "-q", "-unknown", "--update", "-", "--", "-update"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("singleDashLong = %q, want %q", got, want)
	}
	// The same rule holds in every command: -format works where --format does.
	code, stdout, stderr := runCmd(t, "", "list", "-format", "json")
	if code != exitOK || !strings.HasPrefix(stdout, "[") {
		t.Errorf("list -format json: exit %d\n%s%s", code, stdout, stderr)
	}
}

// failWriter fails every write, as standard output on a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

func TestStdoutWriteErrorFails(t *testing.T) {
	good := filepath.Join("..", "..", "testdata", "good", "s07-session-replay.trace.jsonl")
	for _, args := range [][]string{
		{"fingerprint", good},
		{"validate", good},
		{"replay", good},
		{"list"},
		{"version"},
		{"verify", "s01-agent-loop"},
	} {
		var errb bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: failWriter{}, stderr: &errb}
		if code := run(e, args); code != exitFailed || !strings.Contains(errb.String(), "writing standard output: no space left on device") {
			t.Errorf("%v with stdout failing: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

func TestHelpCommand(t *testing.T) {
	code, stdout, _ := runCmd(t, "", "help", "verify")
	if code != exitOK || !strings.HasPrefix(stdout, "Usage: tracecheck verify") {
		t.Errorf("help verify: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCmd(t, "", "session", "help", "append")
	if code != exitOK || !strings.HasPrefix(stdout, "Usage: tracecheck session append") {
		t.Errorf("session help append: exit %d\n%s", code, stdout)
	}
}

func TestUsageErrorsAreOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"fingerprint"},
		{"replay", "a", "b"},
		{"validate"},
		{"version", "extra"},
	} {
		code, _, stderr := runCmd(t, "", args...)
		if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--help") {
			t.Errorf("%v: exit %d, stderr %q (want one line pointing at --help)", args, code, stderr)
		}
	}
}

// needPython returns the path of python3, or skips the test saying so.
func needPython(tb testing.TB) string {
	tb.Helper()
	return testenv.Python(tb, "this test runs a Python program")
}
