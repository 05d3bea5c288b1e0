package scenarios

// Python's text rules, where the reference's handlers let them show in a
// trace: str.strip() and str.split() (whitespace per str.isspace), len()
// and slices (code points, not bytes), repr() of a str (in the text of a
// KeyError).

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
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

// pyRepr is repr() of a str: single quotes unless the text holds a single
// quote and no double quote; backslash, the quote, \t \n \r escaped; other
// non-printable characters as \xhh, \uhhhh or \Uhhhhhhhh (printable as
// unicode.IsPrint, which follows str.isprintable up to the Unicode
// versions of Go and Python).
func pyRepr(s string) string {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteRune(quote)
	for _, r := range s {
		switch {
		case r == quote || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r >= 0x20 && r < 0x7f, r > 0xa0 && unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteRune(quote)
	return b.String()
}
