package jsonv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/tracecheck/tracecheck/internal/stopbits"
)

// The scanner validates a JSON text completely and records it as a tape: a
// flat array of nodes in input order, each container followed by its
// contents. Parse builds Values from the tape and Canonicalizer writes it
// out with sorted keys; because both read the same tape, they accept and
// reject exactly the same inputs with exactly the same errors.

// Node kinds.
const (
	tNull uint8 = iota
	tFalse
	tTrue
	tInt
	tFloat
	tStr    // src[a:b] is the content, which has no escapes
	tStrEsc // src[a:b] is the raw content, with escapes
	tArr
	tObj
)

type node struct {
	kind uint8
	// Scalars: src[a:b] is the text (strings without their quotes,
	// literals too).
	// Containers: a is the index of the node after the container's
	// contents, b the number of elements or members.
	a, b int
	// tFloat: the value's bits. tObj: where the object's members, sorted by
	// key, start in scanner.order. tStrEsc object keys: the index of the
	// decoded key in scanner.ekeys.
	c int
}

// member is an object member whose object is still open. Sorting moves
// these, so they are small: the first 8 bytes of the decoded key
// (big-endian, zero padded), which decide most comparisons, and the key's
// node, which the value's node follows.
type member struct {
	prefix uint64
	node   int
}

type span struct{ a, b int }

type frame struct {
	node  int
	mbase int // object: index of its first member in scanner.mems
	count int // array: elements so far
	obj   bool
	// check mode: where scanner.keys and scanner.ekeys stood when the
	// object opened.
	kmark, emark int
	// span is the container's index in scanner.spans, -1 when it is not
	// recorded.
	span int
}

type scanner struct {
	src   []byte
	nodes []node
	stack []frame
	mems  []member
	order []int  // key node indices of each closed object, sorted by key
	keys  []byte // decoded escaped keys
	ekeys []span // where in keys each escaped key is
	text  []byte // Parse's text buffer

	nElems, nMembers int

	// check: validate only. The tape keeps only what validation still
	// needs (the open containers and the keys of open objects), so memory
	// follows the nesting and the widest open object, not the input's size.
	check bool
	// visit, in check mode, is called with each string value (not keys)
	// as it is read: its content src[a:b] and whether it has escapes.
	visit StringVisitor
	// spans, in check mode, receives the span of each container as it
	// opens, at most maxSpans of them (CheckSpans).
	spans    []Span
	maxSpans int

	// stops marks the bytes of src a string scan stops at (package
	// stopbits), a window at a time.
	stops stopbits.Window
}

// bigScratch is the scratch size (in elements) past which a scanner lets
// its buffers go after a call instead of keeping them for the next.
const bigScratch = 1 << 16

// shrink drops scratch buffers that one large input grew, so that a
// long-lived scanner does not keep the peak of its largest input.
func (s *scanner) shrink() {
	if cap(s.nodes) > bigScratch {
		s.nodes = nil
	}
	if cap(s.mems) > bigScratch {
		s.mems = nil
	}
	if cap(s.order) > bigScratch {
		s.order = nil
	}
	if cap(s.keys) > 16*bigScratch {
		s.keys = nil
	}
	if cap(s.ekeys) > bigScratch {
		s.ekeys = nil
	}
	if cap(s.text) > 16*bigScratch {
		s.text = nil
	}
}

// release drops references to the caller's input.
func (s *scanner) release() { s.src = nil }

