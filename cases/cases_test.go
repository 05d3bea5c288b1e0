package cases_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/cases"
	"github.com/tracecheck/tracecheck/internal/testenv"
	"github.com/tracecheck/tracecheck/scenarios"
	"github.com/tracecheck/tracecheck/schema"
	"github.com/tracecheck/tracecheck/verify"
)

// fixture is a valid trace with three tool events (the s03 golden).
var fixture = func() string {
	abs, err := filepath.Abs(filepath.Join("testdata", "s03.trace.jsonl"))
	if err != nil {
		panic(err)
	}
	return abs
}()

func mustRead(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// builtin looks model scenarios up among the built-in ones.
var builtin = verify.ScenarioLookup(scenarios.EmbeddedSource())

// write puts a case file named id.json holding doc (with FIXTURE replaced
// by the fixture's path) in a new directory and loads it.
// write writes doc as the case file <id>.json in a fresh directory and
// loads it; it returns the file's path too.
func write(tb testing.TB, id, doc string) (*cases.Case, string, error) {
	tb.Helper()
	dir := tb.TempDir()
	doc = strings.ReplaceAll(doc, "FIXTURE", fixture)
	file := filepath.Join(dir, id+".json")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		tb.Fatal(err)
	}
	c, err := cases.LoadFile(file, builtin)
	return c, file, err
}

func load(tb testing.TB, id, doc string) *cases.Case {
	tb.Helper()
	c, _, err := write(tb, id, doc)
	if err != nil {
		tb.Fatalf("loading %s: %v", id, err)
	}
	return c
}

func TestParseErrorsNameFileAndField(t *testing.T) {
	tests := []struct {
		name, id, doc string
		want          string // the pointer and message, after "<file>: "
	}{
		{"not JSON", "a", `{"command":`, "/: not valid JSON"},
		{"a duplicate key", "a", `{"command":{"argv":["x"]},"command":{"argv":["y"]}}`, "/: not valid JSON"},
		{"schema", "a", `{"command":{"argv":[]},"trace":{"from":"stdout"}}`, "/command/argv: "},
		{"the match config's own rules", "a", `{"command":{"argv":["x"]},"trace":{"from":"stdout"},"match":{"match":"fuzzy"}}`, "/match/match: "},
		{"a match config integer Go cannot decode", "a", `{"command":{"argv":["x"]},"trace":{"from":"stdout"},"match":{"policy":{"max_turns":1.0}}}`, "/match: "},
		{"id against the file name", "a", `{"id":"b","command":{"argv":["x"]},"trace":{"from":"stdout"}}`, `/id: id "b" does not match the file name "a.json"`},
		{"a file name that is no id", "A_b", `{"command":{"argv":["x"]},"trace":{"from":"stdout"}}`, `/: the file name "A_b.json" is no case id`},
		{"no trace and no model", "a", `{"command":{"argv":["x"]}}`, "/: the case has neither a trace"},
		{"a missing cwd", "a", `{"command":{"argv":["x"],"cwd":"nowhere"},"trace":{"from":"stdout"}}`, "/command/cwd: "},
		{"a missing stdin_file", "a", `{"command":{"argv":["x"],"stdin_file":"none.txt"},"trace":{"from":"stdout"}}`, "/command/stdin_file: "},
		{"a zero timeout", "a", `{"command":{"argv":["x"],"timeout":"0s"},"trace":{"from":"stdout"}}`, "/command/timeout: the timeout must be more than 0"},
		{"an out_dir path that leaves it", "a", `{"command":{"argv":["x"]},"trace":{"from":"out_dir","path":"../t.jsonl"}}`, "/trace/path: "},
		{"the out dir set by hand", "a", `{"command":{"argv":["x"],"env":{"TRACECHECK_OUT_DIR":"/tmp"}},"trace":{"from":"stdout"}}`, "/command/env/TRACECHECK_OUT_DIR: "},
		{"an unknown scenario", "a", `{"command":{"argv":["x"]},"model":{"scenario":"s99-nope"}}`, `/model/scenario: unknown scenario "s99-nope"`},
		{"a missing scenario file", "a", `{"command":{"argv":["x"]},"model":{"scenario":"nope.json"}}`, "/model/scenario: "},
		{"repeat 0", "a", `{"command":{"argv":["x"]},"trace":{"from":"stdout"},"repeat":0}`,
			"/repeat: repeat is how many times the command runs, a whole number from 1 to 100: must be >= 1 but found 0"},
		{"repeat past its bound", "a", `{"command":{"argv":["x"]},"trace":{"from":"stdout"},"repeat":1000}`,
			"/repeat: repeat is how many times the command runs, a whole number from 1 to 100: must be <= 100 but found 1000"},
		{"repeat as a string", "a", `{"command":{"argv":["x"]},"trace":{"from":"stdout"},"repeat":"4"}`,
			"/repeat: repeat is how many times the command runs, a whole number from 1 to 100: expected integer, but got string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, file, err := write(t, tt.id, tt.doc)
			var fe cases.FileErrors
			if err == nil || !asFileErrors(err, &fe) {
				t.Fatalf("err %v, want FileErrors", err)
			}
			found := false
			for _, e := range fe {
				if e.File == file && strings.HasPrefix(strings.TrimPrefix(e.Error(), file+": "), tt.want) {
					found = true
				}
			}
			if !found {
				t.Errorf("no problem starting %q:\n%v", tt.want, err)
			}
		})
	}
}

