package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/sebdah/goldie/v2" // registers -update so `go test ./... -update` runs here too
)

func decode(tb testing.TB, doc string) any {
	tb.Helper()
	d := json.NewDecoder(strings.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		tb.Fatal(err)
	}
	return v
}

func TestScenarioSchemaAcceptsTheScenarioFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "scenarios", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidateScenario(decode(t, string(b))); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestScenarioSchemaRejects(t *testing.T) {
	const tail = `"prompt":"p","turns":[],"expect":{"event_count":1,"focus_event_types":[]}`
	tests := []struct {
		name    string
		doc     string
		pointer string
	}{
		{"max_turns zero", `{"id":"a","max_turns":0,` + tail + `}`, "/max_turns"},
		{"negative trigger", `{"id":"a","compactor":{"trigger_chars":-1,"keep_recent_messages":0,"summary":"s"},` + tail + `}`, "/compactor/trigger_chars"},
		{"unknown builtin", `{"id":"a","tools":[{"name":"x","handler":{"builtin":"shell"}}],` + tail + `}`, "/tools/0/handler/builtin"},
		{"tool call without id", `{"id":"a","prompt":"p","turns":[{"tool_calls":[{"name":"x"}]}],"expect":{"event_count":1,"focus_event_types":[]}}`, "/turns/0/tool_calls/0"},
		{"unknown op", `{"id":"a","after_run":[{"op":"rewind"}],` + tail + `}`, "/after_run/0/op"},
		{"negative fork", `{"id":"a","after_run":[{"op":"branch","branch_id":"b","fork_sequence":-1}],` + tail + `}`, "/after_run/0/fork_sequence"},
		{"bad harness mode", `{"id":"a","provenance":{"harness_mode":"live"},` + tail + `}`, "/provenance/harness_mode"},
		{"interrupt at an unknown type", `{"id":"a","interrupt":{"after":"tool.call"},` + tail + `}`, "/interrupt/after"},
		{"resume without turns", `{"id":"a","resumes":[{"message":"m"}],` + tail + `}`, "/resumes/0"},
		{"resume with an empty run_id", `{"id":"a","resumes":[{"run_id":"","turns":[]}],` + tail + `}`, "/resumes/0/run_id"},
		{"resume interrupt at an unknown type", `{"id":"a","resumes":[{"turns":[],"interrupt":{"after":"tool.call"}}],` + tail + `}`, "/resumes/0/interrupt/after"},
		{"repaired_calls not lists", `{"id":"a","prompt":"p","turns":[],"expect":{"event_count":1,"focus_event_types":[],"repaired_calls":["c"]}}`, "/expect/repaired_calls/0"},
	}
	for _, tc := range tests {
		err := ValidateScenario(decode(t, tc.doc))
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("%s: err = %v, want a schema error", tc.name, err)
			continue
		}
		found := false
		for _, v := range se.Violations {
			found = found || v.Pointer == tc.pointer
		}
		if !found {
			t.Errorf("%s: no violation at %s in %v", tc.name, tc.pointer, se)
		}
	}
}

func TestScenarioSchemaIsValidJSON(t *testing.T) {
	var v map[string]any
	if err := json.NewDecoder(bytes.NewReader(ScenarioJSON)).Decode(&v); err != nil {
		t.Fatal(err)
	}
	if v["$id"] != ScenarioURL {
		t.Errorf("$id %v, want %s", v["$id"], ScenarioURL)
	}
}
