package journal_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/schema"
)

// payloadLine is one valid event of run r: sequence seq, id evt-<id>
// (three digits).
func payloadLine(seq, id int, typ, payload string) string {
	return fmt.Sprintf(`{"trace_version":"0.1.0","event_id":"evt-%03d","session_id":"s","sequence":%d,"timestamp":"2026-08-10T00:00:00Z","type":%q,"actor":{"kind":"harness","id":"h"},"payload":%s,"provenance":{"agent_id":"a","snapshot_id":"x","surface":"sdk","harness_mode":"fake","run_id":"r"},"redaction":{"status":"clean","fields":[]}}`+"\n",
		id, seq, typ, payload)
}

// flagContent is a payload check that finds every payload holding
// "content" wrong, twice, and records what it was called with.
type flagContent struct {
	mu    sync.Mutex
	calls []string
}

func (f *flagContent) check(typ string, payload []byte) []schema.Violation {
	f.mu.Lock()
	f.calls = append(f.calls, typ+" "+string(payload))
	f.mu.Unlock()
	if !bytes.Contains(payload, []byte(`"content"`)) {
		return nil
	}
	return []schema.Violation{{Pointer: "/content", Message: "no content here"}, {Pointer: "/z", Message: "nor z"}}
}

// TestValidateWithPayloadCheck: the check sees the type and the payload as
// written of each event whose envelope is valid, and what it finds is one
// PAYLOAD_SCHEMA error per event, on its line, at the first pointer under
// /payload, the others in the message, before the line's invariant
// problem.
func TestValidateWithPayloadCheck(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		calls []string
		want  []string // the errors, as Error() prints them
	}{
		{"valid",
			payloadLine(0, 0, "session.start", `{"max_turns":8}`) + payloadLine(1, 1, "user.message", `{ "b" : 1, "a":[2] }`),
			[]string{`session.start {"max_turns":8}`, `user.message { "b" : 1, "a":[2] }`},
			nil},
		{"a payload problem",
			payloadLine(0, 0, "session.start", `{}`) + payloadLine(1, 1, "user.message", `{"content":"hi"}`),
			[]string{`session.start {}`, `user.message {"content":"hi"}`},
			[]string{`f:2: PAYLOAD_SCHEMA event evt-001 at /payload/content: user.message payload: no content here; /payload/z: nor z`}},
		{"an undecodable line is not checked",
			payloadLine(0, 0, "session.start", `{}`) + "[]\n" + payloadLine(1, 1, "user.message", `{}`),
			[]string{`session.start {}`, `user.message {}`},
			[]string{`f:2: NOT_OBJECT: line holds a JSON array; an event must be an object`}},
		{"an envelope problem is not checked",
			payloadLine(0, 0, "session.start", `{}`) + strings.Replace(payloadLine(1, 1, "user.message", `{"content":"hi"}`), `"harness"`, `"robot"`, 1),
			[]string{`session.start {}`},
			[]string{`f:2: SCHEMA event evt-001 at /actor/kind: value must be one of "user", "model", "agent", "tool", "harness", "policy", "environment"`}},
		{"payload before invariants",
			payloadLine(0, 0, "session.start", `{}`) + payloadLine(1, 0, "user.message", `{"content":"hi"}`),
			[]string{`session.start {}`, `user.message {"content":"hi"}`},
			[]string{`f:2: PAYLOAD_SCHEMA event evt-000 at /payload/content: user.message payload: no content here; /payload/z: nor z`,
				`f:2: DUPLICATE_EVENT_ID event evt-000 at /event_id: event_id "evt-000" appears earlier in this run`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f flagContent
			errs := journal.ValidateWith(strings.NewReader(tt.in), "f", journal.ValidateOptions{Payload: f.check})
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if strings.Join(f.calls, "\n") != strings.Join(tt.calls, "\n") {
				t.Errorf("the check saw:\n%s\nwant:\n%s", strings.Join(f.calls, "\n"), strings.Join(tt.calls, "\n"))
			}
		})
	}
}

// TestValidateWithoutPayloadCheck: with no check, ValidateWith is Validate,
// on every fixture.
func TestValidateWithoutPayloadCheck(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testdata, "*", "*.jsonl"))
	if len(files) < 20 {
		t.Fatalf("only %d fixtures", len(files))
	}
	for _, f := range files {
		data := readFixture(t, strings.TrimPrefix(f, testdata+string(filepath.Separator)))
		a, b := journal.Validate(bytes.NewReader(data), f), journal.ValidateWith(bytes.NewReader(data), f, journal.ValidateOptions{})
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%s: Validate %v, ValidateWith %v", f, a, b)
		}
	}
}

// TestValidateWithPayloadCheckStopsAfterMaxErrors: payload problems count
// towards MaxErrors, and a line with a payload and an invariant problem
// does not take the count past it.
func TestValidateWithPayloadCheckStopsAfterMaxErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString(payloadLine(0, 0, "session.start", `{}`))
	b.WriteString("[]\n") // one problem, so that the payload problems end on an even count
	for i := 1; i <= journal.MaxErrors; i++ {
		// Each line's payload is wrong, and each repeats evt-000.
		b.WriteString(payloadLine(i, 0, "user.message", `{"content":"hi"}`))
	}
	var f flagContent
	errs := journal.ValidateWith(strings.NewReader(b.String()), "f", journal.ValidateOptions{Payload: f.check})
	if len(errs) != journal.MaxErrors+1 {
		t.Fatalf("got %d errors, want %d", len(errs), journal.MaxErrors+1)
	}
	// Lines 3..51 give 49 payload and 49 invariant problems; line 52's
	// payload problem is the 100th, its duplicate id one too many.
	last, prev := errs[len(errs)-1], errs[len(errs)-2]
	if last.Code != journal.TooManyErrors || last.Line != 52 {
		t.Errorf("last error %v, want TOO_MANY_ERRORS on line 52", last)
	}
	if prev.Code != journal.PayloadSchema || prev.Line != 52 {
		t.Errorf("the last problem %v, want the PAYLOAD_SCHEMA of line 52", prev)
	}
}
