// Package jsonpeek reads one JSON text into a flat tape of nodes so that a
// caller can look at a few fields of a large record without decoding it.
//
// It is built for agent session logs, where a line is one JSON object of a
// few kilobytes to many megabytes and a checker needs a handful of ids and
// type tags from it. A Doc is reused from line to line: after the first
// lines, parsing allocates nothing. Strings are not decoded until asked for;
// a value's raw bytes can be copied into another JSON document as they are.
//
// Syntax is checked the way the agents' own readers check it (JSON.parse,
// serde_json): one value, optional surrounding whitespace, no trailing
// bytes. What those readers accept but a strict reader (package
// journal/jsonv) rejects is not an error here; it is recorded in Flags, so
// an importer knows when raw bytes may not be copied into a Trace file:
// duplicate keys, lone surrogate escapes, invalid UTF-8, numbers beyond
// float64, nesting deeper than 512.
package jsonpeek

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/internal/stopbits"
)

// Kind is the JSON type of a node.
type Kind uint8

// The JSON kinds. Invalid is the zero Value's kind: "absent".
const (
	Invalid Kind = iota
	Null
	False
	True
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"invalid", "null", "false", "true", "number", "string", "array", "object"}[k]
}

// Flags record what a lenient reader accepts and a strict one does not.
type Flags uint8

// Strictness flags; see the package doc.
const (
	DuplicateKey Flags = 1 << iota
	LoneSurrogate
	InvalidUTF8
	NumberOverflow
	TooDeep
	// KeysUnchecked: an object has more members than duplicates are
	// looked for among (maxKeyCheck).
	KeysUnchecked
)

// maxKeyCheck bounds the members of one object compared for duplicates.
const maxKeyCheck = 1024

// StrictDepth is the nesting depth past which TooDeep is set (the Trace
// reader's limit). MaxDepth is where parsing gives up.
const (
	StrictDepth = 512
	MaxDepth    = 10000
)

type node struct {
	kind Kind
	esc  bool  // a string with escapes
	a, b int32 // strings: content without quotes; others: the whole value
	// end: the index of the node after this value's subtree; for an
	// object's key, after its value's (the next key's), so that a walk
	// over the members reads only the keys.
	end int32
}

// frame is an open container: its node and, for an object, its current
// key's node.
type frame struct {
	node, key int32
}

// Doc is a parsed JSON text. Its Values refer to the source bytes, which
// must not change while they are used.
type Doc struct {
	// NoKeyCheck: duplicate keys are not looked for, so DuplicateKey and
	// KeysUnchecked are never set. A caller that copies no raw bytes
	// (lint) needs neither and saves the comparisons, a tenth of a parse.
	NoKeyCheck bool

	src   []byte
	nodes []node
	stack []frame
	keys  []keyRef   // the keys of the open objects, for duplicate checks
	kbase []openKeys // per open object: where its keys start in keys
	flags Flags
	kbuf  []byte // scratch for decoding an escaped key

	// stops marks the bytes of src a string scan stops at (package
	// stopbits), a window at a time.
	stops stopbits.Window
}

// openKeys is an open object's part of Doc.keys: from base on, and a bit
// per hash of each key's signature and length (seen), so that a key whose
// bit is clear is new without comparing it with the object's others.
type openKeys struct {
	base int32
	seen uint64
}

// keyBit is a key's bit in openKeys.seen: equal keys have equal bits.
func keyBit(sig uint64, n int32) uint64 {
	return 1 << ((sig + uint64(n)) * 0x9E3779B97F4A7C15 >> 58)
}

// keyRef is a key of an open object: its first 8 decoded bytes
// (little-endian, zero padded) and decoded length, which decide most
// comparisons at once, and its node.
type keyRef struct {
	sig  uint64
	n    int32
	node int32
}

// SyntaxError says why a text is not JSON, at a byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.Offset+1, e.Msg) }

