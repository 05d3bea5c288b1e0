package modelserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/internal/npmdeps"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/modelserver/wire"
	"github.com/tracecheck/tracecheck/scenarios"
)

// The official SDKs live in testdata/sdk-clients: package.json and
// package-lock.json pin them; internal/npmdeps installs node_modules
// (git-ignored) with npm ci the first time and again whenever the lock
// file changes.
var (
	sdkOnce sync.Once
	sdkDir  string
	sdkSkip string
)

// sdkClients returns the folder of the installed SDK clients, or skips the
// test saying why (no node or npm, or npm ci failed: no registry).
func sdkClients(t *testing.T) string {
	t.Helper()
	sdkOnce.Do(func() {
		dir, err := filepath.Abs(filepath.Join("..", "testdata", "sdk-clients"))
		if err != nil {
			sdkSkip = err.Error()
			return
		}
		if sdkSkip = npmdeps.Ensure(dir, npmdeps.Options{What: "the official SDK tests"}); sdkSkip == "" {
			sdkDir = dir
		}
	})
	if sdkDir == "" {
		t.Log(sdkSkip)
		t.Skip(sdkSkip)
	}
	return sdkDir
}

// loadTestScenario reads testdata/modelserver/<id>.json.
func loadTestScenario(t *testing.T, id string) *scenarios.Scenario {
	t.Helper()
	file := filepath.Join("..", "testdata", "modelserver", id+".json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// sdkTurn is what drive.mjs prints for one answer.
type sdkTurn struct {
	Text           string    `json:"text"`
	Deltas         []string  `json:"deltas"`
	ToolCalls      []sdkCall `json:"tool_calls"`
	Finish         string    `json:"finish"`
	ArgumentDeltas int       `json:"argument_deltas"`
	Events         []string  `json:"events,omitempty"` // openai-responses streamed: the event types in order
}

type sdkCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments any    `json:"arguments"`
}

type sdkError struct {
	Status  int    `json:"status"`
	Class   string `json:"class"`
	Message string `json:"message"`
}

type sdkOutput struct {
	Turns []sdkTurn `json:"turns"`
	Error *sdkError `json:"error"`
}

// drive serves srv on loopback and runs drive.mjs against it.
func drive(t *testing.T, dir string, srv *modelserver.Server, sc *scenarios.Scenario, sdk, mode string) sdkOutput {
	t.Helper()
	ln, err := modelserver.Listen(modelserver.DefaultAddr, false)
	if err != nil {
		t.Fatal(err)
	}
	served := modelserver.Serve(ln, srv)
	defer served.Shutdown(context.Background())

	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	cfg := struct {
		Prompt string `json:"prompt"`
		Tools  []tool `json:"tools"`
	}{Prompt: sc.Prompt}
	for _, tl := range sc.Tools {
		cfg.Tools = append(cfg.Tools, tool{tl.Name, tl.Description, tl.Parameters.AppendJSON(nil)})
	}
	in, _ := json.Marshal(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "drive.mjs"), sdk, mode, served.URL)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node drive.mjs %s %s: %v\n%s", sdk, mode, err, stderr.String())
	}
	var res sdkOutput
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("drive.mjs printed %q: %v", out, err)
	}
	return res
}

// wantTurns is what an SDK must parse from the script: each turn's text,
// its deltas when streamed (the chunks of a streamed turn, the content in
// one piece of a whole one), its tool calls with their arguments.
func wantTurns(t *testing.T, turns []fakemodel.Turn, sdk string, stream bool) []sdkTurn {
	var out []sdkTurn
	for _, tn := range turns {
		w := sdkTurn{Text: tn.Text(), ToolCalls: []sdkCall{}}
		if stream {
			w.Deltas = tn.Chunks
			if !tn.Streamed() {
				w.Deltas = []string{tn.Content}
			}
		}
		for _, c := range tn.ToolCalls {
			var args any
			if err := json.Unmarshal(c.Arguments.AppendJSON(nil), &args); err != nil {
				t.Fatal(err)
			}
			w.ToolCalls = append(w.ToolCalls, sdkCall{ID: c.ID, Name: c.Name, Arguments: args})
		}
		switch {
		case sdk == "openai-responses":
			w.Finish = "completed" // the response's status
		case sdk == "openai" && len(tn.ToolCalls) > 0:
			w.Finish = "tool_calls"
		case sdk == "openai":
			w.Finish = "stop"
		case len(tn.ToolCalls) > 0:
			w.Finish = "tool_use"
		default:
			w.Finish = "end_turn"
		}
		out = append(out, w)
	}
	return out
}

