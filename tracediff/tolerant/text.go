package tolerant

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"unsafe"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// MatchText is the fast path of Match for a whole event: the expected and
// actual events as JSON text, walked side by side without building either.
// It answers true only when Match of the parsed events would find no
// mismatch; then it has made the very bindings Match would have made, in
// the same order. When it answers false nothing it bound is kept, and the
// caller asks Match, which decides and explains.
//
// It reads the texts as written: the same members in the same order, the
// same bytes wherever the expected side holds a literal, no white space
// between tokens. Anything else (another member order, an escape in an
// expected string, "..." anywhere, a mismatch) is left to Match. timestamp
// is the actual top-level timestamp's text when the expected one is
// exactly "[TIMESTAMP]" (for the caller's order check), else "".
//
// Both texts must be valid JSON (checked beforehand): on others the answer
// is false or, on an actual text that is not, of no consequence (the
// comparison is invalid whatever it says).
func (m *Matcher) MatchText(expected, actual []byte) (ok bool, timestamp string) {
	if !m.Tolerant {
		return false, ""
	}
	mark := m.Mark()
	m.ptr = m.ptr[:0]
	w := textWalk{m: m, e: expected, a: actual}
	if !w.value(true) || w.ei != len(expected) || w.ai != len(actual) {
		m.Rollback(mark)
		return false, ""
	}
	return true, w.ts
}

type textWalk struct {
	m      *Matcher
	e, a   []byte
	ei, ai int
	ts     string
	depth  int
}

func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// value matches the values at w.e[w.ei] and w.a[w.ai] and moves past both.
func (w *textWalk) value(top bool) bool {
	if w.ei >= len(w.e) || w.ai >= len(w.a) {
		return false
	}
	switch c := w.e[w.ei]; c {
	case '"':
		end, esc := stringEnd(w.e, w.ei+1)
		if esc || end >= len(w.e) {
			return false
		}
		return w.str(w.e[w.ei+1 : end])
	case '{', '[':
		if w.depth++; w.depth > jsonv.MaxDepth {
			return false // not valid JSON: Match's to say
		}
		ok := false
		if c == '{' {
			ok = w.object(top)
		} else {
			ok = w.array()
		}
		w.depth--
		return ok
	default:
		// A number or a literal: the same token.
		end := tokenEnd(w.e, w.ei)
		tok := w.e[w.ei:end]
		if len(tok) == 0 || !bytes.HasPrefix(w.a[w.ai:], tok) || tokenEnd(w.a, w.ai) != w.ai+len(tok) {
			return false
		}
		w.ei, w.ai = end, w.ai+len(tok)
		return true
	}
}

// str matches the expected string whose text (no escapes) is text.
func (w *textWalk) str(text []byte) bool {
	lit := w.e[w.ei : w.ei+len(text)+2] // with its quotes
	kind, arg := Classify(view(text))
	if kind == Literal {
		if view(text) == AnyElements || !bytes.HasPrefix(w.a[w.ai:], lit) {
			return false
		}
		w.ei, w.ai = w.ei+len(lit), w.ai+len(lit)
		return true
	}
	aEnd, ok := valueEnd(w.a, w.ai)
	if !ok {
		return false
	}
	act := w.a[w.ai:aEnd]
	// The actual value's text when it is a string without escapes.
	plain, isPlain := []byte(nil), false
	if len(act) >= 2 && act[0] == '"' {
		if e, esc := stringEnd(act, 1); !esc && e == len(act)-1 {
			plain, isPlain = act[1:len(act)-1], true
		}
	}
	switch kind {
	case Any:
	case Timestamp:
		if !isPlain || !isTimestamp(view(plain)) {
			return false
		}
	case UUID:
		if !isPlain || !IsUUID(view(plain)) {
			return false
		}
	case Duration:
		if act[0] != '-' && (act[0] < '0' || act[0] > '9') {
			return false
		}
		// As Value.Float64: a number, not infinite.
		if f, _ := strconv.ParseFloat(view(act), 64); math.IsInf(f, 0) || f < 0 {
			return false
		}
	case Glob:
		if !isPlain || !globMatch(w.m.glob(view(text)), view(plain)) {
			return false
		}
	case Binding:
		var reason string
		if isPlain {
			reason = w.m.bindCanon(arg, act)
		} else {
			v, err := jsonv.Parse(act)
			if err != nil {
				return false
			}
			reason = w.m.bind(arg, v)
		}
		if reason != "" {
			return false
		}
	default: // Escaped: the expected text has a backslash, taken above
		return false
	}
	w.ei, w.ai = w.ei+len(lit), aEnd
	return true
}

func (w *textWalk) object(top bool) bool {
	if w.a[w.ai] != '{' {
		return false
	}
	w.ei++
	w.ai++
	if w.ei < len(w.e) && w.e[w.ei] == '}' {
		if w.ai < len(w.a) && w.a[w.ai] == '}' {
			w.ei++
			w.ai++
			return true
		}
		return false
	}
	for {
		// The key: the same bytes on both sides.
		if w.ei >= len(w.e) || w.e[w.ei] != '"' {
			return false
		}
		end, esc := stringEnd(w.e, w.ei+1)
		if esc || end+1 >= len(w.e) || w.e[end+1] != ':' {
			return false
		}
		key := w.e[w.ei+1 : end]
		if view(key) == AnyMembersKey {
			return false
		}
		tok := w.e[w.ei : end+2] // "key":
		if !bytes.HasPrefix(w.a[w.ai:], tok) {
			return false
		}
		w.ei, w.ai = end+2, w.ai+len(tok)
		n := w.m.push(view(key))
		startE, startA := w.ei, w.ai
		if !w.value(false) {
			return false
		}
		w.m.ptr = w.m.ptr[:n]
		if top && view(key) == "timestamp" && view(w.e[startE:w.ei]) == `"`+TimestampToken+`"` {
			w.ts = view(w.a[startA+1 : w.ai-1]) // a string without escapes: it matched [TIMESTAMP]
		}
		if w.ei >= len(w.e) || w.ai >= len(w.a) || w.e[w.ei] != w.a[w.ai] {
			return false
		}
		switch w.e[w.ei] {
		case ',':
			w.ei++
			w.ai++
		case '}':
			w.ei++
			w.ai++
			return true
		default:
			return false
		}
	}
}

func (w *textWalk) array() bool {
	if w.a[w.ai] != '[' {
		return false
	}
	w.ei++
	w.ai++
	if w.ei < len(w.e) && w.e[w.ei] == ']' {
		if w.ai < len(w.a) && w.a[w.ai] == ']' {
			w.ei++
			w.ai++
			return true
		}
		return false
	}
	for i := 0; ; i++ {
		n := w.m.pushIndex(i)
		if !w.value(false) {
			return false
		}
		w.m.ptr = w.m.ptr[:n]
		if w.ei >= len(w.e) || w.ai >= len(w.a) || w.e[w.ei] != w.a[w.ai] {
			return false
		}
		switch w.e[w.ei] {
		case ',':
			w.ei++
			w.ai++
		case ']':
			w.ei++
			w.ai++
			return true
		default:
			return false
		}
	}
}

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
