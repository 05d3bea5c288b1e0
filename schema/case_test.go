package schema_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/schema"
)

// TestCaseSchema: a case file is checked with the match config embedded by
// $ref (its rules, not a copy of them), and every rejection names the field.
func TestCaseSchema(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		pointer string // "" means valid
		msg     string
	}{
		{"minimal", `{"command":{"argv":["agent"]},"trace":{"from":"stdout"}}`, "", ""},
		{"everything", `{"$schema":"x","id":"my-agent","description":"d","golden":"g","tolerant":true,
			"command":{"argv":["python3","agent.py","--out","${TRACECHECK_OUT_DIR}/t.jsonl"],"cwd":"..","env":{"A_B":"1"},"stdin":"hi","timeout":"1m30s"},
			"trace":{"from":"out_dir","path":"t.jsonl"},
			"match":{"match":"same-multiset","tools":{"search":{"arguments":{"keys":["/query"]}}},"policy":{"no_orphan_calls":true}},
			"model":{"scenario":"s03-tool-dispatch","on_exhausted":"error"}}`, "", ""},
		{"the marker", `{"command":{"argv":["a"]},"trace":{"from":"stdout","after":"TRACE:"}}`, "", ""},
		{"model only", `{"command":{"argv":["a"]},"model":{"scenario":"s01-agent-loop"}}`, "", ""},
		{"no command", `{"trace":{"from":"stdout"}}`, "", "command"},
		{"empty argv", `{"command":{"argv":[]}}`, "/command/argv", ""},
		{"empty program", `{"command":{"argv":[""]}}`, "/command/argv/0", ""},
		{"bad id", `{"id":"My Agent","command":{"argv":["a"]}}`, "/id", ""},
		{"unknown member", `{"command":{"argv":["a"],"shell":true}}`, "/command", "shell"},
		{"bad env name", `{"command":{"argv":["a"],"env":{"1X":"v"}}}`, "/command/env/1X", ""},
		{"stdin twice", `{"command":{"argv":["a"],"stdin":"x","stdin_file":"f"}}`, "/command", ""},
		{"bad timeout", `{"command":{"argv":["a"],"timeout":"ten seconds"}}`, "/command/timeout", ""},
		{"unknown source", `{"command":{"argv":["a"]},"trace":{"from":"stderr"}}`, "/trace/from", ""},
		{"a file without a path", `{"command":{"argv":["a"]},"trace":{"from":"file"}}`, "/trace", "path"},
		{"a marker on a file", `{"command":{"argv":["a"]},"trace":{"from":"file","path":"t","after":"TRACE:"}}`, "/trace/after", ""},
		{"a path on stdout", `{"command":{"argv":["a"]},"trace":{"from":"stdout","path":"t"}}`, "/trace/path", ""},
		{"a match mode the match schema refuses", `{"command":{"argv":["a"]},"match":{"match":"fuzzy"}}`, "/match/match", ""},
		{"a policy the match schema refuses", `{"command":{"argv":["a"]},"match":{"policy":{"max_turns":-1}}}`, "/match/policy/max_turns", ""},
		{"model without a scenario", `{"command":{"argv":["a"]},"model":{}}`, "/model", "scenario"},
		{"repeat", `{"command":{"argv":["a"]},"trace":{"from":"stdout"},"repeat":4}`, "", ""},
		{"repeat at its bound", `{"command":{"argv":["a"]},"trace":{"from":"stdout"},"repeat":100}`, "", ""},
		{"repeat 0", `{"command":{"argv":["a"]},"repeat":0}`, "/repeat", ">= 1"},
		{"repeat past its bound", `{"command":{"argv":["a"]},"repeat":101}`, "/repeat", "<= 100"},
		{"repeat as a string", `{"command":{"argv":["a"]},"repeat":"3"}`, "/repeat", "integer"},
		{"repeat not whole", `{"command":{"argv":["a"]},"repeat":2.5}`, "/repeat", "integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := schema.ValidateCase(decode(t, tt.doc))
			if tt.pointer == "" && tt.msg == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			var se *schema.Error
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *schema.Error", err)
			}
			found := false
			for _, v := range se.Violations {
				if (tt.pointer == "" || v.Pointer == tt.pointer) && strings.Contains(v.Message, tt.msg) {
					found = true
				}
			}
			if !found {
				t.Errorf("no violation at %q mentioning %q: %v", tt.pointer, tt.msg, err)
			}
		})
	}
}
