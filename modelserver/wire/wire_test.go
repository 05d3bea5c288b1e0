package wire

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sebdah/goldie/v2"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// TestDecode decodes each request of testdata/requests (the API is the
// file name's prefix) and compares what it makes of it (the roles, tools
// and stream flag, or the error's status and body) with its golden.
func TestDecode(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "requests", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	g := goldie.New(t, goldie.WithFixtureDir(filepath.Join("testdata", "decoded")), goldie.WithNameSuffix(".txt"))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			api := OpenAIChat
			if strings.HasPrefix(name, "anthropic-") {
				api = AnthropicMessages
			}
			req, e := Decode(api, body)
			var out string
			if e != nil {
				out = fmt.Sprintf("%d %s", e.Status, e.Body(api))
			} else {
				out = fmt.Sprintf("ok model=%s stream=%v include_usage=%v\nroles=%q\ntools=%q\n", req.Model, req.Stream, req.IncludeUsage, req.Roles(), req.Tools)
			}
			if strings.Contains(name, "orphan") && !strings.Contains(out, "call-b") && !strings.Contains(out, "call-last") {
				t.Errorf("an orphan call's error must name the call id:\n%s", out)
			}
			g.Assert(t, name, []byte(out))
		})
	}
}

var script = []fakemodel.Turn{
	{Content: "Looking it up.", ToolCalls: []reducer.ToolCall{{ID: "call-lookup-1", Name: "lookup",
		Arguments: jsonv.Obj(jsonv.M("query", jsonv.Str("règle ✓")), jsonv.M("nested", jsonv.Obj(jsonv.M("a", jsonv.Arr(jsonv.Int(1), jsonv.NullValue())))))}}},
	{Chunks: []string{"Observe ", "events, ", "not hidden state."}, Stop: true},
	{ToolCalls: []reducer.ToolCall{{ID: "call-empty", Name: "ping"}}},
}

// TestRender renders each scripted turn for both APIs, whole and streamed
// (OpenAI with and without the usage chunk), against its golden.
func TestRender(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir(filepath.Join("testdata", "rendered")), goldie.WithNameSuffix(".txt"))
	for i, turn := range script {
		for _, tc := range []struct {
			name string
			req  Request
		}{
			{"openai-whole", Request{API: OpenAIChat}},
			{"openai-stream", Request{API: OpenAIChat, Stream: true}},
			{"openai-stream-usage", Request{API: OpenAIChat, Stream: true, IncludeUsage: true}},
			{"anthropic-whole", Request{API: AnthropicMessages}},
			{"anthropic-stream", Request{API: AnthropicMessages, Stream: true}},
		} {
			name := fmt.Sprintf("turn%d-%s", i+1, tc.name)
			t.Run(name, func(t *testing.T) {
				resp := Render(&tc.req, Answer{ID: "resp-1", Created: 1786320001, Model: "m", Turn: turn})
				out := []byte("Content-Type: " + resp.ContentType + "\n\n")
				if resp.Events == nil {
					out = append(out, resp.Body...)
					var v any
					if err := json.Unmarshal(resp.Body, &v); err != nil {
						t.Errorf("the body is not JSON: %v", err)
					}
				}
				for _, ev := range resp.Events {
					if !strings.HasSuffix(string(ev), "\n\n") || strings.Count(string(ev), "\n\n") != 1 {
						t.Errorf("event %q is not one server-sent event", ev)
					}
					out = append(out, ev...)
				}
				g.Assert(t, name, out)
			})
		}
	}
}

func TestSplitArguments(t *testing.T) {
	for _, s := range []string{"", "{}", `{"text":"hello"}`, `{"q":"règle ✓ ✓ ✓ — 日本語のテキスト"}`, strings.Repeat("é", 9)} {
		parts := SplitArguments(s)
		if strings.Join(parts, "") != s {
			t.Errorf("%q: pieces %q do not join back", s, parts)
		}
		for _, p := range parts {
			if !utf8.ValidString(p) || len(p) > ArgumentPiece+utf8.UTFMax-1 || p == "" {
				t.Errorf("%q: piece %q cuts a character or is out of size", s, p)
			}
		}
		if len(s) > ArgumentPiece && len(parts) < 2 {
			t.Errorf("%q: %d piece(s), want several", s, len(parts))
		}
	}
}