// modelEvents returns the (type, payload) of the model.request and
// model.response events of a trace, as JSON.
func modelEvents(t *testing.T, trace []byte) []string {
	t.Helper()
	j, err := journal.Read(bytes.NewReader(trace), "trace")
	if err != nil {
		t.Fatalf("the trace is not a valid journal: %v\n%s", err, trace)
	}
	return payloadsOf(j.Events())
}

// payloadsOf lists the model events as "TYPE PAYLOAD". A served
// model.request's message digests (which the scenario runner does not
// record) are left out; TestMessageDigests checks them.
func payloadsOf(events []journal.Event) []string {
	var out []string
	for _, e := range events {
		if e.Type == "model.request" || e.Type == "model.response" {
			p := e.Payload
			if e.Type == "model.request" {
				p = p.Without("messages")
			}
			out = append(out, e.Type+" "+string(p.AppendJSON(nil)))
		}
	}
	return out
}

// wantResponsesEvents is the Responses API stream of a turn, event types in
// order: the message item (when the turn has text, or nothing else) with
// one text delta per chunk (the content in one), then each function call
// with its arguments in SplitArguments' pieces.
func wantResponsesEvents(tn fakemodel.Turn) []string {
	ev := []string{"response.created", "response.in_progress"}
	if tn.Text() != "" || len(tn.ToolCalls) == 0 {
		ev = append(ev, "response.output_item.added", "response.content_part.added")
		deltas := tn.Chunks
		if !tn.Streamed() && tn.Content != "" {
			deltas = []string{tn.Content}
		}
		for range deltas {
			ev = append(ev, "response.output_text.delta")
		}
		ev = append(ev, "response.output_text.done", "response.content_part.done", "response.output_item.done")
	}
	for _, c := range tn.ToolCalls {
		ev = append(ev, "response.output_item.added")
		for range wire.SplitArguments(string(c.Arguments.AppendJSON(nil))) {
			ev = append(ev, "response.function_call_arguments.delta")
		}
		ev = append(ev, "response.function_call_arguments.done", "response.output_item.done")
	}
	return append(ev, "response.completed")
}

