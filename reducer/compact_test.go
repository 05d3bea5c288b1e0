package reducer

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// s08Messages is the history the reference's s08 run holds before its
// second model request.
func s08Messages() []Message {
	tool := `{"artifact": "artifact://large-report", "preview": "`
	for i := 0; i < 32; i++ {
		tool += "verified-output-"
	}
	tool += `"}`
	return []Message{
		{Role: RoleSystem, Content: s08System},
		{Role: RoleUser, Content: "Inspect the report, then continue from a compacted checkpoint."},
		{Role: RoleAssistant, Content: "I will inspect the artifact.", ToolCalls: []ToolCall{{ID: "call-artifact", Name: "inspect_artifact", Arguments: jsonv.Obj()}}},
		{Role: RoleTool, Content: tool, Name: "inspect_artifact", ToolCallID: "call-artifact"},
	}
}

func TestCompactReproducesTheReferencePayload(t *testing.T) {
	c := s08Compactor()
	msgs := s08Messages()
	if !c.ShouldCompact(msgs) || c.ShouldCompact(msgs[:2]) {
		t.Fatalf("ShouldCompact: full %v, first two %v; want true, false", c.ShouldCompact(msgs), c.ShouldCompact(msgs[:2]))
	}
	got, err := c.Compact(msgs)
	if err != nil {
		t.Fatal(err)
	}
	// The bytes of the reference golden's context.compact payload.
	const want = `{"dropped_messages":3,"original_chars":720,"final_chars":232,"summary_chars":145,"source_sha256":"52f6e96f6f2ff9ef899d78dc4ce685ec552ffd28ab6e3347a0dbbf41d157ef42"}`
	if p := string(got.Payload().AppendJSON(nil)); p != want {
		t.Errorf("payload\n got %s\nwant %s", p, want)
	}
	wantMsgs := []Message{
		{Role: RoleSystem, Content: s08System},
		{Role: RoleAssistant, Content: "[compacted checkpoint]\n" + s08Summary},
	}
	if diff := cmp.Diff(wantMsgs, got.Messages, cmpOpts()); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if len(msgs) != 4 || msgs[1].Role != RoleUser {
		t.Error("Compact modified its input")
	}
}

func TestCompactKeepsRecentMessagesAndStrips(t *testing.T) {
	msgs := []Message{
		{Role: RoleUser, Content: "one"},
		{Role: RoleAssistant, Content: "two"},
		{Role: RoleUser, Content: "three"},
	}
	var seen []Message
	c := &Compactor{TriggerChars: 0, KeepRecentMessages: 1, Summarize: func(d []Message) string {
		seen = d
		return "\x1f\t summary \n\u00a0" // Python's strip() removes all of these
	}}
	got, err := c.Compact(msgs)
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{
		{Role: RoleAssistant, Content: CheckpointPrefix + "summary"},
		{Role: RoleUser, Content: "three"},
	}
	if diff := cmp.Diff(want, got.Messages, cmpOpts()); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if got.Dropped != 2 || len(seen) != 2 || got.Summary != "summary" || got.SummaryChars() != 7 {
		t.Errorf("dropped %d, summarizer saw %d, summary %q (%d chars)", got.Dropped, len(seen), got.Summary, got.SummaryChars())
	}
	if got.OriginalChars != 11 || got.FinalChars != len(CheckpointPrefix)+7+5 {
		t.Errorf("chars %d -> %d", got.OriginalChars, got.FinalChars)
	}
}

func TestCompactRefuses(t *testing.T) {
	sys := Message{Role: RoleSystem, Content: "s"}
	user := Message{Role: RoleUser, Content: "u"}
	tests := []struct {
		name string
		c    Compactor
		msgs []Message
		want error
	}{
		{"only a system message", Compactor{Summarize: FixedSummary("x")}, []Message{sys}, ErrNothingToCompact},
		{"everything is recent", Compactor{KeepRecentMessages: 5, Summarize: FixedSummary("x")}, []Message{sys, user}, ErrNothingToCompact},
		{"blank summary", Compactor{Summarize: FixedSummary(" \n ")}, []Message{user}, ErrEmptySummary},
		{"no summarizer", Compactor{}, []Message{user}, ErrEmptySummary},
	}
	for _, tc := range tests {
		if _, err := tc.c.Compact(tc.msgs); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestWireOmitsUnsetFieldsAndToolCalls(t *testing.T) {
	tests := []struct {
		m    Message
		want string
	}{
		{Message{Role: RoleUser, Content: "hi"}, `{"role":"user","content":"hi"}`},
		{Message{Role: RoleAssistant, Content: "", ToolCalls: []ToolCall{{ID: "c"}}}, `{"role":"assistant","content":""}`},
		{Message{Role: RoleTool, Content: "{}", Name: "echo", ToolCallID: "c"}, `{"role":"tool","content":"{}","name":"echo","tool_call_id":"c"}`},
	}
	for _, tc := range tests {
		if got := string(tc.m.Wire().AppendJSON(nil)); got != tc.want {
			t.Errorf("Wire() = %s, want %s", got, tc.want)
		}
	}
}
