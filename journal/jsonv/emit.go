package jsonv

// Writing a validated JSON text again without building anything.
//
// Canonicalizer.Append, AppendOrdered and AppendPyRepr first validate their
// input with the scanner in check mode (which keeps only the open
// containers and the keys of open objects), then walk the text a second
// time and write it out token by token. Nothing proportional to the number
// of values is kept: an object's members are written in input order and,
// for the canonical form, moved into key order when the object closes, so
// the scratch space is the open objects' members and the widest object's
// bytes. A 16 MiB array of zeros costs its output, not a node per zero.

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// style is what an emitter writes.
type style uint8

const (
	styleCanonical style = iota // json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
	styleOrdered                // the same with members in input order: Value.AppendJSON
	stylePyRepr                 // Python's repr(json.loads(text))
)

// emitter holds the scratch space of the second walk; the zero emitter is
// ready to use.
type emitter struct {
	stack []eframe
	mems  []emember
	keys  []byte // decoded escaped keys of the open objects
	tmp   []byte // an object's members while they are put in key order
}

type eframe struct {
	obj    bool
	start  int // object: offset in dst of its '{'
	mbase  int // object: its first member in emitter.mems
	kmark  int // object: len(emitter.keys) when it opened
	sorted bool
}

// emember is an object member already written to dst[oa:ob] ("key":value,
// without a separator); its decoded key is src[ka:kb], or keys[ka:kb] for
// a key with escapes.
type emember struct {
	ka, kb int
	oa, ob int
	esc    bool
}

func (e *emitter) key(src []byte, m *emember) []byte {
	if m.esc {
		return e.keys[m.ka:m.kb]
	}
	return src[m.ka:m.kb]
}

// shrink drops scratch space one large input grew.
func (e *emitter) shrink() {
	if cap(e.mems) > bigScratch {
		e.mems = nil
	}
	if cap(e.keys) > 16*bigScratch {
		e.keys = nil
	}
	if cap(e.tmp) > 16*bigScratch {
		e.tmp = nil
	}
}

// stringEnd returns the index of the closing quote of the valid string
// whose content starts at src[i], and whether the content has escapes.
func stringEnd(src []byte, i int) (int, bool) { return StringEnd(src, i) }

// StringEnd returns the index of the quote that closes the JSON string
// whose content starts at src[i] (the first quote not escaped, a backslash
// escaping the byte after it), or len(src) when no quote closes it, and
// whether the content before it holds a backslash. It does not validate
// the content. Its time is linear in the string's length whatever its
// escapes: the first 32 bytes are read 8 at a time; past them each quote
// and each backslash is found once with bytes.IndexByte (the search for a
// backslash stops at the quote found, and a quote that turns out escaped
// is passed, never searched for again).
func StringEnd(src []byte, i int) (int, bool) {
	esc := false
	n := len(src)
	for lim := min(i+32, n); i+8 <= lim; {
		x := binary.LittleEndian.Uint64(src[i:])
		q, b := x^('"'*lsb), x^('\\'*lsb)
		m := ((q-lsb)&^q | (b-lsb)&^b) & msb // the lowest flag is exact
		if m == 0 {
			i += 8
			continue
		}
		if i += bits.TrailingZeros64(m) >> 3; src[i] == '"' {
			return i, esc
		}
		esc = true
		i += 2
	}
	for i < n {
		q := bytes.IndexByte(src[i:], '"')
		if q < 0 {
			return n, esc || bytes.IndexByte(src[i:], '\\') >= 0
		}
		q += i
		for {
			b := bytes.IndexByte(src[i:q], '\\')
			if b < 0 {
				return q, esc
			}
			esc = true
			if i += b + 2; i > q {
				break // the quote at q is escaped: look for the next
			}
		}
	}
	return n, esc
}

// numberEnd returns the index past the valid number starting at src[i],
// and whether it is a float (has a fraction or an exponent).
func numberEnd(src []byte, i int) (int, bool) {
	float := false
	for ; i < len(src); i++ {
		switch c := src[i]; {
		case c >= '0' && c <= '9', c == '-', c == '+':
		case c == '.', c == 'e', c == 'E':
			float = true
		default:
			return i, float
		}
	}
	return i, float
}