// TestOfficialSDKs drives the script of testdata/modelserver/sdk-roundtrip
// with the official OpenAI (Chat Completions and Responses) and Anthropic
// Node SDKs, whole and streamed, through a tool call round trip. What each
// SDK parsed must equal the script, a stream must deliver the scripted
// chunks as separate deltas and the arguments in several (a Responses
// stream its events in the API's order), and the server's trace must
// record what the scenario runner records for the same script.
func TestOfficialSDKs(t *testing.T) {
	dir := sdkClients(t)
	sc := loadTestScenario(t, "sdk-roundtrip")
	rendered, err := scenarios.Render(sc)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents := payloadsOf(rendered.Events)
	for _, sdk := range []string{"openai", "openai-responses", "anthropic"} {
		for _, mode := range []string{"whole", "stream"} {
			t.Run(sdk+"/"+mode, func(t *testing.T) {
				var trace bytes.Buffer
				srv := modelserver.New(modelserver.ScriptOf(sc), modelserver.Options{Trace: &trace})
				got := drive(t, dir, srv, sc, sdk, mode)
				want := wantTurns(t, sc.Turns, sdk, mode == "stream")
				for i := range got.Turns {
					if mode == "stream" && len(got.Turns[i].ToolCalls) > 0 && got.Turns[i].ArgumentDeltas < 2 {
						t.Errorf("turn %d: the tool call arguments arrived in %d delta(s), want several", i+1, got.Turns[i].ArgumentDeltas)
					}
					got.Turns[i].ArgumentDeltas = 0
					if sdk == "openai-responses" && mode == "stream" && i < len(sc.Turns) {
						if diff := cmp.Diff(wantResponsesEvents(sc.Turns[i]), got.Turns[i].Events); diff != "" {
							t.Errorf("turn %d: the Responses stream's events (-want +got):\n%s", i+1, diff)
						}
					}
					got.Turns[i].Events = nil
				}
				if diff := cmp.Diff(want, got.Turns); diff != "" {
					t.Errorf("what the SDK parsed (-script +sdk):\n%s", diff)
				}
				rep := srv.Report()
				if rep.Used != len(sc.Turns) || len(rep.Rejected) != 0 || rep.Exhausted != 0 {
					t.Errorf("report %+v: want every turn used, nothing rejected or past the script", rep)
				}
				if diff := cmp.Diff(wantEvents, modelEvents(t, trace.Bytes())); diff != "" {
					t.Errorf("the served trace's model events differ from the scenario runner's (-runner +served):\n%s", diff)
				}
			})
		}
		t.Run(sdk+"/orphan-call", func(t *testing.T) {
			srv := modelserver.New(modelserver.ScriptOf(sc), modelserver.Options{})
			got := drive(t, dir, srv, sc, sdk, "orphan")
			if got.Error == nil {
				t.Fatalf("the SDK raised no error for a tool call without its result")
			}
			if got.Error.Status != 400 || got.Error.Class != "BadRequestError" || !strings.Contains(got.Error.Message, "call-orphan") {
				t.Errorf("SDK error %+v: want a 400 BadRequestError naming call-orphan", *got.Error)
			}
			if want := "400 No tool output found for function call call-orphan."; sdk == "openai-responses" && got.Error.Message != want {
				t.Errorf("SDK error message %q, want %q", got.Error.Message, want)
			}
			if rep := srv.Report(); len(rep.Rejected) != 1 || rep.Used != 0 {
				t.Errorf("report %+v: want one rejection and no turn used", rep)
			}
		})
	}
}