// Parse reads src as exactly one JSON value with optional whitespace around
// it. The Doc keeps src.
func (d *Doc) Parse(src []byte) error {
	n, err := d.ParsePrefix(src)
	if err != nil {
		return err
	}
	if n = skipSpace(src, n); n != len(src) {
		return &SyntaxError{Offset: n, Msg: "unexpected " + describe(src, n) + " after the JSON value"}
	}
	return nil
}

// ParsePrefix reads one JSON value at the start of src (after whitespace)
// and returns the offset just past it; bytes after it are not looked at.
func (d *Doc) ParsePrefix(src []byte) (int, error) {
	d.src = src
	d.nodes = d.nodes[:0]
	d.stack = d.stack[:0]
	d.keys = d.keys[:0]
	d.kbase = d.kbase[:0]
	d.flags = 0
	d.stops.Reset()
	if len(src) > math.MaxInt32 {
		return 0, &SyntaxError{Offset: 0, Msg: "text longer than 2 GiB"}
	}
	n, err := d.scan(src)
	if err != nil {
		d.nodes = d.nodes[:0]
		d.flags &^= InvalidUTF8 // the text's UTF-8 is judged only when it parses
		return 0, err
	}
	return n, nil
}

// Flags returns the strictness flags of the last parse.
func (d *Doc) Flags() Flags { return d.flags }

// Root returns the parsed value.
func (d *Doc) Root() Value {
	if len(d.nodes) == 0 {
		return Value{}
	}
	return Value{d: d, i: 0}
}

