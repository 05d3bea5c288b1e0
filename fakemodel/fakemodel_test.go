package fakemodel

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	_ "github.com/sebdah/goldie/v2" // registers -update so `go test ./... -update` runs here too

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// TestRespondFollowsTheScriptThenIsExhausted: Respond and Take answer
// the script's turns in order, then the exhausted turn; Respond records
// each history, Take none.
func TestRespondFollowsTheScriptThenIsExhausted(t *testing.T) {
	call := reducer.ToolCall{ID: "call-1", Name: "echo", Arguments: jsonv.Obj(jsonv.M("text", jsonv.Str("hi")))}
	hist := []reducer.Message{{Role: reducer.RoleUser, Content: "go"}}
	for _, way := range []struct {
		name     string
		next     func(*Model) Turn
		recorded bool
	}{
		{"Respond", func(m *Model) Turn { return m.Respond(hist, []string{"echo"}) }, true},
		{"Take", (*Model).Take, false},
	} {
		script := []Turn{
			{ToolCalls: []reducer.ToolCall{call}},
			{Chunks: []string{"a", "b"}, Stop: true},
		}
		m := New(script)
		script[0].Content = "mutated after New" // New copies the script

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
			got := way.next(m)
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(jsonv.Equal)); diff != "" {
				t.Errorf("%s: %s: turn (-want +got):\n%s", way.name, tc.name, diff)
			}
			if got.Text() != tc.text {
				t.Errorf("%s: %s: Text() = %q, want %q", way.name, tc.name, got.Text(), tc.text)
			}
			if m.Remaining() != tc.left {
				t.Errorf("%s: %s: Remaining() = %d, want %d", way.name, tc.name, m.Remaining(), tc.left)
			}
		}
		want := 0
		if way.recorded {
			want = len(tests)
		}
		if n := len(m.Requests()); n != want {
			t.Errorf("%s: recorded %d requests, want %d", way.name, n, want)
		}
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

// TestAppendResponsePayloadMatchesValues: the payloads written straight
// are the bytes of ResponsePayloads' Values, for whole and streamed turns,
// escapes and a character split across chunks, calls with and without arguments, and
// arguments held as text (valid and not).
func TestAppendResponsePayloadMatchesValues(t *testing.T) {
	args := jsonv.Obj(jsonv.M("q", jsonv.Str("a \"quoted\"\n\u0001 é")), jsonv.M("n", jsonv.Int(3)), jsonv.M("f", jsonv.Float(1.5)))
	turns := []Turn{
		{},
		{Content: "plain", Stop: true},
		{Content: "tab\there \"q\" \\ \u001f é 😀", ToolCalls: []reducer.ToolCall{
			{ID: "call-1", Name: "lookup", Arguments: args},
			{ID: "call\n2", Name: "none"},
			{ID: "call-3", Name: "text", ArgumentsJSON: []byte(`{"b":[1,2.50,{"c":null}],"a":"x"}`)},
			{ID: "call-4", Name: "broken", ArgumentsJSON: []byte(`{"b":`), Arguments: args},
		}},
		{Chunks: []string{"Observe ", "events, ", "not hidden state."}, ToolCalls: []reducer.ToolCall{{ID: "c", Name: "n", Arguments: args}}},
		{Chunks: []string{"a\\", "\"b", "", "\n", "é😀\u0000", "\xe2\x82", "\xac"}, Stop: true},
		{Chunks: []string{"only"}},
	}
	for n, tu := range turns {
		want := tu.ResponsePayloads(n + 1)
		if got := tu.ResponseCount(); got != len(want) {
			t.Fatalf("turn %d: ResponseCount %d, ResponsePayloads has %d", n, got, len(want))
		}
		for i, p := range want {
			got := tu.AppendResponsePayload([]byte("prefix "), n+1, i)
			if diff := cmp.Diff(string(p.AppendJSON([]byte("prefix "))), string(got)); diff != "" {
				t.Errorf("turn %d payload %d (-want +got):\n%s", n, i, diff)
			}
		}
	}
}