// emit writes the valid JSON text src in style st.
func (e *emitter) emit(dst, src []byte, st style) []byte {
	stack, mems, keys := e.stack[:0], e.mems[:0], e.keys[:0]
	sep, colon := ",", ":"
	if st == stylePyRepr {
		sep, colon = ", ", ": "
	}
	i := 0
value:
	i = skipSpace(src, i)
	switch c := src[i]; c {
	case '"':
		end, esc := stringEnd(src, i+1)
		dst = appendStringAs(dst, src[i:end+1], esc, st)
		i = end + 1
	case '{':
		stack = append(stack, eframe{obj: true, start: len(dst), mbase: len(mems), kmark: len(keys), sorted: true})
		dst = append(dst, '{')
		if i = skipSpace(src, i+1); src[i] == '}' {
			dst = append(dst, '}')
			stack = stack[:len(stack)-1]
			i++
			goto after
		}
		goto key
	case '[':
		stack = append(stack, eframe{})
		dst = append(dst, '[')
		if i = skipSpace(src, i+1); src[i] == ']' {
			dst = append(dst, ']')
			stack = stack[:len(stack)-1]
			i++
			goto after
		}
		goto value
	case 't':
		dst = append(dst, pick(st, "true", "True")...)
		i += 4
	case 'f':
		dst = append(dst, pick(st, "false", "False")...)
		i += 5
	case 'n':
		dst = append(dst, pick(st, "null", "None")...)
		i += 4
	default:
		end, float := numberEnd(src, i)
		switch {
		case float:
			f, _ := strconv.ParseFloat(string(src[i:end]), 64)
			dst = AppendPyFloat(dst, f)
		case isNegZero(src[i:end]):
			dst = append(dst, '0')
		default:
			dst = append(dst, src[i:end]...)
		}
		i = end
	}

after: // a value has ended just before src[i]
	if len(stack) == 0 {
		e.stack, e.mems, e.keys = stack, mems, keys
		return dst
	}
	i = skipSpace(src, i)
	if top := &stack[len(stack)-1]; top.obj {
		mems[len(mems)-1].ob = len(dst)
		if src[i] == ',' {
			dst = append(dst, sep...)
			i++
			goto key
		}
		if st == styleCanonical && !top.sorted {
			dst = e.sortMembers(dst, src, top, mems[top.mbase:], keys)
		}
		dst = append(dst, '}')
		mems, keys = mems[:top.mbase], keys[:top.kmark]
	} else {
		if src[i] == ',' {
			dst = append(dst, sep...)
			i++
			goto value
		}
		dst = append(dst, ']')
	}
	stack = stack[:len(stack)-1]
	i++
	goto after

key: // a member's key starts at the next quote
	{
		i = skipSpace(src, i)
		end, esc := stringEnd(src, i+1)
		m := emember{ka: i + 1, kb: end, oa: len(dst), esc: esc}
		if esc {
			m.ka = len(keys)
			keys = appendUnescaped(keys, src[i+1:end])
			m.kb = len(keys)
		}
		top := &stack[len(stack)-1]
		if st == styleCanonical && top.sorted && len(mems) > top.mbase {
			prev := &mems[len(mems)-1]
			e.keys = keys
			if bytes.Compare(e.key(src, prev), e.key(src, &m)) > 0 {
				top.sorted = false
			}
		}
		mems = append(mems, m)
		dst = appendStringAs(dst, src[i:end+1], esc, st)
		dst = append(dst, colon...)
		i = skipSpace(src, end+1) + 1 // past the ':'
		goto value
	}
}

// sortMembers rewrites an object's members, dst[top.start+1:], in key
// order.
func (e *emitter) sortMembers(dst, src []byte, top *eframe, ms []emember, keys []byte) []byte {
	e.keys = keys
	base := top.start + 1
	e.tmp = append(e.tmp[:0], dst[base:]...)
	slices.SortFunc(ms, func(a, b emember) int { return bytes.Compare(e.key(src, &a), e.key(src, &b)) })
	dst = dst[:base]
	for j, m := range ms {
		if j > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, e.tmp[m.oa-base:m.ob-base]...)
	}
	return dst
}

func pick(st style, json, py string) string {
	if st == stylePyRepr {
		return py
	}
	return json
}

// appendStringAs writes the valid string literal lit (quotes included) in
// style st.
func appendStringAs(dst, lit []byte, esc bool, st style) []byte {
	if st == stylePyRepr {
		text := lit[1 : len(lit)-1]
		if esc {
			text = appendUnescaped(nil, text)
		}
		return AppendPyReprString(dst, text)
	}
	if !esc {
		return append(dst, lit...)
	}
	return appendPyStringRaw(dst, lit[1:len(lit)-1])
}

