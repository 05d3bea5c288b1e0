package jsonpeek

// The parser as it was before the speed work of issue 22 (jsonpeek.go and
// value.go at 6c90bef), kept to hold the current one to it: the same
// errors, flags and values on every input (equiv_test.go), and as the
// "before" of BenchmarkParse.

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

type refNode struct {
	kind Kind
	esc  bool  // a string with escapes
	a, b int32 // strings: content without quotes; others: the whole value
	end  int32 // index of the refNode after this value's subtree
}

// refDoc is a parsed JSON text. Its Values refer to the source bytes, which
// must not change while they are used.
type refDoc struct {
	src   []byte
	nodes []refNode
	stack []int32
	keys  []int32 // key refNode indices of the open objects, for duplicate checks
	kbase []int32
	flags Flags
	high  bool // a byte >= 0x80 was seen in a string
}

// Parse reads src as exactly one JSON value with optional whitespace around
// it. The refDoc keeps src.
func (d *refDoc) Parse(src []byte) error {
	n, err := d.ParsePrefix(src)
	if err != nil {
		return err
	}
	if n = refSkipSpace(src, n); n != len(src) {
		return &SyntaxError{Offset: n, Msg: "unexpected " + refDescribe(src, n) + " after the JSON value"}
	}
	return nil
}

// ParsePrefix reads one JSON value at the start of src (after whitespace)
// and returns the offset just past it; bytes after it are not looked at.
func (d *refDoc) ParsePrefix(src []byte) (int, error) {
	d.src = src
	d.nodes = d.nodes[:0]
	d.stack = d.stack[:0]
	d.keys = d.keys[:0]
	d.kbase = d.kbase[:0]
	d.flags = 0
	d.high = false
	if len(src) > math.MaxInt32 {
		return 0, &SyntaxError{Offset: 0, Msg: "text longer than 2 GiB"}
	}
	n, err := d.scan(src)
	if err != nil {
		d.nodes = d.nodes[:0]
		return 0, err
	}
	if d.high && d.flags&InvalidUTF8 == 0 && !utf8.Valid(src[:n]) {
		d.flags |= InvalidUTF8
	}
	return n, nil
}

// Flags returns the strictness flags of the last parse.
func (d *refDoc) Flags() Flags { return d.flags }

// Root returns the parsed value.
func (d *refDoc) Root() refValue {
	if len(d.nodes) == 0 {
		return refValue{}
	}
	return refValue{d: d, i: 0}
}

