package modelserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver"
)

// serve starts srv on loopback for the test.
func serve(t *testing.T, srv http.Handler) string {
	t.Helper()
	ln, err := modelserver.Listen(modelserver.DefaultAddr, false)
	if err != nil {
		t.Fatal(err)
	}
	s := modelserver.Serve(ln, srv)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return s.URL
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	return do(t, http.MethodPost, url, body, map[string]string{"Content-Type": "application/json"})
}

func script(n int) modelserver.Script {
	var turns []fakemodel.Turn
	for i := 1; i <= n; i++ {
		turns = append(turns, fakemodel.Turn{Content: fmt.Sprintf("answer %d", i), Stop: true})
	}
	model := fakemodel.ID
	return modelserver.Script{
		Turns:     turns,
		SessionID: "session-test",
		Provenance: journal.Provenance{AgentID: "test-agent", SnapshotID: "s", Surface: modelserver.Surface,
			HarnessMode: "fake", RunID: "run-test", Model: &model},
		Model: model,
	}
}

const userOnly = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`

// lockedBuffer is a trace writer read while the server writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf.Bytes()...)
}

// TestConcurrentRequestsAreSerialized: requests sent at once are taken one
// at a time; each gets its own turn, every turn is answered once, and the
// trace holds whole exchanges in turn order.
func TestConcurrentRequestsAreSerialized(t *testing.T) {
	const n = 16
	var trace lockedBuffer
	srv := modelserver.New(script(n), modelserver.Options{Trace: &trace})
	url := serve(t, srv) + "/v1/chat/completions"
	answers := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(url, "application/json", strings.NewReader(userOnly))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var body struct {
				Choices []struct {
					Message struct{ Content string }
				}
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || len(body.Choices) != 1 {
				t.Errorf("request %d: %v %+v", i, err, body)
				return
			}
			answers[i] = body.Choices[0].Message.Content
		}()
	}
	wg.Wait()
	sort.Strings(answers)
	var want []string
	for i := 1; i <= n; i++ {
		want = append(want, fmt.Sprintf("answer %d", i))
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, answers); diff != "" {
		t.Errorf("answers (-script +got):\n%s", diff)
	}
	j, err := journal.Read(bytes.NewReader(trace.Bytes()), "trace")
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range j.Events() {
		turn, _ := e.Payload.Get("turn")
		wantType := []string{"model.request", "model.response"}[i%2]
		if e.Type != wantType || turn.Text() != fmt.Sprint(i/2+1) {
			t.Errorf("event %d: %s turn %s, want %s turn %d", i, e.Type, turn.Text(), wantType, i/2+1)
		}
	}
	if rep := srv.Report(); rep.Used != n || rep.Unused() != 0 {
		t.Errorf("report %+v", rep)
	}
}

// TestTraceHoldsEachExchangeWhenAnswered: when a client has an answer,
// the trace already holds its whole exchange.
func TestTraceHoldsEachExchangeWhenAnswered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	url := serve(t, modelserver.New(script(3), modelserver.Options{Trace: f})) + "/v1/chat/completions"
	for i := 1; i <= 3; i++ {
		post(t, url, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		j, err := journal.Read(bytes.NewReader(data), path)
		if err != nil {
			t.Fatalf("after answer %d: %v", i, err)
		}
		if j.Len() != 2*i {
			t.Errorf("after answer %d the trace holds %d events, want %d", i, j.Len(), 2*i)
		}
	}
}

// TestExhausted: past the script, the scripted model's answer or, with
// ExhaustedError, a 400 in the API's shape.
func TestExhausted(t *testing.T) {
	url := serve(t, modelserver.New(script(1), modelserver.Options{}))
	post(t, url+"/v1/chat/completions", userOnly)
	code, body := post(t, url+"/v1/chat/completions", userOnly)
	if code != 200 || !strings.Contains(body, fakemodel.ExhaustedText) {
		t.Errorf("answer mode: %d %s", code, body)
	}

	srv := modelserver.New(script(1), modelserver.Options{Exhausted: modelserver.ExhaustedError})
	url = serve(t, srv)
	post(t, url+"/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`)
	code, body = post(t, url+"/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`)
	if code != 400 || !strings.HasPrefix(body, `{"type":"error","error":{"type":"invalid_request_error","message":"the script has no turn left`) {
		t.Errorf("error mode: %d %s", code, body)
	}
	rep := srv.Report()
	if rep.Used != 1 || len(rep.Rejected) != 1 || rep.Rejected[0].Kind != modelserver.KindExhausted {
		t.Errorf("report %+v", rep)
	}
}