// key returns a member's decoded key.
func (s *scanner) key(m *member) []byte {
	n := &s.nodes[m.node]
	if n.kind == tStr {
		return s.src[n.a:n.b]
	}
	e := s.ekeys[n.c]
	return s.keys[e.a:e.b]
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

func skipSpace(src []byte, i int) int {
	for i < len(src) && src[i] <= ' ' && isSpace(src[i]) {
		i++
	}
	return i
}

// scan validates src and fills the tape. It never recurses: open containers
// live on s.stack, which MaxDepth bounds.
func (s *scanner) scan(src []byte) *SyntaxError {
	s.src = src
	s.nodes = s.nodes[:0]
	s.stack = s.stack[:0]
	s.mems = s.mems[:0]
	s.order = s.order[:0]
	s.keys = s.keys[:0]
	s.ekeys = s.ekeys[:0]
	s.nElems, s.nMembers = 0, 0
	s.stops.Reset()

	n := len(src)
	i := skipSpace(src, 0)
	var err *SyntaxError

value:
	if i >= n {
		return errEOF(n)
	}
	switch c := src[i]; c {
	case '"':
		end, esc, e := s.quickEnd(src, i+1), false, (*SyntaxError)(nil)
		if end < 0 {
			if end, esc, e = s.scanString(src, i+1); e != nil {
				return e
			}
		}
		if s.visit != nil {
			s.visit.VisitString(i+1, end, esc, Path{s})
		}
		k := tStr
		if esc {
			k = tStrEsc
		}
		if !s.check { // check mode would drop it at once
			s.nodes = append(s.nodes, node{kind: k, a: i + 1, b: end})
		}
		i = end + 1
	case '{':
		if len(s.stack) >= MaxDepth {
			return errTooDeep(i)
		}
		s.stack = append(s.stack, frame{node: len(s.nodes), mbase: len(s.mems), obj: true, kmark: len(s.keys), emark: len(s.ekeys), span: s.openSpan(i)})
		s.nodes = append(s.nodes, node{kind: tObj})
		i = skipSpace(src, i+1)
		if i < n && src[i] == '}' {
			i++
			_ = s.closeObject(i) // an empty object has no duplicates
			goto after
		}
		goto key
	case '[':
		if len(s.stack) >= MaxDepth {
			return errTooDeep(i)
		}
		s.stack = append(s.stack, frame{node: len(s.nodes), span: s.openSpan(i)})
		s.nodes = append(s.nodes, node{kind: tArr})
		i = skipSpace(src, i+1)
		if i < n && src[i] == ']' {
			i++
			s.closeArray(i)
			goto after
		}
		s.stack[len(s.stack)-1].count++
		goto value
	case 't':
		if i, err = literal(src, i, "true"); err != nil {
			return err
		}
		if !s.check {
			s.nodes = append(s.nodes, node{kind: tTrue, a: i - 4, b: i})
		}
	case 'f':
		if i, err = literal(src, i, "false"); err != nil {
			return err
		}
		if !s.check {
			s.nodes = append(s.nodes, node{kind: tFalse, a: i - 5, b: i})
		}
	case 'n':
		if i, err = literal(src, i, "null"); err != nil {
			return err
		}
		if !s.check {
			s.nodes = append(s.nodes, node{kind: tNull, a: i - 4, b: i})
		}
	case 'N', 'I':
		return nonFinite(src, i)
	default:
		if c != '-' && (c < '0' || c > '9') {
			return unexpected(src, i, "looking for a value")
		}
		start := i
		var nd node
		if i, nd, err = scanNumber(src, i); err != nil {
			return err
		}
		if !s.check {
			nd.a, nd.b = start, i
			s.nodes = append(s.nodes, nd)
		}
	}

after:
	// A value has just ended at i.
	if s.check && len(s.stack) > 0 {
		// Drop the finished value's nodes: in an object, all but its
		// member's key; in an array, all of them.
		if top := &s.stack[len(s.stack)-1]; top.obj {
			s.nodes = s.nodes[:s.mems[len(s.mems)-1].node+1]
		} else {
			s.nodes = s.nodes[:top.node+1]
		}
	}
	if len(s.stack) == 0 {
		i = skipSpace(src, i)
		if i < n {
			if src[i] >= utf8.RuneSelf && !validUTF8At(src, i) {
				return errUTF8(src, i)
			}
			return &SyntaxError{Offset: i, Code: ErrTrailingData, Msg: "unexpected " + describe(src, i) + " after the JSON value"}
		}
		return nil
	}
	if i >= n || src[i] <= ' ' {
		if i = skipSpace(src, i); i >= n {
			return errEOF(n)
		}
	}
	if top := &s.stack[len(s.stack)-1]; top.obj {
		switch src[i] {
		case ',':
			if i++; i < n && src[i] <= ' ' {
				i = skipSpace(src, i)
			}
			goto key
		case '}':
			if err = s.closeObject(i + 1); err != nil {
				return err
			}
			i++
			goto after
		}
		return unexpected(src, i, "after object member, expected ',' or '}'")
	} else {
		switch src[i] {
		case ',':
			top.count++
			if i++; i < n && src[i] <= ' ' {
				i = skipSpace(src, i)
			}
			goto value
		case ']':
			i++
			s.closeArray(i)
			goto after
		}
		return unexpected(src, i, "after array element, expected ',' or ']'")
	}

key:
	if i >= n {
		return errEOF(n)
	}
	if src[i] != '"' {
		return unexpected(src, i, "looking for an object key")
	}
	{
		end, esc, e := s.quickEnd(src, i+1), false, (*SyntaxError)(nil)
		if end < 0 {
			if end, esc, e = s.scanString(src, i+1); e != nil {
				return e
			}
		}
		var p uint64
		if esc {
			k := len(s.keys)
			s.keys = appendUnescaped(s.keys, src[i+1:end])
			p = keyPrefix(s.keys[k:])
			s.nodes = append(s.nodes, node{kind: tStrEsc, a: i + 1, b: end, c: len(s.ekeys)})
			s.ekeys = append(s.ekeys, span{k, len(s.keys)})
		} else {
			if n-(i+1) >= 8 {
				p = binary.BigEndian.Uint64(src[i+1:])
				if l := end - (i + 1); l < 8 {
					p &= ^uint64(0) << (8 * (8 - l)) // l == 0 shifts out everything
				}
			} else {
				p = keyPrefix(src[i+1 : end])
			}
			s.nodes = append(s.nodes, node{kind: tStr, a: i + 1, b: end})
		}
		s.mems = append(s.mems, member{prefix: p, node: len(s.nodes) - 1})
		i = end + 1
	}
	if i >= n || src[i] != ':' {
		if i = skipSpace(src, i); i >= n || src[i] != ':' {
			return unexpected(src, i, "after object key, expected ':'")
		}
	}
	if i++; i < n && src[i] <= ' ' {
		i = skipSpace(src, i)
	}
	goto value
}

// openSpan records a container opening at i, when spans are wanted and
// there is room, and returns its index in s.spans (-1: not recorded).
func (s *scanner) openSpan(i int) int {
	if len(s.spans) >= s.maxSpans {
		return -1
	}
	if len(s.spans) == cap(s.spans) {
		// Doubled, within the bound: append's growth of a long slice by
		// a quarter would allocate four times what it keeps.
		s.spans = slices.Grow(s.spans, min(max(len(s.spans), 16), s.maxSpans-len(s.spans)))
	}
	s.spans = append(s.spans, Span{Start: int32(i)})
	return len(s.spans) - 1
}

// closeArray closes the innermost container, an array, which ends at end
// (past its ']').
func (s *scanner) closeArray(end int) {
	f := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	if f.span >= 0 {
		s.spans[f.span].End = int32(end)
	}
	nd := &s.nodes[f.node]
	nd.a, nd.b = len(s.nodes), f.count
	s.nElems += f.count
}

// closeObject sorts the object's members by key, rejects duplicates and
// records the sorted order for Canonicalizer. The object ends at end
// (past its '}').
func (s *scanner) closeObject(end int) *SyntaxError {
	f := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	if f.span >= 0 {
		s.spans[f.span].End = int32(end)
	}
	ms := s.mems[f.mbase:]
	if s.check && len(ms) <= 24 {
		// Validation needs no order: a small object's keys are compared
		// pair by pair (the 8-byte prefixes first), in input order, so
		// that the first key that repeats an earlier one is the error, as
		// the sort below finds it.
		for j := 1; j < len(ms); j++ {
			for i := 0; i < j; i++ {
				if ms[i].prefix == ms[j].prefix && bytes.Equal(s.key(&ms[i]), s.key(&ms[j])) {
					return &SyntaxError{Offset: s.keyOff(&ms[j]), Code: ErrDuplicateKey, Msg: "duplicate key " + quoteForMsg(s.key(&ms[j]))}
				}
			}
		}
		nd := &s.nodes[f.node]
		nd.b = len(ms)
		s.keys, s.ekeys = s.keys[:f.kmark], s.ekeys[:f.emark]
		s.nodes = s.nodes[:f.node+1]
		s.nMembers += len(ms)
		s.mems = s.mems[:f.mbase]
		return nil
	}
	s.sortMembers(ms)
	dup := -1
	for j := 1; j < len(ms); j++ {
		if ms[j].prefix != ms[j-1].prefix || !bytes.Equal(s.key(&ms[j]), s.key(&ms[j-1])) {
			continue
		}
		// Within a run of equal keys, the first duplicate in input order
		// is the run's second smallest offset; report the earliest over
		// all runs, as a left-to-right reader would.
		lo, hi := s.keyOff(&ms[j-1]), s.keyOff(&ms[j])
		if lo > hi {
			lo, hi = hi, lo
		}
		for j+1 < len(ms) && ms[j+1].prefix == ms[j].prefix && bytes.Equal(s.key(&ms[j+1]), s.key(&ms[j])) {
			j++
			if o := s.keyOff(&ms[j]); o < lo {
				lo, hi = o, lo
			} else if o < hi {
				hi = o
			}
		}
		if dup < 0 || hi < dup {
			dup = hi
		}
	}
	if dup >= 0 {
		for j := range ms {
			if s.keyOff(&ms[j]) == dup {
				return &SyntaxError{Offset: dup, Code: ErrDuplicateKey, Msg: "duplicate key " + quoteForMsg(s.key(&ms[j]))}
			}
		}
	}
	nd := &s.nodes[f.node]
	if s.check {
		// Nothing will read the object's keys again.
		nd.b = len(ms)
		s.keys, s.ekeys = s.keys[:f.kmark], s.ekeys[:f.emark]
		s.nodes = s.nodes[:f.node+1]
	} else {
		nd.a, nd.b, nd.c = len(s.nodes), len(ms), len(s.order)
		for j := range ms {
			s.order = append(s.order, ms[j].node)
		}
	}
	s.nMembers += len(ms)
	s.mems = s.mems[:f.mbase]
	return nil
}

// keyOff is the offset of a member's opening quote.
func (s *scanner) keyOff(m *member) int { return s.nodes[m.node].a - 1 }

func keyPrefix(k []byte) uint64 {
	if len(k) >= 8 {
		return binary.BigEndian.Uint64(k)
	}
	var b [8]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:])
}

