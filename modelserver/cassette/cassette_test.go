package cassette_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/tracecheck/tracecheck/internal/testenv"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/modelserver/cassette"
	"github.com/tracecheck/tracecheck/scenarios"
)

func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := modelserver.Listen(modelserver.DefaultAddr, false)
	if err != nil {
		t.Fatal(err)
	}
	s := modelserver.Serve(ln, h)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return s.URL
}

// streamEvents is what the stand-in provider streams, one write and flush
// each (the last one split over two writes, as TCP may deliver it).
var streamEvents = []string{
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
	": a comment line the replay must keep\n\n",
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n",
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo ✓\"}}]}\n\n",
	"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
	"data: [DONE]\n\n",
}

// provider stands in for a real endpoint: it streams streamEvents for a
// stream request and answers a whole one with a JSON body; it sets a
// cookie a cassette must not keep, and counts requests.
type provider struct {
	calls atomic.Int32
	auth  atomic.Value
}

func (p *provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.calls.Add(1)
	p.auth.Store(r.Header.Get("Authorization"))
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Set-Cookie", "session=SECRET-COOKIE")
	if !bytes.Contains(body, []byte(`"stream":true`)) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"whole","choices":[{"message":{"role":"assistant","content":"Hi"}}]}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	for i, ev := range streamEvents {
		if i == len(streamEvents)-2 {
			io.WriteString(w, ev[:7])
			f.Flush()
			ev = ev[7:]
		}
		io.WriteString(w, ev)
		f.Flush()
	}
}

// errorMessage is the message of an OpenAI error body.
func errorMessage(t *testing.T, body string) string {
	t.Helper()
	v, err := jsonv.Parse([]byte(body))
	if err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	e, _ := v.Get("error")
	m, _ := e.Get("message")
	return m.Text()
}