// AppendPyReprString appends Python's repr() of the str whose UTF-8 text is
// s: single quotes unless s holds a single quote and no double quote;
// backslash, the quote, \t \n \r escaped; other non-printable characters as
// \xhh, \uhhhh or \Uhhhhhhhh. Printable follows str.isprintable (letters,
// marks, numbers, punctuation, symbols and the ASCII space), which
// unicode.IsPrint matches up to the Unicode versions of Go and Python.
func AppendPyReprString(dst, s []byte) []byte {
	quote := byte('\'')
	if bytes.IndexByte(s, '\'') >= 0 && bytes.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	dst = append(dst, quote)
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		s = s[size:]
		switch {
		case r == rune(quote) || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r < 0x20 || r == 0x7f:
			dst = appendHexEscape(dst, 'x', uint32(r), 2)
		case r < 0x7f || unicode.IsPrint(r):
			dst = utf8.AppendRune(dst, r)
		case r <= 0xff:
			dst = appendHexEscape(dst, 'x', uint32(r), 2)
		case r <= 0xffff:
			dst = appendHexEscape(dst, 'u', uint32(r), 4)
		default:
			dst = appendHexEscape(dst, 'U', uint32(r), 8)
		}
	}
	return append(dst, quote)
}

func appendHexEscape(dst []byte, letter byte, v uint32, width int) []byte {
	dst = append(dst, '\\', letter)
	for shift := 4 * (width - 1); shift >= 0; shift -= 4 {
		dst = append(dst, hexDigits[(v>>shift)&0xf])
	}
	return dst
}

// check validates src with the scanner in check mode.
func (c *Canonicalizer) check(src []byte) error {
	if len(src) > math.MaxInt32 {
		return &SyntaxError{Offset: 0, Code: ErrInvalidJSON, Msg: "input larger than 2 GiB"}
	}
	c.s.check = true
	err := c.s.scan(src)
	c.s.check = false
	c.s.release()
	c.s.shrink()
	if err != nil {
		return err
	}
	return nil
}

// Check validates src exactly as Parse does (the same *SyntaxError) and
// keeps nothing: its scratch space follows the input's nesting and widest
// object, not the number of values.
func (c *Canonicalizer) Check(src []byte) error { return c.check(src) }

// CheckStrings is Check that calls v.VisitString with each string value
// of src (not object keys), in input order, as the check reads it: its
// content src[a:b] (without the quotes) and whether it has escapes, and
// where it is (the Path, valid during the call). It may be called for
// strings before an error the check then returns.
func (c *Canonicalizer) CheckStrings(src []byte, v StringVisitor) error {
	c.s.visit = v
	err := c.check(src)
	c.s.visit = nil
	return err
}

// Span is where an array or object is in a text: src[Start:End], from
// its opening bracket to past its closing one.
type Span struct{ Start, End int32 }

// CheckSpans is Check that also appends to dst the Span of each array and
// object of src, in the order they open (so sorted by Start, and a
// container's span before those of its contents): the first max of them,
// the others not recorded; none after an error (dst[:0], its buffer to
// use again). A reader of the checked text skips a recorded container
// without reading it again.
func (c *Canonicalizer) CheckSpans(src []byte, dst []Span, max int) ([]Span, error) {
	c.s.spans, c.s.maxSpans = dst, max
	err := c.check(src)
	dst = c.s.spans
	c.s.spans, c.s.maxSpans = nil, 0
	if err != nil {
		return dst[:0], err
	}
	return dst, nil
}

// StringVisitor is what CheckStrings calls.
type StringVisitor interface {
	VisitString(a, b int, esc bool, p Path)
}

// Path is where a string value stands in the text CheckStrings reads: one
// step for each container around it, the outermost first.
type Path struct{ s *scanner }

// Len is the number of steps.
func (p Path) Len() int { return len(p.s.stack) }

// At returns step i: in an object, the member's decoded key; in an array
// (key nil), the element's index.
func (p Path) At(i int) (key []byte, index int) {
	s := p.s
	f := &s.stack[i]
	if !f.obj {
		return nil, f.count - 1
	}
	// The object's members are in s.mems up to the next object inside it.
	end := len(s.mems)
	for _, g := range s.stack[i+1:] {
		if g.obj {
			end = g.mbase
			break
		}
	}
	return s.key(&s.mems[end-1]), 0
}

// AppendOrdered validates src as Parse does and appends what
// Parse(src).AppendJSON would: member order kept, Python's spellings,
// without building the Value. On error dst is returned unchanged.
func (c *Canonicalizer) AppendOrdered(dst, src []byte) ([]byte, error) {
	return c.appendStyle(dst, src, styleOrdered)
}

