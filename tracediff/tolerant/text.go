package tolerant

import (
	"unsafe"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// MatchText is MatchHoles of the expected event as Compile reads it: the
// fast path of Match for a whole event given as text. expected must be
// valid JSON.
func (m *Matcher) MatchText(expected, actual []byte) (ok bool, timestamp string) {
	holes, ptrs, ok, _ := m.comp.Check(m.holes[:0], m.ptrs[:0], expected)
	m.holes, m.ptrs = holes, ptrs
	if !ok {
		return false, ""
	}
	ok, timestamp, _ = m.MatchHoles(expected, holes, actual)
	return ok, timestamp
}

func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// stringEnd returns the index of the quote closing the string whose
// content starts at b[i] (len(b) when none does) and whether the content
// has escapes: jsonv.StringEnd, linear in the string's length whatever its
// escapes.
func stringEnd(b []byte, i int) (int, bool) { return jsonv.StringEnd(b, i) }

// tokenEnd returns the index past the number or literal at b[i].
func tokenEnd(b []byte, i int) int {
	for i < len(b) {
		c := b[i]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '+' || c == '-' {
			i++
			continue
		}
		break
	}
	return i
}

// valueEnd returns the index past the JSON value at b[i] (valid JSON
// without white space is expected; ok is false on what is not).
func valueEnd(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		e, _ := stringEnd(b, i+1)
		return e + 1, e < len(b)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, _ := stringEnd(b, j+1)
				if e >= len(b) {
					return 0, false
				}
				j = e
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	e := tokenEnd(b, i)
	return e, e > i
}
