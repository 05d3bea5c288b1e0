package jsonv

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLongStrings: a string whose plain run crosses the word scan's
// 8-byte steps at every kind of boundary, then each kind of byte that
// ends a run, reads as encoding/json reads it, or is refused where it
// refuses it (jsonv also refuses bytes that are not UTF-8).
func TestLongStrings(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 300, 4097} {
		for _, tail := range []string{``, `\"`, `\\`, `\n`, `\u00e9`, `é`, `数据`, "\x01", "\x1f", "\x7f", "\xff", "\xc3", `"`} {
			src := []byte(`"` + strings.Repeat("a/b+c=D ", n/8+1)[:n] + tail + `tail"`)
			name := fmt.Sprintf("%d plain bytes then %q", n, tail)
			v, err := Parse(src)
			var want string
			ok := json.Unmarshal(src, &want) == nil && utf8.Valid(src)
			if (err == nil) != ok {
				t.Errorf("%s: Parse error %v, encoding/json and UTF-8 say ok=%v", name, err, ok)
				continue
			}
			if ok && v.Text() != want {
				t.Errorf("%s: text %q, want %q", name, v.Text(), want)
			}
		}
	}
}
