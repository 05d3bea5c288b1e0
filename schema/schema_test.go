package schema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/tracecheck/tracecheck/schema"
)

const validEvent = `{"trace_version":"0.1.0","event_id":"evt-001","session_id":"s","sequence":1,"timestamp":"2026-08-10T00:00:01Z","type":"user.message","actor":{"kind":"user","id":"learner"},"payload":{"content":"hi"},"provenance":{"agent_id":"reference-agent","snapshot_id":"snap","surface":"sdk","harness_mode":"fake","run_id":"run-1"},"redaction":{"status":"clean","fields":[]},"parent_event_id":"evt-000"}`

func decode(tb testing.TB, s string) map[string]any {
	tb.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		tb.Fatal(err)
	}
	return m
}

func TestTraceEventSchema(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(m map[string]any)
		pointer string // "" means valid
	}{
		{"valid", func(map[string]any) {}, ""},
		{"negative sequence", func(m map[string]any) { m["sequence"] = json.Number("-1") }, "/sequence"},
		{"fractional sequence", func(m map[string]any) { m["sequence"] = json.Number("1.5") }, "/sequence"},
		{"bad version", func(m map[string]any) { m["trace_version"] = "0.2.0" }, "/trace_version"},
		{"empty event_id", func(m map[string]any) { m["event_id"] = "" }, "/event_id"},
		{"unknown type", func(m map[string]any) { m["type"] = "user.said" }, "/type"},
		{"timestamp not date-time", func(m map[string]any) { m["timestamp"] = "yesterday" }, "/timestamp"},
		{"extra top-level key", func(m map[string]any) { m["run_id"] = "r" }, ""},
		{"actor kind", func(m map[string]any) { m["actor"].(map[string]any)["kind"] = "robot" }, "/actor/kind"},
		{"agent_id pattern", func(m map[string]any) { m["provenance"].(map[string]any)["agent_id"] = "Agent_1" }, "/provenance/agent_id"},
		{"harness_mode", func(m map[string]any) { m["provenance"].(map[string]any)["harness_mode"] = "real" }, "/provenance/harness_mode"},
		{"redaction fields unique", func(m map[string]any) {
			m["redaction"].(map[string]any)["fields"] = []any{"a", "a"}
		}, "/redaction/fields"},
		{"payload not object", func(m map[string]any) { m["payload"] = []any{} }, "/payload"},
		{"negative duration", func(m map[string]any) { m["duration_ms"] = json.Number("-0.5") }, "/duration_ms"},
		{"empty parent", func(m map[string]any) { m["parent_event_id"] = "" }, "/parent_event_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := decode(t, validEvent)
			tt.edit(m)
			err := schema.ValidateTraceEvent(m)
			if tt.name == "valid" {
				if err != nil {
					t.Fatalf("valid event rejected: %v", err)
				}
				return
			}
			var se *schema.Error
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *schema.Error", err)
			}
			if tt.pointer != "" && se.Violations[0].Pointer != tt.pointer {
				t.Errorf("pointer %q, want %q (%v)", se.Violations[0].Pointer, tt.pointer, err)
			}
		})
	}
}

func TestSchemaIsEmbeddedAndCompiles(t *testing.T) {
	if _, err := schema.TraceEvent(); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(schema.TraceEventJSON, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["$id"] != schema.TraceEventURL {
		t.Errorf("$id %v, want %s", doc["$id"], schema.TraceEventURL)
	}
	types := doc["properties"].(map[string]any)["type"].(map[string]any)["enum"].([]any)
	if len(types) != 30 {
		t.Errorf("schema lists %d event types, FACTS.md lists 30", len(types))
	}
}