// codexTurn is a request shaped as Codex 0.171 sends POST /v1/responses:
// store false, the whole conversation as input, its tool kinds, the fields
// it sets beside them.
func codexTurn(t *testing.T, stream bool, input []any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"model":        "gpt-5-codex",
		"instructions": "You are Codex, a coding agent.",
		"input":        input,
		"tools": []any{
			map[string]any{"type": "function", "name": "lookup", "description": "Look a rule up.", "strict": false, "parameters": map[string]any{"type": "object"}},
			map[string]any{"type": "custom", "name": "apply_patch", "description": "Patch.", "format": map[string]any{"type": "grammar", "syntax": "lark", "definition": "start: x"}},
			map[string]any{"type": "local_shell"},
			map[string]any{"type": "web_search"},
		},
		"tool_choice": "auto", "parallel_tool_calls": false, "reasoning": nil, "store": false, "stream": stream,
		"include": []string{}, "prompt_cache_key": "thread-1", "text": map[string]any{"verbosity": "low"},
		"client_metadata": map[string]any{"x": "y"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestResponsesAPIOverHTTP drives the sdk-roundtrip script through POST
// /v1/responses the way Codex does, without node: a streamed turn whose
// output items go back as input with a function_call_output, then a whole
// turn; the trace records the roles and tools, the ids follow the turn,
// and a request with previous_response_id gets the OpenAI-shaped 400.
func TestResponsesAPIOverHTTP(t *testing.T) {
	sc := loadTestScenario(t, "sdk-roundtrip")
	var trace bytes.Buffer
	srv := modelserver.New(modelserver.ScriptOf(sc), modelserver.Options{Trace: &trace})
	url := serve(t, srv) + wire.PathResponses
	input := []any{
		map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "<permissions>"}}},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": sc.Prompt}}},
	}

	status, body := post(t, url, codexTurn(t, true, input))
	if status != 200 {
		t.Fatalf("turn 1: %d %s", status, body)
	}
	var names []string
	var completed map[string]any
	var items []any
	for k, block := range strings.SplitAfter(body, "\n\n") {
		if block == "" {
			continue
		}
		name, data, ok := strings.Cut(strings.TrimPrefix(block, "event: "), "\ndata: ")
		var ev map[string]any
		if !ok || json.Unmarshal([]byte(data), &ev) != nil || ev["type"] != name || ev["sequence_number"] != float64(k) {
			t.Fatalf("event %d is not a named event with its type and sequence number: %q", k, block)
		}
		names = append(names, name)
		switch name {
		case "response.output_item.done":
			items = append(items, ev["item"])
		case "response.completed":
			completed, _ = ev["response"].(map[string]any)
		}
	}
	if diff := cmp.Diff(wantResponsesEvents(sc.Turns[0]), names); diff != "" {
		t.Errorf("turn 1 events (-want +got):\n%s", diff)
	}
	if completed["id"] != "resp_tracecheck_001" || completed["status"] != "completed" || completed["usage"] == nil {
		t.Errorf("response.completed carries %v", completed)
	}
	if len(items) != 2 {
		t.Fatalf("turn 1: %d output items, want a message and a function call", len(items))
	}
	call, _ := items[1].(map[string]any)
	if call["type"] != "function_call" || call["call_id"] != "call-lookup-1" || call["id"] != "fc_tracecheck_001_1" {
		t.Errorf("turn 1 function call item %v", call)
	}

	input = append(input, map[string]any{"type": "reasoning", "summary": []any{}, "encrypted_content": "gAAA"})
	input = append(input, items...)
	input = append(input, map[string]any{"type": "function_call_output", "call_id": "call-lookup-1", "output": `{"rule":"observe events"}`})
	status, body = post(t, url, codexTurn(t, false, input))
	if status != 200 {
		t.Fatalf("turn 2: %d %s", status, body)
	}
	var resp struct {
		ID     string `json:"id"`
		Output []struct {
			ID      string `json:"id"`
			Type    string `json:"type"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"output"`
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.ID != "resp_tracecheck_002" || len(resp.Output) != 1 || resp.Output[0].ID != "msg_tracecheck_002_0" ||
		len(resp.Output[0].Content) != 1 || resp.Output[0].Content[0].Text != sc.Turns[1].Text() {
		t.Errorf("turn 2 response %s", body)
	}

	status, body = post(t, url, `{"model":"gpt-5-codex","input":"go on","previous_response_id":"resp_tracecheck_002","store":true}`)
	if want := `{"error":{"message":"Previous response with id 'resp_tracecheck_002' not found: the scripted model server keeps no response state, so previous_response_id cannot be used; send the whole conversation in 'input' on every request (with store: false, as Codex does).","type":"invalid_request_error","param":"previous_response_id","code":"previous_response_not_found"}}` + "\n"; status != 400 || body != want {
		t.Errorf("previous_response_id: %d %s\nwant 400 %s", status, body, want)
	}

	rep := srv.Report()
	if rep.Used != 2 || len(rep.Rejected) != 1 || rep.Rejected[0].API != wire.OpenAIResponses {
		t.Errorf("report %+v: want both turns used and the previous_response_id request rejected as openai.responses", rep)
	}
	var requests []string
	for _, e := range modelEvents(t, trace.Bytes()) {
		if strings.HasPrefix(e, "model.request ") {
			requests = append(requests, e)
		}
	}
	tools := `"tools":["lookup","apply_patch","local_shell","web_search"]`
	want := []string{
		`model.request {"turn":1,"message_count":3,"roles":["system","developer","user"],` + tools + `}`,
		`model.request {"turn":2,"message_count":5,"roles":["system","developer","user","assistant","tool"],` + tools + `}`,
	}
	if diff := cmp.Diff(want, requests); diff != "" {
		t.Errorf("the trace's model requests (-want +got):\n%s", diff)
	}
}

// sdkAttempt is one HTTP attempt an SDK made, as drive.mjs's fetch saw it.
type sdkAttempt struct {
	Status       int    `json:"status"`
	RetryAfter   string `json:"retry_after"`
	RetryAfterMS string `json:"retry_after_ms"`
	Error        *struct {
		Class   string `json:"class"`
		Message string `json:"message"`
		Cause   string `json:"cause"`
	} `json:"error"`
}

// sdkFailure is the error an SDK raised, with its chain of causes.
type sdkFailure struct {
	Status  int    `json:"status"`
	Class   string `json:"class"`
	Message string `json:"message"`
	Cause   string `json:"cause"`
}

type sdkFaultOutput struct {
	Turns    []sdkTurn    `json:"turns"`
	Error    *sdkFailure  `json:"error"`
	Attempts []sdkAttempt `json:"attempts"`
}

// faultRun is what driveFault observed.
type faultRun struct {
	out      sdkFaultOutput
	srv      *modelserver.Server
	trace    *signalTrace
	shutdown error         // the server's Shutdown
	took     time.Duration // how long Shutdown took
}

// driveFault serves turnsJSON and runs drive.mjs's fault mode against it
// with cfg (stream, max_retries, timeout_ms). during, when set, runs while
// the SDK runs (it may shut the server down); the server is shut down when
// the SDK is done, at the latest, with a 10 s grace, and how long that took
// is recorded.
func driveFault(t *testing.T, dir, sdk, turnsJSON string, cfg map[string]any, during func(*faultServed, *signalTrace)) faultRun {
	t.Helper()
	srv, served, trace := faultServer(t, turnsJSON)
	cfg["prompt"] = "Answer, whatever happens."
	in, _ := json.Marshal(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "drive.mjs"), sdk, "fault", served.URL)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	run := faultRun{srv: srv, trace: trace}
	if during != nil {
		during(served, trace)
	}
	err := cmd.Wait()
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	start := time.Now()
	run.shutdown = served.Shutdown(sctx)
	run.took = time.Since(start)
	if err != nil {
		t.Fatalf("node drive.mjs %s fault: %v\n%s", sdk, err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &run.out); err != nil {
		t.Fatalf("drive.mjs printed %q: %v\n%s", stdout.Bytes(), err, stderr.String())
	}
	t.Logf("%s: %s", sdk, bytes.TrimSpace(stdout.Bytes()))
	return run
}

// errorPayloads lists the payloads of a trace's error events.
func errorPayloads(t *testing.T, trace []byte) []string {
	t.Helper()
	j, err := journal.Read(bytes.NewReader(trace), "trace")
	if err != nil {
		t.Fatalf("the trace is not a valid journal: %v\n%s", err, trace)
	}
	var out []string
	for _, e := range j.Events() {
		if e.Type == "error" {
			out = append(out, string(e.Payload.AppendJSON(nil)))
		}
	}
	return out
}

// TestOfficialSDKsMeetScriptedFaults drives each official SDK into each
// kind of scripted fault and checks what it really does: a 429 or an
// overload status with retry_after is retried by the SDK itself (its
// fetch sees the fault, then the next turn's answer, which it returns); a
// disconnect mid-stream or mid-body is an error, never an answer, and is
// not retried; a malformed event or body is a JSON parse error; a stall
// before the headers ends in the SDK's timeout error (or, with a retry
// left, in the next turn's answer), and the server's Shutdown does not
// wait for the stall; a stall after the headers, which the SDKs' timeout
// does not cover, ends when the server shuts down.
func TestOfficialSDKsMeetScriptedFaults(t *testing.T) {
	dir := sdkClients(t)
	overload := map[string]int{"openai": 503, "openai-responses": 500, "anthropic": 529}
	for _, sdk := range []string{"openai", "openai-responses", "anthropic"} {
		t.Run(sdk, func(t *testing.T) {
			t.Parallel()
			for _, tc := range []struct {
				name   string
				status int
				stream bool
			}{{"429", 429, false}, {"429-stream", 429, true}, {"overloaded", overload[sdk], true}} {
				t.Run("retry-after/"+tc.name, func(t *testing.T) {
					t.Parallel()
					run := driveFault(t, dir, sdk, fmt.Sprintf(`[{"content":"x","fault":{"kind":"status","status":%d,"retry_after":0.2}},{"content":"Answered after the retry.","stop":true}]`, tc.status),
						map[string]any{"stream": tc.stream}, nil)
					if run.out.Error != nil || len(run.out.Turns) != 1 || run.out.Turns[0].Text != "Answered after the retry." {
						t.Fatalf("the SDK got %+v, error %+v: want the next turn's answer after its own retry", run.out.Turns, run.out.Error)
					}
					if a := run.out.Attempts; len(a) != 2 || a[0].Status != tc.status || a[0].RetryAfter != "1" || a[0].RetryAfterMS != "200" || a[1].Status != 200 {
						t.Errorf("the SDK's attempts %+v: want %d with retry-after 1 and retry-after-ms 200, then 200", a, tc.status)
					}
					events := modelEvents(t, run.trace.Bytes())
					var types []string
					for _, e := range events {
						typ, _, _ := strings.Cut(e, " ")
						types = append(types, typ)
					}
					wantTypes := []string{"model.request", "model.request", "model.response"}
					if diff := cmp.Diff(wantTypes, types); diff != "" {
						t.Errorf("the trace's model events (-want +got):\n%s", diff)
					}
					if want := []string{fmt.Sprintf(`{"turn":1,"kind":"fault","fault":"status","status":%d,"retry_after":0.2}`, tc.status)}; !cmp.Equal(want, errorPayloads(t, run.trace.Bytes())) {
						t.Errorf("the trace's error events %q, want %q", errorPayloads(t, run.trace.Bytes()), want)
					}
					rep := run.srv.Report()
					res := modelserver.RunResult{Report: rep}
					if rep.Faults != 1 || rep.Used != 2 || len(rep.Rejected) != 0 || len(res.Problems()) != 0 {
						t.Errorf("report %+v, problems %q: want one fault, both turns used, no problem", rep, res.Problems())
					}
				})
			}
			for _, stream := range []bool{true, false} {
				t.Run(fmt.Sprintf("disconnect/stream=%t", stream), func(t *testing.T) {
					t.Parallel()
					run := driveFault(t, dir, sdk, `[{"chunks":["Half ","an ","answer ","is ","no ","answer."],"fault":{"kind":"disconnect","after_chunks":3}}]`,
						map[string]any{"stream": stream}, nil)
					if run.out.Error == nil || len(run.out.Turns) != 0 {
						t.Fatalf("the SDK got %+v, error %+v: want an error, not an answer", run.out.Turns, run.out.Error)
					}
					if len(run.out.Attempts) != 1 {
						t.Errorf("the SDK made %d attempts, want 1 (an answer cut after its headers is not retried)", len(run.out.Attempts))
					}
					// fetch's TypeError "terminated" (undici's SocketError "other
					// side closed" its cause), as it is or wrapped by the stream
					// helpers: the SDKs do not make it an APIConnectionError.
					if e := run.out.Error; !strings.Contains(e.Message, "terminated") || !strings.Contains(e.Cause, "other side closed") {
						t.Errorf("the SDK raised %+v: want fetch's terminated, the socket closed", *e)
					}
				})
				t.Run(fmt.Sprintf("malformed/stream=%t", stream), func(t *testing.T) {
					t.Parallel()
					run := driveFault(t, dir, sdk, `[{"chunks":["Well ","formed, ","then not."],"fault":{"kind":"malformed","after_chunks":1}}]`,
						map[string]any{"stream": stream}, nil)
					if run.out.Error == nil || len(run.out.Turns) != 0 {
						t.Fatalf("the SDK got %+v, error %+v: want a parse error", run.out.Turns, run.out.Error)
					}
					// Raised as it is, or (the stream helpers) wrapped in the SDK's
					// OpenAIError / AnthropicError with the SyntaxError as its cause.
					if e := run.out.Error; (e.Class != "SyntaxError" && !strings.HasPrefix(e.Cause, "SyntaxError:")) || !strings.Contains(e.Message, "JSON") {
						t.Errorf("the SDK raised %+v: want JSON.parse's SyntaxError", *e)
					}
				})
			}
			t.Run("stall-before-headers/timeout", func(t *testing.T) {
				t.Parallel()
				run := driveFault(t, dir, sdk, `[{"content":"x","fault":{"kind":"stall","for":"2s","before_headers":true}}]`,
					map[string]any{"stream": true, "timeout_ms": 300, "max_retries": 0}, nil)
				if e := run.out.Error; e == nil || e.Class != "APIConnectionTimeoutError" {
					t.Fatalf("the SDK raised %+v: want its APIConnectionTimeoutError", e)
				}
				if run.shutdown != nil {
					t.Errorf("Shutdown after the SDK timed out: %v (took %s)", run.shutdown, run.took)
				}
			})
			t.Run("stall-before-headers/retried", func(t *testing.T) {
				t.Parallel()
				run := driveFault(t, dir, sdk, `[{"content":"x","fault":{"kind":"stall","for":"1h","before_headers":true}},{"content":"Answered after the timeout.","stop":true}]`,
					map[string]any{"stream": false, "timeout_ms": 500, "max_retries": 1}, nil)
				if run.out.Error != nil || len(run.out.Turns) != 1 || run.out.Turns[0].Text != "Answered after the timeout." {
					t.Fatalf("the SDK got %+v, error %+v: want the next turn after its timeout and retry", run.out.Turns, run.out.Error)
				}
				if a := run.out.Attempts; len(a) != 2 || a[0].Error == nil || a[1].Status != 200 {
					t.Errorf("the SDK's attempts %+v: want one aborted by the timeout, then 200", a)
				}
				if run.shutdown != nil {
					t.Errorf("Shutdown with a 1h stall whose client timed out: %v (took %s)", run.shutdown, run.took)
				}
			})
			t.Run("stall-after-headers/outlasts-the-timeout", func(t *testing.T) {
				t.Parallel()
				// The SDKs' timeout runs until the response headers: a stream
				// that stalls after them is waited for until the stall ends
				// and the connection closes unanswered.
				run := driveFault(t, dir, sdk, `[{"chunks":["Stalled ","here."],"fault":{"kind":"stall","for":"2s","after_chunks":1}}]`,
					map[string]any{"stream": true, "timeout_ms": 500, "max_retries": 0}, nil)
				if e := run.out.Error; e == nil || e.Class == "APIConnectionTimeoutError" || !strings.Contains(e.Message, "terminated") {
					t.Fatalf("the SDK raised %+v: want fetch's terminated when the stall ends, not its timeout", e)
				}
				if a := run.out.Attempts; len(a) != 1 || a[0].Status != 200 {
					t.Errorf("the SDK's attempts %+v: want one, its headers 200", a)
				}
			})
			t.Run("stall-after-headers/shutdown", func(t *testing.T) {
				t.Parallel()
				var shutdown error
				run := driveFault(t, dir, sdk, `[{"chunks":["Stalled ","here."],"fault":{"kind":"stall","for":"1h","after_chunks":1}}]`,
					map[string]any{"stream": true, "max_retries": 0}, func(s *faultServed, trace *signalTrace) {
						trace.waitFault(t)
						ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
						defer cancel()
						shutdown = s.Shutdown(ctx)
					})
				if shutdown != nil {
					t.Fatalf("Shutdown during a 1h stall: %v, want it to end the stall", shutdown)
				}
				// Not a clean end: an answer written while net/http shuts down
				// would say Connection: close, and fetch would take the close
				// for the end of the stream ("missing finish_reason", "stream
				// ended without producing a Message").
				if e := run.out.Error; e == nil || len(run.out.Turns) != 0 || !strings.Contains(e.Message, "terminated") {
					t.Fatalf("the SDK got %+v, error %+v: want fetch's terminated", run.out.Turns, run.out.Error)
				}
			})
		})
	}
}
