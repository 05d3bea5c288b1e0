package wire

import (
	"bytes"
	"encoding/binary"
	"iter"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// This file reads a request body in place. Decode validates the whole body
// once (jsonv.Canonicalizer.CheckSpans: the same errors as jsonv.Parse,
// with scratch space that follows the nesting, not the number of values,
// and where its arrays and objects end), then walks it as raw JSON texts:
// a val is the text of one value, and nothing of it is decoded until a
// member, an element or a string is asked for. A body therefore costs what
// the request keeps (each message's text, the ids, the tool names), never
// a tree of its values: a body of millions of tiny values costs no more
// than a body of a few long strings. The spans the check recorded let a
// walk step over a container without reading it again, so a body is read
// about once by the walk however deep the value asked for.

// val is the text of one value of a validated JSON body (no surrounding
// space); the zero val is an absent value. Its methods mirror
// jsonv.Value's.
type val struct {
	b  []byte
	at int        // where b starts in the body
	ix *spanIndex // the body's recorded containers; nil: none
}

// spanIndex is where the containers of a checked body end: the spans
// jsonv.Canonicalizer.CheckSpans recorded, by start.
type spanIndex struct {
	spans []jsonv.Span
	next  int // the span after the one found last: a walk's next question, most often
}

// end is the end of the container that starts at offset at of the body,
// -1 when it was not recorded.
func (ix *spanIndex) end(at int) int {
	if ix == nil {
		return -1
	}
	sp := ix.spans
	lo, hi := 0, len(sp)
	if n := ix.next; n < len(sp) && int(sp[n].Start) <= at {
		lo = n // a walk goes forward: the next span, or one past it
		if int(sp[n].Start) == at {
			hi = n
		}
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int(sp[m].Start) < at {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(sp) && int(sp[lo].Start) == at && sp[lo].End > 0 {
		ix.next = lo + 1
		return int(sp[lo].End)
	}
	return -1
}

// checker validates bodies and keeps the spans of the last; not safe for
// concurrent use.
type checker struct {
	c  jsonv.Canonicalizer
	ix spanIndex
}

// checkers are the checkers of bodies being decoded, used again once
// their body's decoding ends.
var checkers = sync.Pool{New: func() any { return new(checker) }}

// bytesPerSpan bounds the spans kept for a body: at most one for every
// 64 bytes (a span is 8), so that a body of tiny containers costs an
// eighth of its size more at most (an agent's request has one container
// in about a hundred bytes); past that, a walk reads the others' text
// again.
const bytesPerSpan = 64

// maxKeptSpans bounds the span buffer a pooled checker keeps.
const maxKeptSpans = 1 << 14

// check validates body as jsonv.Parse would (the same *SyntaxError) and
// returns its top-level value, read through the checker's spans until
// the checker is put back (done).
func (k *checker) check(body []byte) (val, error) {
	spans, err := k.c.CheckSpans(body, k.ix.spans[:0], len(body)/bytesPerSpan+8)
	k.ix.spans, k.ix.next = spans, 0
	if err != nil {
		return val{}, err
	}
	return k.ix.root(body), nil
}

// done puts the checker back: nothing may read a val of its body after.
func (k *checker) done() {
	if cap(k.ix.spans) > maxKeptSpans {
		k.ix.spans = nil
	}
	checkers.Put(k)
}

// root is the value of a whole validated text, the space around it
// trimmed.
func (ix *spanIndex) root(b []byte) val {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return val{b: b[i:j], at: i, ix: ix}
}

// rawOf is the value of a validated text read without spans.
func rawOf(b []byte) val { return (*spanIndex)(nil).root(b) }

// sub is v's text from i to j, a value of its own.
func (v val) sub(i, j int) val { return val{b: v.b[i:j], at: v.at + i, ix: v.ix} }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Kind is the value's JSON kind; Invalid when absent.
func (v val) Kind() jsonv.Kind {
	if len(v.b) == 0 {
		return jsonv.Invalid
	}
	switch v.b[0] { // a val has no leading space
	case '{':
		return jsonv.Object
	case '[':
		return jsonv.Array
	case '"':
		return jsonv.String
	case 't', 'f':
		return jsonv.Bool
	case 'n':
		return jsonv.Null
	}
	return jsonv.Number
}

// IsValid reports whether the value is present.
func (v val) IsValid() bool { return len(v.b) > 0 }

// IsTrue reports whether the value is the literal true.
func (v val) IsTrue() bool { return string(v.b) == "true" }

// Text is a string's text, a number's Python spelling (as jsonv.Value's
// Text), "" for any other kind.
func (v val) Text() string {
	switch v.Kind() {
	case jsonv.String:
		s, _ := jsonv.StringText(v.b)
		return s
	case jsonv.Number:
		return v.scalar().Text()
	}
	return ""
}

// Int64 is an integer that fits in int64 (jsonv.Value's Int64).
func (v val) Int64() (int64, bool) {
	if v.Kind() != jsonv.Number {
		return 0, false
	}
	return v.scalar().Int64()
}

// scalar parses the value with jsonv: only for a number, or a small value
// (an echoed tool_choice: at most MaxEchoBytes).
func (v val) scalar() jsonv.Value {
	s, _ := jsonv.Parse(v.b)
	return s
}

// Get is an object's member key; absent for any other kind.
func (v val) Get(key string) (val, bool) {
	if v.Kind() != jsonv.Object {
		return val{}, false
	}
	var out [1]val
	v.pick(out[:], key)
	return out[0], out[0].IsValid()
}

// pick reads the members keys of an object in one pass over it: the
// value of keys[i] goes to out[i] (absent when it is, or when v is no
// object). out is the caller's (an array on its stack).
func (v val) pick(out []val, keys ...string) {
	clear(out)
	if v.Kind() != jsonv.Object {
		return
	}
	left := len(keys)
	v.eachMember(func(rawKey []byte, value val) bool {
		if hasEscape(rawKey) {
			rawKey = []byte(jsonv.KeyText(rawKey))
		}
		for i, want := range keys {
			if !out[i].IsValid() && string(rawKey) == want {
				out[i] = value
				left--
				break
			}
		}
		return left > 0
	})
}

// nonEmptyString reports whether the value is a string whose text is not
// empty (any content decodes to at least one character), without making
// its text.
func (v val) nonEmptyString() bool { return len(v.b) > 2 && v.b[0] == '"' }

// isString reports whether the value is the string s, without making its
// text unless it has escapes.
func (v val) isString(s string) bool {
	if v.Kind() != jsonv.String {
		return false
	}
	if text := v.b[1 : len(v.b)-1]; !hasEscape(text) {
		return string(text) == s
	}
	return v.Text() == s
}

// oneOf is the string of choices v is ("" for none): a constant, so that
// what is kept holds no copy of the body, and nothing is allocated for a
// string without escapes.
func (v val) oneOf(choices []string) string {
	if v.Kind() != jsonv.String {
		return ""
	}
	text := v.b[1 : len(v.b)-1]
	if hasEscape(text) {
		t := v.Text()
		for _, c := range choices {
			if t == c {
				return c
			}
		}
		return ""
	}
	for _, c := range choices {
		if string(text) == c {
			return c
		}
	}
	return ""
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// All iterates over an array's elements with their indexes; nothing for
// any other kind.
func (v val) All() iter.Seq2[int, val] {
	return func(yield func(int, val) bool) {
		if v.Kind() != jsonv.Array {
			return
		}
		i := 0
		v.eachElement(func(e val) bool {
			ok := yield(i, e)
			i++
			return ok
		})
	}
}

// Len is how many elements an array has (a pass over it, nothing
// decoded), at most max.
func (v val) Len(max int) int {
	n := 0
	for range v.All() {
		if n++; n >= max {
			break
		}
	}
	return n
}

// Empty reports whether an array or object has no element or member.
func (v val) Empty() bool {
	if k := v.Kind(); k != jsonv.Array && k != jsonv.Object {
		return true
	}
	return skipSpace(v.b, 1) == len(v.b)-1
}

// appendJSON appends what jsonv.Parse(v).AppendJSON would (compact,
// members in their order, Python's spellings) in one pass over the text,
// without a tree, and counts what it writes against the decoder's text
// budget before writing it: it stops, with the budget's error, where the
// text would grow past it (a number's spelling can be several times its
// text: 1e15 is 1000000000000000.0). dst is best given the capacity of
// the text expected (grow).
func (d *decoder) appendJSON(dst []byte, val val) ([]byte, *Error) {
	v := val.b
	for i := 0; i < len(v); {
		c := v[i]
		if isSpace(c) {
			i++
			continue
		}
		var piece []byte // what v[i:end] is written as
		end := i + 1
		switch {
		case c == '"':
			end = strEnd(v, i)
			piece = v[i:end] // no escape: Python writes it as it is
			if bytes.IndexByte(piece, '\\') >= 0 {
				s, _ := jsonv.StringText(v[i:end])
				piece = jsonv.AppendPyString(nil, s)
			}
		case c == '-' || c >= '0' && c <= '9':
			for end < len(v) && strings.IndexByte("+-.eE0123456789", v[end]) >= 0 {
				end++
			}
			switch lit := v[i:end]; {
			case strings.ContainsAny(string(lit), ".eE"):
				f, _ := strconv.ParseFloat(string(lit), 64) // as jsonv's scanner reads it
				d.num = jsonv.AppendPyFloat(d.num[:0], f)
				piece = d.num
			case string(lit) == "-0":
				piece = []byte{'0'}
			default:
				piece = lit
			}
		case c == 't':
			end, piece = i+4, v[i:i+4]
		case c == 'f':
			end, piece = i+5, v[i:i+5]
		case c == 'n':
			end, piece = i+4, v[i:i+4]
		default: // structure
			piece = v[i:end]
		}
		if e := d.addText(len(piece)); e != nil {
			return dst, e
		}
		if len(dst)+len(piece) > cap(dst) {
			// Grow by doubling, but never past what the budget has left:
			// append's own growth could overshoot it by a quarter.
			grown := make([]byte, len(dst), len(dst)+len(piece)+min(max(cap(dst), 64), d.budget-d.text))
			copy(grown, dst)
			dst = grown
		}
		dst = append(dst, piece...)
		i = end
	}
	return dst, nil
}

// grow is the capacity for the text of v after a prefix of n bytes: v's
// own size (its text is rarely longer), within what the budget has left.
func (d *decoder) grow(n int, v val) []byte {
	return make([]byte, 0, n+max(0, min(len(v.b), d.budget-d.text))+64)
}

// The walks below read a validated text in linear time: a string is
// skipped by finding its closing quote (a quote preceded by an even run of
// backslashes), never rescanned from each escape, so that a string of
// millions of escapes costs its length.

// Bit tricks for testing 8 bytes at once.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// strEnd is the index past the string literal at v[i].
func strEnd(v []byte, i int) int {
	j := i + 1
	// Most strings are short (keys, roles, ids): their first 16 bytes are
	// read 8 at a time (a word's quotes and backslashes flagged at once,
	// the lowest flag exact), before a call to bytes.IndexByte would have
	// returned. A backslash first leaves it to the search below.
	for k := 0; k < 2 && j+8 <= len(v); k++ {
		x := binary.LittleEndian.Uint64(v[j:])
		q, b := x^('"'*lsb), x^('\\'*lsb)
		if m := ((q-lsb)&^q | (b-lsb)&^b) & msb; m != 0 {
			if j += bits.TrailingZeros64(m) >> 3; v[j] == '"' {
				return j + 1
			}
			break
		}
		j += 8
	}
	j = i + 1
	for {
		q := bytes.IndexByte(v[j:], '"')
		if q < 0 {
			return len(v) // not valid JSON: the caller's contract is broken; do not panic
		}
		q += j
		k := q
		for k > i+1 && v[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// skipSpace is the index of the first byte at or past i that is no space.
func skipSpace(v []byte, i int) int {
	for i < len(v) && isSpace(v[i]) {
		i++
	}
	return i
}

// valueEnd is the index past the value at v.b[i] (no leading space): a
// container's end as the check recorded it, or found by reading it.
func (v val) valueEnd(i int) int {
	if i < len(v.b) && (v.b[i] == '{' || v.b[i] == '[') {
		if e := v.ix.end(v.at + i); e >= 0 {
			return e - v.at
		}
	}
	return valueEnd(v.b, i)
}

// valueEnd is the index past the value at v[i] (no leading space), read.
func valueEnd(v []byte, i int) int {
	if i >= len(v) {
		return len(v)
	}
	switch v[i] {
	case '"':
		return strEnd(v, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(v); {
			switch v[j] {
			case '"':
				j = strEnd(v, j)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
			j++
		}
		return len(v)
	}
	j := i
	for j < len(v) && !isSpace(v[j]) && v[j] != ',' && v[j] != '}' && v[j] != ']' && v[j] != ':' {
		j++
	}
	return j
}

// eachMember calls fn with the key (as written, without its quotes) and
// the value of each member of the object v, in order, until fn returns
// false.
func (o val) eachMember(fn func(rawKey []byte, value val) bool) {
	v := o.b
	i := skipSpace(v, 1)
	for i < len(v) && v[i] == '"' {
		ke := strEnd(v, i)
		key := v[i+1 : max(ke-1, i+1)]
		vs := skipSpace(v, skipSpace(v, ke)+1) // past the ':'
		ve := o.valueEnd(vs)
		if vs >= len(v) || !fn(key, o.sub(vs, ve)) {
			return
		}
		if i = skipSpace(v, ve); i >= len(v) || v[i] != ',' {
			return
		}
		i = skipSpace(v, i+1)
	}
}

// eachElement calls fn with each element of the array a, in order,
// until fn returns false.
func (a val) eachElement(fn func(value val) bool) {
	v := a.b
	for i := skipSpace(v, 1); i < len(v) && v[i] != ']'; {
		ve := a.valueEnd(i)
		if !fn(a.sub(i, ve)) {
			return
		}
		if i = skipSpace(v, ve); i >= len(v) || v[i] != ',' {
			return
		}
		i = skipSpace(v, i+1)
	}
}
