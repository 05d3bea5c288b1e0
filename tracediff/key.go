package tracediff

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// scanKey reads a line's alignment key (sequence, session_id,
// provenance.run_id) without building a value: the top-level members are
// walked and skipped, provenance is entered. It gives up (ok false) on
// anything it does not read plainly, an escape in one of those strings, a
// sequence that is not plain digits, a malformed line, and the caller then
// parses the line. It never decides validity: validation runs beside it,
// and a line it does not accept makes the comparison void; so on a valid
// line it may take shortcuts (scanKeyFast) that would read an invalid one
// otherwise.
func scanKey(line []byte, prev *key, pc *provCache) (key, bool) {
	if k, ok := scanKeyFast(line, prev, pc); ok {
		return k, true
	}
	kr := keyReader{line: line, prev: prev}
	i := ws(line, 0)
	if i >= len(line) || line[i] != '{' {
		return key{}, false
	}
	end := members(line, i, kr.member)
	if end < 0 || !kr.haveSeq || ws(line, end) != len(line) {
		return key{}, false
	}
	*prev = kr.k
	return kr.k, true
}

// scanKeyFast is scanKey on a valid line in the reference layout, where
// provenance comes after the payload: the members are walked only until
// sequence and session_id are read; provenance is then found by its key,
// "provenance": with a quote that opens a string (in valid JSON such a
// quote followed by provenance": opens a key), and taken to be the
// top-level member when the members from there end with the line. ok is
// false when that does not work out (scanKey then walks the whole line).
//
// pc (may be nil) holds the provenance of an earlier line read this way:
// when the candidate's value is the same bytes, it is not read again.
func scanKeyFast(line []byte, prev *key, pc *provCache) (key, bool) {
	kr := keyReader{line: line, prev: prev}
	i := ws(line, 0)
	if i >= len(line) || line[i] != '{' {
		return key{}, false
	}
	if i = ws(line, i+1); i >= len(line) || line[i] != '"' {
		return key{}, false
	}
	for !(kr.haveSeq && kr.haveSession) {
		var ok bool
		if i, ok = member(line, i, kr.member); !ok {
			return key{}, false
		}
		i = ws(line, i)
		if i >= len(line) || line[i] != ',' {
			return key{}, false // the end: scanKey reads it
		}
		i = ws(line, i+1)
	}
	if kr.haveProv {
		*prev = kr.k
		return kr.k, true
	}
	const provKey = `"provenance":`
	for tries := 0; tries < 4; tries++ {
		p := bytes.Index(line[i:], []byte(provKey))
		if p < 0 {
			return key{}, false
		}
		p += i
		i = p + len(provKey)
		n := 0
		for b := p - 1; b >= 0 && line[b] == '\\'; b-- {
			n++
		}
		if n%2 != 0 {
			continue // an escaped quote, inside a string
		}
		vs := p + len(provKey)
		if pc != nil && len(pc.text) > 0 && bytes.HasPrefix(line[vs:], pc.text) {
			tail := kr
			tail.k.run, tail.haveProv = pc.run, true
			end := afterMember(line, vs+len(pc.text), tail.member)
			if end >= 0 && ws(line, end) == len(line) {
				*prev = tail.k
				return tail.k, true
			}
			continue // the same bytes read the same way: not this one
		}
		tail := kr
		end := membersFrom(line, p, tail.member)
		if end >= 0 && tail.haveProv && ws(line, end) == len(line) {
			if pc != nil && tail.provEnd > vs {
				pc.text, pc.run = append(pc.text[:0], line[vs:tail.provEnd]...), tail.k.run
			}
			*prev = tail.k
			return tail.k, true
		}
	}
	return key{}, false
}

// provCache is a provenance value scanKeyFast read (its text) and the run
// it names.
type provCache struct {
	text []byte
	run  string
}

// keyReader gathers the key members as members walks an event.
type keyReader struct {
	provEnd                        int // past the provenance value
	line                           []byte
	prev                           *key
	k                              key
	haveSeq, haveSession, haveProv bool
}

func (kr *keyReader) member(name []byte, vs int) (int, bool) {
	line, prev := kr.line, kr.prev
	switch string(name) {
	case "sequence":
		j := vs
		var n int64
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			if j-vs > 17 {
				return 0, false
			}
			n = n*10 + int64(line[j]-'0')
			j++
		}
		if j == vs || j < len(line) && (line[j] == '.' || line[j] == 'e' || line[j] == 'E') {
			return 0, false
		}
		kr.k.seq, kr.haveSeq = n, true
		return j, true
	case "session_id":
		s, end, ok := plainString(line, vs)
		if !ok {
			return 0, false
		}
		kr.k.session, kr.haveSession = reuse(s, prev.session), true
		return end, true
	case "provenance":
		kr.haveProv = true
		if vs >= len(line) || line[vs] != '{' {
			end, ok := skip(line, vs)
			kr.provEnd = end
			return end, ok
		}
		ok := true
		end := members(line, vs, func(name []byte, ps int) (int, bool) {
			if string(name) != "run_id" {
				return skip(line, ps)
			}
			s, e, sok := plainString(line, ps)
			ok = ok && sok
			kr.k.run = reuse(s, prev.run)
			return e, sok
		})
		kr.provEnd = end
		return end, end >= 0 && ok
	}
	return skip(line, vs)
}

