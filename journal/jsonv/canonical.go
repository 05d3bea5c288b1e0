package jsonv

import (
	"math"
	"unicode/utf8"
)

// Canonicalizer rewrites JSON texts in canonical form without building
// Values. Its scratch space is reused between calls, so steady-state use
// allocates nothing. The zero Canonicalizer is ready to use; it is not safe
// for concurrent use.
type Canonicalizer struct {
	s     scanner
	stack []emitFrame
}

type emitFrame struct {
	obj bool
	pos int // array: node index of the current element; object: index into order of the current member
	end int // array: elements left after the current one; object: end index into order
}

// Append validates src exactly as Parse does and appends the same bytes as
// Parse(src) followed by AppendCanonical: Python's json.dumps with
// ensure_ascii=False, sort_keys=True and compact separators. On error it
// returns dst unchanged and a *SyntaxError identical to Parse's.
func (c *Canonicalizer) Append(dst, src []byte) ([]byte, error) {
	if err := c.s.scan(src); err != nil {
		c.s.release()
		return dst, err
	}
	dst = c.emit(dst)
	c.s.release()
	return dst, nil
}

// emit writes the scanned tape with sorted members. Raw strings and integers
// are copied as written: a string without escapes cannot hold a control
// character, a quote or a backslash, so Python would write it unchanged.
func (c *Canonicalizer) emit(dst []byte) []byte {
	s := &c.s
	src, nodes, order := s.src, s.nodes, s.order
	stack := c.stack[:0]
	i := 0
	for {
		// Write the value at node i.
		n := &nodes[i]
		switch n.kind {
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
		case tNull:
			dst = append(dst, "null"...)
		case tTrue:
			dst = append(dst, "true"...)
		case tFalse:
			dst = append(dst, "false"...)
		case tArr:
			if n.b == 0 {
				dst = append(dst, '[', ']')
				break
			}
			dst = append(dst, '[')
			stack = append(stack, emitFrame{pos: i + 1, end: n.b - 1})
			i++
			continue
		case tObj:
			if n.b == 0 {
				dst = append(dst, '{', '}')
				break
			}
			dst = append(dst, '{')
			stack = append(stack, emitFrame{obj: true, pos: n.c, end: n.c + n.b})
			i = c.key(&dst, int(order[n.c]))
			continue
		}
		// The value is done: move to the next one, closing containers.
		for {
			if len(stack) == 0 {
				c.stack = stack
				return dst
			}
			f := &stack[len(stack)-1]
			if f.obj {
				f.pos++
				if f.pos < f.end {
					dst = append(dst, ',')
					i = c.key(&dst, int(order[f.pos]))
					break
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
					i = f.pos
					dst = append(dst, ',')
					break
				}
				dst = append(dst, ']')
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// key writes the key at node k and its colon, and returns its value's node.
func (c *Canonicalizer) key(dst *[]byte, k int) int {
	n := &c.s.nodes[k]
	if n.kind == tStr {
		*dst = append(*dst, c.s.src[n.a-1:n.b+1]...)
	} else {
		*dst = appendPyStringRaw(*dst, c.s.src[n.a:n.b])
	}
	*dst = append(*dst, ':')
	return k + 1
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
