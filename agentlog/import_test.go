package agentlog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/reducer"
)

// importedEvent is what these tests read of an imported event.
type importedEvent struct {
	Type       string         `json:"type"`
	Actor      map[string]any `json:"actor"`
	Payload    map[string]any `json:"payload"`
	Provenance map[string]any `json:"provenance"`
	Redaction  struct {
		Status string   `json:"status"`
		Fields []string `json:"fields"`
	} `json:"redaction"`
	raw string
}

// importFixture imports a fixture and returns its Trace (validated) and
// its events.
func importFixture(t *testing.T, path string, f Format) ([]byte, []importedEvent) {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out bytes.Buffer
	if _, err := Import(in, path, f, &out); err != nil {
		t.Fatalf("import: %v", err)
	}
	if errs := journal.Validate(bytes.NewReader(out.Bytes()), "import"); len(errs) > 0 {
		t.Fatalf("the trace does not validate: %v\n%s", errs, out.String())
	}
	var evs []importedEvent
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e importedEvent
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		e.raw = l
		evs = append(evs, e)
	}
	return out.Bytes(), evs
}

// atLine returns the events imported from one source line.
func atLine(evs []importedEvent, line int) []importedEvent {
	var at []importedEvent
	for _, e := range evs {
		if n, _ := e.Payload["source_line"].(float64); int(n) == line {
			at = append(at, e)
		}
	}
	return at
}

// oneAt returns the one event of a line, failing when there is not one.
func oneAt(t *testing.T, evs []importedEvent, line int) importedEvent {
	t.Helper()
	at := atLine(evs, line)
	if len(at) != 1 {
		t.Fatalf("line %d: %d events, want 1: %v", line, len(at), at)
	}
	return at[0]
}

// TestImportTurnErrors: a Codex turn that ends in an error (task_complete
// with an error, 0.171) is an error event with the error's message, not
// dropped like a turn that succeeded; the error of a turn_aborted and of
// an event_msg error are carried as the message too.
func TestImportTurnErrors(t *testing.T) {
	cases := []struct {
		fixture      string
		line         int
		kind, detail string
		message      string
		none         []int // lines that import nothing
	}{
		{"codex/task-complete-error.jsonl", 10, "failed", "task_complete error",
			"stream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses)", []int{3, 6, 8}},
		{"codex/turn-aborted-error.jsonl", 5, "interrupted", "turn_aborted budget_limited", "This session reached its spending limit.", nil},
		{"codex/error-event.jsonl", 4, "failed", "error",
			"unexpected status 401 Unauthorized: Your authentication token has expired. Please sign in again.", nil},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			_, evs := importFixture(t, filepath.Join(agentFixtureRoot, c.fixture), Codex)
			e := oneAt(t, evs, c.line)
			if e.Type != "error" || e.Payload["kind"] != c.kind || e.Payload["detail"] != c.detail || e.Payload["message"] != c.message {
				t.Errorf("line %d imports as %s", c.line, e.raw)
			}
			if _, ok := e.Payload["native"].(map[string]any); !ok {
				t.Errorf("line %d: no native payload: %s", c.line, e.raw)
			}
			for _, n := range c.none {
				if at := atLine(evs, n); len(at) != 0 {
					t.Errorf("line %d imports as %v, want nothing", n, at[0].raw)
				}
			}
		})
	}
}

// TestImportClaudeAPIError: the assistant message Claude Code writes when an
// API request failed is an error event with its text, not a model reply,
// and its "<synthetic>" model names no event's model.
func TestImportClaudeAPIError(t *testing.T) {
	_, evs := importFixture(t, filepath.Join(agentFixtureRoot, "claude-code/api-error.jsonl"), ClaudeCode)
	e := oneAt(t, evs, 2)
	msg, _ := e.Payload["message"].(string)
	if e.Type != "error" || e.Payload["kind"] != "failed" || e.Payload["detail"] != "API error invalid_request" ||
		!strings.HasPrefix(msg, "API Error: 400 ") || e.Actor["kind"] != "harness" {
		t.Errorf("line 2 imports as %s", e.raw)
	}
	for _, e := range evs {
		if e.Provenance["model"] == claudeSyntheticModel || e.Actor["id"] == claudeSyntheticModel {
			t.Errorf("%q taken for a model: %s", claudeSyntheticModel, e.raw)
		}
	}
	if _, ok := oneAt(t, evs, 3).Provenance["model"]; ok {
		t.Errorf("line 3 names a model, but no model has answered yet: %s", oneAt(t, evs, 3).raw)
	}
	if e := oneAt(t, evs, 4); e.Type != "model.response" || e.Provenance["model"] != "claude-sonnet-4-5" {
		t.Errorf("line 4 imports as %s", e.raw)
	}
}