// reuse returns prev when b spells it, so that the run identity of
// consecutive lines is allocated once.
func reuse(b []byte, prev string) string {
	if string(b) == prev {
		return prev
	}
	return string(b)
}

func ws(line []byte, i int) int {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n') {
		i++
	}
	return i
}

// members walks the object starting at line[i] ('{'), calling member with
// each key (without escapes) and the index of its value; member returns
// the index just past the value. members returns the index past '}', or -1.
func members(line []byte, i int, fn func(name []byte, vs int) (int, bool)) int {
	i = ws(line, i+1)
	if i < len(line) && line[i] == '}' {
		return i + 1
	}
	return membersFrom(line, i, fn)
}

// member reads the member whose key is at line[i] and calls fn with it;
// it returns the index past the value.
func member(line []byte, i int, fn func(name []byte, vs int) (int, bool)) (int, bool) {
	name, end, ok := plainString(line, i)
	if !ok {
		return 0, false
	}
	i = ws(line, end)
	if i >= len(line) || line[i] != ':' {
		return 0, false
	}
	return fn(name, ws(line, i+1))
}

// afterMember goes on with the members of an object from just past a
// member's value at line[i]: the index past the object, or -1.
func afterMember(line []byte, i int, fn func(name []byte, vs int) (int, bool)) int {
	i = ws(line, i)
	if i >= len(line) {
		return -1
	}
	switch line[i] {
	case ',':
		return membersFrom(line, ws(line, i+1), fn)
	case '}':
		return i + 1
	}
	return -1
}

// membersFrom is members from the key at line[i] on.
func membersFrom(line []byte, i int, fn func(name []byte, vs int) (int, bool)) int {
	for {
		var ok bool
		if i, ok = member(line, i, fn); !ok {
			return -1
		}
		i = ws(line, i)
		if i >= len(line) {
			return -1
		}
		switch line[i] {
		case ',':
			i = ws(line, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// plainString reads a string without escapes at line[i] and returns its
// bytes and the index past the closing quote.
func plainString(line []byte, i int) ([]byte, int, bool) {
	if i >= len(line) || line[i] != '"' {
		return nil, 0, false
	}
	if j := quoteOrBackslash(line, i+1); j < len(line) && line[j] == '"' {
		return line[i+1 : j], j + 1, true
	}
	return nil, 0, false
}

// Bit tricks for testing 8 bytes at once: in haszero(x), the top bit of
// each byte of x that is zero is set, and the lowest set bit is exact
// (a borrow only moves up).
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// quoteOrBackslash returns the index of the first '"' or '\\' at or after
// line[j], or len(line): 8 bytes at a time for the first 32, then with
// bytes.IndexByte, which is faster on long strings.
func quoteOrBackslash(line []byte, j int) int {
	end := min(j+32, len(line))
	for ; j+8 <= end; j += 8 {
		x := binary.LittleEndian.Uint64(line[j:])
		q, b := x^('"'*lsb), x^('\\'*lsb)
		if m := ((q-lsb)&^q | (b-lsb)&^b) & msb; m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
	}
	for ; j < end; j++ {
		if c := line[j]; c == '"' || c == '\\' {
			return j
		}
	}
	if j >= len(line) {
		return len(line)
	}
	q := bytes.IndexByte(line[j:], '"')
	if q < 0 {
		q = len(line) - j
	}
	if b := bytes.IndexByte(line[j:j+q], '\\'); b >= 0 {
		return j + b
	}
	return j + q
}

// skip returns the index just past the JSON value at line[i], tracking
// strings and nesting only. A string is passed over with bytes.IndexByte
// (its quote, then a backslash before it), not a byte at a time.
func skip(line []byte, i int) (int, bool) {
	depth := 0
	for j := i; j < len(line); j++ {
		switch c := line[j]; c {
		case '"':
			e, ok := stringEnd(line, j+1)
			if !ok {
				return 0, false
			}
			if j = e; depth == 0 {
				return j + 1, true
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return j, j > i
			}
			if depth == 0 {
				return j + 1, true
			}
		case ',':
			if depth == 0 {
				return j, j > i
			}
		case ' ', '\t', '\r', '\n':
			if depth == 0 {
				return j, j > i
			}
		}
	}
	return len(line), depth == 0 && len(line) > i
}

// stringEnd returns the index of the quote that closes the string whose
// content starts at line[j]: the first quote not escaped, a backslash
// escaping the byte after it. ok is false when no quote closes it. It is
// jsonv.StringEnd, linear in the string's length whatever its escapes.
func stringEnd(line []byte, j int) (int, bool) {
	e, _ := jsonv.StringEnd(line, j)
	return e, e < len(line)
}
