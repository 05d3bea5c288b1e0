package exercise

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/tracecheck/tracecheck/exercise/reference"
	"github.com/tracecheck/tracecheck/exercise/subject"
	"github.com/tracecheck/tracecheck/internal/cireport"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// mutantCaller is tracecheck's implementation with the mistake of mutant id.
func mutantCaller(tb testing.TB, id string) Caller {
	h := reference.NewHandler()
	tb.Cleanup(func() { h.Close() })
	m := mutants()[id]()
	return &inProcess{h: func(req jsonv.Value) jsonv.Value { return m(member(req, "op").Text(), req, h) }}
}

var testArgv = []string{"python3", "my subject.py"}

// Reports in every format, from runs whose cases depend only on the seed and
// the embedded goldens. Regenerate with go test ./exercise -update.
func TestReportFormats(t *testing.T) {
	loaded, err := LoadFixtures("")
	if err != nil {
		t.Fatal(err)
	}
	// Only the reference lessons' goldens, which never change: other
	// scenarios' goldens come and go, and with them the case counts.
	fx := &Fixtures{}
	for _, tr := range loaded.Sessions {
		if isLesson(strings.TrimPrefix(tr.Name, "golden ")) {
			fx.Sessions = append(fx.Sessions, tr)
		}
	}
	for _, tr := range loaded.Journals {
		if isLesson(strings.TrimPrefix(tr.Name, "golden ")) {
			fx.Journals = append(fx.Journals, tr)
		}
	}
	stderr := []string{"replaying 7 events", "warning: \x1b[31mred\x1b[0m text"}

	// exercise run B: B3 fails (the fingerprint), after B1 and B2 pass.
	b := exerciseB()
	res, err := CheckExercise(mutantCaller(t, "B3"), b, RunOrder(b, nil), Options{Seed: 5, Fixtures: fx, StopAtFailure: true})
	if err != nil {
		t.Fatal(err)
	}
	run := &Report{Command: "exercise run B", Argv: testArgv, Seed: 5, Hello: &subject.Hello{Protocol: 1, Name: "my subject", Language: "python", Ops: []string{"replay"}},
		Exercises: []ExerciseResult{res}, Stderr: stderr}
	run.settle(nil)

	// conform: E fails (E4), R is not supported, the rest pass.
	hello := &subject.Hello{Protocol: 1, Name: "my subject", Language: "python", Ops: []string{"journal", "replay", "branch", "append", "checkpoint", "replay_from_checkpoint"}}
	all, err := Conform(mutantCaller(t, "E4"), hello, Options{Seed: 5, Fixtures: fx})
	if err != nil {
		t.Fatal(err)
	}
	conform := &Report{Command: "conform", Argv: testArgv, Seed: 5, Hello: hello, Exercises: all, Stderr: []string{}}
	conform.settle(nil)

	// conform with a protocol error before any exercise.
	broken := &Report{Command: "conform", Argv: testArgv, Seed: 5, Exercises: []ExerciseResult{}, Stderr: stderr}
	broken.settle(&subject.ProtocolError{Line: 1, ID: 1, Op: "hello", Reason: "not JSON (INVALID_JSON at column 1: unexpected 's' looking for a value)", Excerpt: `"starting"`})

	g := goldie.New(t, goldie.WithFixtureDir("testdata"), goldie.WithNameSuffix(""))
	for name, r := range map[string]*Report{"run-fail": run, "conform": conform, "broken": broken} {
		var text, js, ex, junit bytes.Buffer
		r.WriteText(&text, "tracecheck "+r.Command+" --seed 5 -- python3 'my subject.py'")
		if err := r.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteExercism(&ex); err != nil {
			t.Fatal(err)
		}
		if err := cireport.WriteJUnit(&junit, "tracecheck "+r.Command, r.JUnitSuites()...); err != nil {
			t.Fatal(err)
		}
		if name != "broken" { // a broken run's text is the one stderr line of the command
			g.Assert(t, "report-"+name+".txt", text.Bytes())
		}
		g.Assert(t, "report-"+name+".json", js.Bytes())
		g.Assert(t, "report-"+name+".exercism.json", ex.Bytes())
		g.Assert(t, "report-"+name+".junit.xml", junit.Bytes())
		var v any
		if err := json.Unmarshal(ex.Bytes(), &v); err != nil {
			t.Errorf("%s: exercism output is not JSON: %v", name, err)
		}
		if err := xml.Unmarshal(junit.Bytes(), new(struct{})); err != nil {
			t.Errorf("%s: junit output is not XML: %v", name, err)
		}
	}
	if run.ExitCode() != 1 || conform.ExitCode() != 1 || broken.ExitCode() != 3 {
		t.Errorf("exit codes %d %d %d", run.ExitCode(), conform.ExitCode(), broken.ExitCode())
	}
}

// With WholeRequests a failure's request is the whole JSON sent, on one
// line, with what would drive a terminal escaped the JSON way (so it is
// the same request); without it, the summary, and the flag named when it
// is set.
func TestTextReportWholeRequest(t *testing.T) {
	ev := func(i int, content string) jsonv.Value {
		return jsonv.Obj(jsonv.M("event_id", jsonv.Str("evt-00"+string(rune('0'+i)))), jsonv.M("payload", jsonv.Obj(jsonv.M("content", jsonv.Str(content)))))
	}
	req := jsonv.Obj(jsonv.M("id", jsonv.Int(9)), jsonv.M("op", jsonv.Str("replay")),
		jsonv.M("events", jsonv.Arr(ev(0, "plain"), ev(1, "bidi \u202e override, DEL \x7f, bell \x07"), ev(2, "emoji \U0001F600 and é"))))
	r := &Report{Command: "exercise run B", Argv: testArgv, Seed: 5, Status: Fail, Exercises: []ExerciseResult{{ID: "B", Status: Fail, Criteria: []CriterionResult{{
		ID: "B1", Name: "partial-view", Status: Fail, Failure: &Failure{Case: "c", Request: req, Pointer: "/ok", Expected: "true", Actual: "false", Message: "m"},
	}}}}}
	text := func(opts TextOptions) string {
		var b bytes.Buffer
		r.WriteTextOptions(&b, "", opts)
		for _, l := range strings.Split(b.String(), "\n") {
			if rest, ok := strings.CutPrefix(l, "       request:   "); ok {
				return rest
			}
		}
		t.Fatalf("no request line in %q", b.String())
		return ""
	}
	whole := text(TextOptions{WholeRequests: true})
	if strings.ContainsAny(whole, "\u202e\x7f\x07") || !strings.Contains(whole, `\u202e`) || !strings.Contains(whole, "\U0001F600 and é") {
		t.Errorf("whole request not escaped for a terminal: %q", whole)
	}
	back, err := jsonv.Parse([]byte(whole))
	if err != nil || string(back.AppendJSON(nil)) != string(req.AppendJSON(nil)) {
		t.Errorf("the whole request line is not the request: %v\n%s\n%s", err, whole, req.AppendJSON(nil))
	}
	if got := text(TextOptions{}); got != `{"id":9,"op":"replay","events":"<3 events: evt-000 .. evt-002>"}` {
		t.Errorf("summary: %q", got)
	}
	if got := text(TextOptions{WholeRequestFlag: "--show-request"}); !strings.HasSuffix(got, `>"} (shortened; --show-request shows it whole)`) {
		t.Errorf("summary with the flag: %q", got)
	}
}