// TestImportSkipsBookkeeping: Codex token_usage_record and Claude Code
// last-prompt records are known (the fixtures lint clean) and import
// writes nothing for them; Codex's token_count still gives metric.sample.
func TestImportSkipsBookkeeping(t *testing.T) {
	_, evs := importFixture(t, filepath.Join(agentFixtureRoot, "codex/token-usage-record.jsonl"), Codex)
	if at := atLine(evs, 5); len(at) != 0 {
		t.Errorf("token_usage_record imports as %s", at[0].raw)
	}
	if e := oneAt(t, evs, 6); e.Type != "metric.sample" {
		t.Errorf("token_count imports as %s", e.raw)
	}
	_, evs = importFixture(t, filepath.Join(agentFixtureRoot, "claude-code/last-prompt.jsonl"), ClaudeCode)
	if at := atLine(evs, 3); len(at) != 0 {
		t.Errorf("last-prompt imports as %s", at[0].raw)
	}
}

// TestImportContentIsText: content parts become the text the model reads
// (parts joined by a newline, an image as [image]; the native parts kept
// beside it when the text leaves something out), so that view shows words
// and replay holds the text, not a Python repr of a list.
func TestImportContentIsText(t *testing.T) {
	type want struct {
		line       int
		typ, key   string
		text       string
		keepsParts bool
	}
	cases := []struct {
		fixture string
		format  Format
		want    []want
		user    []string // the replay's user messages
		model   []string // and the model's
	}{
		{"codex/content-parts.jsonl", Codex, []want{
			{3, "instruction.accept", "content", "<permissions instructions>workspace-write</permissions instructions>\n<collaboration_mode>default</collaboration_mode>", false},
			{4, "user.message", "content", "what is in this picture?\n[image]\nanswer in one line", true},
			{5, "model.response", "reasoning", "**Looking at the image**\nIt is one pixel.", false},
			{6, "model.response", "content", "A single white pixel.\nNothing else.", false},
		}, []string{"what is in this picture?\n[image]\nanswer in one line"}, []string{"A single white pixel.\nNothing else."}},
		{"claude-code/content-blocks.jsonl", ClaudeCode, []want{
			{1, "user.message", "content", "Look at this screenshot\n[image]\nwhat is wrong?", true},
			{2, "model.response", "content", "Let me run the build.", false},
			{5, "model.response", "content", "The link step fails.", false},
		}, []string{"Look at this screenshot\n[image]\nwhat is wrong?", "it fails like this"},
			[]string{"Let me run the build.", "The link step fails."}},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			trace, evs := importFixture(t, filepath.Join(agentFixtureRoot, c.fixture), c.format)
			for _, w := range c.want {
				e := oneAt(t, evs, w.line)
				_, parts := e.Payload["native_"+w.key].([]any)
				if e.Type != w.typ || e.Payload[w.key] != w.text || parts != w.keepsParts {
					t.Errorf("line %d imports as %s; want %s %s %q (native parts kept: %v)", w.line, e.raw, w.typ, w.key, w.text, w.keepsParts)
				}
			}
			j, err := journal.Read(bytes.NewReader(trace), "import")
			if err != nil {
				t.Fatal(err)
			}
			st := reducer.Replay(j)
			if diff := cmp.Diff(c.user, st.UserMessages); diff != "" {
				t.Errorf("replay's user messages (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.model, st.AssistantMessages); diff != "" {
				t.Errorf("replay's model messages (-want +got):\n%s", diff)
			}
		})
	}

	// A Claude Code user line with a tool_result and text: the result is its
	// own tool.result (its content blocks as text), the text is the user
	// message.
	_, evs := importFixture(t, filepath.Join(agentFixtureRoot, "claude-code/content-blocks.jsonl"), ClaudeCode)
	at := atLine(evs, 4)
	if len(at) != 2 || at[0].Type != "tool.result" || at[0].Payload["ok"] != false || at[1].Type != "user.message" || at[1].Payload["content"] != "it fails like this" {
		t.Fatalf("line 4 imports as %v", at)
	}
	if at[0].Payload["error"] != "make: *** [all] Error 1" || at[0].Payload["tool"] != "Bash" || at[0].Payload["native_error"] != nil {
		t.Errorf("tool_result mapping changed: %s", at[0].raw)
	}
	if e := oneAt(t, evs, 3); e.Type != "tool.request" || e.Payload["tool"] != "Bash" {
		t.Errorf("tool_use mapping changed: %s", e.raw)
	}
}

// TestImportedMessagesAreText: in the import of every fixture, a user or
// model message's content (and a reasoning) is a string, whatever the
// source held.
func TestImportedMessagesAreText(t *testing.T) {
	fx := ownFixtures(t)
	if _, err := os.Stat(sharedRoot); err == nil {
		fx = append(fx, sharedFixtures(t)...)
	}
	for _, x := range fx {
		_, evs := importFixture(t, x.path, x.format)
		for _, e := range evs {
			if e.Type != "user.message" && e.Type != "model.response" {
				continue
			}
			for _, k := range []string{"content", "reasoning"} {
				if v, ok := e.Payload[k]; ok {
					if _, isText := v.(string); !isText {
						t.Errorf("%s: %s %s is not text: %s", x.path, e.Type, k, e.raw)
					}
				}
			}
		}
	}
}

