package fakemodel

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	_ "github.com/sebdah/goldie/v2" // registers -update so `go test ./... -update` runs here too

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

func TestRespondFollowsTheScriptThenIsExhausted(t *testing.T) {
	call := reducer.ToolCall{ID: "call-1", Name: "echo", Arguments: jsonv.Obj(jsonv.M("text", jsonv.Str("hi")))}
	script := []Turn{
		{ToolCalls: []reducer.ToolCall{call}},
		{Chunks: []string{"a", "b"}, Stop: true},
	}
	m := New(script)
	script[0].Content = "mutated after New" // New copies the script

	hist := []reducer.Message{{Role: reducer.RoleUser, Content: "go"}}
	tests := []struct {
		name string
		want Turn
		text string
		left int
	}{
		{"first turn: a tool call", Turn{ToolCalls: []reducer.ToolCall{call}}, "", 1},
		{"second turn: streamed", Turn{Chunks: []string{"a", "b"}, Stop: true}, "ab", 0},
		{"script used up", Turn{Content: ExhaustedText, Stop: true}, ExhaustedText, 0},
		{"still used up", Turn{Content: ExhaustedText, Stop: true}, ExhaustedText, 0},
	}
	for _, tc := range tests {
		got := m.Respond(hist, []string{"echo"})
		if diff := cmp.Diff(tc.want, got, cmp.Comparer(jsonv.Equal)); diff != "" {
			t.Errorf("%s: turn (-want +got):\n%s", tc.name, diff)
		}
		if got.Text() != tc.text {
			t.Errorf("%s: Text() = %q, want %q", tc.name, got.Text(), tc.text)
		}
		if m.Remaining() != tc.left {
			t.Errorf("%s: Remaining() = %d, want %d", tc.name, m.Remaining(), tc.left)
		}
	}
	if n := len(m.Requests()); n != len(tests) {
		t.Errorf("recorded %d requests, want %d", n, len(tests))
	}
}

func TestRequestsAreSnapshots(t *testing.T) {
	m := New(nil)
	hist := []reducer.Message{{Role: reducer.RoleUser, Content: "first"}}
	m.Respond(hist, nil)
	hist[0].Content = "changed by the caller"
	hist = append(hist, reducer.Message{Role: reducer.RoleAssistant, Content: "x"})
	m.Respond(hist, nil)

	reqs := m.Requests()
	if got := reqs[0][0].Content; got != "first" {
		t.Errorf("first request content = %q: the model must keep what it was shown", got)
	}
	if len(reqs[0]) != 1 || len(reqs[1]) != 2 {
		t.Errorf("request lengths = %d, %d; want 1, 2", len(reqs[0]), len(reqs[1]))
	}
}

func TestEmptyScriptIsExhaustedAtOnce(t *testing.T) {
	got := New(nil).Respond(nil, nil)
	if got.Content != ExhaustedText || !got.Stop || got.Streamed() || len(got.ToolCalls) != 0 {
		t.Errorf("empty script answered %+v", got)
	}
}
