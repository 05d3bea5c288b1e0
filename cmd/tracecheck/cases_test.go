package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/tracediff/tracedifftest"
)

// The command cases of testdata/cases: the random Python agent (tolerant
// golden, tool calls as a multiset), the documentation's agent against the
// scripted model (model-side golden), and a lesson-style program whose
// trace follows a TRACE: line.
var caseDir = filepath.Join(repoRoot, "testdata", "cases")

// caseReport is the part of verify --format json the case tests read.
type caseReport struct {
	OK          bool `json:"ok"`
	Reliability *struct {
		PassK int `json:"pass_k"`
		Cases []struct {
			Case          string
			Count, Passed int
			PassK         bool `json:"pass_k"`
		} `json:"cases"`
	} `json:"reliability"`
	Results []struct {
		ID       string   `json:"id"`
		Kind     string   `json:"kind"`
		Status   string   `json:"status"`
		Problems []string `json:"problems"`
		Repeat   *struct {
			Count, Passed int
			PassK         bool `json:"pass_k"`
		} `json:"repeat"`
		Drift *struct {
			Mode   string `json:"mode"`
			Events []struct {
				Kind   string `json:"kind"`
				Fields []struct {
					Pointer, Expected, Actual, Reason string
				} `json:"fields"`
			} `json:"events"`
		} `json:"drift"`
	} `json:"results"`
}

func verifyJSON(t *testing.T, args ...string) (int, caseReport, string) {
	t.Helper()
	code, stdout, stderr := runCmd(t, "", append([]string{"verify", "--format", "json"}, args...)...)
	var r caseReport
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("verify %v: exit %d: %v\n%s%s", args, code, err, stdout, stderr)
	}
	return code, r, stderr
}

// variant writes into a new directory a copy of the random agent's case
// whose agent runs with flags, under the id name and comparing with the
// random agent's golden.
func variant(t *testing.T, name string, flags ...string) string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(mustRead(t, filepath.Join(caseDir, "random-agent.json"))), &doc); err != nil {
		t.Fatal(err)
	}
	cmd := doc["command"].(map[string]any)
	argv := []any{"python3", tracedifftest.Script(tracedifftest.RandomAgent)}
	for _, f := range flags {
		argv = append(argv, f)
	}
	cmd["argv"] = argv
	doc["golden"] = "random-agent"
	b, _ := json.Marshal(doc)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRandomAgentCase is issue 10's "done" check for command cases: the