func asFileErrors(err error, fe *cases.FileErrors) bool {
	v, ok := err.(cases.FileErrors)
	*fe = v
	return ok
}

func TestParseDefaults(t *testing.T) {
	c := load(t, "my-agent", `{"command":{"argv":["agent"],"env":{"B":"2","A":"1"}},"trace":{"from":"stdout"},"model":{"scenario":"s03-tool-dispatch"}}`)
	if c.ID != "my-agent" || c.Golden != "my-agent" || c.Command.Timeout != cases.DefaultTimeout || c.Command.Dir != c.Dir ||
		strings.Join(c.Command.Env, ",") != "A=1,B=2" || c.Model.Scenario.ID != "s03-tool-dispatch" || c.Match != nil {
		t.Errorf("case %+v", c)
	}
	if got := strings.Join(c.GoldenNames(), ","); got != "my-agent,my-agent.model" {
		t.Errorf("golden names %s", got)
	}
}

// TestParseRepeat: a case runs once unless it says repeat; 2.0, which the
// schema counts as an integer, is 2; the schema's bound is MaxRepeat.
func TestParseRepeat(t *testing.T) {
	for doc, want := range map[string]int{
		`{"command":{"argv":["x"]},"trace":{"from":"stdout"}}`:              1,
		`{"command":{"argv":["x"]},"trace":{"from":"stdout"},"repeat":4}`:   4,
		`{"command":{"argv":["x"]},"trace":{"from":"stdout"},"repeat":2.0}`: 2,
		`{"command":{"argv":["x"]},"trace":{"from":"stdout"},"repeat":100}`: cases.MaxRepeat,
	} {
		if c := load(t, "a", doc); c.Repeat != want {
			t.Errorf("%s: repeat %d, want %d", doc, c.Repeat, want)
		}
	}
	var doc struct {
		Properties struct {
			Repeat struct{ Minimum, Maximum, Default int } `json:"repeat"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema.CaseJSON, &doc); err != nil {
		t.Fatal(err)
	}
	if r := doc.Properties.Repeat; r.Minimum != 1 || r.Maximum != cases.MaxRepeat || r.Default != 1 {
		t.Errorf("the schema's repeat is %+v, want 1 to %d, default 1", r, cases.MaxRepeat)
	}
}

func TestLoadDirRefusesTwoCasesWithOneGolden(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"command":{"argv":["x"]},"trace":{"from":"stdout"},"golden":"g"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "b.json"), []byte(`{"command":{"argv":["x"]},"trace":{"from":"stdout"},"golden":"g"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(`not a case`), 0o644)
	_, err := cases.LoadDir(dir, builtin)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "b.json")+`: /golden: golden "g" is also the golden of `+filepath.Join(dir, "a.json")) {
		t.Errorf("err %v", err)
	}
}

