package modelserver_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/scenarios"
)

// The official SDKs live in testdata/sdk-clients: package.json and
// package-lock.json pin them; node_modules (git-ignored) is installed with
// npm ci the first time and again whenever the lock file changes (a stamp
// in node_modules holds the lock file's SHA-256).
var (
	sdkOnce sync.Once
	sdkDir  string
	sdkSkip string
)

const sdkStamp = ".tracecheck-lock.sha256"

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
		for _, tool := range []string{"node", "npm"} {
			if _, err := exec.LookPath(tool); err != nil {
				sdkSkip = "SKIPPED: the official SDK tests need " + tool + ", which is not on PATH"
				return
			}
		}
		lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
		if err != nil {
			sdkSkip = err.Error()
			return
		}
		sum := sha256.Sum256(lock)
		want := hex.EncodeToString(sum[:])
		stamp := filepath.Join(dir, "node_modules", sdkStamp)
		if got, err := os.ReadFile(stamp); err == nil && strings.TrimSpace(string(got)) == want {
			sdkDir = dir
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			sdkSkip = "SKIPPED: npm ci in testdata/sdk-clients failed (is the npm registry reachable?): " + err.Error() + "\n" + tail(string(out), 800)
			return
		}
		if err := os.WriteFile(stamp, []byte(want+"\n"), 0o644); err != nil {
			sdkSkip = err.Error()
			return
		}
		sdkDir = dir
	})
	if sdkDir == "" {
		t.Log(sdkSkip)
		t.Skip(sdkSkip)
	}
	return sdkDir
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
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

// TestOfficialSDKs drives the script of testdata/modelserver/sdk-roundtrip
// with the official OpenAI and Anthropic Node SDKs, whole and streamed,
// through a tool call round trip. What each SDK parsed must equal the
// script, a stream must deliver the scripted chunks as separate deltas and
// the arguments in several, and the server's trace must record what the
// scenario runner records for the same script.
func TestOfficialSDKs(t *testing.T) {
	dir := sdkClients(t)
	sc := loadTestScenario(t, "sdk-roundtrip")
	rendered, err := scenarios.Render(sc)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents := payloadsOf(rendered.Events)
	for _, sdk := range []string{"openai", "anthropic"} {
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
			if rep := srv.Report(); len(rep.Rejected) != 1 || rep.Used != 0 {
				t.Errorf("report %+v: want one rejection and no turn used", rep)
			}
		})
	}
}
