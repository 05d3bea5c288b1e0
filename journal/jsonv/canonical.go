package jsonv

import (
	"math"
	"unicode/utf8"
)

// Canonicalizer rewrites JSON texts in canonical form without building
// Values. Its scratch space is reused between calls, so steady-state Append
// allocates nothing (AppendValue allocates only the Value it returns), and
// Append's scratch space does not grow with the number of values in its
// input (see emit.go). The zero Canonicalizer is ready to use; it is not
// safe for concurrent use.
type Canonicalizer struct {
	s     scanner
	e     emitter
	stack []emitFrame
	// tapeLimit: Append writes inputs up to this many bytes from the tape,
	// which is fastest, and longer ones by the second walk (emit.go), whose
	// scratch does not grow with the number of values. 0 is
	// defaultTapeLimit; tests set -1 to take the second walk always.
	tapeLimit int
}

// defaultTapeLimit bounds the tape Append builds: 64 KiB of input makes at
// most 32 bytes of tape per byte, 2 MiB, whatever the input holds.
const defaultTapeLimit = 64 << 10

type emitFrame struct {
	obj bool
	pos int // array: node index of the current element; object: index into order of the current member
	end int // array: elements left after the current one; object: end index into order
}

// Append validates src exactly as Parse does and appends the same bytes as
// Parse(src) followed by AppendCanonical: Python's json.dumps with
// ensure_ascii=False, sort_keys=True and compact separators. On error it
// returns dst unchanged and a *SyntaxError identical to Parse's. src must
// not share memory with dst's spare capacity: src is read while dst is
// written.
func (c *Canonicalizer) Append(dst, src []byte) ([]byte, error) {
	limit := c.tapeLimit
	if limit == 0 {
		limit = defaultTapeLimit
	}
	if len(src) > limit {
		return c.appendStyle(dst, src, styleCanonical)
	}
	if err := c.s.scan(src); err != nil {
		c.s.release()
		return dst, err
	}
	dst = c.emit(dst)
	c.s.release()
	return dst, nil
}

// AppendValue is Append that also returns the Value Parse(src) would, from
// the same scan, for callers that need both the canonical bytes and the tree.
func (c *Canonicalizer) AppendValue(dst, src []byte) ([]byte, Value, error) {
	if err := c.s.scan(src); err != nil {
		c.s.release()
		return dst, Value{}, err
	}
	dst = c.emit(dst) // before build, which repoints the scalar nodes at its text
	v := c.s.build()
	c.s.release()
	c.s.shrink()
	return dst, v, nil
}

// emit writes the scanned tape with sorted members. Raw strings and integers
// other than -0 are copied as written: a string without escapes cannot hold
// a control character, a quote or a backslash, so Python would write it
// unchanged.
func (c *Canonicalizer) emit(dst []byte) []byte {
	s := &c.s
	src, nodes, order := s.src, s.nodes, s.order
	stack := c.stack[:0]
	var k int
	i := 0
value: // write the value at node i
	switch n := &nodes[i]; n.kind {
	case tStr:
		dst = append(dst, src[n.a-1:n.b+1]...)
	case tStrEsc:
		dst = appendPyStringRaw(dst, src[n.a:n.b])
	case tInt:
		if isNegZero(src[n.a:n.b]) {
			dst = append(dst, '0')
		} else {
			dst = append(dst, src[n.a:n.b]...)
		}
	case tFloat:
		dst = AppendPyFloat(dst, math.Float64frombits(uint64(n.c)))
	case tNull, tTrue, tFalse:
		dst = append(dst, src[n.a:n.b]...)
	case tArr:
		if n.b == 0 {
			dst = append(dst, '[', ']')
			break
		}
		dst = append(dst, '[')
		stack = append(stack, emitFrame{pos: i + 1, end: n.b - 1})
		i++
		goto value
	case tObj:
		if n.b == 0 {
			dst = append(dst, '{', '}')
			break
		}
		dst = append(dst, '{')
		stack = append(stack, emitFrame{obj: true, pos: n.c, end: n.c + n.b})
		k = order[n.c]
		goto member
	}

next: // the value is done: move to the next one, closing containers
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.obj {
			if f.pos++; f.pos < f.end {
				dst = append(dst, ',')
				k = order[f.pos]
				goto member
			}
			dst = append(dst, '}')
		} else {
			if f.end > 0 {
				f.end--
				if p := &nodes[f.pos]; p.kind >= tArr {
					f.pos = p.a
				} else {
					f.pos++
				}
				dst = append(dst, ',')
				i = f.pos
				goto value
			}
			dst = append(dst, ']')
		}
		stack = stack[:len(stack)-1]
	}
	c.stack = stack
	return dst

member: // write the member whose key is at node k
	{
		kn, vn := &nodes[k], &nodes[k+1]
		if kn.kind == tStr {
			// In compact input a member with a plain key and a scalar
			// value that needs no respelling is copied in one piece.
			if vn.kind == tStr && vn.a == kn.b+3 {
				dst = append(dst, src[kn.a-1:vn.b+1]...)
				goto next
			}
			if vn.kind <= tInt && vn.a == kn.b+2 && !isNegZero(src[vn.a:vn.b]) {
				dst = append(dst, src[kn.a-1:vn.b]...)
				goto next
			}
			dst = append(dst, src[kn.a-1:kn.b+1]...)
		} else {
			dst = appendPyStringRaw(dst, src[kn.a:kn.b])
		}
		dst = append(dst, ':')
		i = k + 1
		goto value
	}
}

// appendPyStringRaw appends a validated string's raw content re-escaped as
// AppendPyString would escape its decoded text, without decoding it first.
func appendPyStringRaw(dst, raw []byte) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(raw); {
		if raw[i] != '\\' {
			j := i + 1
			for j < len(raw) && raw[j] != '\\' {
				j++
			}
			dst = append(dst, raw[i:j]...)
			i = j
			continue
		}
		e := raw[i+1]
		if e != 'u' {
			if e == '/' {
				dst = append(dst, '/')
			} else {
				dst = append(dst, '\\', e) // \" \\ \b \f \n \r \t are Python's spellings too
			}
			i += 2
			continue
		}
		r := rune(hex4(raw[i+2:]))
		i += 6
		switch {
		case r >= 0xD800 && r < 0xDC00:
			r = 0x10000 + (r-0xD800)<<10 + rune(hex4(raw[i+2:])) - 0xDC00
			i += 6
			dst = utf8.AppendRune(dst, r)
		case r < 0x20 || r == '"' || r == '\\':
			dst = appendPyEscape(dst, byte(r))
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}
