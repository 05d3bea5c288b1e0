package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/tracediff"
	"github.com/tracecheck/tracecheck/tracediff/tracedifftest"
)

const diffCases = "../../testdata/tracediff"

func diffCase(name string) (string, string) {
	return filepath.Join(diffCases, name, "expected.jsonl"), filepath.Join(diffCases, name, "actual.jsonl")
}

// TestDiffExitCodes: 0 same, 1 different or invalid, 2 usage.
func TestDiffExitCodes(t *testing.T) {
	same, sameAct := diffCase("same")
	changed, changedAct := diffCase("changed")
	inv, invAct := diffCase("invalid-actual")
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string // a substring
		stderr string
	}{
		{"same", "", []string{"diff", same, sameAct}, exitOK, "same ", ""},
		{"different", "", []string{"diff", changed, changedAct}, exitFailed, "/payload/arguments/text: expected \"hello\", actual \"hullo\"", ""},
		{"invalid actual", "", []string{"diff", inv, invAct}, exitFailed, "SEQUENCE_GAP", ""},
		{"stdin as actual", mustRead(t, sameAct), []string{"diff", same, "-"}, exitOK, "<stdin>", ""},
		{"missing file", "", []string{"diff", same, "nope.jsonl"}, exitUsage, "", "nope.jsonl"},
		{"a directory", "", []string{"diff", same, diffCases}, exitUsage, "", "is a directory"},
		{"one argument", "", []string{"diff", same}, exitUsage, "", "want EXPECTED and ACTUAL"},
		{"both stdin", "", []string{"diff", "-", "-"}, exitUsage, "", "only one of EXPECTED and ACTUAL"},
		{"bad format", "", []string{"diff", "--format", "xml", same, sameAct}, exitUsage, "", "--format must be"},
		{"bad match", "", []string{"diff", "--match", "roughly", same, sameAct}, exitUsage, "", "unknown match mode"},
		{"missing config", "", []string{"diff", "--match-config", "nope.json", same, sameAct}, exitUsage, "", "--match-config"},
		{"bytes with normalize", "", []string{"diff", "--bytes", "--normalize", same, sameAct}, exitUsage, "", "--bytes"},
		{"single-dash long flags", "", []string{"diff", "-format", "json", same, sameAct}, exitOK, `"equal": true`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("code %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)", code, tt.code, stdout, tt.stdout, stderr, tt.stderr)
			}
		})
	}
}

func TestDiffFormats(t *testing.T) {
	exp, act := diffCase("changed")
	code, stdout, _ := runCmd(t, "", "diff", "--format", "json", exp, act)
	var r tracediff.Report
	if code != exitFailed || json.Unmarshal([]byte(stdout), &r) != nil || r.Changed != 2 || r.Events[0].Fields[0].Pointer != "/payload/arguments/text" {
		t.Errorf("json: code %d, %+v", code, r)
	}

	code, stdout, _ = runCmd(t, "", "diff", "--format", "github", exp, act)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != exitFailed || len(lines) != 2 || !strings.HasPrefix(lines[0], "::error file="+exp+",line=5,") {
		t.Errorf("github: code %d\n%s", code, stdout)
	}

	code, stdout, _ = runCmd(t, "", "diff", "--format", "junit", exp, act)
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(stdout), &doc); err != nil || code != exitFailed || doc.Tests != 1 || doc.Failures != 1 ||
		!strings.Contains(doc.Suites[0].Cases[0].Failure.Message, "2 events differ") {
		t.Errorf("junit: code %d err %v %+v\n%s", code, err, doc, stdout)
	}

	// Standard input as EXPECTED: annotations carry no file.
	code, stdout, _ = runCmd(t, mustRead(t, exp), "diff", "--format", "github", "-", act)
	if code != exitFailed || strings.Contains(stdout, "file=") {
		t.Errorf("github from stdin: %d %s", code, stdout)
	}
}

// TestDiffTextIsSafe: ids and values from the input cannot put control
// characters or bidi overrides on the terminal.
func TestDiffTextIsSafe(t *testing.T) {
	exp, _ := diffCase("same")
	act := strings.Replace(mustRead(t, exp), `"content":"Use the echo tool`, `"content":"\u001b[31mred\u202e`, 1)
	act = strings.Replace(act, `"event_id":"evt-001"`, `"event_id":"evt\n001"`, 1)
	act = strings.Replace(act, `"parent_event_id":"evt-001"`, `"parent_event_id":"evt\n001"`, 1)
	code, stdout, stderr := runCmd(t, act, "diff", exp, "-")
	if code != exitFailed {
		t.Fatalf("code %d: %s %s", code, stdout, stderr)
	}
	for _, bad := range []string{"\x1b", "\u202e", "evt\n001"} {
		if strings.Contains(stdout, bad) {
			t.Errorf("output holds %q:\n%s", bad, stdout)
		}
	}
	if !strings.Contains(stdout, `event_id="evt\n001"`) {
		t.Errorf("the event id is not quoted:\n%s", stdout)
	}
}