func refSkipSpace(src []byte, i int) int {
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

func refDescribe(src []byte, i int) string {
	if i >= len(src) {
		return "end of text"
	}
	c := src[i]
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func refErrAt(src []byte, i int, context string) error {
	if i >= len(src) {
		return &SyntaxError{Offset: i, Msg: "unexpected end of text " + context}
	}
	return &SyntaxError{Offset: i, Msg: "unexpected " + refDescribe(src, i) + " " + context}
}

// scan is an iterative parser: the stack holds the refNode index of each open
// container.
func (d *refDoc) scan(src []byte) (int, error) {
	i := refSkipSpace(src, 0)
	n := len(src)
	for {
		// A value starts at i.
		if i >= n {
			return 0, refErrAt(src, i, "where a value was expected")
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
			d.stack = append(d.stack, int32(len(d.nodes)))
			d.nodes = append(d.nodes, refNode{kind: kind, a: int32(i)})
			i = refSkipSpace(src, i+1)
			if kind == Object {
				d.kbase = append(d.kbase, int32(len(d.keys)))
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
			j, esc, err := d.scanString(src, i+1)
			if err != nil {
				return 0, err
			}
			d.nodes = append(d.nodes, refNode{kind: String, esc: esc, a: int32(i + 1), b: int32(j), end: int32(len(d.nodes) + 1)})
			i = j + 1
		case 't':
			if err := refLiteral(src, i, "true"); err != nil {
				return 0, err
			}
			d.leaf(True, i, i+4)
			i += 4
		case 'f':
			if err := refLiteral(src, i, "false"); err != nil {
				return 0, err
			}
			d.leaf(False, i, i+5)
			i += 5
		case 'n':
			if err := refLiteral(src, i, "null"); err != nil {
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
			return 0, refErrAt(src, i, "where a value was expected")
		}
	after:
		// A value ended just before i; continue its container.
		for {
			if len(d.stack) == 0 {
				return i, nil
			}
			top := d.nodes[d.stack[len(d.stack)-1]].kind
			i = refSkipSpace(src, i)
			if i >= n {
				return 0, refErrAt(src, i, "inside an unclosed "+top.String())
			}
			c := src[i]
			if c == ',' {
				i = refSkipSpace(src, i+1)
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
			return 0, refErrAt(src, i, want)
		}
	}
}

func (d *refDoc) leaf(k Kind, a, b int) {
	d.nodes = append(d.nodes, refNode{kind: k, a: int32(a), b: int32(b), end: int32(len(d.nodes) + 1)})
}

// close ends the innermost container at i (just past its bracket).
func (d *refDoc) close(i int) int {
	top := d.stack[len(d.stack)-1]
	d.stack = d.stack[:len(d.stack)-1]
	nd := &d.nodes[top]
	nd.b = int32(i)
	nd.end = int32(len(d.nodes))
	if nd.kind == Object {
		base := d.kbase[len(d.kbase)-1]
		d.kbase = d.kbase[:len(d.kbase)-1]
		d.keys = d.keys[:base]
	}
	return i
}

// key reads an object key and the colon after it; i is at the key.
func (d *refDoc) key(src []byte, i int) (int, error) {
	if i >= len(src) || src[i] != '"' {
		return 0, refErrAt(src, i, "where an object key was expected")
	}
	j, esc, err := d.scanString(src, i+1)
	if err != nil {
		return 0, err
	}
	k := int32(len(d.nodes))
	d.nodes = append(d.nodes, refNode{kind: String, esc: esc, a: int32(i + 1), b: int32(j), end: k + 1})
	if d.flags&DuplicateKey == 0 {
		base := d.kbase[len(d.kbase)-1]
		for _, o := range d.keys[base:] {
			if d.sameString(o, k) {
				d.flags |= DuplicateKey
				break
			}
		}
		if len(d.keys)-int(base) < maxKeyCheck {
			d.keys = append(d.keys, k)
		} else {
			d.flags |= KeysUnchecked
		}
	}
	i = refSkipSpace(src, j+1)
	if i >= len(src) || src[i] != ':' {
		return 0, refErrAt(src, i, "after an object key (want ':')")
	}
	return refSkipSpace(src, i+1), nil
}

func (d *refDoc) sameString(x, y int32) bool {
	a, b := &d.nodes[x], &d.nodes[y]
	if !a.esc && !b.esc {
		return string(d.src[a.a:a.b]) == string(d.src[b.a:b.b])
	}
	return string(refUnescape(nil, d.src[a.a:a.b])) == string(refUnescape(nil, d.src[b.a:b.b]))
}

func refLiteral(src []byte, i int, lit string) error {
	if len(src)-i >= len(lit) && string(src[i:i+len(lit)]) == lit {
		return nil
	}
	return &SyntaxError{Offset: i, Msg: "invalid literal (want " + lit + ")"}
}

func (d *refDoc) scanNumber(src []byte, i int) (int, error) {
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
	float := false
	if i < n && src[i] == '.' {
		i++
		float = true
		if digits() == 0 {
			return 0, &SyntaxError{Offset: i, Msg: "invalid number: no digits after '.'"}
		}
	}
	if i < n && (src[i] == 'e' || src[i] == 'E') {
		i++
		float = true
		if i < n && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, &SyntaxError{Offset: i, Msg: "invalid number: no digits in the exponent"}
		}
	}
	if float || intEnd-start > 300 {
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

// scanString scans string content starting at i and returns the index of
// the closing quote and whether the string holds escapes.
func (d *refDoc) scanString(src []byte, i int) (int, bool, error) {
	n := len(src)
	esc := false
	for {
		for i+8 <= n {
			x := binary.LittleEndian.Uint64(src[i:])
			m := (x | (x - 0x20*lsb) | (x ^ '"'*lsb - lsb) | (x ^ '\\'*lsb - lsb)) & msb
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= n {
			return 0, false, &SyntaxError{Offset: n, Msg: "unexpected end of text inside a string"}
		}
		c := src[i]
		switch {
		case c == '"':
			return i, esc, nil
		case c == '\\':
			esc = true
			if i+1 >= n {
				return 0, false, &SyntaxError{Offset: n, Msg: "unexpected end of text inside a string"}
			}
			switch src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r := refHex4(src, i+2)
				if r < 0 {
					return 0, false, &SyntaxError{Offset: i, Msg: `invalid \u escape: want 4 hex digits`}
				}
				i += 6
				switch {
				case r >= 0xD800 && r < 0xDC00:
					if i+6 <= n && src[i] == '\\' && src[i+1] == 'u' {
						if lo := refHex4(src, i+2); lo >= 0xDC00 && lo <= 0xDFFF {
							i += 6
							continue
						}
					}
					d.flags |= LoneSurrogate
				case r >= 0xDC00 && r <= 0xDFFF:
					d.flags |= LoneSurrogate
				}
			default:
				return 0, false, &SyntaxError{Offset: i, Msg: "invalid escape \\" + string(rune(src[i+1]))}
			}
		case c < 0x20:
			return 0, false, &SyntaxError{Offset: i, Msg: fmt.Sprintf("unescaped control character U+%04X in a string", c)}
		case c < utf8.RuneSelf:
			i++ // a false hit from the word test
		default:
			d.high = true
			i++
		}
	}
}

func refHex4(src []byte, i int) int {
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

// refUnescape appends the decoded content of a string (without quotes) to dst.
// A lone surrogate decodes to U+FFFD, as Go does.
func refUnescape(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
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
			r := rune(refHex4(raw, i+2))
			i += 6
			if r >= 0xD800 && r < 0xDC00 && i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
				if lo := rune(refHex4(raw, i+2)); lo >= 0xDC00 && lo <= 0xDFFF {
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
	return dst
}

// refValue is one refNode of a refDoc. The zero refValue is Invalid: "absent". A refValue
// is valid until its refDoc parses again.
type refValue struct {
	d *refDoc
	i int32
}

// Kind returns the value's JSON type; Invalid when absent.
func (v refValue) Kind() Kind {
	if v.d == nil {
		return Invalid
	}
	return v.d.nodes[v.i].kind
}

// Flags returns the strictness flags of the document v belongs to.
func (v refValue) Flags() Flags {
	if v.d == nil {
		return 0
	}
	return v.d.flags
}

// Exists reports whether the value is present.
func (v refValue) Exists() bool { return v.d != nil }

// Raw returns the value's bytes in the source (a string with its quotes).
func (v refValue) Raw() []byte {
	if v.d == nil {
		return nil
	}
	n := &v.d.nodes[v.i]
	if n.kind == String {
		return v.d.src[n.a-1 : n.b+1]
	}
	return v.d.src[n.a:n.b]
}

// Get returns the member key of an object (the last, if the key repeats).
func (v refValue) Get(key string) refValue {
	if v.Kind() != Object {
		return refValue{}
	}
	d := v.d
	end := d.nodes[v.i].end
	var found refValue
	for k := v.i + 1; k < end; {
		kn := &d.nodes[k]
		val := k + 1
		if kn.esc {
			if string(refUnescape(nil, d.src[kn.a:kn.b])) == key {
				found = refValue{d: d, i: val}
			}
		} else if string(d.src[kn.a:kn.b]) == key {
			found = refValue{d: d, i: val}
		}
		k = d.nodes[val].end
	}
	return found
}

// Path follows keys through nested objects.
func (v refValue) Path(keys ...string) refValue {
	for _, k := range keys {
		v = v.Get(k)
	}
	return v
}

// Members calls fn for each member of an object, in order, until fn
// returns false. Keys are decoded.
func (v refValue) Members(fn func(key string, val refValue) bool) {
	if v.Kind() != Object {
		return
	}
	d := v.d
	end := d.nodes[v.i].end
	for k := v.i + 1; k < end; {
		val := k + 1
		if !fn(refValue{d: d, i: k}.Str(), refValue{d: d, i: val}) {
			return
		}
		k = d.nodes[val].end
	}
}

// Elems calls fn for each element of an array, in order, until fn returns
// false.
func (v refValue) Elems(fn func(i int, e refValue) bool) {
	if v.Kind() != Array {
		return
	}
	d := v.d
	end := d.nodes[v.i].end
	for k, n := v.i+1, 0; k < end; n++ {
		if !fn(n, refValue{d: d, i: k}) {
			return
		}
		k = d.nodes[k].end
	}
}

// Len returns the number of elements of an array or members of an object.
func (v refValue) Len() int {
	n := 0
	switch v.Kind() {
	case Array:
		v.Elems(func(int, refValue) bool { n++; return true })
	case Object:
		v.Members(func(string, refValue) bool { n++; return true })
	}
	return n
}

// Str returns a string's decoded text; "" for any other kind.
func (v refValue) Str() string {
	if v.Kind() != String {
		return ""
	}
	n := &v.d.nodes[v.i]
	if !n.esc {
		return string(v.d.src[n.a:n.b])
	}
	return string(refUnescape(nil, v.d.src[n.a:n.b]))
}

// Is reports whether v is the string s, without allocating when v has no
// escapes.
func (v refValue) Is(s string) bool {
	if v.Kind() != String {
		return false
	}
	n := &v.d.nodes[v.i]
	if !n.esc {
		return string(v.d.src[n.a:n.b]) == s
	}
	return string(refUnescape(nil, v.d.src[n.a:n.b])) == s
}

// HasPrefix reports whether v is a string starting with p.
func (v refValue) HasPrefix(p string) bool {
	if v.Kind() != String {
		return false
	}
	n := &v.d.nodes[v.i]
	raw := v.d.src[n.a:n.b]
	if n.esc {
		raw = refUnescape(nil, raw)
	}
	return len(raw) >= len(p) && string(raw[:len(p)]) == p
}

// IsEmpty reports whether v is absent, null, "", [] or {}.
func (v refValue) IsEmpty() bool {
	switch v.Kind() {
	case Invalid, Null:
		return true
	case String:
		n := &v.d.nodes[v.i]
		return n.a == n.b
	case Array, Object:
		return v.d.nodes[v.i].end == v.i+1
	}
	return false
}

// Bool returns a boolean's value; ok is false for any other kind.
func (v refValue) Bool() (val, ok bool) {
	switch v.Kind() {
	case True:
		return true, true
	case False:
		return false, true
	}
	return false, false
}

// True reports whether v is the refLiteral true.
func (v refValue) True() bool { return v.Kind() == True }

// Int returns an integer number's value; ok is false for anything else.
func (v refValue) Int() (int64, bool) {
	if v.Kind() != Number {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v.Raw()), 10, 64)
	return n, err == nil
}

// Span returns the byte offsets of the value's raw bytes in the source.
func (v refValue) Span() (start, end int) {
	if v.d == nil {
		return 0, 0
	}
	n := &v.d.nodes[v.i]
	if n.kind == String {
		return int(n.a) - 1, int(n.b) + 1
	}
	return int(n.a), int(n.b)
}
