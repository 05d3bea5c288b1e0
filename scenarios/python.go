package scenarios

// Python's text rules, where the reference's handlers let them show in a
// trace: str.strip() and str.split() (whitespace per str.isspace), len()
// and slices (code points, not bytes), repr() of a str (in the text of a
// KeyError).

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// pyIsSpace is str.isspace() for one character: Go's unicode.IsSpace plus
// the information separators U+001C..U+001F.
func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// pyStrip is str.strip() with no argument.
func pyStrip(s string) string { return strings.TrimFunc(s, pyIsSpace) }

// pyFields is str.split() with no argument.
func pyFields(s string) []string { return strings.FieldsFunc(s, pyIsSpace) }

// pyLen is len(s): code points.
func pyLen(s string) int { return utf8.RuneCountInString(s) }

// pyHead is s[:n] for n >= 0, in code points.
func pyHead(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// pyTail is s[-n:] for n > 0, in code points (all of s when n >= len(s)).
func pyTail(s string, n int) string {
	skip := pyLen(s) - n
	for i := range s {
		if skip <= 0 {
			return s[i:]
		}
		skip--
	}
	return ""
}

// pyRepr is Python's repr() of a str (see jsonv.AppendPyReprString).
func pyRepr(s string) string { return string(jsonv.AppendPyReprString(nil, []byte(s))) }
