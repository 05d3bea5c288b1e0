package jsonv

import (
	"fmt"
	"math"
	"sync"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects Parse accepts. It
// bounds the memory an adversarial input can make the parser use; Trace
// events nest a handful of levels.
const MaxDepth = 512

// MaxIntDigits is the most digits an integer may have. It is Python 3.11's
// default int string conversion limit (sys.get_int_max_str_digits()), beyond
// which json.loads raises, so a longer integer has no fingerprint.
const MaxIntDigits = 4300

// SyntaxError reports why a JSON text was rejected and where.
type SyntaxError struct {
	Offset int    // byte offset into the input of the offending byte
	Code   string // machine-readable class, see the Err* constants
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// Syntax error codes.
const (
	ErrInvalidJSON    = "INVALID_JSON"
	ErrDuplicateKey   = "DUPLICATE_KEY"
	ErrNonFinite      = "NON_FINITE_NUMBER"
	ErrNumberOverflow = "NUMBER_OVERFLOW"
	ErrInvalidUTF8    = "INVALID_UTF8"
	ErrLoneSurrogate  = "LONE_SURROGATE"
	ErrTooDeep        = "TOO_DEEP"
	ErrTrailingData   = "TRAILING_DATA"
)

// scanners are pooled so Parse reuses its tape between calls.
var scanPool = sync.Pool{New: func() any { return new(scanner) }}

// Parse decodes exactly one JSON text (surrounding whitespace allowed). It
// returns a *SyntaxError on bad input.
//
// Errors are reported at the first offending byte in input order, with one
// exception: duplicate keys are found when their object closes, so a syntax
// error later in the same object is reported instead. Invalid UTF-8 is
// reported as ErrInvalidUTF8 wherever it is, even after the value.
//
// The strings of the returned Value share one allocation, so keeping any
// of them keeps all of the text alive.
func Parse(data []byte) (Value, error) {
	s := scanPool.Get().(*scanner)
	defer scanPool.Put(s)
	if err := s.scan(data); err != nil {
		s.release()
		return Value{}, err
	}
	v := s.build()
	s.release()
	s.shrink()
	return v, nil
}

// build turns a scanned tape into a Value tree. All string and number texts
// share one string, and all elements and members share one slab each, so a
// parse costs a few allocations whatever the input's size. It repoints the
// scalar nodes' spans from src into that text, so the tape cannot be
// emitted afterwards.
func (s *scanner) build() Value {
	src := s.src
	buf := s.text[:0]
	for i := range s.nodes {
		n := &s.nodes[i]
		start := len(buf)
		switch n.kind {
		case tStr:
			buf = append(buf, src[n.a:n.b]...)
		case tStrEsc:
			buf = appendUnescaped(buf, src[n.a:n.b])
		case tInt:
			if isNegZero(src[n.a:n.b]) {
				buf = append(buf, '0')
			} else {
				buf = append(buf, src[n.a:n.b]...)
			}
		case tFloat:
			buf = AppendPyFloat(buf, math.Float64frombits(uint64(n.c)))
		default:
			continue
		}
		n.a, n.b = start, len(buf)
	}
	s.text = buf
	b := builder{
		nodes: s.nodes,
		text:  string(buf),
		vals:  make([]Value, s.nElems),
		mems:  make([]Member, s.nMembers),
	}
	v, _ := b.value(0)
	return v
}

type builder struct {
	nodes []node
	text  string
	vals  []Value
	mems  []Member
}

// value builds the value at node i and returns the index of the node after
// it. Recursion is bounded by MaxDepth, which the scanner enforced.
func (b *builder) value(i int) (Value, int) {
	n := &b.nodes[i]
	switch n.kind {
	case tNull:
		return Value{kind: Null}, i + 1
	case tFalse:
		return Value{kind: Bool}, i + 1
	case tTrue:
		return Value{kind: Bool, b: true}, i + 1
	case tInt:
		return Value{kind: Number, s: b.text[n.a:n.b]}, i + 1
	case tFloat:
		return Value{kind: Number, float: true, s: b.text[n.a:n.b]}, i + 1
	case tStr, tStrEsc:
		return Value{kind: String, s: b.text[n.a:n.b]}, i + 1
	case tArr:
		cnt := n.b
		elems := b.vals[:cnt:cnt]
		b.vals = b.vals[cnt:]
		j := i + 1
		for k := range elems {
			elems[k], j = b.value(j)
		}
		return Value{kind: Array, arr: elems}, n.a
	default: // tObj
		cnt := n.b
		ms := b.mems[:cnt:cnt]
		b.mems = b.mems[cnt:]
		j := i + 1
		for k := range ms {
			kn := &b.nodes[j]
			ms[k].Key = b.text[kn.a:kn.b]
			ms[k].Value, j = b.value(j + 1)
		}
		return Value{kind: Object, obj: ms}, n.a
	}
}

// appendUnescaped appends the decoded text of a string's raw content, which
// the scanner has validated.
func appendUnescaped(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			j := i + 1
			for j < len(raw) && raw[j] != '\\' {
				j++
			}
			dst = append(dst, raw[i:j]...)
			i = j
			continue
		}
		switch e := raw[i+1]; e {
		case 'u':
			r := rune(hex4(raw[i+2:]))
			i += 6
			if r >= 0xD800 && r < 0xDC00 {
				r = 0x10000 + (r-0xD800)<<10 + rune(hex4(raw[i+2:])) - 0xDC00
				i += 6
			}
			dst = utf8.AppendRune(dst, r)
		default:
			dst = append(dst, unescapeByte[e])
			i += 2
		}
	}
	return dst
}

// unescapeByte maps the letter of a two-byte escape to the byte it stands for.
var unescapeByte = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 decodes four hex digits, or returns -1 if p does not start with them.
func hex4(p []byte) int {
	if len(p) < 4 {
		return -1
	}
	a, b, c, d := hexVal[p[0]], hexVal[p[1]], hexVal[p[2]], hexVal[p[3]]
	if a|b|c|d < 0 {
		return -1
	}
	return int(a)<<12 | int(b)<<8 | int(c)<<4 | int(d)
}

var hexVal = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = int8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = int8(c - 'a' + 10)
		t[c-'a'+'A'] = int8(c - 'a' + 10)
	}
	return t
}()
