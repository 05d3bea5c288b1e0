package agentlog

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/reducer"
)

// The real-*.jsonl fixtures in testdata/<format>/ are cut from session logs
// the agents themselves wrote (tracecheck agent run against the scripted
// model: Codex CLI 0.171, Claude Code 2.1.332, pi 0.73), their /tmp paths
// replaced with /work/project; each sidecar says which lines of which run.

// realFixtures returns the real-log fixtures, at least one per agent.
func realFixtures(t *testing.T) []fixture {
	t.Helper()
	var fx []fixture
	for _, f := range []Format{Codex, ClaudeCode, Pi} {
		paths, err := filepath.Glob(filepath.Join(agentFixtureRoot, f.String(), "real-*.jsonl"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no real-log fixture for %s: %v", f, err)
		}
		for _, p := range paths {
			fx = append(fx, fixture{path: p, format: f, want: readWant(t, p+".want")})
		}
	}
	return fx
}

// TestRealLogsLintClean: a log the agent really wrote has no finding of
// warning or error severity, and every record type in it is known (an
// UNKNOWN_RECORD on a real log is a gap in what tracecheck knows).
func TestRealLogsLintClean(t *testing.T) {
	for _, x := range realFixtures(t) {
		rep := lintPath(t, x.path, Options{})
		if rep.Format != x.format {
			t.Errorf("%s: detected %s, want %s", x.path, rep.Format, x.format)
		}
		for _, f := range rep.Findings {
			if f.Severity != Info || f.Code == UnknownRecord {
				t.Errorf("%s:%d: %s %s %s", x.path, f.Line, f.Severity, f.Code, f.Message)
			}
		}
	}
}

// TestRealLogsImportAsText: in the import of a real log, every message
// text, tool result and error message is a string (what view shows as
// words and replay holds as text), never the native array of parts.
func TestRealLogsImportAsText(t *testing.T) {
	keys := map[string][]string{
		"user.message": {"content"}, "model.response": {"content", "reasoning"}, "instruction.accept": {"content"},
		"tool.result": {"result", "error"}, "error": {"message"}, "context.compact": {"summary"},
	}
	for _, x := range realFixtures(t) {
		_, evs := importFixture(t, x.path, x.format)
		for _, e := range evs {
			for _, k := range keys[e.Type] {
				if v, ok := e.Payload[k]; ok {
					if _, isText := v.(string); !isText {
						t.Errorf("%s: %s %s is not text: %s", x.path, e.Type, k, e.raw)
					}
				}
			}
		}
	}
}

// TestImportRealClaudeBookkeeping: the request log (api-request-shape,
// api-request-blob, api-request), atis-latch, tools-used and cost-state
// are known record types (TestRealLogsLintClean) that write no event.
func TestImportRealClaudeBookkeeping(t *testing.T) {
	for _, name := range []string{"real-request-log.jsonl", "real-session-state.jsonl", "real-cost-state.jsonl"} {
		_, evs := importFixture(t, filepath.Join(agentFixtureRoot, "claude-code", name), ClaudeCode)
		if len(evs) != 1 || evs[0].Type != "user.message" {
			t.Errorf("%s: want only the user message, got %d events: %v", name, len(evs), evs)
		}
	}
}

// TestImportParentThroughSkippedEntries: Claude Code 2.1.332 chains a
// turn's attachments between the prompt and the model's reply, so the
// reply's parentUuid names an attachment, which import does not write; its
// parent_event_id is the nearest written entry up the chain instead of
// absent.
func TestImportParentThroughSkippedEntries(t *testing.T) {
	_, evs := importFixture(t, filepath.Join(agentFixtureRoot, "claude-code/real-attachment-chain.jsonl"), ClaudeCode)
	user := oneAt(t, evs, 1)
	for n := 2; n <= 11; n++ {
		if at := atLine(evs, n); len(at) != 0 {
			t.Errorf("line %d imports as %s", n, at[0].raw)
		}
	}
	call := oneAt(t, evs, 12)
	if got, want := parentOf(t, call.raw), eventID(t, user.raw); call.Type != "tool.request" || got != want {
		t.Errorf("the tool call's parent is %q, want the user message %q: %s", got, want, call.raw)
	}
	res := oneAt(t, evs, 13)
	if got, want := parentOf(t, res.raw), eventID(t, call.raw); got != want {
		t.Errorf("the tool result's parent is %q, want %q", got, want)
	}

	// A chain of skipped entries longer than the ones remembered at once:
	// each link is looked up one step up, so the reply still finds the
	// prompt.
	var b strings.Builder
	line := func(typ, id, parent, rest string) {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		fmt.Fprintf(&b, `{"type":%q,"uuid":%q,"parentUuid":%s,"sessionId":"s","timestamp":"2026-12-02T03:25:38.566Z"%s}`+"\n", typ, id, p, rest)
	}
	line("user", "u", "", `,"message":{"role":"user","content":"hi"}`)
	prev := "u"
	for i := 0; i < 3*maxPassed; i++ {
		id := fmt.Sprintf("a%d", i)
		line("attachment", id, prev, `,"attachment":{"type":"date","date":"2026-12-02"}`)
		prev = id
	}
	line("assistant", "r", prev, `,"message":{"role":"assistant","model":"m","content":[{"type":"text","text":"hello"}]}`)
	var out bytes.Buffer
	if _, err := Import(strings.NewReader(b.String()), "chain", ClaudeCode, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || parentOf(t, lines[1]) != "u" {
		t.Errorf("a long chain of attachments: %d events, the reply's parent %q, want u", len(lines), parentOf(t, lines[len(lines)-1]))
	}
}

func parentOf(t *testing.T, raw string) string {
	t.Helper()
	var d docReader
	v, err := d.object([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return v.Get("parent_event_id").Str()
}

func eventID(t *testing.T, raw string) string {
	t.Helper()
	var d docReader
	v, err := d.object([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return v.Get("event_id").Str()
}

// TestImportRealPiToolResults: pi's toolResult content is an array of
// parts; the tool.result holds their text, for a success and an error
// alike (an array as an error read "[object Object]" in view).
func TestImportRealPiToolResults(t *testing.T) {
	cases := []struct {
		fixture string
		lines   []int
		ok      bool
		key     string
		text    []string
	}{
		{"pi/real-tool-results.jsonl", []int{6, 8}, true, "result", []string{"alpha\nbeta\ngamma\n", "3\n"}},
		{"pi/real-tool-errors.jsonl", []int{6, 8}, false, "error", []string{
			"ENOENT: no such file or directory, access '/work/project/missing.txt'", "oops\n\n\nCommand exited with code 3"}},
	}
	for _, c := range cases {
		_, evs := importFixture(t, filepath.Join(agentFixtureRoot, c.fixture), Pi)
		for i, n := range c.lines {
			e := oneAt(t, evs, n)
			if e.Type != "tool.result" || e.Payload["ok"] != c.ok || e.Payload[c.key] != c.text[i] || e.Payload["native_"+c.key] != nil {
				t.Errorf("%s line %d imports as %s; want %s %q", c.fixture, n, e.raw, c.key, c.text[i])
			}
		}
	}
}

// TestImportRealCodexContext: the <environment_context> Codex sends as a
// user message is an instruction.accept (role user), not the user's words;
// replay's user messages are only the prompt.
func TestImportRealCodexContext(t *testing.T) {
	trace, evs := importFixture(t, filepath.Join(agentFixtureRoot, "codex/real-context-messages.jsonl"), Codex)
	e := oneAt(t, evs, 3)
	content, _ := e.Payload["content"].(string)
	if e.Type != "instruction.accept" || e.Payload["role"] != "user" || !strings.HasPrefix(content, "<environment_context>") || e.Actor["kind"] != "harness" {
		t.Errorf("line 3 imports as %s", e.raw)
	}
	if e := oneAt(t, evs, 2); e.Type != "instruction.accept" || e.Payload["role"] != "developer" {
		t.Errorf("line 2 imports as %s", e.raw)
	}
	j, err := journal.Read(bytes.NewReader(trace), "import")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Read notes.txt, count its lines and tell me how many there are."}, reducer.Replay(j).UserMessages); diff != "" {
		t.Errorf("replay's user messages (-want +got):\n%s", diff)
	}

	// Without 0.171's metadata (older Codex), by the text's opening tag.
	head := `{"timestamp":"2026-11-20T08:00:00.000Z","type":"session_meta","payload":{"id":"s","cli_version":"0.40.0"}}` + "\n"
	for content, want := range map[string]string{
		`[{"type":"input_text","text":"<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"}]`:                                                                                      "instruction.accept",
		`[{"type":"input_text","text":"  <USER_INSTRUCTIONS>be brief</USER_INSTRUCTIONS>"}]`:                                                                                                   "instruction.accept",
		`[{"type":"input_text","text":"# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>x</INSTRUCTIONS>"}]`:                                                                                   "instruction.accept",
		`[{"type":"input_text","text":"what is <environment_context>?"}]`:                                                                                                                      "user.message",
		`[{"type":"input_text","text":"hello"}]`:                                                                                                                                               "user.message",
		`[{"type":"input_text","text":"<environment_context></environment_context>"}],"internal_chat_message_metadata_passthrough":{"content_item_metadata":[{"provenance":{"type":"user"}}]}`: "user.message",
		`[{"type":"input_text","text":"hello"}],"internal_chat_message_metadata_passthrough":{"content_item_metadata":[{}]}`:                                                                   "user.message",
		`[{"type":"input_text","text":"x"}],"internal_chat_message_metadata_passthrough":{"content_item_metadata":[{"provenance":{"type":"harness","hook":false}}]}`:                           "instruction.accept",
	} {
		line := `{"timestamp":"2026-11-20T08:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":` + content + `}}` + "\n"
		var out bytes.Buffer
		if _, err := Import(strings.NewReader(head+line), "t", Codex, &out); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 || !strings.Contains(lines[1], `"type":"`+want+`"`) {
			t.Errorf("%s: imported %s, want %s", content, out.String(), want)
		}
	}
}

// TestImportRealCodexTurnRecords: of a 0.171 turn's bookkeeping records only
// the header and token_count are written.
func TestImportRealCodexTurnRecords(t *testing.T) {
	_, evs := importFixture(t, filepath.Join(agentFixtureRoot, "codex/real-turn-records.jsonl"), Codex)
	var got []string
	for _, e := range evs {
		got = append(got, fmt.Sprintf("%v %s", e.Payload["source_line"], e.Type))
	}
	if diff := cmp.Diff([]string{"1 session.start", "8 metric.sample"}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