// partsText is appendPartsText's text, decoded.
func partsText(t *testing.T, v jsonValue) (string, bool) {
	t.Helper()
	b, lossy := appendPartsText([]byte{'"'}, v)
	var s string
	if err := json.Unmarshal(append(b, '"'), &s); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return s, lossy
}

// TestContentTextEdgeCases: what appendPartsText makes of content that is
// not a list of text parts.
func TestContentTextEdgeCases(t *testing.T) {
	cases := []struct {
		in, text string
		lossy    bool
	}{
		{`"plain"`, "plain", false},
		{`[]`, "", false},
		{`["a",{"type":"text","text":"b"}]`, "a\nb", false},
		{`[{"type":"input_text","text":""},{"type":"output_text","text":"x"}]`, "\nx", false},
		{`[{"type":"tool_result","tool_use_id":"t","content":"r"},{"type":"text","text":"t"}]`, "t", false},
		{`[{"type":"document","source":{}},{"type":"text"}]`, "[document]\n[text]", true},
		{`[{"text":"no type"}]`, "[part]", true},
		{`{"type":"web_search_tool_result","content":[]}`, "[web_search_tool_result]", true},
		{`null`, "", true},
		{`[{"type":"text","text":"esc\u00e9 \"q\"\n"},{"type":"te\u0078t","text":"x"}]`, "escé \"q\"\n\nx", false},
		{`[{"type":7}]`, "[part]", true},
	}
	var d docReader
	for _, c := range cases {
		root, err := d.object([]byte(`{"c":` + c.in + `}`))
		if err != nil {
			t.Fatal(err)
		}
		if text, lossy := partsText(t, root.Get("c")); text != c.text || lossy != c.lossy {
			t.Errorf("%s: %q lossy %v, want %q %v", c.in, text, lossy, c.text, c.lossy)
		}
	}
}

// TestCodexTurnErrorShapes: a task_complete error may be a string or an
// object with a message; one without either still imports as a failure.
func TestCodexTurnErrorShapes(t *testing.T) {
	head := `{"timestamp":"2026-11-20T08:00:00.000Z","type":"session_meta","payload":{"id":"s","cli_version":"0.171.0"}}` + "\n"
	for in, want := range map[string]string{
		`"error":"boom"`:                   `"kind":"failed","message":"boom","detail":"task_complete error"`,
		`"error":{"message":"boom"}`:       `"kind":"failed","message":"boom","detail":"task_complete error"`,
		`"error":{"codex_error_info":"x"}`: `"kind":"failed","detail":"task_complete error"`,
		`"error":null`:                     ``,
	} {
		line := `{"timestamp":"2026-11-20T08:00:01.000Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t",` + in + `}}` + "\n"
		var out bytes.Buffer
		if _, err := Import(strings.NewReader(head+line), "t", Codex, &out); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if want == "" {
			if len(lines) != 1 {
				t.Errorf("%s: imported %s", in, out.String())
			}
			continue
		}
		if len(lines) != 2 || !strings.Contains(lines[1], `"type":"error"`) || !strings.Contains(lines[1], want) {
			t.Errorf("%s: imported %s, want %s", in, out.String(), want)
		}
	}
}

// TestImportSidechainToolResultText: a subagent's tool_result block whose
// content is an array of parts is an agent.message with the parts' text, as
// a main-chain tool.result is.
func TestImportSidechainToolResultText(t *testing.T) {
	in := `{"type":"user","uuid":"s1","parentUuid":null,"isSidechain":true,"agentId":"a1","sessionId":"s","timestamp":"2026-12-02T03:25:38.566Z","message":{"role":"user","content":"look"}}
{"type":"assistant","uuid":"s2","parentUuid":"s1","isSidechain":true,"agentId":"a1","sessionId":"s","timestamp":"2026-12-02T03:25:39.000Z","message":{"role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"x"}}]}}
{"type":"user","uuid":"s3","parentUuid":"s2","isSidechain":true,"agentId":"a1","sessionId":"s","timestamp":"2026-12-02T03:25:40.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"line 1"},{"type":"text","text":"line 2"}]}]}}
`
	var out bytes.Buffer
	if _, err := Import(strings.NewReader(in), "side", ClaudeCode, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var e importedEvent
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &e); err != nil {
		t.Fatal(err)
	}
	if e.Type != "agent.message" || e.Payload["item"] != "tool_result" || e.Payload["content"] != "line 1\nline 2" {
		t.Errorf("the subagent's tool result imports as %s", lines[len(lines)-1])
	}
}