// less orders members by decoded key. Byte order of valid UTF-8 is code
// point order, the order of Python's sort_keys.
func (s *scanner) less(a, b *member) bool {
	if a.prefix != b.prefix {
		return a.prefix < b.prefix
	}
	return bytes.Compare(s.key(a), s.key(b)) < 0
}

func (s *scanner) sortMembers(ms []member) {
	if len(ms) > 24 {
		sortMembersHeap(s, ms)
		return
	}
	for j := 1; j < len(ms); j++ {
		m := ms[j]
		k := j
		for ; k > 0; k-- {
			p := ms[k-1].prefix
			if m.prefix > p || m.prefix == p && !s.less(&m, &ms[k-1]) {
				break
			}
			ms[k] = ms[k-1]
		}
		ms[k] = m
	}
}

// sortMembersHeap is heapsort: no allocation, O(n log n) for big objects.
func sortMembersHeap(s *scanner, ms []member) {
	n := len(ms)
	down := func(i, n int) {
		for {
			c := 2*i + 1
			if c >= n {
				return
			}
			if c+1 < n && s.less(&ms[c], &ms[c+1]) {
				c++
			}
			if !s.less(&ms[i], &ms[c]) {
				return
			}
			ms[i], ms[c] = ms[c], ms[i]
			i = c
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		down(i, n)
	}
	for end := n - 1; end > 0; end-- {
		ms[0], ms[end] = ms[end], ms[0]
		down(0, end)
	}
}

// Bit tricks for testing 8 string bytes at once.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// quickEnd returns the closing quote of the string whose content starts at
// j when the first stop at or after j is that quote (most strings: no
// escape, no multi-byte character), else -1 and scanString decides.
func (s *scanner) quickEnd(src []byte, j int) int {
	if e, ok := s.stops.Quick(j); ok && src[e] == '"' {
		return e
	}
	return -1
}

// scanString scans a string whose content starts at i and returns the index
// of its closing quote and whether it contains escapes. The bytes it must
// look at (quotes, backslashes, controls, bytes >= 0x80) are found from
// the stop bits of package stopbits.
func (s *scanner) scanString(src []byte, i int) (int, bool, *SyntaxError) {
	n := len(src)
	esc := false
	for {
		if k, ok := s.stops.Quick(i); ok {
			i = k
		} else {
			i = s.stops.Next(src, i)
		}
		if i >= n {
			return 0, false, errEOF(n)
		}
		c := src[i]
		if c == '\\' {
			// The common escapes first, by table; \u and errors below.
			esc = true
			if i+1 < n && simpleEscape[src[i+1]] {
				i += 2
				continue
			}
			var err *SyntaxError
			if i, err = escapeAt(src, i); err != nil {
				return 0, false, err
			}
			continue
		}
		if c >= utf8.RuneSelf {
			// A run of multi-byte characters is read here, not one
			// word-test miss each.
			for {
				size := utf8Len(src, i)
				if size == 0 {
					return 0, false, errUTF8(src, i)
				}
				if i += size; i >= n || src[i] < utf8.RuneSelf {
					break
				}
			}
			continue
		}
		if c == '"' {
			return i, esc, nil
		}
		if c < 0x20 {
			return 0, false, &SyntaxError{Offset: i, Code: ErrInvalidJSON, Msg: fmt.Sprintf("unescaped control character U+%04X in string", c)}
		}
		i++ // a false stop (stopbits' portable path)
	}
}

// simpleEscape marks the bytes that may follow a backslash alone.
var simpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// escapeAt reads the escape at src[i] ('\\') that is not a simple one: a
// \u escape (a surrogate pair when it is a high surrogate), or an error.
// It returns the index after it.
func escapeAt(src []byte, i int) (int, *SyntaxError) {
	n := len(src)
	if i+1 >= n {
		return 0, errEOF(n)
	}
	if src[i+1] != 'u' {
		return 0, &SyntaxError{Offset: i, Code: ErrInvalidJSON, Msg: "invalid escape \\" + describeEsc(src, i+1)}
	}
	r := hex4(src[i+2:])
	if r < 0 {
		if n-(i+2) < 4 && allHex(src[i+2:]) {
			return 0, errEOF(n)
		}
		return 0, &SyntaxError{Offset: i, Code: ErrInvalidJSON, Msg: `invalid \u escape: want 4 hex digits`}
	}
	switch {
	case r >= 0xD800 && r < 0xDC00:
		if i+12 > n || src[i+6] != '\\' || src[i+7] != 'u' {
			return 0, errSurrogate(src, i, r)
		}
		if lo := hex4(src[i+8:]); lo < 0xDC00 || lo > 0xDFFF {
			return 0, errSurrogate(src, i, r)
		}
		return i + 12, nil
	case r >= 0xDC00 && r <= 0xDFFF:
		return 0, errSurrogate(src, i, r)
	}
	return i + 6, nil
}

func allHex(p []byte) bool {
	for _, c := range p {
		if hexVal[c] < 0 {
			return false
		}
	}
	return true
}

// utf8Len returns the length of the valid UTF-8 sequence at src[i], or 0.
// Like utf8.DecodeRune it rejects overlong forms, surrogates and values
// above U+10FFFF.
func utf8Len(src []byte, i int) int {
	c := src[i]
	switch {
	case c < 0x80:
		return 1
	case c < 0xC2:
		return 0
	case c < 0xE0:
		if i+1 < len(src) && src[i+1]&0xC0 == 0x80 {
			return 2
		}
		return 0
	case c < 0xF0:
		if i+2 >= len(src) || src[i+2]&0xC0 != 0x80 {
			return 0
		}
		c1 := src[i+1]
		if c1&0xC0 != 0x80 || (c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0) {
			return 0
		}
		return 3
	case c < 0xF5:
		if i+3 >= len(src) || src[i+2]&0xC0 != 0x80 || src[i+3]&0xC0 != 0x80 {
			return 0
		}
		c1 := src[i+1]
		if c1&0xC0 != 0x80 || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 >= 0x90) {
			return 0
		}
		return 4
	}
	return 0
}

