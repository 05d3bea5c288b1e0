package reducer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	_ "github.com/sebdah/goldie/v2" // registers -update so `go test ./... -update` runs here too

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// The reference's s08 lesson: its system prompt and fixed summary.
const (
	s08System  = "Use explicit artifact handles and preserve verified constraints."
	s08Summary = "The user requested an artifact inspection. The artifact was stored as artifact://large-report and its verified conclusion is: tests remain green."
)

func s08Compactor() *Compactor {
	return &Compactor{TriggerChars: 260, KeepRecentMessages: 0, Summarize: FixedSummary(s08Summary)}
}

// readGolden reads one of the committed golden traces (a single run).
func readGolden(tb testing.TB, id string) []journal.Event {
	tb.Helper()
	f, err := os.Open(filepath.Join("..", "golden", id+".trace.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	j, err := journal.Read(f, id)
	if err != nil {
		tb.Fatal(err)
	}
	return j.Events()
}

func cmpOpts() cmp.Option { return cmp.Comparer(jsonv.Equal) }

func TestHistoryRebuildsTheReferenceLessons(t *testing.T) {
	echoCall := ToolCall{ID: "call-001", Name: "echo", Arguments: jsonv.Obj(jsonv.M("text", jsonv.Str("hello")))}
	tests := []struct {
		id   string
		cfg  HistoryConfig
		want []Message
	}{
		{"s01-agent-loop", HistoryConfig{}, []Message{
			{Role: RoleUser, Content: "Explain an agent loop in one sentence."},
			{Role: RoleAssistant, Content: "A harness keeps calling the model until work stops."},
		}},
		{"s02-events-streaming", HistoryConfig{}, []Message{
			{Role: RoleUser, Content: "Stream one observability rule."},
			{Role: RoleAssistant, Content: "Observe events, not hidden state."}, // one message, the final accumulated text
		}},
		{"s03-tool-dispatch", HistoryConfig{}, []Message{
			{Role: RoleUser, Content: "Use the echo tool, then report its result."},
			{Role: RoleAssistant, Content: "", ToolCalls: []ToolCall{echoCall}},
			{Role: RoleTool, Content: `{"echo": "hello"}`, Name: "echo", ToolCallID: "call-001"},
			{Role: RoleAssistant, Content: "The echo tool returned hello."},
		}},
		{"s08-context-compaction", HistoryConfig{SystemPrompt: s08System, Compactor: s08Compactor()}, []Message{
			{Role: RoleSystem, Content: s08System},
			{Role: RoleAssistant, Content: CheckpointPrefix + s08Summary},
			{Role: RoleAssistant, Content: "The compacted checkpoint preserves the verified conclusion."},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			got, err := History(readGolden(t, tc.id), tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpOpts()); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHistoryFailsWhereTheJournalDisagrees(t *testing.T) {
	s08 := readGolden(t, "s08-context-compaction")
	withPayload := func(events []journal.Event, seq int, key string, v jsonv.Value) []journal.Event {
		out := append([]journal.Event(nil), events...)
		out[seq].Payload = out[seq].Payload.With(key, v)
		return out
	}
	full := HistoryConfig{SystemPrompt: s08System, Compactor: s08Compactor()}
	tests := []struct {
		name    string
		events  []journal.Event
		cfg     HistoryConfig
		eventID string
		pointer string
		msg     string
	}{
		{"system prompt not supplied", s08, HistoryConfig{Compactor: s08Compactor()},
			"evt-002", "/payload/roles", "the journal does not record the system prompt: give the one the run used"},
		{"compactor not supplied", s08, HistoryConfig{SystemPrompt: s08System},
			"evt-006", "", "needs the compactor settings the run used"},
		{"another summary", s08, HistoryConfig{SystemPrompt: s08System, Compactor: &Compactor{TriggerChars: 260, Summarize: FixedSummary("Shorter.")}},
			"evt-006", "/payload/final_chars", "the live run recorded 232"},
		{"another system prompt", s08, HistoryConfig{SystemPrompt: "Be brief.", Compactor: s08Compactor()},
			"evt-006", "/payload/original_chars", "the live run recorded 720"},
		{"a recorded digest that does not match", withPayload(s08, 6, "source_sha256", jsonv.Str("00")), full,
			"evt-006", "/payload/source_sha256", "digest 00"},
		{"a message count that does not match", withPayload(s08, 7, "message_count", jsonv.Int(3)), full,
			"evt-007", "/payload/message_count", "the model saw 3 messages"},
		{"context.prune is not modelled", withPayload(append(s08[:2:2], journal.Event{EventID: "evt-x", Type: "context.prune", Payload: jsonv.Obj()}), 0, "max_turns", jsonv.Int(8)), full,
			"evt-x", "", "context.prune"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := History(tc.events, tc.cfg)
			var he *HistoryError
			if !errors.As(err, &he) {
				t.Fatalf("err = %v, want a *HistoryError", err)
			}
			if he.EventID != tc.eventID || he.Pointer != tc.pointer || !strings.Contains(he.Error(), tc.msg) {
				t.Errorf("err = %q (event %s, pointer %q); want event %s, pointer %q, mentioning %q", he, he.EventID, he.Pointer, tc.eventID, tc.pointer, tc.msg)
			}
			// What was missing is typed, so that a caller can name its
			// own way to supply it; the message names no Go field.
			wantMissing := map[string]error{"system prompt not supplied": ErrNoSystemPrompt, "compactor not supplied": ErrNoCompactor}[tc.name]
			if he.Missing != wantMissing || (wantMissing != nil && !errors.Is(err, wantMissing)) {
				t.Errorf("Missing = %v, want %v", he.Missing, wantMissing)
			}
			if strings.Contains(he.Error(), "HistoryConfig") {
				t.Errorf("the message names a Go field: %q", he)
			}
		})
	}
}

func TestHistoryAcrossRunsAndRepairs(t *testing.T) {
	// A run interrupted after a tool.request, then a repair in a later run
	// and a new user turn: History continues across runs and the repaired
	// call is answered.
	ev := func(seq int64, typ string, payload jsonv.Value) journal.Event {
		return journal.Event{Sequence: seq, EventID: "e", Type: typ, Payload: payload}
	}
	call := ToolCall{ID: "call-7", Name: "run_tests", Arguments: jsonv.Obj()}
	events := []journal.Event{
		ev(0, "session.start", jsonv.Obj()),
		ev(1, "user.message", jsonv.Obj(jsonv.M("content", jsonv.Str("test it")))),
		ev(2, "model.request", jsonv.Obj(jsonv.M("message_count", jsonv.Int(1)))),
		ev(3, "model.response", jsonv.Obj(jsonv.M("turn", jsonv.Int(1)), jsonv.M("delta", jsonv.Str("On ")), jsonv.M("accumulated", jsonv.Str("On ")), jsonv.M("final", jsonv.BoolValue(false)), jsonv.M("tool_calls", jsonv.Arr()))),
		ev(4, "model.response", jsonv.Obj(jsonv.M("turn", jsonv.Int(1)), jsonv.M("delta", jsonv.Str("it.")), jsonv.M("accumulated", jsonv.Str("On it.")), jsonv.M("final", jsonv.BoolValue(true)), jsonv.M("tool_calls", jsonv.Arr()))),
		ev(5, "tool.request", jsonv.Obj(jsonv.M("tool_call_id", jsonv.Str("call-7")), jsonv.M("tool", jsonv.Str("run_tests")), jsonv.M("arguments", jsonv.Obj()))),
	}
	h, err := History(events, HistoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]ToolCall{call}, UnansweredCalls(h), cmpOpts()); diff != "" {
		t.Fatalf("unanswered after the interruption (-want +got):\n%s", diff)
	}
	// The next run: the repair, then a new user message and a request that
	// saw all of it.
	events = append(events,
		ev(0, "session.start", jsonv.Obj()),
		ev(1, "tool.result", InterruptedToolResult(call)),
		ev(2, "user.message", jsonv.Obj(jsonv.M("content", jsonv.Str("again")))),
		ev(3, "model.request", jsonv.Obj(jsonv.M("message_count", jsonv.Int(4)), jsonv.M("roles", jsonv.StrArr([]string{"user", "assistant", "tool", "user"})))),
	)
	h, err = History(events, HistoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{
		{Role: RoleUser, Content: "test it"},
		{Role: RoleAssistant, Content: "On it.", ToolCalls: []ToolCall{call}},
		{Role: RoleTool, Name: "run_tests", ToolCallID: "call-7",
			Content: `{"error": "` + InterruptedToolError + `", "error_type": "SessionResumeInterrupted", "ok": false}`},
		{Role: RoleUser, Content: "again"},
	}
	if diff := cmp.Diff(want, h, cmpOpts()); diff != "" {
		t.Errorf("history after repair (-want +got):\n%s", diff)
	}
	if u := UnansweredCalls(h); len(u) != 0 {
		t.Errorf("after the repair %d calls are still unanswered", len(u))
	}
}

func TestUnansweredCalls(t *testing.T) {
	a := func(ids ...string) Message {
		m := Message{Role: RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: "t"})
		}
		return m
	}
	tool := func(id string) Message { return Message{Role: RoleTool, ToolCallID: id, Name: "t"} }
	tests := []struct {
		name string
		h    []Message
		want []string
	}{
		{"empty", nil, nil},
		{"no calls", []Message{{Role: RoleUser}, a()}, nil},
		{"all answered", []Message{a("1", "2"), tool("1"), tool("2")}, nil},
		{"second of two open", []Message{a("1", "2"), tool("1")}, []string{"2"}},
		{"both open", []Message{a("1", "2")}, []string{"1", "2"}},
		{"a reused id answers the earliest open call", []Message{a("x"), tool("x"), a("x")}, []string{"x"}},
		{"a result for an unknown call answers nothing", []Message{a("1"), tool("9")}, []string{"1"}},
	}
	for _, tc := range tests {
		var got []string
		for _, c := range UnansweredCalls(tc.h) {
			got = append(got, c.ID)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestToolResultContentIsPythonsSpacedSortedJSON(t *testing.T) {
	parse := func(s string) jsonv.Value {
		v, err := jsonv.Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Expected strings are Python's json.dumps(value, ensure_ascii=False,
	// sort_keys=True) of the same value.
	tests := []struct {
		payload string
		want    string
	}{
		{`{"ok":true,"result":{"echo":"hello"}}`, `{"echo": "hello"}`},
		{`{"ok":true,"result":{"b":[1,2.5,{"z":null,"a":true}],"a":"é\"\n</>"}}`, `{"a": "é\"\n</>", "b": [1, 2.5, {"a": true, "z": null}]}`},
		{`{"ok":true,"result":[]}`, `[]`},
		{`{"ok":true,"result":{}}`, `{}`},
		{`{"ok":true,"result":1e20}`, `1e+20`},
		{`{"ok":true,"result":"plain"}`, `"plain"`},
		{`{"tool":"t","ok":false,"error":"unknown tool: x","error_type":"ToolValidationError"}`, `{"error": "unknown tool: x", "error_type": "ToolValidationError", "ok": false}`},
	}
	for _, tc := range tests {
		if got := ToolResultContent(parse(tc.payload)); got != tc.want {
			t.Errorf("ToolResultContent(%s) = %s, want %s", tc.payload, got, tc.want)
		}
	}
}

func TestMessageCharsCountCodePoints(t *testing.T) {
	m := Message{Role: RoleUser, Content: "né ✓ 🙂"} // 6 code points, 11 bytes
	if m.Chars() != 6 {
		t.Errorf("Chars() = %d, want 6 (Python's len)", m.Chars())
	}
	if n := TotalChars([]Message{m, m}); n != 12 {
		t.Errorf("TotalChars = %d, want 12", n)
	}
}
