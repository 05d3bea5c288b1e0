package jsonv

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/internal/stopbits"
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

// TestStringsAcrossStopWindows: an array of strings longer than three
// windows of stop bits (stopbits.WindowBytes), strings of every length up
// to a few hundred bytes with an escape or a multi-byte character at
// varying offsets, reads as encoding/json reads it; a control character
// put at each byte around a window's end is refused at that byte.
func TestStringsAcrossStopWindows(t *testing.T) {
	var src []byte
	src = append(src, '[')
	for i := 0; len(src) < 3*stopbits.WindowBytes+500; i++ {
		if i > 0 {
			src = append(src, ',')
		}
		src = append(src, '"')
		for k := 0; k < i%300; k++ {
			src = append(src, 'x')
		}
		src = append(src, [...]string{"", `\n`, "é", `\u00e9`, "数据", `\\`}[i%6]...)
		src = append(src, '"')
	}
	src = append(src, ']')
	v, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if err := json.Unmarshal(src, &want); err != nil {
		t.Fatal(err)
	}
	elems := v.Elems()
	if len(elems) != len(want) {
		t.Fatalf("%d elements, want %d", len(elems), len(want))
	}
	for i, e := range elems {
		if e.Text() != want[i] {
			t.Fatalf("element %d: %q, want %q", i, e.Text(), want[i])
		}
	}
	for _, w := range []int{stopbits.WindowBytes, 2 * stopbits.WindowBytes} {
		for at := w - 70; at < w+70; at++ {
			if src[at] != 'x' {
				continue // a quote, a comma or an escape: not inside plain text
			}
			bad := append([]byte(nil), src...)
			bad[at] = 0x01
			_, err := Parse(bad)
			se, ok := err.(*SyntaxError)
			if !ok || se.Offset != at {
				t.Fatalf("control character at %d: error %v, want one at that offset", at, err)
			}
		}
	}
}