// isNegZero reports whether an integer's text is "-0", which Python reads as
// the int 0 and writes as "0".
func isNegZero(p []byte) bool { return len(p) == 2 && p[0] == '-' && p[1] == '0' }

func validUTF8At(src []byte, i int) bool { return utf8Len(src, i) > 0 }

// scanNumber scans a number starting at src[i] (a '-' or a digit) and
// returns the index after it and its node, without the span.
func scanNumber(src []byte, i int) (int, node, *SyntaxError) {
	n := len(src)
	start := i
	if src[i] == '-' {
		i++
		if i < n && src[i] == 'I' {
			return 0, node{}, nonFinite(src, start)
		}
	}
	if i >= n {
		return 0, node{}, errEOF(n)
	}
	digits := i
	switch c := src[i]; {
	case c == '0':
		i++
		if i < n && src[i] >= '0' && src[i] <= '9' {
			return 0, node{}, &SyntaxError{Offset: i, Code: ErrInvalidJSON, Msg: "invalid number: leading zero"}
		}
	case c >= '1' && c <= '9':
		i++
		for i < n && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	default:
		return 0, node{}, unexpected(src, i, "in number, expected a digit")
	}
	nDigits := i - digits
	float := false
	if i < n && src[i] == '.' {
		float = true
		i++
		if i >= n || src[i] < '0' || src[i] > '9' {
			return 0, node{}, unexpected(src, i, "after decimal point, expected a digit")
		}
		for i < n && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	}
	if i < n && src[i]|0x20 == 'e' {
		float = true
		i++
		if i < n && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i >= n || src[i] < '0' || src[i] > '9' {
			return 0, node{}, unexpected(src, i, "in exponent, expected a digit")
		}
		for i < n && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	}
	if !float {
		if nDigits > MaxIntDigits {
			return 0, node{}, &SyntaxError{Offset: start, Code: ErrNumberOverflow,
				Msg: "integer has " + strconv.Itoa(nDigits) + " digits, more than the limit of " + strconv.Itoa(MaxIntDigits)}
		}
		return i, node{kind: tInt}, nil
	}
	// The text is valid Go float syntax and is not retained by ParseFloat
	// on success, so no copy is needed.
	f, _ := strconv.ParseFloat(unsafe.String(&src[start], i-start), 64)
	if math.IsInf(f, 0) {
		return 0, node{}, &SyntaxError{Offset: start, Code: ErrNumberOverflow, Msg: "number " + quoteNumber(src[start:i]) + " overflows a 64-bit float"}
	}
	return i, node{kind: tFloat, c: int(math.Float64bits(f))}, nil
}

