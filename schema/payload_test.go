package schema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/schema"
)

// payloadFixture is one rule of the payload schemas broken once: the
// golden base with the payload of line Line edited, which validate
// accepts and validate --strict-payloads rejects at Pointer.
type payloadFixture struct {
	name    string
	base    string // a golden trace, under golden/
	line    int
	edit    func(p jsonv.Value) jsonv.Value
	eventID string
	pointer string
	message string // a substring of the message
}

func lit(s string) jsonv.Value {
	v, err := jsonv.Parse([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
}

func set(key, value string) func(jsonv.Value) jsonv.Value {
	return func(p jsonv.Value) jsonv.Value { return p.With(key, lit(value)) }
}

func del(keys ...string) func(jsonv.Value) jsonv.Value {
	return func(p jsonv.Value) jsonv.Value {
		for _, k := range keys {
			p = p.Without(k)
		}
		return p
	}
}

// PayloadFixtures are the fixtures in testdata/payloads, one per rule.
// cmd/tracecheck's tests run validate --strict-payloads on the same files.
var payloadFixtures = []payloadFixture{
	{"user-message-without-content", "s03-tool-dispatch", 2, del("content"), "evt-001", "/payload/content", "user.message payload: missing required member 'content'"},
	{"user-message-content-not-string", "s03-tool-dispatch", 2, set("content", `["Use the echo tool."]`), "evt-001", "/payload/content", "expected string, but got array"},
	{"model-request-negative-message-count", "s03-tool-dispatch", 3, set("message_count", "-1"), "evt-002", "/payload/message_count", "must be >= 0"},
	{"model-request-role-not-string", "s03-tool-dispatch", 3, set("roles", `[1]`), "evt-002", "/payload/roles/0", "expected string, but got number"},
	{"model-request-turn-zero", "s03-tool-dispatch", 3, set("turn", "0"), "evt-002", "/payload/turn", "must be >= 1"},
	{"model-response-content-not-string", "s03-tool-dispatch", 8, set("content", "42"), "evt-007", "/payload/content", "expected string, but got number"},
	{"model-response-without-content", "s03-tool-dispatch", 8, del("content"), "evt-007", "/payload/content", "missing required member 'content'"},
	{"model-response-stop-not-boolean", "s03-tool-dispatch", 8, set("stop", `"yes"`), "evt-007", "/payload/stop", "expected boolean, but got string"},
	{"model-response-tool-calls-not-array", "s03-tool-dispatch", 8, set("tool_calls", `{}`), "evt-007", "/payload/tool_calls", "expected array, but got object"},
	{"model-response-tool-call-without-id", "s03-tool-dispatch", 4, set("tool_calls", `[{"name":"echo","arguments":{"text":"hello"}}]`), "evt-003", "/payload/tool_calls/0/id", "missing required member 'id'"},
	{"model-response-tool-call-arguments-not-object", "s03-tool-dispatch", 4, set("tool_calls", `[{"id":"call-001","name":"echo","arguments":"{\"text\":\"hello\"}"}]`), "evt-003", "/payload/tool_calls/0/arguments", "expected object, but got string"},
	{"model-response-stream-without-final", "s02-events-streaming", 4, del("final"), "evt-003", "/payload/final", "missing required member 'final'"},
	{"model-response-stream-final-not-boolean", "s02-events-streaming", 6, set("final", `"true"`), "evt-005", "/payload/final", "expected boolean, but got string"},
	{"model-response-stream-final-without-accumulated", "s02-events-streaming", 6, del("accumulated"), "evt-005", "/payload/accumulated", "missing required member 'accumulated'"},
	{"model-response-stream-delta-not-string", "s02-events-streaming", 5, set("delta", "null"), "evt-004", "/payload/delta", "expected string, but got null"},
	{"tool-request-without-tool-call-id", "s03-tool-dispatch", 5, del("tool_call_id"), "evt-004", "/payload/tool_call_id", "missing required member 'tool_call_id'"},
	{"tool-request-tool-call-id-not-string", "s03-tool-dispatch", 5, set("tool_call_id", "1"), "evt-004", "/payload/tool_call_id", "expected string, but got number"},
	{"tool-request-empty-tool", "s03-tool-dispatch", 5, set("tool", `""`), "evt-004", "/payload/tool", "length must be >= 1"},
	{"tool-request-without-arguments", "s03-tool-dispatch", 5, del("arguments"), "evt-004", "/payload/arguments", "missing required member 'arguments'"},
	{"tool-request-arguments-array", "s03-tool-dispatch", 5, set("arguments", `["hello"]`), "evt-004", "/payload/arguments", "expected object or string, but got array"},
	{"tool-request-without-id-and-tool", "s03-tool-dispatch", 5, del("tool_call_id", "tool"), "evt-004", "/payload/tool", "missing required member 'tool'; /payload/tool_call_id: missing required member 'tool_call_id'"},
	{"tool-result-without-tool-call-id", "s03-tool-dispatch", 6, del("tool_call_id"), "evt-005", "/payload/tool_call_id", "missing required member 'tool_call_id'"},
	{"tool-result-without-ok", "s03-tool-dispatch", 6, del("ok"), "evt-005", "/payload/ok", "missing required member 'ok'"},
	{"tool-result-ok-not-boolean", "s03-tool-dispatch", 6, set("ok", `"true"`), "evt-005", "/payload/ok", "expected boolean, but got string"},
	{"tool-result-ok-without-result", "s03-tool-dispatch", 6, del("result"), "evt-005", "/payload/result", "missing required member 'result'"},
	{"tool-result-truncated-not-boolean", "s03-tool-dispatch", 6, set("truncated", "0"), "evt-005", "/payload/truncated", "expected boolean, but got number"},
	{"tool-result-failed-without-error", "tool-failures", 6, del("error"), "evt-005", "/payload/error", "missing required member 'error'"},
	{"tool-result-error-not-string", "tool-failures", 6, set("error", `{"message":"unknown tool: format_disk"}`), "evt-005", "/payload/error", "expected string, but got object"},
	{"session-start-resumed-without-run-id", "session-resume", 10, del("resumes_run_id"), "evt-009", "/payload/resumes_run_id", "missing required member 'resumes_run_id'"},
	{"session-start-negative-tool-count", "s03-tool-dispatch", 1, set("tool_count", "-1"), "evt-000", "/payload/tool_count", "must be >= 0"},
	{"session-stop-without-reason", "s03-tool-dispatch", 9, del("reason"), "evt-008", "/payload/reason", "missing required member 'reason'"},
	{"session-stop-fractional-turns", "s03-tool-dispatch", 9, set("turns", "1.5"), "evt-008", "/payload/turns", "expected integer, but got number"},
	{"session-replay-short-fingerprint", "branch-continue", 10, set("fingerprint", `"fd7d71b8"`), "evt-009", "/payload/fingerprint", "does not match pattern"},
	{"session-branch-without-parent-run-id", "branch-continue", 11, del("parent_run_id"), "evt-010", "/payload/parent_run_id", "missing required member 'parent_run_id'"},
	{"approval-request-without-rule-id", "approval-denied", 6, del("rule_id"), "evt-005", "/payload/rule_id", "missing required member 'rule_id'"},
	{"approval-decision-unknown-outcome", "approval-denied", 7, set("outcome", `"maybe"`), "evt-006", "/payload/outcome", "value must be one of"},
	{"sandbox-configure-allowed-not-boolean", "s11-sandbox-network", 8, set("allowed", `"yes"`), "evt-007", "/payload/allowed", "expected boolean, but got string"},
	{"network-decision-without-allowed", "s11-sandbox-network", 9, del("allowed"), "evt-008", "/payload/allowed", "missing required member 'allowed'"},
	{"trust-decision-policy-version-number", "project-trust-untrusted", 1, set("policy_version", "1"), "evt-000", "/payload/policy_version", "expected string or null, but got number"},
	{"instruction-accept-sources-not-list", "project-trust-untrusted", 2, set("sources", `"platform-safety"`), "evt-001", "/payload/sources", "expected array, but got string"},
	{"instruction-quarantine-without-signals", "project-trust-untrusted", 3, del("signals"), "evt-002", "/payload/signals", "missing required member 'signals'"},
	{"checkpoint-create-without-checkpoint-id", "checkpoint-dirty-workspace", 6, del("checkpoint_id"), "evt-005", "/payload/checkpoint_id", "missing required member 'checkpoint_id'"},
	{"checkpoint-diff-negative-additions", "s13-checkpoint-rollback", 10, set("additions", "-1"), "evt-009", "/payload/additions", "must be >= 0"},
	{"checkpoint-rollback-without-clean", "s13-checkpoint-rollback", 11, del("clean"), "evt-010", "/payload/clean", "missing required member 'clean'"},
	{"file-patch-uppercase-sha256", "s13-checkpoint-rollback", 9, set("after_sha256", `"EF61365C6DB072A78ADC360F86067B4C5706D052D065FC6E967E9BB38F2F8B99"`), "evt-008", "/payload/after_sha256", "does not match pattern"},
	{"context-prune-without-removed-messages", "context-budget-tail", 7, del("removed_messages"), "evt-006", "/payload/removed_messages", "missing required member 'removed_messages'"},
	{"context-compact-fractional-dropped-messages", "s08-context-compaction", 7, set("dropped_messages", "2.5"), "evt-006", "/payload/dropped_messages", "expected integer, but got number"},
	{"memory-read-without-query", "memory-skill-miss", 6, del("query"), "evt-005", "/payload/query", "missing required member 'query'"},
	{"skill-load-tool-names-not-list", "memory-skill-miss", 14, set("tool_names", "null"), "evt-013", "/payload/tool_names", "expected array, but got null"},
	{"error-without-kind", "max-turns", 11, del("kind"), "evt-010", "/payload/kind", "missing required member 'kind'"},
}

// TestPayloadFixtures builds each fixture from its golden (go test
// ./schema -update rewrites them) and checks that validate accepts it,
// that the payload check rejects exactly the edited line with the pointer
// of the broken rule, and that the schema's root, applied to the whole
// event, finds the same pointer.
func TestPayloadFixtures(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir(filepath.Join("testdata", "payloads")), goldie.WithNameSuffix(".trace.jsonl"))
	root, err := schema.Payloads()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, fx := range payloadFixtures {
		t.Run(fx.name, func(t *testing.T) {
			names[fx.name+".trace.jsonl"] = true
			b, err := os.ReadFile(filepath.Join("..", "golden", fx.base+".trace.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(b, []byte("\n"))
			ev, err := jsonv.Parse(bytes.TrimSuffix(lines[fx.line-1], []byte("\n")))
			if err != nil {
				t.Fatal(err)
			}
			p, _ := ev.Get("payload")
			edited := fx.edit(p)
			if jsonv.Equal(edited, p) {
				t.Fatal("the edit changes nothing")
			}
			ev = ev.With("payload", edited)
			lines[fx.line-1] = append(ev.AppendJSON(nil), '\n')
			fixture := bytes.Join(lines, nil)
			g.Assert(t, fx.name, fixture)

			if errs := journal.Validate(bytes.NewReader(fixture), fx.name); len(errs) != 0 {
				t.Fatalf("validate rejects the fixture: %v", errs)
			}
			errs := journal.ValidateWith(bytes.NewReader(fixture), fx.name, journal.ValidateOptions{Payload: schema.CheckPayload})
			if len(errs) != 1 {
				t.Fatalf("want one problem, got %d: %v", len(errs), errs)
			}
			e := errs[0]
			if e.Code != journal.PayloadSchema || e.Line != fx.line || e.EventID != fx.eventID || e.Pointer != fx.pointer || !strings.Contains(e.Msg, fx.message) {
				t.Errorf("got %s\nwant line %d, PAYLOAD_SCHEMA event %s at %s, message ~ %q", e, fx.line, fx.eventID, fx.pointer, fx.message)
			}

			d := json.NewDecoder(bytes.NewReader(ev.AppendJSON(nil)))
			d.UseNumber()
			var whole any
			if err := d.Decode(&whole); err != nil {
				t.Fatal(err)
			}
			var se *schema.Error
			if err := schema.Check(root, whole); !errors.As(err, &se) || !slices.ContainsFunc(se.Violations, func(v schema.Violation) bool {
				return strings.HasPrefix(fx.pointer, v.Pointer)
			}) {
				t.Errorf("the root schema, on the whole event: %v; want a violation at or above %s", err, fx.pointer)
			}
		})
	}
	// Every file in testdata/payloads is a fixture of this table.
	files, _ := filepath.Glob(filepath.Join("testdata", "payloads", "*.jsonl"))
	for _, f := range files {
		if !names[filepath.Base(f)] {
			t.Errorf("%s is no fixture of payloadFixtures", f)
		}
	}
}

// TestPayloadSchemasAcceptWhatTracecheckWrites: every payload of the
// committed goldens (and of the reference curriculum's, when
// ../shared/reference/golden is there) matches the schema of its type,
// each event also as a whole against the root; and every event type the
// goldens use has a payload schema.
func TestPayloadSchemasAcceptWhatTracecheckWrites(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "golden", "*.trace.jsonl"))
	ref, _ := filepath.Glob(filepath.Join("..", "..", "shared", "reference", "golden", "*.jsonl"))
	files = append(files, ref...)
	if len(files) < 30 {
		t.Fatalf("only %d goldens", len(files))
	}
	root, err := schema.Payloads()
	if err != nil {
		t.Fatal(err)
	}
	types := schema.PayloadTypes()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		for n := 1; d.More(); n++ {
			var ev map[string]any
			if err := d.Decode(&ev); err != nil {
				t.Fatalf("%s:%d: %v", f, n, err)
			}
			typ, _ := ev["type"].(string)
			if !slices.Contains(types, typ) {
				t.Errorf("%s:%d: %s has no payload schema", f, n, typ)
			}
			if err := schema.ValidatePayload(typ, ev["payload"]); err != nil {
				t.Errorf("%s:%d: %s payload: %v", f, n, typ, err)
			}
			if err := schema.Check(root, ev); err != nil {
				t.Errorf("%s:%d: the root schema: %v", f, n, err)
			}
		}
	}
}