// random Python agent, through testdata/cases/random-agent.json, gets a
// tolerant golden captured by verify --update that passes on every run; a
// different tool argument and a missing tool.result fail at the right
// pointer; review rejects and accepts the pending golden of a change.
func TestRandomAgentCase(t *testing.T) {
	tracedifftest.Python(t)
	local(t)
	gdir := t.TempDir()
	run := func(args ...string) (int, caseReport, string) {
		return verifyJSON(t, append([]string{"--cases", caseDir, "--no-scenarios", "--golden-dir", gdir}, args...)...)
	}

	// Capture a first golden from a real run.
	code, stdout, stderr := runCmd(t, "", "verify", "--cases", caseDir, "--no-scenarios", "--golden-dir", gdir, "--update", "random-agent")
	if code != exitOK || !strings.Contains(stdout, "created random-agent events=13\n") {
		t.Fatalf("capture: exit %d\n%s%s", code, stdout, stderr)
	}
	golden := filepath.Join(gdir, "random-agent.trace.jsonl")
	captured := mustRead(t, golden)
	if !strings.Contains(captured, `"event_id":"[ID-1]"`) || !strings.Contains(captured, `"timestamp":"[TIMESTAMP]"`) || !strings.Contains(captured, `"duration_ms":"[DURATION]"`) {
		t.Fatalf("the golden is not the tolerant form:\n%s", captured)
	}
	// Every run passes: other ids, times, durations and tool order.
	for i := range 4 {
		if code, r, stderr := run("random-agent"); code != exitOK || !r.OK || r.Results[0].Status != "ok" {
			t.Fatalf("run %d: exit %d %+v %s", i, code, r.Results, stderr)
		}
	}

	// Real behaviour changes fail at the right pointer.
	for _, tc := range []struct {
		name, flag, pointer, reason string
	}{
		{"a different argument", "--change-argument", "/payload/arguments/query", ""},
		{"a missing tool.result", "--drop-result", "/payload/tool_call_id", "no tool.result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := variant(t, "changed", tc.flag)
			code, r, stderr := verifyJSON(t, "--cases", dir, "--no-scenarios", "--golden-dir", gdir, "--update=no")
			if code != exitFailed || len(r.Results) != 1 {
				t.Fatalf("exit %d %+v %s", code, r.Results, stderr)
			}
			res := r.Results[0]
			if res.Status != "drift" || res.Kind != "case" || res.Drift.Mode != "trajectory:same-multiset" || len(res.Drift.Events) == 0 {
				t.Fatalf("result %+v", res)
			}
			f := res.Drift.Events[0].Fields[0]
			if f.Pointer != tc.pointer || !strings.Contains(f.Reason, tc.reason) {
				t.Errorf("first failure at %s (%s), want %s (%s): %+v", f.Pointer, f.Reason, tc.pointer, tc.reason, res.Drift.Events)
			}
			if mustRead(t, golden) != captured {
				t.Error("--update=no changed the golden")
			}
		})
	}

	// review: a change writes a pending golden (its tolerant form);
	// rejecting it keeps the golden, accepting it makes the change the
	// golden, which the changed agent then passes.
	changed := variant(t, "changed", "--change-argument")
	pending := golden + ".new"
	for _, decision := range []string{"--reject", "--accept"} {
		code, r, _ := verifyJSON(t, "--cases", changed, "--no-scenarios", "--golden-dir", gdir, "--update=new")
		if code != exitFailed || r.Results[0].Status != "drift" || !strings.Contains(mustRead(t, pending), `"query":"golden traces"`) ||
			!strings.Contains(mustRead(t, pending), `"[ID-1]"`) {
			t.Fatalf("%s: verify --update=new: exit %d %+v", decision, code, r.Results)
		}
		code, stdout, stderr := runCmd(t, "", "review", "--golden-dir", gdir, decision, "random-agent")
		if code != exitOK {
			t.Fatalf("review %s: exit %d\n%s%s", decision, code, stdout, stderr)
		}
		if _, err := os.Stat(pending); !os.IsNotExist(err) {
			t.Errorf("review %s left the pending golden", decision)
		}
	}
	if code, r, stderr := verifyJSON(t, "--cases", changed, "--no-scenarios", "--golden-dir", gdir); code != exitOK {
		t.Errorf("the changed agent against the accepted golden: exit %d %+v %s", code, r.Results, stderr)
	}
	if code, r, _ := run("random-agent"); code != exitFailed || r.Results[0].Status != "drift" {
		t.Errorf("the original agent against the accepted change: exit %d %+v", code, r.Results)
	}
}