func send(t *testing.T, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

const (
	streamReq = `{"model":"gpt-test","stream":true,"stream_options":{"include_usage":true},"user":"u-1","messages":[{"role":"user","content":"Say hello."}]}`
	wholeReq  = `{"model":"gpt-test","max_tokens":64,"metadata":{"run":"1"},"messages":[{"role":"user","content":"Say hi."}]}`
)

var secrets = map[string]string{
	"Authorization":       "Bearer sk-SECRET-AUTH",
	"X-Api-Key":           "SECRET-X-API-KEY",
	"Cookie":              "c=SECRET-COOKIE-IN",
	"Openai-Organization": "org-visible",
	"Anthropic-Version":   "2023-06-01",
}

// TestRecordThenReplay records a stream and a whole answer from a local
// provider, then replays them: byte-identical, without the provider, with
// the volatile fields changed; secrets never reach the cassette.
func TestRecordThenReplay(t *testing.T) {
	prov := &provider{}
	upstream := serve(t, prov)
	path := filepath.Join(t.TempDir(), "cassette.jsonl")

	rec, err := cassette.Open(path, cassette.Options{Mode: cassette.Record, Upstream: upstream + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	url := serve(t, rec)
	_, recordedStream := send(t, url, streamReq, secrets)
	_, recordedWhole := send(t, url, wholeReq, secrets)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if recordedStream != strings.Join(streamEvents, "") {
		t.Errorf("recording passed on %q, want the provider's stream", recordedStream)
	}
	if got := prov.auth.Load(); got != "Bearer sk-SECRET-AUTH" {
		t.Errorf("the provider got Authorization %q: record must forward it", got)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := journal.Read(bytes.NewReader(data), path); err != nil {
		t.Fatalf("the cassette is not a valid Trace journal: %v", err)
	}
	for _, s := range []string{"SECRET", "sk-", "org-visible"} {
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("the cassette holds %q", s)
		}
	}
	if !bytes.Contains(data, []byte(`"headers":{"content-type":"application/json","anthropic-version":"2023-06-01"}`)) {
		t.Errorf("the cassette lost the headers worth keeping:\n%s", data)
	}
	if n := bytes.Count(data, []byte(`"chunk":`)); n != len(streamEvents) {
		t.Errorf("the stream was stored as %d chunks, want one per event (%d)", n, len(streamEvents))
	}

	calls := prov.calls.Load()
	var log bytes.Buffer
	play, err := cassette.Open(path, cassette.Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	url = serve(t, play)
	volatileChanged := strings.Replace(strings.Replace(streamReq, `"u-1"`, `"u-2"`, 1), `"include_usage":true`, `"include_usage":false`, 1)
	if _, got := send(t, url, volatileChanged, nil); got != recordedStream {
		t.Errorf("replayed stream %q, want the recorded bytes %q", got, recordedStream)
	}
	if _, got := send(t, url, strings.Replace(wholeReq, `"1"`, `"2"`, 1), nil); got != recordedWhole {
		t.Errorf("replayed body %q, want %q", got, recordedWhole)
	}
	if prov.calls.Load() != calls {
		t.Errorf("replay called the provider")
	}

	// A miss names the nearest recording and the first differing pointer,
	// in the answer and on the log alike.
	code, body := send(t, url, strings.Replace(wholeReq, "Say hi.", "Say hey.", 1), nil)
	wantMsg := `nearest: exchange 2 (event evt-007, line 8), first difference at /messages/0/content: recorded "Say hi.", sent "Say hey."`
	if code != 400 || !strings.Contains(errorMessage(t, body), wantMsg) || !strings.Contains(body, `"param":"/messages/0/content","code":"cassette_miss"`) {
		t.Errorf("miss: %d %s\nwant it to contain %s", code, body, wantMsg)
	}
	if !strings.Contains(log.String(), wantMsg) {
		t.Errorf("log %q lacks %s", log.String(), wantMsg)
	}
	code, body = send(t, url, wholeReq, nil)
	if code != 400 || !strings.Contains(body, "already played") {
		t.Errorf("a second play of one recording: %d %s", code, body)
	}
	code, body = send(t, url, strings.Replace(wholeReq, `"max_tokens":64`, `"max_tokens":65`, 1), nil)
	if code != 400 || !strings.Contains(errorMessage(t, body), "first difference at /max_tokens: recorded 64, sent 65") {
		t.Errorf("max_tokens is part of the key: %d %s", code, body)
	}
	rep := play.Report()
	if rep.Turns != 2 || rep.Used != 2 || len(rep.Rejected) != 3 {
		t.Errorf("report %+v", rep)
	}
}

// TestRecordAppends: a second recording session continues the cassette's
// run; live mode forwards and leaves the file alone.
func TestRecordAppends(t *testing.T) {
	prov := &provider{}
	upstream := serve(t, prov)
	path := filepath.Join(t.TempDir(), "cassette.jsonl")
	// The third session's first request is recorded: it is replayed; its
	// second is a repeat of a played recording: it is forwarded and
	// recorded again.
	for i, bodies := range [][]string{{wholeReq}, {streamReq}, {wholeReq, wholeReq}} {
		rec, err := cassette.Open(path, cassette.Options{Mode: cassette.Record, Upstream: upstream})
		if err != nil {
			t.Fatal(err)
		}
		url := serve(t, rec)
		for _, body := range bodies {
			send(t, url, body, nil)
		}
		rec.Close()
		if n := int(prov.calls.Load()); n != min(i+1, 3) {
			t.Errorf("after session %d the provider got %d requests", i+1, n)
		}
	}
	data, _ := os.ReadFile(path)
	recs, _, err := cassette.Load(path)
	if err != nil || len(recs) != 3 {
		t.Fatalf("Load: %d recordings, %v\n%s", len(recs), err, data)
	}

	live, err := cassette.Open(path, cassette.Options{Mode: cassette.Live, Upstream: upstream})
	if err != nil {
		t.Fatal(err)
	}
	if _, got := send(t, serve(t, live), streamReq, nil); got != strings.Join(streamEvents, "") {
		t.Errorf("live: %q", got)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(data, after) || prov.calls.Load() != 4 {
		t.Errorf("live mode changed the cassette or did not forward")
	}
}

// TestCanonicalKey: volatile fields and cache_control markers do not
// change the key; anything else does.
func TestCanonicalKey(t *testing.T) {
	key := func(s string) string {
		v, err := jsonv.Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return cassette.Key("POST", "/v1/messages", v)
	}
	base := key(`{"model":"c","max_tokens":5,"system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`)
	same := []string{
		`{"max_tokens":5,"model":"c","system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}],"metadata":{"user_id":"x"}}`,
	}
	for _, s := range same {
		if key(s) != base {
			t.Errorf("%s: key differs", s)
		}
	}
	differ := []string{
		`{"model":"c","max_tokens":6,"system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`,
		`{"model":"c","max_tokens":5,"temperature":0,"system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`,
		`{"model":"c","max_tokens":5,"system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":[{"type":"text","text":"hi "}]}]}`,
	}
	for _, s := range differ {
		if key(s) == base {
			t.Errorf("%s: same key", s)
		}
	}
}

// TestExampleAgentCassette records the documentation's Python agent
// through a cassette whose upstream is the scripted server of s03 (the
// cassette is a committed golden, testdata/modelserver/cassette-s03.jsonl),
// then replays it to the same agent with no upstream at all.
func TestExampleAgentCassette(t *testing.T) {
	py := testenv.Python(t, "the example agent needs it")
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var sc *scenarios.Scenario
	for _, s := range all {
		if s.ID == "s03-tool-dispatch" {
			sc = s
		}
	}
	upstream := serve(t, modelserver.New(modelserver.ScriptOf(sc), modelserver.Options{}))
	agent := []string{py, filepath.Join("..", "..", "testdata", "modelserver", "example_agent.py"), sc.Prompt}
	path := filepath.Join(t.TempDir(), "cassette.jsonl")
	rec, err := cassette.Open(path, cassette.Options{Mode: cassette.Record, Upstream: upstream})
	if err != nil {
		t.Fatal(err)
	}
	res, err := modelserver.Run(context.Background(), rec, modelserver.Command{Args: agent})
	if err != nil || len(res.Problems()) > 0 {
		t.Fatalf("recording: %v %q", err, res.Problems())
	}
	rec.Close()
	data, _ := os.ReadFile(path)
	g := goldie.New(t, goldie.WithFixtureDir(filepath.Join("..", "..", "testdata", "modelserver")), goldie.WithNameSuffix(".jsonl"))
	g.Assert(t, "cassette-s03", data)

	play, err := cassette.Open(filepath.Join("..", "..", "testdata", "modelserver", "cassette-s03.jsonl"), cassette.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err = modelserver.Run(context.Background(), play, modelserver.Command{Args: agent, Stdout: &out})
	if err != nil || len(res.Problems()) > 0 || strings.TrimSpace(out.String()) != "The echo tool returned hello." {
		t.Errorf("replay: %v %q %q", err, res.Problems(), out.String())
	}
}
