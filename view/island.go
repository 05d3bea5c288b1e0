package view

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// island writes the page's data: one JSON document that goes, as is, into a
// <script type="application/json"> element. The HTML parser ends such an
// element at the first "</script" and treats "<!--" specially, and a
// JavaScript parser would end a line at U+2028 or U+2029, so the writer
// never emits '<', '>', '&', U+2028 or U+2029 raw: inside strings they are
// \u escapes (the only place JSON can hold them), which JSON.parse reads
// back unchanged. Bytes that are not UTF-8 become U+FFFD; control
// characters are escaped. Keys and values are written in the order the
// caller gives, so the same model gives the same bytes.
type island struct {
	b        []byte
	comma    []bool // per open container: a member was written
	afterKey bool   // a key was written; its value needs no separator
	out      io.Writer
	err      error
}

// newIsland writes to out, in pieces (flush).
func newIsland(out io.Writer) *island { return &island{out: out, b: make([]byte, 0, 80<<10)} }

// flush writes what is buffered when it is more than a little, or all of
// it when force.
func (w *island) flush(force bool) {
	if w.err != nil {
		w.b = w.b[:0]
		return
	}
	if len(w.b) >= 64<<10 || force && len(w.b) > 0 {
		_, w.err = w.out.Write(w.b)
		w.b = w.b[:0]
	}
}

// column writes k as an array whose items col writes.
func (w *island) column(k string, col *strCol) {
	w.key(k)
	w.arr()
	w.flush(true)
	if w.err == nil {
		w.err = col.writeTo(w.out)
	}
	w.comma[len(w.comma)-1] = col.n > 0
	w.endArr()
}

// sep writes the comma before a value, unless the value follows its key.
func (w *island) sep() {
	if w.afterKey {
		w.afterKey = false
		return
	}
	if n := len(w.comma); n > 0 {
		if w.comma[n-1] {
			w.b = append(w.b, ',')
		}
		w.comma[n-1] = true
	}
}

func (w *island) open(c byte) {
	w.sep()
	w.b = append(w.b, c)
	w.comma = append(w.comma, false)
}

func (w *island) close(c byte) {
	w.b = append(w.b, c)
	w.comma = w.comma[:len(w.comma)-1]
}

func (w *island) obj()    { w.open('{') }
func (w *island) endObj() { w.close('}') }
func (w *island) arr()    { w.open('[') }
func (w *island) endArr() { w.close(']') }

// key writes an object key; the value written next belongs to it.
func (w *island) key(k string) {
	w.sep()
	w.b = appendJSString(w.b, k)
	w.b = append(w.b, ':')
	w.afterKey = true
}

func (w *island) str(s string) {
	w.sep()
	w.b = appendJSString(w.b, s)
}

func (w *island) int(n int64) {
	w.sep()
	w.b = strconv.AppendInt(w.b, n, 10)
}

func (w *island) bool(v bool) {
	w.sep()
	w.b = strconv.AppendBool(w.b, v)
}

func (w *island) null() {
	w.sep()
	w.b = append(w.b, "null"...)
}

// The helpers below write a keyed member in one call.
func (w *island) kstr(k, v string)       { w.key(k); w.str(v) }
func (w *island) kint(k string, v int64) { w.key(k); w.int(v) }
func (w *island) kbool(k string, v bool) { w.key(k); w.bool(v) }
func (w *island) kstrs(k string, v []string) {
	w.key(k)
	w.arr()
	for _, s := range v {
		w.str(s)
		w.flush(false)
	}
	w.endArr()
}

// kints writes k as an array of the numbers v holds.
func kints[T int32 | uint8 | uint16 | int64](w *island, k string, v []T) {
	w.key(k)
	w.arr()
	for i, n := range v {
		w.int(int64(n))
		if i&1023 == 0 {
			w.flush(false)
		}
	}
	w.endArr()
}

// kRows writes k as an array of [row, values...] arrays, in row order,
// each one's values written by val.
func kRows[V any](w *island, k string, rows []V, val func(V)) {
	w.key(k)
	w.arr()
	for _, r := range rows {
		w.arr()
		val(r)
		w.endArr()
		w.flush(false)
	}
	w.endArr()
}

const hexDigits = "0123456789abcdef"

// appendJSString appends s as a JSON string that is safe inside a
// <script> element: see island.
func appendJSString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