func skipSpace(src []byte, i int) int {
	for i < len(src) {
		switch src[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func describe(src []byte, i int) string {
	if i >= len(src) {
		return "end of text"
	}
	c := src[i]
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func errAt(src []byte, i int, context string) error {
	if i >= len(src) {
		return &SyntaxError{Offset: i, Msg: "unexpected end of text " + context}
	}
	return &SyntaxError{Offset: i, Msg: "unexpected " + describe(src, i) + " " + context}
}

// scan is an iterative parser: the stack holds the node index of each open
// container.
func (d *Doc) scan(src []byte) (int, error) {
	i := skipSpace(src, 0)
	n := len(src)
	for {
		// A value starts at i.
		if i >= n {
			return 0, errAt(src, i, "where a value was expected")
		}
		switch c := src[i]; c {
		case '{', '[':
			kind := Object
			if c == '[' {
				kind = Array
			}
			if len(d.stack) >= MaxDepth {
				return 0, &SyntaxError{Offset: i, Msg: fmt.Sprintf("nesting deeper than %d", MaxDepth)}
			}
			if len(d.stack) >= StrictDepth {
				d.flags |= TooDeep
			}
			d.stack = append(d.stack, frame{node: int32(len(d.nodes))})
			d.push(kind, false, int32(i), 0, 0)
			i = skipSpace(src, i+1)
			if kind == Object {
				d.kbase = append(d.kbase, openKeys{base: int32(len(d.keys))})
				if i < n && src[i] == '}' {
					i = d.close(i + 1)
					goto after
				}
				var err error
				if i, err = d.key(src, i); err != nil {
					return 0, err
				}
				continue
			}
			if i < n && src[i] == ']' {
				i = d.close(i + 1)
				goto after
			}
			continue
		case '"':
			j, esc := d.quickEnd(src, i+1), false
			if j < 0 {
				var err error
				if j, esc, err = d.scanString(src, i+1); err != nil {
					return 0, err
				}
			}
			d.push(String, esc, int32(i+1), int32(j), int32(len(d.nodes)+1))
			i = j + 1
		case 't':
			if err := literal(src, i, "true"); err != nil {
				return 0, err
			}
			d.leaf(True, i, i+4)
			i += 4
		case 'f':
			if err := literal(src, i, "false"); err != nil {
				return 0, err
			}
			d.leaf(False, i, i+5)
			i += 5
		case 'n':
			if err := literal(src, i, "null"); err != nil {
				return 0, err
			}
			d.leaf(Null, i, i+4)
			i += 4
		default:
			if c == '-' || (c >= '0' && c <= '9') {
				j, err := d.scanNumber(src, i)
				if err != nil {
					return 0, err
				}
				d.leaf(Number, i, j)
				i = j
				break
			}
			return 0, errAt(src, i, "where a value was expected")
		}
	after:
		// A value ended just before i; continue its container.
		for {
			if len(d.stack) == 0 {
				return i, nil
			}
			f := &d.stack[len(d.stack)-1]
			top := d.nodes[f.node].kind
			if top == Object {
				d.nodes[f.key].end = int32(len(d.nodes))
			}
			if i < n && src[i] > ' ' {
				// the common case: no space after a value
			} else {
				i = skipSpace(src, i)
			}
			if i >= n {
				return 0, errAt(src, i, "inside an unclosed "+top.String())
			}
			c := src[i]
			if c == ',' {
				i = skipSpace(src, i+1)
				if top == Object {
					var err error
					if i, err = d.key(src, i); err != nil {
						return 0, err
					}
				}
				break
			}
			if (top == Object && c == '}') || (top == Array && c == ']') {
				i = d.close(i + 1)
				continue
			}
			want := "after an array element (want ',' or ']')"
			if top == Object {
				want = "after an object member (want ',' or '}')"
			}
			return 0, errAt(src, i, want)
		}
	}
}

func (d *Doc) leaf(k Kind, a, b int) {
	d.push(k, false, int32(a), int32(b), int32(len(d.nodes)+1))
}

// push appends a node, its fields stored in place: a node built on the
// stack and copied in is read back as one 16-byte word from four smaller
// stores, which the processor cannot forward (a stall that was a third of
// scan's time and of key's).
func (d *Doc) push(k Kind, esc bool, a, b, end int32) {
	if len(d.nodes) == cap(d.nodes) {
		d.nodes = append(d.nodes, node{})
	} else {
		d.nodes = d.nodes[:len(d.nodes)+1]
	}
	nd := &d.nodes[len(d.nodes)-1]
	nd.kind, nd.esc, nd.a, nd.b, nd.end = k, esc, a, b, end
}

// close ends the innermost container at i (just past its bracket).
func (d *Doc) close(i int) int {
	top := d.stack[len(d.stack)-1].node
	d.stack = d.stack[:len(d.stack)-1]
	nd := &d.nodes[top]
	nd.b = int32(i)
	nd.end = int32(len(d.nodes))
	if nd.kind == Object {
		base := d.kbase[len(d.kbase)-1].base
		d.kbase = d.kbase[:len(d.kbase)-1]
		d.keys = d.keys[:base]
	}
	return i
}

// key reads an object key and the colon after it; i is at the key.
func (d *Doc) key(src []byte, i int) (int, error) {
	if i >= len(src) || src[i] != '"' {
		return 0, errAt(src, i, "where an object key was expected")
	}
	j, esc := d.quickEnd(src, i+1), false
	if j < 0 {
		var err error
		if j, esc, err = d.scanString(src, i+1); err != nil {
			return 0, err
		}
	}
	k := int32(len(d.nodes))
	d.push(String, esc, int32(i+1), int32(j), k+1)
	d.stack[len(d.stack)-1].key = k
	if d.flags&DuplicateKey == 0 && !d.NoKeyCheck {
		kr := keyRef{node: k}
		if esc {
			d.kbuf = unescape(d.kbuf[:0], src[i+1:j])
			kr.sig, kr.n = signature(d.kbuf, 0, len(d.kbuf)), int32(len(d.kbuf))
		} else {
			kr.sig, kr.n = signature(src, i+1, j), int32(j-i-1)
		}
		ok := &d.kbase[len(d.kbase)-1]
		base := ok.base
		if bit := keyBit(kr.sig, kr.n); ok.seen&bit == 0 {
			ok.seen |= bit // no earlier key of this object has its bit
		} else {
			for _, o := range d.keys[base:] {
				if o.sig == kr.sig && o.n == kr.n && (kr.n <= 8 || d.sameString(o.node, k)) {
					d.flags |= DuplicateKey
					break
				}
			}
		}
		if len(d.keys)-int(base) < maxKeyCheck {
			d.keys = append(d.keys, kr)
		} else {
			d.flags |= KeysUnchecked
		}
	}
	i = skipSpace(src, j+1)
	if i >= len(src) || src[i] != ':' {
		return 0, errAt(src, i, "after an object key (want ':')")
	}
	return skipSpace(src, i+1), nil
}

// signature is the first 8 bytes of b[a:e] as a little-endian word, zero
// padded: with the length, it tells keys of up to 8 bytes apart exactly.
func signature(b []byte, a, e int) uint64 {
	if l := e - a; l < 8 {
		if a+8 <= len(b) {
			return binary.LittleEndian.Uint64(b[a:]) & (1<<(8*uint(l)) - 1)
		}
		var x uint64
		for k := e - 1; k >= a; k-- {
			x = x<<8 | uint64(b[k])
		}
		return x
	}
	return binary.LittleEndian.Uint64(b[a:])
}

func (d *Doc) sameString(x, y int32) bool {
	a, b := &d.nodes[x], &d.nodes[y]
	if !a.esc && !b.esc {
		return string(d.src[a.a:a.b]) == string(d.src[b.a:b.b])
	}
	return string(unescape(nil, d.src[a.a:a.b])) == string(unescape(nil, d.src[b.a:b.b]))
}

func literal(src []byte, i int, lit string) error {
	if len(src)-i >= len(lit) && string(src[i:i+len(lit)]) == lit {
		return nil
	}
	return &SyntaxError{Offset: i, Msg: "invalid literal (want " + lit + ")"}
}

func (d *Doc) scanNumber(src []byte, i int) (int, error) {
	start := i
	n := len(src)
	if src[i] == '-' {
		i++
	}
	digits := func() int {
		s := i
		for i < n && src[i] >= '0' && src[i] <= '9' {
			i++
		}
		return i - s
	}
	if i < n && src[i] == '0' {
		i++
	} else if digits() == 0 {
		return 0, &SyntaxError{Offset: i, Msg: "invalid number: no digits"}
	}
	intEnd := i
	float, exp := false, false
	if i < n && src[i] == '.' {
		i++
		float = true
		if digits() == 0 {
			return 0, &SyntaxError{Offset: i, Msg: "invalid number: no digits after '.'"}
		}
	}
	if i < n && (src[i] == 'e' || src[i] == 'E') {
		i++
		float, exp = true, true
		if i < n && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, &SyntaxError{Offset: i, Msg: "invalid number: no digits in the exponent"}
		}
	}
	// Without an exponent, a number of at most 300 integer digits is below
	// 1e300 and cannot overflow a float64: only longer ones and exponents
	// are parsed to see.
	if exp || intEnd-start > 300 {
		if float {
			if f, err := strconv.ParseFloat(string(src[start:i]), 64); err != nil || math.IsInf(f, 0) {
				d.flags |= NumberOverflow
			}
		} else if intEnd-start > 4300 {
			d.flags |= NumberOverflow
		}
	}
	return i, nil
}

// Bit tricks for testing 8 string bytes at once (see journal/jsonv).
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// scanString scans string content starting at i and returns the index of
// the closing quote and whether the string holds escapes. It checks the
// UTF-8 of what it passes over (InvalidUTF8): bytes >= 0x80 stand only in
// strings, so that is the whole text's check.
func (d *Doc) scanString(src []byte, i int) (int, bool, error) {
	n := len(src)
	esc := false
	for {
		if k, ok := d.stops.Quick(i); ok {
			i = k
		} else if i = d.stops.Next(src, i); i >= n {
			return 0, false, &SyntaxError{Offset: n, Msg: "unexpected end of text inside a string"}
		}
		c := src[i]
		if c == '\\' {
			esc = true
			if i+1 < n && simpleEscape[src[i+1]] {
				i += 2
				continue
			}
			var err error
			if i, err = d.escape(src, i); err != nil {
				return 0, false, err
			}
			continue
		}
		if c >= utf8.RuneSelf {
			// Runs of multi-byte characters are read here, not one
			// stop each.
			for {
				size := utf8Len(src, i)
				if size == 0 {
					d.flags |= InvalidUTF8
					size = 1
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
			return 0, false, &SyntaxError{Offset: i, Msg: fmt.Sprintf("unescaped control character U+%04X in a string", c)}
		}
		i++ // a false stop (stopbits' portable path)
	}
}

// quickEnd returns the closing quote of the string whose content starts at
// j when the first stop at or after j is that quote (most strings: no
// escape, no multi-byte character), else -1 and scanString decides. It
// inlines, and spares the call where a line's strings are short.
func (d *Doc) quickEnd(src []byte, j int) int {
	if e, ok := d.stops.Quick(j); ok && src[e] == '"' {
		return e
	}
	return -1
}

// simpleEscape marks the bytes that may follow a backslash alone.
var simpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// escape reads the escape at src[i] ('\\') that is not a simple one: a \u
// escape (a surrogate pair, or a lone surrogate: LoneSurrogate), or an
// error. It returns the index after it.
func (d *Doc) escape(src []byte, i int) (int, error) {
	n := len(src)
	if i+1 >= n {
		return 0, &SyntaxError{Offset: n, Msg: "unexpected end of text inside a string"}
	}
	if src[i+1] != 'u' {
		return 0, &SyntaxError{Offset: i, Msg: "invalid escape \\" + string(rune(src[i+1]))}
	}
	r := hex4(src, i+2)
	if r < 0 {
		return 0, &SyntaxError{Offset: i, Msg: `invalid \u escape: want 4 hex digits`}
	}
	i += 6
	switch {
	case r >= 0xD800 && r < 0xDC00:
		if i+6 <= n && src[i] == '\\' && src[i+1] == 'u' {
			if lo := hex4(src, i+2); lo >= 0xDC00 && lo <= 0xDFFF {
				return i + 6, nil
			}
		}
		d.flags |= LoneSurrogate
	case r >= 0xDC00 && r <= 0xDFFF:
		d.flags |= LoneSurrogate
	}
	return i, nil
}

// utf8Len returns the length of the valid UTF-8 sequence at src[i] (a byte
// >= 0x80), or 0: utf8.Valid's rules (no overlong forms, no surrogates,
// nothing above U+10FFFF).
func utf8Len(src []byte, i int) int {
	c := src[i]
	switch {
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

func hex4(src []byte, i int) int {
	if i+4 > len(src) {
		return -1
	}
	r := 0
	for _, c := range src[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | int(c-'A'+10)
		default:
			return -1
		}
	}
	return r
}

// unescape appends the decoded content of a string (without quotes) to dst.
// A lone surrogate decodes to U+FFFD, as Go does.
func unescape(dst, raw []byte) []byte {
	dst, _ = unescapePrefix(dst, raw, math.MaxInt)
	return dst
}

// unescapePrefix is unescape that stops once it has appended at least
// limit bytes; rest is how many bytes of raw it left. Decoding goes left to
// right, each step on its own few bytes, so what it appends is the start
// of what unescape would.
func unescapePrefix(dst, raw []byte, limit int) (_ []byte, rest int) {
	start := len(dst)
	for i := 0; i < len(raw); {
		if len(dst)-start >= limit {
			return dst, len(raw) - i
		}
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		e := raw[i+1]
		switch e {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := rune(hex4(raw, i+2))
			i += 6
			if r >= 0xD800 && r < 0xDC00 && i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
				if lo := rune(hex4(raw, i+2)); lo >= 0xDC00 && lo <= 0xDFFF {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					i += 6
				}
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			dst = append(dst, e)
		}
		i += 2
	}
	return dst, 0
}