func TestRunReadsTheTrace(t *testing.T) {
	want := mustRead(t, fixture)
	tests := []struct{ name, doc string }{
		{"stdout", `{"command":{"argv":["cat","FIXTURE"]},"trace":{"from":"stdout"}}`},
		{"stdin passed through", `{"command":{"argv":["cat"],"stdin_file":"FIXTURE"},"trace":{"from":"stdout"}}`},
		{"after a marker", `{"command":{"argv":["sh","-c","echo FINAL: done; echo 'TRACE: '; cat FIXTURE; echo; echo"]},"trace":{"from":"stdout","after":"TRACE:"}}`},
		{"a file in the working directory", `{"command":{"argv":["cp","FIXTURE","run.jsonl"],"cwd":"work"},"trace":{"from":"file","path":"run.jsonl"}}`},
		{"a file in the output directory (argv)", `{"command":{"argv":["cp","FIXTURE","${TRACECHECK_OUT_DIR}/t.jsonl"]},"trace":{"from":"out_dir","path":"t.jsonl"}}`},
		{"a file in the output directory (env)", `{"command":{"argv":["sh","-c","cp FIXTURE \"$DEST\""],"env":{"DEST":"${TRACECHECK_OUT_DIR}/sub.jsonl"}},"trace":{"from":"out_dir","path":"sub.jsonl"}}`},
		{"the environment", `{"command":{"argv":["sh","-c","test \"$WHO\" = agent && cat FIXTURE"],"env":{"WHO":"agent"}},"trace":{"from":"stdout"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := load2(t, tt.doc)
			r := c.Run(context.Background())
			if len(r.Problems)+len(r.TraceProblems) > 0 || string(r.Trace) != want || string(r.Capture) != want || r.Events != 9 {
				t.Fatalf("problems %q %q, %d events, stderr %q, trace:\n%s", r.Problems, r.TraceProblems, r.Events, r.Stderr, r.Trace)
			}
		})
	}
}

// load2 loads doc as a case in a directory with a work/ subdirectory.
func load2(tb testing.TB, doc string) *cases.Case {
	tb.Helper()
	dir := tb.TempDir()
	os.Mkdir(filepath.Join(dir, "work"), 0o755)
	file := filepath.Join(dir, "c.json")
	os.WriteFile(file, []byte(strings.ReplaceAll(doc, "FIXTURE", fixture)), 0o644)
	c, err := cases.LoadFile(file, builtin)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestRunInvalid(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		problem string // in Problems, or with trace in TraceProblems
		trace   bool
		stderr  string
	}{
		{"a failing command", `{"command":{"argv":["sh","-c","cat FIXTURE; echo oops >&2; echo 'last words' >&2; exit 3"]},"trace":{"from":"stdout"}}`,
			"exited with status 3", false, "oops\nlast words"},
		{"a command that cannot start", `{"command":{"argv":["./no-such-agent"]},"trace":{"from":"stdout"}}`,
			"could not be started", false, ""},
		{"a signal", `{"command":{"argv":["sh","-c","kill -TERM $$"]},"trace":{"from":"stdout"}}`,
			"was ended by signal terminated", false, ""},
		{"no marker", `{"command":{"argv":["cat","FIXTURE"]},"trace":{"from":"stdout","after":"TRACE:"}}`,
			`standard output has no line "TRACE:"`, true, ""},
		{"nothing written", `{"command":{"argv":["true"]},"trace":{"from":"stdout"}}`,
			"the command wrote no trace: stdout is empty", true, ""},
		{"no file written", `{"command":{"argv":["true"]},"trace":{"from":"out_dir","path":"t.jsonl"}}`,
			"the command wrote no trace: ", true, ""},
		{"not a trace", `{"command":{"argv":["sh","-c","echo '{\"sequence\":1}'; echo not json"]},"trace":{"from":"stdout"}}`,
			"stdout is not a valid trace:\nstdout:1: SCHEMA", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := load2(t, tt.doc).Run(context.Background())
			got := r.Problems
			if tt.trace {
				got = r.TraceProblems
				if len(r.Problems) > 0 {
					t.Errorf("command problems %q", r.Problems)
				}
			}
			if len(got) == 0 || !strings.Contains(got[0], tt.problem) || r.Stderr != tt.stderr {
				t.Errorf("problems %q %q, stderr %q", r.Problems, r.TraceProblems, r.Stderr)
			}
			if r.Trace != nil && tt.trace && tt.name != "not a trace" {
				t.Errorf("a trace was kept: %q", r.Trace)
			}
		})
	}
}

// TestRunRefusesAStaleFile: a trace file that was there before the run and
// that the command did not write is not its trace.
func TestRunRefusesAStaleFile(t *testing.T) {
	c := load2(t, `{"command":{"argv":["true"],"cwd":"work"},"trace":{"from":"file","path":"run.jsonl"}}`)
	old := filepath.Join(c.Command.Dir, "run.jsonl")
	os.WriteFile(old, []byte(mustRead(t, fixture)), 0o644)
	r := c.Run(context.Background())
	if len(r.TraceProblems) != 1 || !strings.Contains(r.TraceProblems[0], "did not write "+old+": it is as it was before the run") {
		t.Errorf("problems %q", r.TraceProblems)
	}
	if mustRead(t, old) != mustRead(t, fixture) {
		t.Error("the stale file was touched")
	}
}

// TestRunTimeoutKillsTheProcessGroup: a command that blocks, and a child of
// it that holds its output, are both killed at the timeout; had the child
// survived, the run would report that it held the output.
func TestRunTimeoutKillsTheProcessGroup(t *testing.T) {
	c := load2(t, `{"command":{"argv":["sh","-c","echo started >&2; sleep 60 & sleep 60"],"timeout":"50ms"},"trace":{"from":"stdout"}}`)
	r := c.Run(context.Background())
	if !r.TimedOut || len(r.Problems) != 1 || !strings.Contains(r.Problems[0], "did not finish within 50ms: its process group was killed") {
		t.Fatalf("timed out %v, problems %q", r.TimedOut, r.Problems)
	}
	if r.Trace != nil || len(r.TraceProblems) > 0 {
		t.Errorf("a timed-out run was read: %q", r.TraceProblems)
	}
}

func TestRunChecksThePolicy(t *testing.T) {
	c := load2(t, `{"command":{"argv":["cat","FIXTURE"]},"trace":{"from":"stdout"},"match":{"policy":{"denied_tools":["echo"],"max_turns":1}}}`)
	r := c.Run(context.Background())
	if len(r.TraceProblems) != 2 || !strings.Contains(r.TraceProblems[0], "breaks the policy: policy sequence=4 event_id=evt-004 type=tool.request") ||
		!strings.Contains(r.TraceProblems[0], "the tool is denied") || !strings.Contains(r.TraceProblems[0], `/payload/tool: expected none of ["echo"], actual "echo"`) ||
		!strings.Contains(r.TraceProblems[1], "turn 2 of 2: at most 1 turns are allowed") {
		t.Errorf("problems %q", r.TraceProblems)
	}
}

// TestTolerantCaseCapturesAndMatches: a tolerant case captures the
// tolerant form of its trace, which the next run matches; a changed
// argument does not.
func TestTolerantCaseCapturesAndMatches(t *testing.T) {
	c := load2(t, `{"command":{"argv":["cat","FIXTURE"]},"trace":{"from":"stdout"},"tolerant":true}`)
	r := c.Run(context.Background())
	if len(r.TraceProblems) > 0 || string(r.Capture) == string(r.Trace) || !strings.Contains(string(r.Capture), `"[ID-1]"`) {
		t.Fatalf("capture %q problems %q", r.Capture, r.TraceProblems)
	}
	if d := c.Compare(r.Capture, r.Trace, "golden", "actual"); d != nil {
		t.Fatalf("the run does not match its own capture:\n%s", d.Text("golden"))
	}
	changed := strings.Replace(string(r.Trace), `"text":"hello"`, `"text":"hullo"`, 1)
	d := c.Compare(r.Capture, []byte(changed), "golden", "actual")
	if d == nil || d.Mode != "tolerant" || d.Events[0].Fields[0].Pointer != "/payload/tool_calls/0/arguments/text" {
		t.Fatalf("drift %+v", d)
	}
}

// TestModelCase: a case with a model runs the documentation's Python agent
// against the scripted model; the model-side trace is the one
// 'tracecheck model run' writes for it.
func TestModelCase(t *testing.T) {
	py := testenv.Python(t, "the model case runs the documentation's Python agent")
	agent, _ := filepath.Abs(filepath.Join("..", "testdata", "modelserver", "example_agent.py"))
	doc := fmt.Sprintf(`{"command":{"argv":[%q,%q,"Use the echo tool, then report its result."]},"model":{"scenario":"s03-tool-dispatch"}}`, py, agent)
	c := load2(t, doc)
	r := c.Run(context.Background())
	want := mustRead(t, filepath.Join("..", "testdata", "modelserver", "python-agent-s03-tool-dispatch.trace.jsonl"))
	if len(r.Problems)+len(r.ModelProblems) > 0 || string(r.ModelTrace) != want || r.Trace != nil {
		t.Fatalf("problems %q %q stderr %q\n%s", r.Problems, r.ModelProblems, r.Stderr, r.ModelTrace)
	}

	// An agent that never asks leaves the script unused.
	c = load2(t, `{"command":{"argv":["true"]},"model":{"scenario":"s03-tool-dispatch"}}`)
	r = c.Run(context.Background())
	if len(r.Problems) > 0 || len(r.ModelProblems) != 2 || !strings.Contains(r.ModelProblems[0], "the script was not fully used: 2 of 2 turns unanswered") ||
		!strings.Contains(r.ModelProblems[1], "sent the model server no request") {
		t.Errorf("problems %q %q", r.Problems, r.ModelProblems)
	}
}

// TestRunInterrupted: a run whose context is done reports the interruption,
// not a failure of the command.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := load2(t, `{"command":{"argv":["sleep","60"]},"trace":{"from":"stdout"}}`).Run(ctx)
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0], "the run was interrupted") || r.TimedOut {
		t.Errorf("problems %q", r.Problems)
	}
}

// TestEventsBesideTheMatch: a match relation compares tool calls only, so
// a run whose final answer became a refusal with stop reason "error"
// passes it; with "events": true the events are compared too, tolerantly,
// and the changed answer is a drift naming its pointer.
func TestEventsBesideTheMatch(t *testing.T) {
	golden := mustRead(t, filepath.Join("testdata", "s03.trace.jsonl"))
	refused := strings.Replace(golden, `"content":"The echo tool returned hello."`, `"content":"I refuse to answer."`, 1)
	if refused == golden {
		t.Fatal("the fixture's final answer was not found")
	}
	for _, tc := range []struct {
		doc   string
		drift bool
	}{
		{`{"command":{"argv":["true"]},"trace":{"from":"stdout"},"tolerant":true,"match":{"match":"same-multiset"}}`, false},
		{`{"command":{"argv":["true"]},"trace":{"from":"stdout"},"tolerant":true,"match":{"match":"same-multiset"},"events":true}`, true},
	} {
		c := load(t, "events", tc.doc)
		d := c.Compare([]byte(golden), []byte(refused), "golden", "actual")
		if (d != nil) != tc.drift {
			t.Errorf("%s: drift %v, want %v", tc.doc, d != nil, tc.drift)
		}
		if d != nil && (len(d.Events) == 0 || d.Events[0].Fields[0].Pointer != "/payload/content") {
			t.Errorf("the drift does not name /payload/content: %+v", d.Events)
		}
	}
	_, _, err := write(t, "lonely", `{"command":{"argv":["true"]},"trace":{"from":"stdout"},"events":true}`)
	if err == nil || !strings.Contains(err.Error(), "/events") {
		t.Errorf("events without match: %v", err)
	}
}