// TestRejections: what the server refuses, with the status and body shape
// of the API asked; a refusal takes no turn.
func TestRejections(t *testing.T) {
	srv := modelserver.New(script(1), modelserver.Options{MaxBodyBytes: 1 << 10})
	url := serve(t, srv)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		prefix                   string
	}{
		{"not JSON", "POST", "/v1/chat/completions", "{", 400, `{"error":{"message":"the request body is not valid JSON`},
		{"no model", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}]}`, 400, `{"error":{"message":"you must provide a model parameter`},
		{"unknown role", "POST", "/v1/chat/completions", `{"model":"m","messages":[{"role":"robot","content":"x"}]}`, 400, `{"error":{"message":"Invalid value for 'messages[0].role': 'robot'.`},
		{"anthropic without max_tokens", "POST", "/v1/messages", `{"model":"m","messages":[{"role":"user","content":"x"}]}`, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required`},
		{"unknown path", "POST", "/v1/embeddings", `{}`, 404, `{"error":{"message":"Invalid URL (POST /v1/embeddings)`},
		{"wrong method", "GET", "/v1/chat/completions", ``, 405, `{"error":{"message":"method GET is not allowed on /v1/chat/completions"`},
		{"too large", "POST", "/v1/messages", `{"model":"` + strings.Repeat("x", 2000) + `"}`, 413, `{"type":"error","error":{"type":"request_too_large"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, url+tc.path, strings.NewReader(tc.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || !strings.HasPrefix(string(b), tc.prefix) || resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%d %s\n%s\nwant %d %s", resp.StatusCode, resp.Header.Get("Content-Type"), b, tc.status, tc.prefix)
			}
		})
	}
	if rep := srv.Report(); rep.Used != 0 || len(rep.Rejected) != 7 {
		t.Errorf("report %+v: want 7 rejections and no turn used", rep)
	}
}

// TestModels lists the scripted model in the shape of the API asked.
func TestModels(t *testing.T) {
	url := serve(t, modelserver.New(script(1), modelserver.Options{})) + "/v1/models"
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `{"object":"list","data":[{"id":"scripted-model-v1","object":"model","created":1786320000,"owned_by":"tracecheck"}]}` + "\n"; string(b) != want {
		t.Errorf("OpenAI models: %s", b)
	}
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	v, err := jsonv.Parse(b)
	if first, _ := v.Get("first_id"); err != nil || first.Text() != "scripted-model-v1" {
		t.Errorf("Anthropic models: %s", b)
	}
}

// TestListenLoopbackOnly: only loopback unless allowed.
func TestListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "example.com:0"} {
		ln, err := modelserver.Listen(addr, false)
		var re *modelserver.RemoteError
		if !errors.As(err, &re) {
			if ln != nil {
				ln.Close()
			}
			t.Errorf("Listen(%q) = %v, want a *RemoteError", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "127.0.0.2:0"} {
		ln, err := modelserver.Listen(addr, false)
		if err != nil {
			t.Errorf("Listen(%q): %v", addr, err)
			continue
		}
		ln.Close()
	}
	ln, err := modelserver.Listen("0.0.0.0:0", true)
	if err != nil {
		t.Errorf("Listen 0.0.0.0 with allowRemote: %v", err)
	} else {
		ln.Close()
	}
}

// TestAgentEnv: base URLs always point at the server; keys are kept when
// set, dummies otherwise.
func TestAgentEnv(t *testing.T) {
	got := modelserver.AgentEnv([]string{"PATH=/bin", "OPENAI_BASE_URL=https://api.example", "OPENAI_API_KEY=sk-real", "ANTHROPIC_API_KEY="}, "http://127.0.0.1:9")
	want := []string{"PATH=/bin", "OPENAI_API_KEY=sk-real",
		"OPENAI_BASE_URL=http://127.0.0.1:9/v1", "ANTHROPIC_BASE_URL=http://127.0.0.1:9", "TRACECHECK_MODEL_URL=http://127.0.0.1:9",
		"ANTHROPIC_API_KEY=" + modelserver.DummyKey}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
