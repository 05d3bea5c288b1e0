package jsonpeek

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLongStrings: a string whose plain run crosses the word scan's
// 8-byte steps at every kind of boundary, then each kind of byte that
// ends a run, reads as encoding/json reads it; a byte that is not UTF-8
// is read past and flagged (InvalidUTF8), as the agents' JavaScript
// readers do.
func TestLongStrings(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 300, 4097} {
		for _, tail := range []string{``, `\"`, `\\`, `\n`, `\u00e9`, `é`, `数据`, "\x01", "\x1f", "\x7f", "\xff", "\xc3", `"`} {
			src := []byte(`{"k":"` + strings.Repeat("a/b+c=D ", n/8+1)[:n] + tail + `tail"}`)
			name := fmt.Sprintf("%d plain bytes then %q", n, tail)
			var d Doc
			err := d.Parse(src)
			var want struct{ K string }
			if ok := json.Unmarshal(src, &want) == nil; (err == nil) != ok {
				t.Errorf("%s: Parse error %v, encoding/json ok=%v", name, err, ok)
				continue
			}
			if err != nil {
				continue
			}
			if bad := d.Flags()&InvalidUTF8 != 0; bad == utf8.Valid(src) {
				t.Errorf("%s: InvalidUTF8 flag %v", name, bad)
			}
			if got := d.Root().Get("k").Str(); utf8.Valid(src) && got != want.K {
				t.Errorf("%s: text %q, want %q", name, got, want.K)
			}
		}
	}
}
