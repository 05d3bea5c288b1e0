package modelserver_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/internal/placeholder"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver"
)

// do sends one request and returns its status and body.
func do(t *testing.T, method, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
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

// TestWhatRealClientsSendBesideModelCalls: the connection checks, the
// beta query and headers, count_tokens and a system turn inside messages
// are answered as the real APIs answer them, and only model calls take a
// turn.
func TestWhatRealClientsSendBesideModelCalls(t *testing.T) {
	srv := modelserver.New(script(2), modelserver.Options{})
	url := serve(t, srv)
	withSystem := `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"},{"role":"system","content":"# Environment"},{"role":"user","content":"go"}]}`

	tests := []struct {
		name, method, path, body string
		header                   map[string]string
		status                   int
		want                     string // in the body
	}{
		{"HEAD / warms the connection", "HEAD", "/", "", nil, 200, ""},
		{"GET / checks it", "GET", "/", "", nil, 200, `"ok":true`},
		{"count_tokens", "POST", "/v1/messages/count_tokens", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, nil, 200, `"input_tokens":`},
		{"system turn without the beta: the API's wording", "POST", "/v1/messages?beta=true", withSystem,
			map[string]string{"anthropic-beta": "claude-code-20250219"}, 400, "messages.1.role: Input should be 'user' or 'assistant'"},
		{"system turn with the beta", "POST", "/v1/messages?beta=true", withSystem,
			map[string]string{"anthropic-beta": "claude-code-20250219, mid-conversation-system-2026-04-07"}, 200, `"answer 1"`},
		{"system turn with per-turn-control (Claude Code 2.1)", "POST", "/v1/messages?beta=true", withSystem,
			map[string]string{"anthropic-beta": "per-turn-control-2026-07-01"}, 200, `"answer 2"`},
	}
	for _, tt := range tests {
		status, body := do(t, tt.method, url+tt.path, tt.body, tt.header)
		if status != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d %s, want %d with %q", tt.name, status, body, tt.status, tt.want)
		}
	}
	r := srv.Report()
	if r.Used != 2 || r.Answered != 2 {
		t.Errorf("used %d, answered %d: only the two model calls take a turn", r.Used, r.Answered)
	}
	if len(r.Rejected) != 1 || r.Rejected[0].API != "anthropic.messages" {
		t.Fatalf("rejections = %v, want the one system turn without its beta", r.Rejected)
	}
}

// TestAnUnservedPathIsNotBlamedOnAnAPI: a rejection for a path no API
// serves names the route, not openai.chat.
func TestAnUnservedPathIsNotBlamedOnAnAPI(t *testing.T) {
	srv := modelserver.New(script(1), modelserver.Options{})
	url := serve(t, srv)
	if status, _ := do(t, "POST", url+"/v1/embeddings", userOnly, nil); status != 404 {
		t.Fatalf("status %d, want 404", status)
	}
	rej := srv.Report().Rejected
	if len(rej) != 1 {
		t.Fatalf("rejections = %v", rej)
	}
	if rej[0].API != "" || rej[0].Route != "POST /v1/embeddings" {
		t.Errorf("rejection judged by %q route %q, want no API and the route", rej[0].API, rej[0].Route)
	}
	if s := rej[0].String(); !strings.Contains(s, "POST /v1/embeddings (no API serves it)") || strings.Contains(s, "openai.chat") {
		t.Errorf("rejection reads %q", s)
	}
}

// TestMessageDigests: each model.request records, per message, its role,
// the calls it makes or answers, and the SHA-256, length and preview of its
// text with the placeholders applied: a changed tool output changes the
// trace; a different workspace path does not.
func TestMessageDigests(t *testing.T) {
	run := func(workspace, toolOutput string) []jsonv.Value {
		var trace bytes.Buffer
		srv := modelserver.New(script(1), modelserver.Options{Trace: &trace,
			Placeholders: placeholder.New(placeholder.Pair{Name: placeholder.Workspace, Value: workspace})})
		url := serve(t, srv)
		body := `{"model":"m","messages":[
			{"role":"system","content":"cwd: ` + workspace + `"},
			{"role":"user","content":[{"type":"text","text":"list"},{"type":"image_url","image_url":{"url":"x"}}]},
			{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls ` + workspace + `\"}"}}]},
			{"role":"tool","tool_call_id":"c1","content":"` + toolOutput + `"}]}`
		if status, b := post(t, url+"/v1/chat/completions", body); status != 200 {
			t.Fatalf("%d %s", status, b)
		}
		j, err := journal.Read(bytes.NewReader(trace.Bytes()), "trace")
		if err != nil {
			t.Fatal(err)
		}
		msgs, _ := j.Events()[0].Payload.Get("messages")
		if strings.Contains(trace.String(), workspace) {
			t.Errorf("the trace holds the workspace path %s:\n%s", workspace, trace.String())
		}
		return msgs.Elems()
	}
	a := run("/tmp/run-a/workspace", "out.txt")
	b := run("/tmp/run-bb/workspace", "out.txt")
	c := run("/tmp/run-a/workspace", "notes.txt")

	field := func(m jsonv.Value, k string) string { v, _ := m.Get(k); return string(v.AppendJSON(nil)) }
	wantPreviews := []string{`"cwd: [WORKSPACE]"`, `"list\n[image]"`, `"bash {\"command\":\"ls [WORKSPACE]\"}"`, `"out.txt"`}
	for i, m := range a {
		if got := field(m, "preview"); got != wantPreviews[i] {
			t.Errorf("message %d preview %s, want %s", i, got, wantPreviews[i])
		}
		if field(m, "sha256") != field(b[i], "sha256") {
			t.Errorf("message %d: another workspace path changed the hash", i)
		}
	}
	if field(a[2], "calls") != `["c1"]` || field(a[3], "answers") != `"c1"` {
		t.Errorf("calls %s, answers %s", field(a[2], "calls"), field(a[3], "answers"))
	}
	if field(a[3], "sha256") == field(c[3], "sha256") {
		t.Error("a changed tool output kept its hash")
	}
	if field(a[0], "sha256") != field(c[0], "sha256") {
		t.Error("an unchanged message changed its hash")
	}
}
