package tolerant

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unsafe"
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

// Bit tricks for testing 8 bytes at once: in haszero(x), the top bit of
// each zero byte of x is set, and the lowest set bit is exact.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// stringEnd returns the index of the quote closing the string whose
// content starts at b[i] (len(b) when none does) and whether the content
// has escapes.
func stringEnd(b []byte, i int) (int, bool) {
	esc := false
	for i < len(b) {
		k := quoteOrBackslash(b, i)
		if k >= len(b) {
			return len(b), esc
		}
		if b[k] == '"' {
			return k, esc
		}
		esc = true
		i = k + 2
	}
	return len(b), esc
}

// quoteOrBackslash returns the index of the first '"' or '\\' at or after
// b[j], or len(b): 8 bytes at a time for the first 32, then with
// bytes.IndexByte, which is faster on long strings.
func quoteOrBackslash(b []byte, j int) int {
	end := min(j+32, len(b))
	for ; j+8 <= end; j += 8 {
		x := binary.LittleEndian.Uint64(b[j:])
		q, s := x^('"'*lsb), x^('\\'*lsb)
		if m := ((q-lsb)&^q | (s-lsb)&^s) & msb; m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
	}
	for ; j < end; j++ {
		if c := b[j]; c == '"' || c == '\\' {
			return j
		}
	}
	if j >= len(b) {
		return len(b)
	}
	q := bytes.IndexByte(b[j:], '"')
	if q < 0 {
		q = len(b) - j
	}
	if k := bytes.IndexByte(b[j:j+q], '\\'); k >= 0 {
		return j + k
	}
	return j + q
}

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
