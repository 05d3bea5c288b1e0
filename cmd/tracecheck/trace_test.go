package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/internal/testenv"
	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

const (
	s07    = "../../testdata/good/s07-session-replay.trace.jsonl"
	s02    = "../../testdata/good/s02-events-streaming.trace.jsonl"
	tricky = "../../testdata/good/tricky.trace.jsonl" // non-ASCII, controls, escapes, big ints, floats
)

func TestValidateCommand(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{"valid", []string{"validate", s07}, "", exitOK, "ok " + s07, ""},
		{"quiet", []string{"validate", "-q", s07}, "", exitOK, "", ""},
		{"stdin", []string{"validate", "-"}, mustRead(t, s07), exitOK, "ok <stdin>", ""},
		{"invalid", []string{"validate", "../../testdata/bad/schema-bad-enum.jsonl"}, "", exitFailed, "",
			"../../testdata/bad/schema-bad-enum.jsonl:2: SCHEMA event evt-001 at /actor/kind: "},
		{"gap", []string{"validate", "../../testdata/bad/sequence-gap.jsonl"}, "", exitFailed, "",
			"sequence-gap.jsonl:3: SEQUENCE_GAP event evt-002 at /sequence: sequence 4 where 2 was expected"},
		{"one bad of two", []string{"validate", s07, "../../testdata/bad/torn-tail.jsonl"}, "", exitFailed, "ok " + s07, "torn-tail.jsonl:3: TORN_TAIL"},
		{"missing file", []string{"validate", "nope.jsonl"}, "", exitUsage, "", "tracecheck validate: nope.jsonl: no such file or directory\n"},
		{"directory", []string{"validate", "../../testdata"}, "", exitUsage, "", "tracecheck validate: ../../testdata: is a directory, not a JSONL file\n"},
		{"no file", []string{"validate"}, "", exitUsage, "", "no FILE given"},
		{"bad flag", []string{"validate", "--frob", s07}, "", exitUsage, "", "unknown flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("got %d\nstdout %q\nstderr %q\nwant %d, stdout ~ %q, stderr ~ %q", code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

func TestValidateEveryBadFixtureFails(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/bad/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		code, _, stderr := runCmd(t, "", "validate", f)
		if code != exitFailed || !strings.HasPrefix(stderr, f) {
			t.Errorf("%s: exit %d, stderr %q", f, code, stderr)
		}
	}
}

func mustRead(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func TestFingerprintCommand(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"fingerprint", s07, "--through", "4"}, exitOK, "1288ae16a0df9408d7a7394b16e7f29367b34832eeca1d9488ca8a410be3cb2e\n"},
		{[]string{"fingerprint", s07, "--through=2"}, exitOK, "1e38d6f6527a0c7a8cbf0e78bc9424aba27dcd718bf370f948f2e8cf030923fb\n"},
		{[]string{"fingerprint", s07, "--through", "7"}, exitUsage, ""},
		{[]string{"fingerprint", "../../testdata/bad/mixed-run.jsonl"}, exitFailed, ""},
		{[]string{"fingerprint"}, exitUsage, ""},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCmd(t, "", tt.args...)
		if code != tt.code || stdout != tt.out {
			t.Errorf("%v: got %d %q (stderr %q), want %d %q", tt.args, code, stdout, stderr, tt.code, tt.out)
		}
	}
}

// The fingerprint is defined by Python's json.dumps; when python3 is on the
// machine, compute it there and compare, plain and normalized.
func TestFingerprintMatchesPython(t *testing.T) {
	py := testenv.Python(t, "the Python oracle check is skipped")
	script := `
import hashlib, json, sys
events = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
if sys.argv[2] == "normalized":
    out = []
    for e in events:
        e = dict(e); e.pop("session_id", None); e.pop("timestamp", None)
        p = dict(e.get("provenance", {})); p.pop("run_id", None); e["provenance"] = p
        out.append(e)
    events = out
wire = json.dumps(events, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
print(hashlib.sha256(wire.encode("utf-8")).hexdigest())
`
	for _, f := range []string{s07, s02, tricky} {
		for _, mode := range []string{"plain", "normalized"} {
			want, err := exec.Command(py, "-c", script, f, mode).Output()
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"fingerprint", f}
			if mode == "normalized" {
				args = append(args, "--normalized")
			}
			_, got, stderr := runCmd(t, "", args...)
			if got != string(want) {
				t.Errorf("%s %s: tracecheck %q (stderr %q), python %q", f, mode, got, stderr, want)
			}
		}
	}
}

