package tolerant

import (
	"encoding/binary"
	"math/bits"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Lex finds the holes of an expected event as Check does, without checking
// that the line is JSON: the line is only cut into tokens (strings,
// brackets, separators and the runs between them), which costs a fraction
// of the strict check. ok is false when Lex does not read the line
// plainly (an escape or nothing in a key, brackets that do not pair, a
// hole whose string is not valid JSON or that does not stand between a
// ':', '[' or ',' and a ',', ']' or '}', or what Check would not compile);
// the caller then takes Check.
//
// On a line Check accepts, Lex returns what Check does. On any other line
// its holes may be anything, but they are whole JSON strings at places
// where a value stands in whatever the line's text around them is: so when
// MatchHoles then accepts a valid JSON event against them, the line is that
// event with some of its values replaced by strings, which is valid JSON,
// and Check would have compiled it to these holes. That is what lets a
// golden line matched against a validated actual line skip the strict
// check.
//
// key is the text of the members a comparison aligns events by, as the
// lexer met them (nil when it did not): top-level sequence and session_id
// and provenance's run_id; the caller reads them as it would on a valid
// line.
func (k *Compiler) Lex(holes []Hole, ptrs []byte, line []byte, key *LexKey) (_ []Hole, _ []byte, ok bool) {
	k.line, k.holes, k.ptrs, k.ok = line, holes, ptrs, true
	*key = LexKey{}
	k.lex.key = key
	ok = k.lex.run(k, line) && k.ok
	holes, ptrs = k.holes, k.ptrs
	k.line, k.holes, k.ptrs, k.lex.key = nil, nil, nil, nil
	return holes, ptrs, ok
}

// LexKey is the value text (quotes included) of an event's alignment
// members, as Lex met them.
type LexKey struct {
	Sequence, SessionID, RunID []byte
}

// lexer is Lex's state: the containers open around the current token.
type lexer struct {
	stack []lexFrame
	key   *LexKey
	// want is where the next value goes (a key member's); provNext: the
	// next value is the top-level provenance; prov is the depth of that
	// object while it is open (0: none).
	want     *[]byte
	provNext bool
	prov     int
	memo     []memoSlot  // top-level values read before (lexmemo.go)
	pending  memoPending // the top-level value being read, to remember
}

// lexFrame is one open container: in an object the current member's key
// (as written: Lex gives up on escaped keys), in an array the current
// element's index.
type lexFrame struct {
	obj   bool
	key   []byte
	index int
}

// Len and At make the lexer the path of the string being visited.
func (x *lexer) Len() int { return len(x.stack) }

func (x *lexer) At(i int) ([]byte, int) {
	f := &x.stack[i]
	if f.obj {
		return f.key, 0
	}
	return nil, f.index
}

// run cuts line into tokens and hands each string value that is not a
// plain literal to k.visit; false when it gives up. It reads only the
// bytes that make the structure (marks: quotes, brackets, commas; a
// backslash outside strings gives up) and a key is the string a ':'
// follows: which is what they are in valid JSON.
func (x *lexer) run(k *Compiler, line []byte) bool {
	x.reset()
	_, ok := x.tokens(k, line, 0, 0)
	return ok && len(x.stack) == 0 && k.ok
}

func (x *lexer) reset() {
	x.stack, x.want, x.provNext, x.prov, x.pending = x.stack[:0], nil, false, 0, memoPending{}
}

// memberValue lexes the value at line[vs] of the top-level member name, a
// container, as run meets it (remembered values recalled): the holes are
// appended to k's, and it returns the index past the value.
func (x *lexer) memberValue(k *Compiler, line, name []byte, vs int) (int, bool) {
	x.reset()
	if vs >= len(line) || line[vs] != '{' && line[vs] != '[' {
		return 0, false
	}
	x.stack = append(x.stack, lexFrame{obj: true})
	x.member(name, line, vs)
	if s := x.slot(name); s != nil {
		if past, ok := x.recall(k, s, line, vs); ok {
			return past, k.ok
		}
	}
	end, ok := x.tokens(k, line, vs, 1)
	return end, ok && k.ok
}

// tokens is run's loop from line[i]: with stop > 0 it ends past the
// bracket that closes the stack down to stop containers, and fails at the
// end of the line.
func (x *lexer) tokens(k *Compiler, line []byte, i, stop int) (int, bool) {
	for i = nextMark(line, i); i < len(line); i = nextMark(line, i) {
		switch c := line[i]; c {
		case '{', '[':
			switch {
			case x.provNext && c == '{':
				x.prov = len(x.stack) + 1
			case x.want != nil:
				*x.want = line[i : i+1] // a container: not what a key is read from
			}
			x.want, x.provNext = nil, false
			x.stack = append(x.stack, lexFrame{obj: c == '{'})
		case '}', ']':
			n := len(x.stack)
			if n == 0 || x.stack[n-1].obj != (c == '}') {
				return 0, false
			}
			if n == x.prov {
				x.prov = 0
			}
			x.stack = x.stack[:n-1]
			if n == 2 && x.pending.slot != nil {
				x.remember(k, line, i+1)
			}
			if n-1 == stop && stop > 0 {
				return i + 1, true
			}
		case ',':
			if n := len(x.stack); n > 0 {
				x.stack[n-1].index++
			}
		case '"':
			end, esc, bracket := quoteEnd(line, i+1)
			if end >= len(line) {
				return 0, false
			}
			if j := skipWS(line, end+1); j < len(line) && line[j] == ':' {
				if esc || end == i+1 || len(x.stack) == 0 || !x.stack[len(x.stack)-1].obj {
					return 0, false // a key Path would decode, or an empty one, or no member
				}
				vs := skipWS(line, j+1)
				x.member(line[i+1:end], line, vs)
				if len(x.stack) == 1 && vs < len(line) && (line[vs] == '{' || line[vs] == '[') {
					if s := x.slot(line[i+1 : end]); s != nil {
						if past, ok := x.recall(k, s, line, vs); ok {
							x.want, x.provNext = nil, false
							i = past
							continue
						}
					}
				}
				i = j + 1
				continue
			}
			if raw := line[i+1 : end]; !bracket && !esc && len(raw) > 3 && raw[0] != '{' || esc && plainLiteral(raw, esc) {
				x.take(line[i : end+1])
			} else if !x.value(k, line, i, end+1, esc) {
				return 0, false
			}
			i = end + 1
			continue
		default: // a backslash outside a string
			return 0, false
		}
		i++
	}
	return len(line), stop == 0
}

// member notes the key of the member whose value starts at line[vs]: an
// alignment member's value is taken, a scalar one at once (take).
func (x *lexer) member(name, line []byte, vs int) {
	x.stack[len(x.stack)-1].key = name
	x.want, x.provNext = nil, false
	switch n := len(x.stack); {
	case n == 1 && string(name) == "sequence":
		x.want = &x.key.Sequence
	case n == 1 && string(name) == "session_id":
		x.want = &x.key.SessionID
	case n == 1 && string(name) == "provenance":
		x.provNext = true // its run_id, if the value is an object
	case n == 2 && n == x.prov && string(name) == "run_id":
		x.want = &x.key.RunID
	}
	if x.want != nil && vs < len(line) && !isMark(line[vs]) {
		j := vs
		for j < len(line) && !isDelim(line[j]) {
			j++
		}
		x.take(line[vs:j])
	}
}

// take gives the scalar value v to the member that wants it.
func (x *lexer) take(v []byte) {
	if x.want != nil {
		*x.want = v
	}
	x.want, x.provNext = nil, false
}

// value visits the string value at a:b (quotes included); false when it
// is a hole that does not stand plainly where a value does, or whose
// string is not valid JSON.
func (x *lexer) value(k *Compiler, line []byte, a, b int, esc bool) bool {
	n := len(k.holes)
	x.take(line[a:b])
	t := ""
	if esc {
		if k.c.Check(line[a:b]) != nil {
			return false
		}
		t, _ = jsonv.StringText(line[a:b])
	} else {
		t = view(line[a+1 : b-1])
	}
	k.visit(a+1, b-1, t, x)
	if len(k.holes) == n {
		return true // a literal: the same bytes as the actual's
	}
	if h := k.holes[n]; h.Kind == Glob && !esc && k.c.Check(line[a:b]) != nil {
		return false // its text is the golden's own: it must be a valid string
	}
	// The bytes around it are outside strings, as they are in the actual
	// line that matches: a separator before, one after.
	p := a - 1
	for p >= 0 && isWS(line[p]) {
		p--
	}
	if p < 0 || line[p] != ':' && line[p] != '[' && line[p] != ',' {
		return false
	}
	j := skipWS(line, b)
	return j < len(line) && (line[j] == ',' || line[j] == ']' || line[j] == '}')
}

// The bytes nextMark stops at, 8 at a time: a byte of x equal to c is a
// zero byte of x^(c*lsb), and in haszero the lowest flag is exact (a
// borrow only moves up). '[' and ']' are '{' and '}' with bit 5 set.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

func haszero(x uint64) uint64 { return (x - lsb) &^ x & msb }

// nextMark returns the index of the first mark at or after i: a quote,
// a backslash, a bracket or a comma (len(line) when there is none).
func nextMark(line []byte, i int) int {
	if i < len(line) && isMark(line[i]) {
		return i // most often: a separator right after a string
	}
	for ; i+8 <= len(line); i += 8 {
		x := binary.LittleEndian.Uint64(line[i:])
		y := x | 0x20*lsb
		if m := haszero(x^'"'*lsb) | haszero(x^'\\'*lsb) | haszero(x^','*lsb) | haszero(y^'{'*lsb) | haszero(y^'}'*lsb); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(line) && !isMark(line[i]); i++ {
	}
	return i
}

// quoteEnd is jsonv.StringEnd, the plain start of the string read here 8
// bytes at a time; bracket: the string has no escapes and its content a
// '[' (it is only reported for such strings).
func quoteEnd(line []byte, i int) (end int, esc, bracket bool) {
	var br uint64
	for ; i+8 <= len(line); i += 8 {
		x := binary.LittleEndian.Uint64(line[i:])
		// A flag of haszero below the lowest true zero byte cannot be
		// set, and one above it is too: so a '[' flag below the quote's
		// byte is a '[' there.
		b := haszero(x ^ '['*lsb)
		if m := haszero(x^'"'*lsb) | haszero(x^'\\'*lsb); m != 0 {
			n := bits.TrailingZeros64(m)
			if i += n >> 3; line[i] == '"' {
				return i, false, br|b&(1<<n-1) != 0
			}
			end, esc = jsonv.StringEnd(line, i)
			return end, esc, false
		}
		br |= b
	}
	for ; i < len(line) && line[i] != '"' && line[i] != '\\'; i++ {
		if line[i] == '[' {
			br = 1
		}
	}
	if i < len(line) && line[i] == '"' {
		return i, false, br != 0
	}
	end, esc = jsonv.StringEnd(line, i)
	return end, esc, false
}

func isMark(c byte) bool {
	return c == '"' || c == '\\' || c == ',' || c == '{' || c == '}' || c == '[' || c == ']'
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipWS(line []byte, i int) int {
	for i < len(line) && isWS(line[i]) {
		i++
	}
	return i
}

// isDelim reports whether c ends a number or literal.
func isDelim(c byte) bool {
	return isWS(c) || isMark(c) || c == ':'
}
