package reducer

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// pyStr mirrors Python's str(payload.get(key, def)) for JSON values, so a
// replayed view holds what the reference's view holds even for payloads
// whose text fields are not strings.
func pyStr(p jsonv.Value, key, def string) string {
	v, ok := p.Get(key)
	if !ok {
		return def
	}
	if v.Kind() == jsonv.String {
		return v.Text()
	}
	var b strings.Builder
	pyRepr(&b, v)
	return b.String()
}

// pyRepr writes Python's repr() of the value json.loads gives for v.
// Numbers keep their Python spelling (jsonv stores it).
func pyRepr(b *strings.Builder, v jsonv.Value) {
	switch v.Kind() {
	case jsonv.Null:
		b.WriteString("None")
	case jsonv.Bool:
		if v.Bool() {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case jsonv.Number:
		b.WriteString(v.Text())
	case jsonv.String:
		pyReprString(b, v.Text())
	case jsonv.Array:
		b.WriteByte('[')
		for i, e := range v.Elems() {
			if i > 0 {
				b.WriteString(", ")
			}
			pyRepr(b, e)
		}
		b.WriteByte(']')
	case jsonv.Object:
		// json.loads keeps the last of duplicate keys at the first one's
		// place; the parser rejects duplicates, so members are unique.
		b.WriteByte('{')
		for i, m := range v.Members() {
			if i > 0 {
				b.WriteString(", ")
			}
			pyReprString(b, m.Key)
			b.WriteString(": ")
			pyRepr(b, m.Value)
		}
		b.WriteByte('}')
	}
}

// pyReprString writes Python's repr() of a str: single quotes unless the
// text holds a single quote and no double quote; backslash, the quote, \t
// \n \r escaped; other non-printable characters as \xhh, \uhhhh or
// \Uhhhhhhhh. Printable follows str.isprintable (letters, marks, numbers,
// punctuation, symbols and the ASCII space), which unicode.IsPrint matches
// up to the Unicode versions of Go and Python.
func pyReprString(b *strings.Builder, s string) {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			writeHex(b, uint32(r), 2)
		case r < 0x7f || unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			b.WriteString(`\x`)
			writeHex(b, uint32(r), 2)
		case r <= 0xffff:
			b.WriteString(`\u`)
			writeHex(b, uint32(r), 4)
		default:
			b.WriteString(`\U`)
			writeHex(b, uint32(r), 8)
		}
	}
	b.WriteByte(quote)
}

func writeHex(b *strings.Builder, v uint32, width int) {
	h := strconv.FormatUint(uint64(v), 16)
	for i := len(h); i < width; i++ {
		b.WriteByte('0')
	}
	b.WriteString(h)
}