func TestNormalizeCommand(t *testing.T) {
	real := filepath.Join(diffCases, "tolerant", "real-a.jsonl")
	code, stdout, stderr := runCmd(t, "", "normalize", real)
	if code != exitOK || stdout != mustRead(t, filepath.Join(diffCases, "tolerant", "expected.jsonl")) {
		t.Fatalf("normalize: code %d stderr %s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "golden.jsonl")
	if code, _, stderr := runCmd(t, "", "normalize", real, "-o", out); code != exitOK || mustRead(t, out) != stdout {
		t.Fatalf("normalize -o: %d %s", code, stderr)
	}
	// An invalid trace writes nothing to -o and leaves what was there.
	_, inv := diffCase("invalid-actual")
	code, _, stderr = runCmd(t, "", "normalize", inv, "-o", out)
	if code != exitFailed || !strings.Contains(stderr, "SEQUENCE_GAP") || mustRead(t, out) != stdout {
		t.Errorf("normalize of an invalid trace: code %d, stderr %s", code, stderr)
	}
	// On standard output too: nothing printed for an invalid trace.
	if code, stdout, _ := runCmd(t, "", "normalize", inv); code != exitFailed || stdout != "" {
		t.Errorf("normalize of an invalid trace to stdout: code %d, stdout %q", code, stdout)
	}
	if code, _, _ := runCmd(t, "", "normalize", "nope.jsonl"); code != exitUsage {
		t.Errorf("missing file: code %d", code)
	}
	// -o never replaces the input, and an unusable -o is a usage error
	// before anything is read.
	in := filepath.Join(t.TempDir(), "trace.jsonl")
	os.WriteFile(in, []byte(mustRead(t, real)), 0o644)
	for _, tc := range []struct{ out, want string }{
		{in, "is the input file; it would be overwritten"},
		{filepath.Dir(in), "is a directory"},
		{filepath.Join(filepath.Dir(in), "no-such-dir", "g.jsonl"), "cannot be used: no such file or directory"},
	} {
		code, stdout, stderr := runCmd(t, "", "normalize", in, "-o", tc.out)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("normalize -o %s: code %d, stderr %q; want 2 and %q", tc.out, code, stderr, tc.want)
		}
	}
	if mustRead(t, in) != mustRead(t, real) {
		t.Error("normalize -o changed its input")
	}
}

// TestHeldWriter: what is held is written by flush, and past its bound
// everything is written as it comes.
func TestHeldWriter(t *testing.T) {
	var b strings.Builder
	h := &heldWriter{w: &b, max: 4}
	h.Write([]byte("ab"))
	if b.Len() != 0 || h.streamed {
		t.Fatalf("held %q, streamed %v", b.String(), h.streamed)
	}
	h.Write([]byte("cde"))
	if b.String() != "abcde" || !h.streamed {
		t.Fatalf("past the bound: %q, streamed %v", b.String(), h.streamed)
	}
	h.Write([]byte("f"))
	if h.flush(); b.String() != "abcdef" {
		t.Errorf("got %q", b.String())
	}
}

// TestRandomAgent drives testdata/agents/random_agent.py, a Python agent
// with random UUIDs, wall-clock timestamps, random durations and a random
// tool order: a tolerant golden captured with 'tracecheck normalize' from
// one run passes on every other run, and each real behaviour change fails
// at the right pointer.
func TestRandomAgent(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) string { return tracedifftest.RunAgent(t, dir, tracedifftest.RandomAgent, args...) }
	capture := func(trace string) string {
		golden := filepath.Join(dir, "golden-"+filepath.Base(trace))
		if code, _, stderr := runCmd(t, "", "normalize", trace, "-o", golden); code != exitOK {
			t.Fatalf("normalize: %d %s", code, stderr)
		}
		return golden
	}
	diffJSON := func(args ...string) (int, tracediff.Report) {
		code, stdout, stderr := runCmd(t, "", append([]string{"diff", "--format", "json", "--normalize"}, args...)...)
		var r tracediff.Report
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("diff %v: %v\n%s", args, err, stderr)
		}
		return code, r
	}

	// Random order: the trajectory relation same-multiset.
	golden := capture(run())
	for i := 0; i < 4; i++ {
		actual := run()
		if code, r := diffJSON("--match", "same-multiset", golden, actual); code != exitOK {
			t.Errorf("run %d does not match the golden: %+v", i, r.Events)
		}
	}
	// A fixed order: the whole event stream matches, event by event.
	fixed := capture(run("--fixed-order"))
	for i := 0; i < 3; i++ {
		if code, r := diffJSON(fixed, run("--fixed-order")); code != exitOK {
			t.Errorf("fixed-order run %d does not match the golden: %+v", i, r.Events)
		}
	}

	tests := []struct {
		name    string
		golden  string
		args    []string
		pointer string
		reason  string
	}{
		{"a different argument", golden, []string{"--change-argument"}, "/payload/arguments/query", ""},
		{"a missing tool.result", golden, []string{"--drop-result"}, "/payload/tool_call_id", "no tool.result"},
		{"a different argument, event by event", fixed, []string{"--change-argument", "--fixed-order"}, "/payload/tool_calls/1/arguments/query", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{tt.golden, run(tt.args...)}
			if tt.golden == golden {
				args = append([]string{"--match", "same-multiset"}, args...)
			}
			code, r := diffJSON(args...)
			if code != exitFailed || len(r.Events) == 0 || len(r.Events[0].Fields) == 0 {
				t.Fatalf("code %d, events %+v", code, r.Events)
			}
			f := r.Events[0].Fields[0]
			if f.Pointer != tt.pointer || !strings.Contains(f.Reason, tt.reason) {
				t.Errorf("first failure at %s (%s), want %s (%s): %+v", f.Pointer, f.Reason, tt.pointer, tt.reason, r.Events)
			}
		})
	}
}