// literal checks that src[i:] starts with lit.
func literal(src []byte, i int, lit string) (int, *SyntaxError) {
	if len(src)-i >= len(lit) && string(src[i:i+len(lit)]) == lit {
		return i + len(lit), nil
	}
	for j := 0; j < len(lit); j++ {
		if i+j >= len(src) {
			return 0, errEOF(len(src))
		}
		if src[i+j] != lit[j] {
			return 0, unexpected(src, i+j, "in literal "+lit)
		}
	}
	return 0, nil // unreachable
}

func nonFinite(src []byte, i int) *SyntaxError {
	for _, lit := range [...]string{"NaN", "Infinity", "-Infinity"} {
		if bytes.HasPrefix(src[i:], []byte(lit)) {
			return &SyntaxError{Offset: i, Code: ErrNonFinite, Msg: lit + " is not a JSON number"}
		}
	}
	if src[i] == '-' {
		return unexpected(src, i+1, "in number, expected a digit")
	}
	return unexpected(src, i, "looking for a value")
}

func errEOF(n int) *SyntaxError {
	return &SyntaxError{Offset: n, Code: ErrInvalidJSON, Msg: "unexpected end of input"}
}

func errTooDeep(i int) *SyntaxError {
	return &SyntaxError{Offset: i, Code: ErrTooDeep, Msg: "nesting deeper than " + strconv.Itoa(MaxDepth) + " levels"}
}