// TestCasesInCIWriteNothing: in CI, --update=auto writes nothing for a
// case without a golden and fails the run; on a developer's machine it
// writes the pending golden beside the case.
func TestCasesInCIWriteNothing(t *testing.T) {
	tracedifftest.Python(t)
	dir := t.TempDir()
	copyFiles(t, caseDir, "lesson-demo.json", dir)
	os.WriteFile(filepath.Join(dir, "lesson-demo.json"), []byte(strings.ReplaceAll(mustRead(t, filepath.Join(dir, "lesson-demo.json")),
		"../good/s07-session-replay.trace.jsonl", filepath.Join(repoRoot, "testdata", "good", "s07-session-replay.trace.jsonl"))), 0o644)
	before := names(t, dir)
	t.Chdir(t.TempDir()) // outside the module, as the agent's own repository is

	inCI(t)
	code, stdout, stderr := runCmd(t, "", "verify", "--cases", dir, "--update=auto")
	if code != exitFailed || !strings.Contains(stdout, "MISSING lesson-demo") || strings.Join(names(t, dir), ",") != strings.Join(before, ",") ||
		!strings.Contains(stderr, "in CI --update=auto writes nothing") {
		t.Fatalf("CI: exit %d %v\n%s%s", code, names(t, dir), stdout, stderr)
	}
	local(t)
	code, stdout, stderr = runCmd(t, "", "verify", "--cases", dir)
	if code != exitFailed || !strings.Contains(stdout, "wrote the pending golden "+filepath.Join(dir, "lesson-demo.trace.jsonl.new")) ||
		!strings.HasSuffix(stderr, "run: tracecheck review --golden-dir "+dir+"\n") {
		t.Fatalf("local: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, _ := runCmd(t, "", "review", "--golden-dir", dir, "--accept"); code != exitOK {
		t.Fatal("review")
	}
	if got, want := mustRead(t, filepath.Join(dir, "lesson-demo.trace.jsonl")), mustRead(t, filepath.Join(repoRoot, "testdata", "good", "s07-session-replay.trace.jsonl")); got != want {
		t.Error("the golden is not the lines after TRACE:")
	}
	inCI(t)
	if code, stdout, stderr := runCmd(t, "", "verify", "--cases", dir); code != exitOK {
		t.Errorf("CI after review: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestCommittedCasesPass: the cases of testdata/cases pass against their
// committed goldens, from a clean clone (the random agent's several
// times).
func TestCommittedCasesPass(t *testing.T) {
	tracedifftest.Python(t)
	local(t)
	for i := range 2 {
		code, stdout, stderr := runCmd(t, "", "verify", "--cases", caseDir, "--no-scenarios", "--update=no")
		want := "tracecheck: 3 cases from " + caseDir + "\n" +
			"ok example-agent.model events=4\nok lesson-demo events=7\nok random-agent events=13\n"
		if code != exitOK || stdout != want {
			t.Fatalf("run %d: exit %d\n%s%s", i, code, stdout, stderr)
		}
	}
}

// TestCaseJUnitValidates: the JUnit report of a run with cases (one
// drifting, one INVALID) passes the schema check of verify/testdata.
func TestCaseJUnitValidates(t *testing.T) {
	tracedifftest.Python(t)
	local(t)
	gdir := t.TempDir()
	copyFiles(t, caseDir, "random-agent.trace.jsonl", gdir)
	dir := variant(t, "changed", "--change-argument")
	os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{"command":{"argv":["sh","-c","echo 'no agent here' >&2; exit 7"]},"trace":{"from":"stdout"}}`), 0o644)
	code, stdout, _ := runCmd(t, "", "verify", "--cases", dir, "--no-scenarios", "--golden-dir", gdir, "--format", "junit", "--update=no")
	if code != exitFailed || !strings.Contains(stdout, `<testsuites name="tracecheck" tests="2" failures="2"`) ||
		!strings.Contains(stdout, `classname="tracecheck.verify.case"`) || !strings.Contains(stdout, "no agent here") {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not found (Debian package libxml2-utils; .ci/run installs it): the JUnit output was not checked against verify/testdata/junit.xsd")
	}
	f := filepath.Join(t.TempDir(), "junit.xml")
	os.WriteFile(f, []byte(stdout), 0o644)
	if msg, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join(repoRoot, "verify", "testdata", "junit.xsd"), f).CombinedOutput(); err != nil {
		t.Errorf("the JUnit report does not validate: %v\n%s\n%s", err, msg, stdout)
	}
}

// TestCaseInvalid: a case whose command fails, times out or writes no
// valid trace is INVALID with the reason and the tail of its standard
// error; nothing is written for it, no next step is offered, and the
// unreferenced check does not run.
func TestCaseInvalid(t *testing.T) {
	local(t)
	dir := t.TempDir()
	files := map[string]string{
		"fails":    `{"command":{"argv":["sh","-c","echo starting >&2; echo 'Traceback: boom' >&2; exit 3"]},"trace":{"from":"stdout"}}`,
		"hangs":    `{"command":{"argv":["sleep","60"],"timeout":"20ms"},"trace":{"from":"stdout"}}`,
		"no-trace": `{"command":{"argv":["sh","-c","echo hello"]},"trace":{"from":"stdout"}}`,
	}
	for id, doc := range files {
		os.WriteFile(filepath.Join(dir, id+".json"), []byte(doc), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "old.trace.jsonl"), []byte("{}\n"), 0o644)
	t.Chdir(t.TempDir()) // outside the module: the cases run alone
	code, stdout, stderr := runCmd(t, "", "verify", "--cases", dir, "--update=always", "--unreferenced=delete")
	for _, want := range []string{
		"INVALID fails\n  - the command sh -c \"echo starting >&2; echo 'Traceback: boom' >&2; exit 3\" exited with status 3\n  - standard error (the last lines):\n    starting\n    Traceback: boom\n",
		"INVALID hangs\n  - the command sleep 60 did not finish within 20ms: its process group was killed\n",
		"INVALID no-trace\n  - stdout is not a valid trace:\n    stdout:1: INVALID_JSON",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if code != exitFailed || strings.Contains(stderr, "run:") || !strings.Contains(stderr, "--unreferenced=delete did nothing: 3 INVALID") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	if got := strings.Join(names(t, dir), ","); got != "fails.json,hangs.json,no-trace.json,old.trace.jsonl" {
		t.Errorf("the directory holds %s", got)
	}
}

// TestCasesUnreferencedAndNextStep: a golden beside the cases that no case
// renders is OBSOLETE on a full run (deleted with --unreferenced=delete,
// said before), never with an id; the next step repeats --cases.
func TestCasesUnreferencedAndNextStep(t *testing.T) {
	local(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "demo.json"), []byte(fmt.Sprintf(`{"command":{"argv":["cat",%q]},"trace":{"from":"stdout"}}`,
		filepath.Join(repoRoot, "testdata", "good", "s07-session-replay.trace.jsonl"))), 0o644)
	old := filepath.Join(dir, "gone.trace.jsonl")
	os.WriteFile(old, []byte("{}\n"), 0o644)
	t.Chdir(t.TempDir()) // outside the module: the cases run alone

	code, stdout, stderr := runCmd(t, "", "verify", "--cases", dir, "--update=no")
	if code != exitFailed || !strings.Contains(stdout, "MISSING demo") || !strings.Contains(stdout, "OBSOLETE "+old) ||
		!strings.HasSuffix(stderr, "run: tracecheck verify --cases "+dir+" --update=new; tracecheck review --golden-dir "+dir+"\n") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCmd(t, "", "verify", "--cases", dir, "--update", "--unreferenced=delete", "demo")
	if code != exitOK || !strings.Contains(stdout, "created demo events=7") || !strings.Contains(stderr, "did nothing: ids were named") {
		t.Fatalf("with an id: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCmd(t, "", "verify", "--cases", dir, "--unreferenced=delete")
	if code != exitOK || !strings.Contains(stdout, "removed "+old) || !strings.Contains(stderr, "removing 1 unreferenced golden(s)") {
		t.Fatalf("full run: exit %d\n%s%s", code, stdout, stderr)
	}
	if got := strings.Join(names(t, dir), ","); got != "demo.json,demo.trace.jsonl" {
		t.Errorf("the directory holds %s", got)
	}
}

// TestCasesInsideTheCloneRunAlone: inside the tracecheck clone, verify
// --cases DIR runs the team's cases and nothing else (the built-in
// scenarios only with a plain verify), goldens beside the cases; -v says
// so under the first line.
func TestCasesInsideTheCloneRunAlone(t *testing.T) {
	local(t)
	code, stdout, stderr := runCmd(t, "", "verify", "--cases", caseDir, "--update=no", "-v")
	if code != exitOK || !strings.Contains(stdout, "\n  scenarios: none (the built-in scenarios are tracecheck's own") ||
		!strings.Contains(stdout, "\n  goldens: "+caseDir+" (--cases)\n") || strings.Contains(stdout, "s01-agent-loop") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestCasesFirstLine: a run with cases starts with one short line that
// counts what runs and names the cases directory; where scenarios, cases
// and goldens come from (the ~170 characters every run used to start with)
// comes only with -v, under it; the other formats are as they were.
func TestCasesFirstLine(t *testing.T) {
	local(t)
	good := filepath.Join(repoRoot, "testdata", "good", "s07-session-replay.trace.jsonl")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "demo.json"), []byte(fmt.Sprintf(`{"command":{"argv":["cat",%q]},"trace":{"from":"stdout"}}`, good)), 0o644)
	os.WriteFile(filepath.Join(dir, "demo.trace.jsonl"), []byte(mustRead(t, good)), 0o644)
	gdir := goldenCopy(t)
	os.WriteFile(filepath.Join(gdir, "demo.trace.jsonl"), []byte(mustRead(t, good)), 0o644)
	scenarioDir := filepath.Join(repoRoot, "scenarios")
	details := "  scenarios: none (the built-in scenarios are tracecheck's own, checked by a plain verify; --scenario-dir adds yours)\n" +
		"  cases: " + dir + " (--cases)\n" +
		"  goldens: " + dir + " (--cases)\n"
	for _, tc := range []struct {
		name  string
		args  []string
		first string // the first line, with the directories as the words it adds
		dirs  int    // the length of those directories
		more  string // what follows it, up to the first result
	}{
		{"one case", []string{"--cases", dir}, "tracecheck: 1 case from " + dir, len(dir), ""},
		{"-v", []string{"--cases", dir, "-v"}, "tracecheck: 1 case from " + dir, len(dir), details},
		{"--verbose", []string{"--cases", dir, "--verbose"}, "tracecheck: 1 case from " + dir, len(dir), details},
		{"scenarios beside the case", []string{"--cases", dir, "--scenario-dir", scenarioDir, "--golden-dir", gdir, "s07-session-replay", "demo"},
			"tracecheck: 1 scenario from " + scenarioDir + ", 1 case from " + dir, len(scenarioDir) + len(dir), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", append([]string{"verify", "--update=no"}, tc.args...)...)
			first, rest, _ := strings.Cut(stdout, "\n")
			if code != exitOK || first != tc.first || !strings.HasPrefix(rest, tc.more+"ok ") {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			if n := len(first) - tc.dirs; n > 50 {
				t.Errorf("the first line has %d characters besides its directories: %q", n, first)
			}
		})
	}
	// --format json says where everything came from, without -v.
	code, stdout, _ := runCmd(t, "", "verify", "--cases", dir, "--update=no", "--format", "json")
	if code != exitOK || !strings.Contains(stdout, `"cases": {`) || !strings.Contains(stdout, `"goldens": {`) || !strings.Contains(stdout, `"scenarios": {`) {
		t.Errorf("exit %d: the JSON report lost where things come from:\n%s", code, stdout)
	}
}

func TestCasesUsageErrors(t *testing.T) {
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "a.json"), []byte(`{"command":{"argv":["x"],"timeout":"soon"},"trace":{"from":"stdout"}}`), 0o644)
	clash := t.TempDir()
	os.WriteFile(filepath.Join(clash, "s01-agent-loop.json"), []byte(`{"command":{"argv":["x"]},"trace":{"from":"stdout"}}`), 0o644)
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"--no-scenarios alone", []string{"verify", "--no-scenarios"}, "--no-scenarios goes with --cases DIR"},
		{"cases beside named scenarios", []string{"verify", "--cases", caseDir, "--scenario-dir", filepath.Join(repoRoot, "scenarios")}, "name one directory for both goldens with --golden-dir, or add --no-scenarios"},
		{"a missing directory", []string{"verify", "--cases", filepath.Join(empty, "nope")}, "--cases " + filepath.Join(empty, "nope") + ": no such directory"},
		{"no case file", []string{"verify", "--cases", empty, "--no-scenarios"}, "holds no case file"},
		{"a bad case file", []string{"verify", "--cases", bad, "--no-scenarios"}, filepath.Join(bad, "a.json") + ": /command/timeout: "},
		{"a case named like a scenario", []string{"verify", "--cases", clash, "--scenario-dir", filepath.Join(repoRoot, "scenarios"), "--golden-dir", empty}, `case "s01-agent-loop" and scenario s01-agent-loop share the name`},
		{"an unknown id", []string{"verify", "--cases", caseDir, "--no-scenarios", "nope"}, `unknown scenario or case "nope" (known: example-agent, lesson-demo, random-agent)`},
	}
	for _, tc := range tests {
		code, stdout, stderr := runCmd(t, "", tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d stdout %q stderr %q; want 2 and one line with %q", tc.name, code, stdout, stderr, tc.msg)
		}
	}
}

// repeatCases writes into a new directory two repeated cases with their
// goldens: flaky (testdata/agents/flaky_agent.sh, its run count kept in a
// file of another temporary directory, which drifts on every second run)
// run 4 times, and stable (cat of the same trace) run 3 times.
func repeatCases(t *testing.T) (dir, counter string) {
	t.Helper()
	good := filepath.Join(repoRoot, "testdata", "good", "s07-session-replay.trace.jsonl")
	script := filepath.Join(repoRoot, "testdata", "agents", "flaky_agent.sh")
	dir, counter = t.TempDir(), filepath.Join(t.TempDir(), "runs")
	os.WriteFile(filepath.Join(dir, "flaky.json"), []byte(fmt.Sprintf(`{"command":{"argv":["sh",%q,%q,%q]},"trace":{"from":"stdout"},"repeat":4}`, script, counter, good)), 0o644)
	os.WriteFile(filepath.Join(dir, "stable.json"), []byte(fmt.Sprintf(`{"command":{"argv":["cat",%q]},"trace":{"from":"stdout"},"repeat":3}`, good)), 0o644)
	return dir, counter
}

// TestCaseRepeat: a case with "repeat": 4 whose command drifts on every
// second run reports 2/4 passed and pass^k false and fails the run; one
// with "repeat": 3 that always matches reports 3/3 and pass^k true; JUnit
// has a testcase per run; --update writes run 1's trace and says so.
func TestCaseRepeat(t *testing.T) {
	local(t)
	dir, counter := repeatCases(t)
	t.Chdir(t.TempDir()) // outside the module: the cases run alone

	code, stdout, stderr := runCmd(t, "", "verify", "--cases", dir, "--update")
	if code != exitFailed || !strings.Contains(stdout, "\n  run 1 created the golden (an update writes the first run only); runs 2-4 were compared with it\n") ||
		mustRead(t, filepath.Join(dir, "flaky.trace.jsonl")) != mustRead(t, filepath.Join(repoRoot, "testdata", "good", "s07-session-replay.trace.jsonl")) {
		t.Fatalf("--update: exit %d\n%s%s", code, stdout, stderr)
	}
	if got := strings.TrimSpace(mustRead(t, counter)); got != "4" {
		t.Errorf("the flaky command ran %s times, want 4", got)
	}

	code, stdout, stderr = runCmd(t, "", "verify", "--cases", dir)
	for _, want := range []string{
		"tracecheck: 2 cases from " + dir + "\nDRIFT flaky (2/4 passed; the detail is run 2's)\n",
		"    /payload/content: expected \"Replay derives state; branching preserves its parent.\", actual \"Replay derives state; branching forgets its parent.\"\n",
		"\n  run 4: DRIFT: 1 event differs (1 changed, 0 missing, 0 extra); the golden has 7 events, the actual trace 7\n",
		"\nok stable events=7 (3/3 passed)\n",
		"\npass^k: 1 of 2 repeated cases passed every run\n  flaky 2/4 passed, pass^k false\n  stable 3/3 passed, pass^k true\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if code != exitFailed || strings.Count(stdout, "\n  --- ") != 1 || strings.Contains(stderr, "run:") ||
		!strings.Contains(stderr, "1 case passed some of its runs and failed others (flaky 2/4): no golden fixes that") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}

	code, r, _ := verifyJSON(t, "--cases", dir)
	if code != exitFailed || r.OK || r.Reliability == nil || r.Reliability.PassK != 1 || len(r.Reliability.Cases) != 2 ||
		r.Results[0].Repeat == nil || r.Results[0].Repeat.Passed != 2 || r.Results[0].Repeat.Count != 4 || r.Results[0].Repeat.PassK ||
		r.Results[1].Repeat == nil || r.Results[1].Repeat.Passed != 3 || !r.Results[1].Repeat.PassK {
		t.Errorf("json: exit %d %+v %+v", code, r.Results, r.Reliability)
	}

	code, stdout, _ = runCmd(t, "", "verify", "--cases", dir, "--format", "junit")
	if code != exitFailed || !strings.Contains(stdout, `<testsuites name="tracecheck" tests="7" failures="2"`) {
		t.Fatalf("junit: exit %d\n%s", code, stdout)
	}
	for i, name := range []string{"flaky#1", "flaky#2", "flaky#3", "flaky#4", "stable#1", "stable#2", "stable#3"} {
		open := `<testcase name="` + name + `" classname="tracecheck.verify.case"`
		at := strings.Index(stdout, open)
		if at < 0 {
			t.Fatalf("junit: no testcase %s\n%s", name, stdout)
		}
		rest := stdout[at+len(open):]
		body := rest[:strings.Index(rest, "</testcase>")]
		if failed := strings.Contains(body, "<failure"); failed != (i == 1 || i == 3) {
			t.Errorf("junit: %s failed %v", name, failed)
		}
	}
	if xmllint, err := exec.LookPath("xmllint"); err == nil {
		f := filepath.Join(t.TempDir(), "junit.xml")
		os.WriteFile(f, []byte(stdout), 0o644)
		if msg, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join(repoRoot, "verify", "testdata", "junit.xsd"), f).CombinedOutput(); err != nil {
			t.Errorf("the JUnit report does not validate: %v\n%s", err, msg)
		}
	}
}

// TestCaseRepeatSharded: split over two shards and merged, the repeated
// cases give the unsharded run's report, counts and exit status.
func TestCaseRepeatSharded(t *testing.T) {
	local(t)
	dir, _ := repeatCases(t)
	t.Chdir(t.TempDir())
	if code, stdout, stderr := runCmd(t, "", "verify", "--cases", dir, "--update"); code != exitFailed {
		t.Fatalf("--update: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, format := range []string{"text", "json", "junit"} {
		wantCode, want, _ := runCmd(t, "", "verify", "--cases", dir, "--format", format)
		var files []string
		for k := 1; k <= 2; k++ {
			p := filepath.Join(t.TempDir(), "r.json")
			if code, _, stderr := runCmd(t, "", "verify", "--cases", dir, "--shard", fmt.Sprintf("%d/2", k), "--result", p); code != exitOK && code != exitFailed {
				t.Fatalf("shard %d/2: exit %d %s", k, code, stderr)
			}
			files = append(files, p)
		}
		code, got, stderr := runCmd(t, "", append([]string{"merge", "--format", format}, files...)...)
		if code != wantCode || got != want {
			t.Errorf("--format %s: merge exit %d, unsharded %d (-unsharded +merged):\n%s%s", format, code, wantCode, cmp.Diff(want, got), stderr)
		}
	}
}

// TestCaseRepeatRefused: repeat 0, past its bound, or as a string is a
// usage error naming the file and the field.
func TestCaseRepeatRefused(t *testing.T) {
	for _, v := range []string{"0", "101", `"4"`} {
		dir := t.TempDir()
		file := filepath.Join(dir, "a.json")
		os.WriteFile(file, []byte(`{"command":{"argv":["x"]},"trace":{"from":"stdout"},"repeat":`+v+`}`), 0o644)
		code, _, stderr := runCmd(t, "", "verify", "--cases", dir, "--no-scenarios")
		if code != exitUsage || !strings.Contains(stderr, file+": /repeat: repeat is how many times the command runs, a whole number from 1 to 100: ") {
			t.Errorf("repeat %s: exit %d %q", v, code, stderr)
		}
	}
}
