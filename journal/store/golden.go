package store

import (
	"bytes"
	"strconv"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// goldenLayout reports whether a line that parsed as JSON is already in the
// golden layout, the bytes jsonv's AppendJSON writes for its parse: no
// whitespace between tokens, strings escaped as Python's json.dumps with
// ensure_ascii=False escapes them (only '"', '\\' and C0 controls: \n \r \t
// \b \f by name, the others as \u00xx), integers other than -0 as written,
// floats as Python's repr. Such a line is written as received; any other is
// re-encoded. A false answer only costs the re-encoding.
func goldenLayout(b []byte) bool {
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			j, ok := goldenString(b, i)
			if !ok {
				return false
			}
			i = j
		case c == '-' || (c >= '0' && c <= '9'):
			j, float := i+1, false
			for ; j < len(b); j++ {
				d := b[j]
				if d == '.' || d == 'e' || d == 'E' || d == '+' {
					float = true
				} else if d != '-' && (d < '0' || d > '9') {
					break
				}
			}
			if float {
				if !goldenFloat(b[i:j]) {
					return false
				}
			} else if j-i == 2 && c == '-' && b[i+1] == '0' {
				return false // -0 is written 0
			}
			i = j
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return false
		default:
			i++
		}
	}
	return true
}

// goldenString checks the string whose opening quote is b[i] and returns the
// index past its closing quote.
func goldenString(b []byte, i int) (int, bool) {
	// Most strings have no escape: find the quote and look for a backslash
	// before it, both with the vectorised search. Each quote and each
	// backslash is found once (the search for a backslash stops at the
	// quote; a quote found escaped is passed), so that a string of a
	// million escapes costs its length, not a search to its end from each.
	q := -1 // the first quote at or after j, once found
	for j := i + 1; ; j++ {
		if q < j {
			k := bytes.IndexByte(b[j:], '"')
			if k < 0 {
				return 0, false
			}
			q = j + k
		}
		e := bytes.IndexByte(b[j:q], '\\')
		if e < 0 {
			return q + 1, true
		}
		j += e + 1 // the escape's letter
		if j >= len(b) {
			return 0, false
		}
		switch b[j] {
		case '"', '\\', 'n', 'r', 't', 'b', 'f':
		case 'u':
			// Only a C0 control without a short name is written \u00xx.
			if j+4 >= len(b) || b[j+1] != '0' || b[j+2] != '0' || (b[j+3] != '0' && b[j+3] != '1') {
				return 0, false
			}
			lo := b[j+4]
			var v byte
			switch {
			case lo >= '0' && lo <= '9':
				v = lo - '0'
			case lo >= 'a' && lo <= 'f':
				v = lo - 'a' + 10
			default:
				return 0, false
			}
			v += (b[j+3] - '0') << 4
			if v == '\b' || v == '\t' || v == '\n' || v == '\f' || v == '\r' {
				return 0, false
			}
			j += 4
		default:
			return 0, false
		}
	}
}

// goldenFloat reports whether a float is spelled as Python's repr spells it.
func goldenFloat(tok []byte) bool {
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		return false
	}
	var buf [32]byte
	return string(jsonv.AppendPyFloat(buf[:0], f)) == string(tok)
}