func TestReplayCommand(t *testing.T) {
	code, stdout, stderr := runCmd(t, "", "replay", s02, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var st struct {
		SessionID         string   `json:"session_id"`
		RunID             string   `json:"run_id"`
		AppliedSequences  []int    `json:"applied_sequences"`
		UserMessages      []string `json:"user_messages"`
		AssistantMessages []string `json:"assistant_messages"`
		StopReason        *string  `json:"stop_reason"`
		Fingerprint       string   `json:"fingerprint"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, stdout)
	}
	if len(st.AssistantMessages) != 1 || st.AssistantMessages[0] != "Observe events, not hidden state." || st.StopReason == nil || *st.StopReason != "completed" || len(st.AppliedSequences) != 7 {
		t.Errorf("unexpected state: %+v", st)
	}

	code, stdout, _ = runCmd(t, "", "replay", s07, "--through", "2", "--json")
	if code != exitOK || !strings.Contains(stdout, `"stop_reason":null`) || !strings.Contains(stdout, `"applied_sequences":[0,1,2]`) {
		t.Errorf("partial replay: %d %s", code, stdout)
	}
	code, stdout, _ = runCmd(t, "", "replay", s07)
	if code != exitOK || !strings.Contains(stdout, "stop_reason: completed") {
		t.Errorf("text replay: %d %s", code, stdout)
	}
	code, _, stderr = runCmd(t, "", "replay", s07, "--through", "99")
	if code != exitUsage || !strings.Contains(stderr, "outside the journal") {
		t.Errorf("out of range: %d %s", code, stderr)
	}
	code, _, stderr = runCmd(t, "", "replay", "../../testdata/bad/mixed-session.jsonl")
	if code != exitFailed || !strings.Contains(stderr, "mixed-session.jsonl:3: MIXED_SESSION") {
		t.Errorf("mixed session: %d %s", code, stderr)
	}
}

func TestBranchCommand(t *testing.T) {
	code, stdout, stderr := runCmd(t, "", "branch", s07, "--at", "2", "--id", "branch-alternative-response")
	want := `{"branch_id":"branch-alternative-response","parent_session_id":"session-s07-session-replay","parent_run_id":"run-s07-session-replay-golden","fork_sequence":2,"inherited_event_ids":["evt-000","evt-001","evt-002"],"parent_fingerprint":"1e38d6f6527a0c7a8cbf0e78bc9424aba27dcd718bf370f948f2e8cf030923fb"}` + "\n"
	if code != exitOK || stdout != want {
		t.Errorf("got %d %q %q", code, stdout, stderr)
	}
	for _, args := range [][]string{
		{"branch", s07, "--at", "2", "--id", " "},
		{"branch", s07, "--at", "9", "--id", "b"},
		{"branch", s07, "--id", "b"},
	} {
		if code, _, _ := runCmd(t, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
	before := mustRead(t, s07)
	runCmd(t, "", "branch", s07, "--at", "3", "--id", "x")
	if mustRead(t, s07) != before {
		t.Error("branch modified its input")
	}
}

// TestInputStringsEscapedInText: ids and file names holding a newline and
// ANSI escapes cannot forge an "ok" line or reach the terminal raw in the
// text output of validate, replay, fingerprint and branch; JSON output is
// unchanged (already escaped).
func TestInputStringsEscapedInText(t *testing.T) {
	const evil = "x\nok forged.jsonl\x1b[31m\u202e"
	data := mustRead(t, s07)
	data = strings.ReplaceAll(data, `"session-s07-session-replay"`, jsonStr("session-"+evil))
	data = strings.ReplaceAll(data, `"evt-003"`, jsonStr("evt-003"+evil))
	data = strings.ReplaceAll(data, `"completed"`, jsonStr("done"+evil))
	dir := t.TempDir()
	good := filepath.Join(dir, "trace"+evil+".jsonl")
	if err := os.WriteFile(good, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	// A duplicate of the evil id, and a second session, in a bad file.
	lines := strings.SplitAfter(data, "\n")
	bad := filepath.Join(dir, "bad"+evil+".jsonl")
	dup := strings.Replace(lines[4], `"evt-004"`, jsonStr("evt-003"+evil), 1)
	os.WriteFile(bad, []byte(lines[0]+lines[1]+lines[2]+lines[3]+dup), 0o644)

	raw := func(s string) bool { return strings.ContainsAny(s, "\x1b\u202e") }
	for _, args := range [][]string{
		{"validate", good, bad},
		{"replay", good},
		{"replay", bad},
		{"fingerprint", bad},
		{"branch", bad, "--at", "1", "--id", "b"},
		{"replay", good, "--through", "99"},
	} {
		_, stdout, stderr := runCmd(t, "", args...)
		if raw(stdout) || raw(stderr) {
			t.Errorf("%v: raw escape in output:\nstdout %q\nstderr %q", args[0], stdout, stderr)
		}
		for _, out := range []string{stdout, stderr} {
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "ok forged") {
					t.Errorf("%v: a forged line %q in %q", args[0], l, out)
				}
			}
		}
	}
	_, stdout, _ := runCmd(t, "", "validate", good)
	if want := "ok " + textsafe.Quote(good) + "\n"; stdout != want {
		t.Errorf("validate: %q, want %q", stdout, want)
	}
	_, stdout, _ = runCmd(t, "", "replay", good)
	if !strings.Contains(stdout, "session_id:  "+textsafe.Quote("session-"+evil)+"\n") || !strings.Contains(stdout, "stop_reason: "+textsafe.Quote("done"+evil)+"\n") {
		t.Errorf("replay text: %q", stdout)
	}
	// JSON carries the strings, escaped the JSON way, as before.
	_, stdout, _ = runCmd(t, "", "replay", good, "--json")
	if !strings.Contains(stdout, `"session_id":"session-x\nok forged.jsonl\u001b[31m`+"\u202e"+`"`) {
		t.Errorf("replay --json: %q", stdout)
	}
}

// jsonStr is s as a JSON string literal.
func jsonStr(s string) string { return string(jsonv.AppendPyString(nil, s)) }

// TestRunFlag: --run picks one run of a multi-run file (the session-resume
// golden holds three, one after another), in replay, fingerprint and
// branch, with the same result as a file holding that run alone, also when
// runs interleave; MIXED_RUN says that --run exists; a run no event
// carries is a usage error.
func TestRunFlag(t *testing.T) {
	const golden = "../../golden/session-resume.trace.jsonl"
	all := strings.SplitAfter(mustRead(t, golden), "\n")
	all = all[:len(all)-1]
	byRun := map[string][]string{}
	for _, l := range all {
		var e struct {
			Provenance struct {
				RunID string `json:"run_id"`
			} `json:"provenance"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		byRun[e.Provenance.RunID] = append(byRun[e.Provenance.RunID], l)
	}
	if len(byRun) != 3 {
		t.Fatalf("the golden holds %d runs, want 3", len(byRun))
	}
	dir := t.TempDir()
	write := func(name string, lines []string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Runs 1 and 3 interleaved, line by line.
	r1, r3 := byRun["run-session-resume-1"], byRun["run-session-resume-3"]
	var mixed []string
	for i := 0; i < len(r1) || i < len(r3); i++ {
		if i < len(r1) {
			mixed = append(mixed, r1[i])
		}
		if i < len(r3) {
			mixed = append(mixed, r3[i])
		}
	}
	interleaved := write("interleaved.jsonl", mixed)
	for run, lines := range byRun {
		alone := write(run+".jsonl", lines)
		files := []string{golden}
		if run != "run-session-resume-2" {
			files = append(files, interleaved)
		}
		for _, f := range files {
			for _, args := range [][]string{
				{"replay", "--json"},
				{"replay"},
				{"fingerprint"},
				{"fingerprint", "--normalized", "--through", "2"},
				{"branch", "--at", "1", "--id", "b"},
			} {
				code, got, stderr := runCmd(t, "", append([]string{args[0], f, "--run", run}, args[1:]...)...)
				_, want, _ := runCmd(t, "", append([]string{args[0], alone}, args[1:]...)...)
				if code != exitOK || got != want {
					t.Errorf("%v --run %s of %s: exit %d (stderr %q)\n got %q\nwant %q", args, run, f, code, stderr, got, want)
				}
			}
		}
	}
	code, _, stderr := runCmd(t, "", "replay", golden)
	if code != exitFailed || !strings.Contains(stderr, "MIXED_RUN") || !strings.Contains(stderr, "--run RUN_ID") {
		t.Errorf("replay of the multi-run golden: exit %d, stderr %q; want MIXED_RUN naming --run", code, stderr)
	}
	for _, cmd := range []string{"replay", "fingerprint", "branch"} {
		args := []string{cmd, golden, "--run", "run-nope"}
		if cmd == "branch" {
			args = append(args, "--at", "0", "--id", "b")
		}
		code, _, stderr := runCmd(t, "", args...)
		if code != exitUsage || !strings.Contains(stderr, "no event of run run-nope") {
			t.Errorf("%s --run run-nope: exit %d, stderr %q", cmd, code, stderr)
		}
	}
	code, _, stderr = runCmd(t, "", "replay", golden, "--run", "run-session-resume-1", "--checkpoint", filepath.Join(dir, "cp"))
	if code != exitUsage || !strings.Contains(stderr, "cannot be combined") {
		t.Errorf("--run with --checkpoint: exit %d, stderr %q", code, stderr)
	}
}

// TestValidateFormats: --format json lists each file's problems with code,
// line, event id, pointer and message; junit has one testcase per file
// with every problem in the failure text; github has one annotation per
// problem on its line. Exit codes do not depend on the format.
func TestValidateFormats(t *testing.T) {
	gap, dup := "../../testdata/bad/sequence-gap.jsonl", "../../testdata/bad/duplicate-event-id.jsonl"
	files := []string{s07, gap, dup}

	code, stdout, stderr := runCmd(t, "", append([]string{"validate", "--format", "json"}, files...)...)
	var out struct {
		OK    bool `json:"ok"`
		Files []struct {
			File     string `json:"file"`
			OK       bool   `json:"ok"`
			Problems []struct {
				Code    string `json:"code"`
				Line    int    `json:"line"`
				EventID string `json:"event_id"`
				Pointer string `json:"pointer"`
				Message string `json:"message"`
			} `json:"problems"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != exitFailed || stderr != "" {
		t.Fatalf("json: exit %d, %v, stderr %q\n%s", code, err, stderr, stdout)
	}
	if out.OK || len(out.Files) != 3 || !out.Files[0].OK || len(out.Files[0].Problems) != 0 || out.Files[1].OK {
		t.Fatalf("json: %+v", out)
	}
	if p := out.Files[1].Problems; len(p) != 1 || p[0].Code != "SEQUENCE_GAP" || p[0].Line != 3 || p[0].EventID != "evt-002" ||
		p[0].Pointer != "/sequence" || !strings.HasPrefix(p[0].Message, "sequence 4 where 2 was expected") {
		t.Errorf("json problems of %s: %+v", gap, p)
	}

	code, stdout, _ = runCmd(t, "", append([]string{"validate", "--format", "junit"}, files...)...)
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Type string `xml:"type,attr"`
					Text string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(stdout), &suites); err != nil || code != exitFailed {
		t.Fatalf("junit: exit %d, %v\n%s", code, err, stdout)
	}
	cs := suites.Suite.Cases
	if suites.Tests != 3 || suites.Failures != 2 || len(cs) != 3 || cs[0].Name != s07 || cs[0].Failure != nil ||
		cs[2].Failure == nil || cs[2].Failure.Type != "DUPLICATE_EVENT_ID" || !strings.Contains(cs[2].Failure.Text, dup+":3: DUPLICATE_EVENT_ID event evt-001") {
		t.Errorf("junit: %+v\n%s", suites, stdout)
	}

	code, stdout, _ = runCmd(t, "", append([]string{"validate", "--format", "github"}, files...)...)
	want := "::error file=" + gap + ",line=3,title=SEQUENCE_GAP::" + gap + ":3: SEQUENCE_GAP event evt-002 at /sequence: sequence 4 where 2 was expected: sequences start at 0 and are contiguous\n"
	if code != exitFailed || strings.Count(stdout, "::error ") != 2 || !strings.HasPrefix(stdout, want) ||
		!strings.Contains(stdout, "::error file="+dup+",line=3,title=DUPLICATE_EVENT_ID::") {
		t.Errorf("github: exit %d\n%s", code, stdout)
	}

	if code, stdout, _ := runCmd(t, "", "validate", "--format", "json", s07); code != exitOK || !strings.Contains(stdout, `"ok": true`) {
		t.Errorf("json, valid file: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := runCmd(t, "", "validate", "--format", "yaml", s07); code != exitUsage || !strings.Contains(stderr, "--format must be text, json, junit or github, not \"yaml\"") {
		t.Errorf("bad format: exit %d, %q", code, stderr)
	}
}