func errUTF8(src []byte, i int) *SyntaxError {
	return &SyntaxError{Offset: i, Code: ErrInvalidUTF8, Msg: "invalid UTF-8 byte " + hexByte(src[i])}
}

func errSurrogate(src []byte, i, r int) *SyntaxError {
	what := "lone high surrogate"
	if r >= 0xDC00 {
		what = "lone low surrogate"
	}
	return &SyntaxError{Offset: i, Code: ErrLoneSurrogate, Msg: what + " \\" + string(src[i+1:i+6])}
}

// unexpected reports the byte at src[i] (or the end of input) as out of
// place. Invalid UTF-8 is reported as such wherever it is.
func unexpected(src []byte, i int, context string) *SyntaxError {
	if i >= len(src) {
		return errEOF(len(src))
	}
	if src[i] >= utf8.RuneSelf && !validUTF8At(src, i) {
		return errUTF8(src, i)
	}
	return &SyntaxError{Offset: i, Code: ErrInvalidJSON, Msg: "unexpected " + describe(src, i) + " " + context}
}

// describe names the character at src[i] for an error message.
func describe(src []byte, i int) string {
	c := src[i]
	switch {
	case c >= 0x20 && c < 0x7F:
		if c == '\'' {
			return `"'"`
		}
		return "'" + string(c) + "'"
	case c < utf8.RuneSelf:
		return "byte " + hexByte(c)
	}
	r, _ := utf8.DecodeRune(src[i:])
	if unicode.IsPrint(r) {
		return fmt.Sprintf("'%c' (U+%04X)", r, r)
	}
	return fmt.Sprintf("U+%04X", r)
}

func describeEsc(src []byte, i int) string {
	if i < len(src) && src[i] >= 0x21 && src[i] < 0x7F {
		return string(src[i])
	}
	return "followed by " + describe(src, i)
}

func hexByte(c byte) string { return "0x" + string(hexDigits[c>>4]) + string(hexDigits[c&0xF]) }

func quoteForMsg(k []byte) string {
	const max = 64
	if len(k) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(k[cut]) {
			cut--
		}
		return string(AppendPyString(nil, string(k[:cut]))) + "..."
	}
	return string(AppendPyString(nil, string(k)))
}

func quoteNumber(p []byte) string {
	if len(p) > 40 {
		return string(p[:20]) + "..." + string(p[len(p)-10:])
	}
	return string(p)
}
