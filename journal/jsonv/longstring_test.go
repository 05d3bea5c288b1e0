package jsonv

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/internal/testenv"
)

// TestLongStrings: a string of each of testenv.StringRuns reads as
// encoding/json reads it, or is refused where it refuses it (jsonv also
// refuses bytes that are not UTF-8).
func TestLongStrings(t *testing.T) {
	for _, run := range testenv.StringRuns() {
		src := []byte(`"` + run.Text + `"`)
		v, err := Parse(src)
		var want string
		ok := json.Unmarshal(src, &want) == nil && utf8.Valid(src)
		if (err == nil) != ok {
			t.Errorf("%s: Parse error %v, encoding/json and UTF-8 say ok=%v", run.Name, err, ok)
			continue
		}
		if ok && v.Text() != want {
			t.Errorf("%s: text %q, want %q", run.Name, v.Text(), want)
		}
	}
}
