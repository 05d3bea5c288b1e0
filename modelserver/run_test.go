package modelserver_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"

	"github.com/tracecheck/tracecheck/internal/testenv"
	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/scenarios"
)

func builtin(t *testing.T, id string) *scenarios.Scenario {
	t.Helper()
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range all {
		if sc.ID == id {
			return sc
		}
	}
	t.Fatalf("no built-in scenario %s", id)
	return nil
}

func python(t *testing.T) string {
	t.Helper()
	return testenv.Python(t, "the example agent needs it")
}

// exampleAgent is the agent of docs/model-server.md.
var exampleAgent = filepath.Join("..", "testdata", "modelserver", "example_agent.py")

// TestExampleAgentGolden runs the documentation's Python agent (standard
// library only) against a built-in scenario, whole, and a streamed one
// with a tool call (testdata/modelserver/stream-echo), through RunScenario, as a
// verify command case would: the run must be clean, the model-side trace
// must equal its committed golden (testdata/modelserver/*.trace.jsonl,
// written by go test -update), and its model.request and model.response
// payloads must equal those of the scenario's own golden: the external
// agent showed the model what the reference runtime shows it.
func TestExampleAgentGolden(t *testing.T) {
	py := python(t)
	g := goldie.New(t, goldie.WithFixtureDir(filepath.Join("..", "testdata", "modelserver")), goldie.WithNameSuffix(".trace.jsonl"))
	for _, tc := range []struct {
		scenario *scenarios.Scenario
		args     []string
	}{
		{builtin(t, "s03-tool-dispatch"), []string{"Use the echo tool, then report its result."}},
		{loadTestScenario(t, "stream-echo"), []string{"--stream", "Echo something, streaming."}},
	} {
		sc := tc.scenario
		t.Run(sc.ID, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			res, err := modelserver.RunScenario(context.Background(), sc, modelserver.Options{}, modelserver.Command{
				Args:   append([]string{py, exampleAgent}, tc.args...),
				Stdout: &stdout, Stderr: &stderr,
			})
			if err != nil {
				t.Fatal(err)
			}
			if p := res.Problems(); len(p) > 0 {
				t.Fatalf("problems %q\nagent stderr:\n%s", p, stderr.String())
			}
			if got, want := strings.TrimSpace(stdout.String()), sc.Turns[len(sc.Turns)-1].Text(); got != want {
				t.Errorf("the agent printed %q, want the script's last answer %q", got, want)
			}
			g.Assert(t, "python-agent-"+sc.ID, res.Trace)
			rendered, err := scenarios.Render(sc)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(payloadsOf(rendered.Events), modelEvents(t, res.Trace)); diff != "" {
				t.Errorf("model events (-scenario golden +served):\n%s", diff)
			}
		})
	}
}

// TestRunProblems: each way a run fails is reported, in Problems' order.
func TestRunProblems(t *testing.T) {
	py := python(t)
	sc := builtin(t, "s03-tool-dispatch")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"agent fails and sends nothing", []string{py, "-c", "import sys; sys.exit(3)"},
			[]string{"the agent exited with status 3", "the script was not fully used: 2 of 2 turns unanswered (turn 1 on)"}},
		{"agent leaves a tool call unanswered", []string{py, "-c", orphanAgent}, []string{
			"the server rejected 1 request(s); the first: turn 2: openai.chat 400 invalid_request: An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call-001",
			"the script was not fully used: 1 of 2 turns unanswered (turn 2 on)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := modelserver.RunScenario(context.Background(), sc, modelserver.Options{}, modelserver.Command{Args: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, res.Problems()); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	_, err := modelserver.RunScenario(context.Background(), sc, modelserver.Options{}, modelserver.Command{Args: []string{"tracecheck-no-such-program"}})
	var se *modelserver.StartError
	if !errors.As(err, &se) {
		t.Errorf("a program that does not exist: err %v, want a *StartError", err)
	}
}

// orphanAgent gets the first answer (a tool call), then sends the next
// request without the tool result, and exits 0 whatever the server said.
const orphanAgent = `
import json, os, urllib.request, urllib.error
def post(messages):
    req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=json.dumps({"model": "m", "messages": messages}).encode(), headers={"Content-Type": "application/json"})
    try:
        return json.load(urllib.request.urlopen(req))
    except urllib.error.HTTPError as e:
        return json.load(e)
first = post([{"role": "user", "content": "go"}])["choices"][0]["message"]
print(post([{"role": "user", "content": "go"}, first, {"role": "user", "content": "and?"}]))
`

// TestTestdataScenarios: the scenarios the tests serve are valid ones:
// they render and pass the checks verify applies.
func TestTestdataScenarios(t *testing.T) {
	all, err := scenarios.LoadDir(filepath.Join("..", "testdata", "modelserver"))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no scenario in testdata/modelserver")
	}
	for _, sc := range all {
		r, err := scenarios.Render(sc)
		if err != nil {
			t.Fatal(err)
		}
		if p := scenarios.Check(r); len(p) > 0 {
			t.Errorf("%s: %q", sc.ID, p)
		}
	}
}

// TestDocsExampleIsTheTestedAgent: the agent printed in docs/model-server.md
// is the file the tests run.
func TestDocsExampleIsTheTestedAgent(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "model-server.md"))
	if err != nil {
		t.Fatal(err)
	}
	agent, err := os.ReadFile(exampleAgent)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "```python\n")
	block, _, closed := strings.Cut(after, "```\n")
	if !ok || !closed || block != string(agent) {
		t.Errorf("the python block of docs/model-server.md is not %s", exampleAgent)
	}
}

// TestRunOwnsTheAgentsProcesses: an agent that exits 0 while a background
// child of its still holds its standard output is reported as exited 0 at
// once; the child is killed with the agent's process group (it would hold
// the output for 30 s), so nothing is left holding it.
func TestRunOwnsTheAgentsProcesses(t *testing.T) {
	var out bytes.Buffer
	ep := modelserver.New(script(0), modelserver.Options{})
	res, err := modelserver.Run(context.Background(), ep, modelserver.Command{
		Args: []string{"sh", "-c", "sleep 30 & echo started"}, Stdout: &out, Stderr: &out,
	})
	if err != nil || res.ExitCode != 0 || res.OutputHeld {
		t.Fatalf("Run = %+v, %v; want exit 0, no error, nothing holding the output", res, err)
	}
	if out.String() != "started\n" {
		t.Errorf("output %q", out.String())
	}
}
