package main

import (
	"bytes"
	"strings"
	"testing"
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
	if code != exitUsage || !strings.Contains(stderr, `unknown command "frobnicate"`) {
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
