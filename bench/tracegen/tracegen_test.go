package tracegen_test

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/tracecheck/tracecheck/bench/tracegen"
	"github.com/tracecheck/tracecheck/journal"
)

var idPattern = map[string]*regexp.Regexp{
	tracegen.IDsRef:    regexp.MustCompile(`^evt-[0-9]{3,}$`),
	tracegen.IDsPadded: regexp.MustCompile(`^evt-[0-9]{7}$`),
	tracegen.IDsUUID:   regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`),
}

// Every id style gives a valid journal whose ids have that style, and the
// same events otherwise.
func TestIDStyles(t *testing.T) {
	const n = 3000
	ids := regexp.MustCompile(`"(parent_)?event_id":"[^"]*"`)
	var shape []byte
	for _, style := range tracegen.IDStyles {
		data := tracegen.Bytes(tracegen.Options{Events: n, Seed: 5, IDs: style})
		if errs := journal.Validate(bytes.NewReader(data), style); len(errs) != 0 {
			t.Fatalf("%s: %v", style, errs[0])
		}
		seen := map[string]bool{}
		prev := ""
		err := journal.Scan(bytes.NewReader(data), style, func(r *journal.Record) error {
			id := r.Event.EventID
			if !idPattern[style].MatchString(id) || seen[id] {
				t.Fatalf("%s: line %d: event_id %q", style, r.Line, id)
			}
			if r.Event.ParentEventID != prev {
				t.Fatalf("%s: line %d: parent %q, want %q", style, r.Line, r.Event.ParentEventID, prev)
			}
			seen[id], prev = true, id
			return nil
		})
		if err != nil || len(seen) != n {
			t.Fatalf("%s: %v, %d events", style, err, len(seen))
		}
		s := ids.ReplaceAll(data, []byte(`"id":""`))
		if shape == nil {
			shape = s
		} else if !bytes.Equal(s, shape) {
			t.Errorf("%s: the events differ from the first style's beyond their ids", style)
		}
	}
	if !bytes.Equal(tracegen.Bytes(tracegen.Options{Events: 50, Seed: 5}), tracegen.Bytes(tracegen.Options{Events: 50, Seed: 5, IDs: tracegen.IDsRef})) {
		t.Error("the default style is not evt-%03d")
	}
}