// AppendPyRepr validates src as Parse does and appends Python's
// repr(json.loads(src)) (dict and list reprs with ", " and ": ", True,
// False, None, numbers in Python's spelling), without building the Value.
func (c *Canonicalizer) AppendPyRepr(dst, src []byte) ([]byte, error) {
	return c.appendStyle(dst, src, stylePyRepr)
}

func (c *Canonicalizer) appendStyle(dst, src []byte, st style) ([]byte, error) {
	if err := c.check(src); err != nil {
		return dst, err
	}
	if len(src) > 1<<16 {
		// The output is about the input's size: one allocation, not
		// append's series of them.
		dst = slices.Grow(dst, len(src)+len(src)/16)
	}
	dst = c.e.emit(dst, src, st)
	c.e.shrink()
	return dst, nil
}

// skipValid returns the index past the valid JSON value starting at src[i]
// (no leading space).
func skipValid(src []byte, i int) int {
	depth := 0
	for i < len(src) {
		switch c := src[i]; c {
		case '"':
			end, _ := stringEnd(src, i+1)
			i = end + 1
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		case ',', ':', ' ', '\t', '\n', '\r':
			i++
			continue
		case 't', 'n':
			i += 4
		case 'f':
			i += 5
		default:
			j, _ := numberEnd(src, i)
			i = max(j, i+1) // a byte no valid text has here: move on
		}
		if depth <= 0 {
			return min(i, len(src))
		}
	}
	return len(src)
}

// EachMember calls fn with the key (as written, without its quotes: it may
// hold escapes) and the text of each member of the object src, in order,
// until fn returns false. src must be valid JSON (as Check, Append or Parse
// accepted it); nothing is decoded. It returns false when src is not an
// object.
func EachMember(src []byte, fn func(rawKey, value []byte) bool) bool {
	i := skipSpace(src, 0)
	if i >= len(src) || src[i] != '{' {
		return false
	}
	i = skipSpace(src, i+1)
	for i < len(src) && src[i] == '"' {
		end, _ := stringEnd(src, i+1)
		vs := skipSpace(src, skipSpace(src, end+1)+1) // past the ':'
		if vs >= len(src) {
			break // not valid JSON
		}
		ve := skipValid(src, vs)
		if !fn(src[i+1:end], src[vs:ve]) {
			return true
		}
		i = skipSpace(src, ve)
		if i >= len(src) || src[i] != ',' {
			break
		}
		i = skipSpace(src, i+1)
	}
	return true
}

// EachElement calls fn with the text of each element of the array src, in
// order, until fn returns false. Like EachMember it reads valid JSON and
// returns false when src is not an array.
func EachElement(src []byte, fn func(value []byte) bool) bool {
	i := skipSpace(src, 0)
	if i >= len(src) || src[i] != '[' {
		return false
	}
	for i = skipSpace(src, i+1); i < len(src) && src[i] != ']'; {
		ve := skipValid(src, i)
		if !fn(src[i:ve]) {
			return true
		}
		if i = skipSpace(src, ve); i >= len(src) || src[i] != ',' {
			break
		}
		i = skipSpace(src, i+1)
	}
	return true
}

// KeyText decodes a raw key as EachMember passes it.
func KeyText(rawKey []byte) string {
	if bytes.IndexByte(rawKey, '\\') < 0 {
		return string(rawKey)
	}
	return string(appendUnescaped(nil, rawKey))
}

// MemberText returns the text of the member key of the object src, which
// must be valid JSON; ok is false when src is not an object or lacks key.
func MemberText(src []byte, key string) (value []byte, ok bool) {
	EachMember(src, func(k, v []byte) bool {
		if string(k) == key || bytes.IndexByte(k, '\\') >= 0 && KeyText(k) == key {
			value, ok = v, true
			return false
		}
		return true
	})
	return value, ok
}

// KindOfText names the JSON kind of the valid JSON text raw (leading white
// space allowed) by its first byte; Invalid for no text.
func KindOfText(raw []byte) Kind {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return Invalid
	}
	switch raw[0] {
	case '{':
		return Object
	case '[':
		return Array
	case '"':
		return String
	case 't', 'f':
		return Bool
	case 'n':
		return Null
	}
	return Number
}

// StringText returns the text of the valid JSON string literal lit (quotes
// included); ok is false when lit is not a string.
func StringText(lit []byte) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' {
		return "", false
	}
	text := lit[1 : len(lit)-1]
	if bytes.IndexByte(text, '\\') < 0 {
		return string(text), true
	}
	return string(appendUnescaped(nil, text)), true
}