// TestPayloadSchemaTypes: the payload schemas are named by event types of
// the Trace event schema, the root dispatches every one of them to its
// schema and no other type, and an event of a type without a payload
// schema (or a payload of such a type) is not checked.
func TestPayloadSchemaTypes(t *testing.T) {
	var doc struct {
		AllOf []struct {
			If struct {
				Properties struct {
					Type struct {
						Const string `json:"const"`
					} `json:"type"`
				} `json:"properties"`
			} `json:"if"`
			Then struct {
				Properties struct {
					Payload struct {
						Ref string `json:"$ref"`
					} `json:"payload"`
				} `json:"properties"`
			} `json:"then"`
		} `json:"allOf"`
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(schema.PayloadsJSON, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.ID != schema.PayloadsURL {
		t.Errorf("$id %q, want %q", doc.ID, schema.PayloadsURL)
	}
	var dispatched []string
	for _, a := range doc.AllOf {
		typ := a.If.Properties.Type.Const
		if ref := a.Then.Properties.Payload.Ref; ref != "#/$defs/"+typ {
			t.Errorf("the root sends %s payloads to %s", typ, ref)
		}
		dispatched = append(dispatched, typ)
	}
	slices.Sort(dispatched)
	if types := schema.PayloadTypes(); !slices.Equal(dispatched, types) {
		t.Errorf("the root dispatches %v; the payload schemas are %v", dispatched, types)
	}
	for _, typ := range []string{"metric.sample", "agent.spawn", "agent.message", "agent.stop", "memory.write"} {
		if _, ok, err := schema.PayloadSchema(typ); ok || err != nil {
			t.Errorf("%s: a payload schema (%v), want none", typ, err)
		}
		if vs := schema.CheckPayload(typ, []byte(`{"anything":[1,2]}`)); vs != nil {
			t.Errorf("%s: %v, want no check", typ, vs)
		}
	}
}

// TestPayloadShapes: the shapes each payload schema tells apart, accepted
// or rejected at the pointer given: model.response whole, streamed, a
// cassette's HTTP exchange and an imported reasoning item; tool.result ok
// and failed; tool.request arguments as an object or text; members beyond
// the schema's.
func TestPayloadShapes(t *testing.T) {
	tests := []struct {
		typ, payload string
		pointer      string // "" means valid
	}{
		{"model.response", `{"turn":1,"content":"hi","stop":true,"tool_calls":[]}`, ""},
		{"model.response", `{"content":"imported: content alone"}`, ""},
		{"model.response", `{"turn":1,"delta":"a","accumulated":"a","final":false,"tool_calls":[]}`, ""},
		{"model.response", `{"delta":"a","final":false}`, ""},
		{"model.response", `{"final":true,"accumulated":"ab"}`, ""},
		{"model.response", `{"final":true,"delta":"b"}`, "/accumulated"},
		{"model.response", `{"accumulated":"ab"}`, "/final"},
		{"model.response", `{"turn":1,"status":200,"source":"cassette","recording":"evt-003"}`, ""},
		{"model.response", `{"turn":1,"status":200,"content_type":"text/event-stream","index":2,"chunk":"data: [DONE]","final":true}`, ""},
		{"model.response", `{"turn":1,"status":99}`, "/status"},
		{"model.response", `{"reasoning":"thinking"}`, ""},
		{"model.response", `{"turn":1,"stop":true}`, "/content"},
		{"model.response", `{}`, "/content"},
		{"model.response", `{"content":"x","tool_calls":[{"id":"c","name":"n","arguments":{}}, 3]}`, "/tool_calls/1"},
		{"tool.result", `{"tool_call_id":"c","tool":"echo","ok":true,"result":{"echo":"hi"},"truncated":false}`, ""},
		{"tool.result", `{"tool_call_id":"c","ok":true,"result":null}`, ""},
		{"tool.result", `{"tool_call_id":"c","tool":"echo","ok":false,"error":"boom","error_type":"ToolExecutionError"}`, ""},
		{"tool.result", `{"tool_call_id":"c","ok":false,"error":"boom","error_type":""}`, "/error_type"},
		{"tool.result", `{"tool_call_id":"","ok":true,"result":1}`, "/tool_call_id"},
		{"tool.request", `{"tool_call_id":"c","tool":"shell","arguments":"{\"cmd\":\"ls\"}"}`, ""},
		{"tool.request", `{"tool_call_id":"c","tool":"shell","arguments":{},"source_line":3,"native_type":"function_call"}`, ""},
		{"session.start", `{"max_turns":8,"tool_count":1}`, ""},
		{"session.start", `{"source_line":1,"native_type":"session_meta","native":{}}`, ""},
		{"session.start", `{"resumed":false}`, ""},
		{"session.start", `{"max_turns":0}`, "/max_turns"},
		{"session.replay", `{"applied_events":5,"stop_reason":null,"fingerprint":"1288ae16a0df9408d7a7394b16e7f29367b34832eeca1d9488ca8a410be3cb2e"}`, ""},
		{"error", `{"turn":2,"kind":"fault","fault":"disconnect","after_chunks":1}`, ""},
		{"error", `{"kind":""}`, "/kind"},
		{"context.compact", `{"source_line":9,"native_type":"compacted","summary":"s"}`, ""},
		{"instruction.accept", `{"role":"developer","content":"be brief"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.payload, func(t *testing.T) {
			vs := schema.CheckPayload(tt.typ, []byte(tt.payload))
			switch {
			case tt.pointer == "" && vs != nil:
				t.Errorf("rejected: %v", vs)
			case tt.pointer != "" && (len(vs) == 0 || vs[0].Pointer != tt.pointer):
				t.Errorf("got %v, want the first violation at %s", vs, tt.pointer)
			}
		})
	}
}
