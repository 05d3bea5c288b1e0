package jsonpeek

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/internal/testenv"
)

// TestLongStrings: a member whose string is each of testenv.StringRuns
// reads as encoding/json reads it; a byte that is not UTF-8 is read past
// and flagged (InvalidUTF8), as the agents' JavaScript readers do.
func TestLongStrings(t *testing.T) {
	for _, run := range testenv.StringRuns() {
		src := []byte(`{"k":"` + run.Text + `"}`)
		var d Doc
		err := d.Parse(src)
		var want struct{ K string }
		if ok := json.Unmarshal(src, &want) == nil; (err == nil) != ok {
			t.Errorf("%s: Parse error %v, encoding/json ok=%v", run.Name, err, ok)
			continue
		}
		if err != nil {
			continue
		}
		if bad := d.Flags()&InvalidUTF8 != 0; bad == utf8.Valid(src) {
			t.Errorf("%s: InvalidUTF8 flag %v", run.Name, bad)
		}
		if got := d.Root().Get("k").Str(); utf8.Valid(src) && got != want.K {
			t.Errorf("%s: text %q, want %q", run.Name, got, want.K)
		}
	}
}
