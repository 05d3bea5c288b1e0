package view

import (
	"fmt"
	"html/template"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Every bound of a page counts bytes as the page writes them, escapes
// included: a '<' in a payload is six bytes of the data island (\u003c),
// a '"' two, and four or five in the overview's HTML (&lt;, &#34;). A bound
// on the input's bytes would let a trace of '<' make a page six times its
// budget.

// jsWritten is how many bytes appendJSString writes for s, without the
// two quotes.
func jsWritten(s string) int {
	n := 0
	for i := 0; i < len(s); {
		k, size := jsRune(s, i)
		n += k
		i += size
	}
	return n
}

// jsRune is the bytes appendJSString writes for the character at s[i],
// and that character's size in s.
func jsRune(s string, i int) (written, size int) {
	c := s[i]
	if c < utf8.RuneSelf {
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			return 2, 1
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			return 6, 1
		}
		return 1, 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return 6, 1 // \ufffd
	case r == '\u2028' || r == '\u2029':
		return 6, size
	}
	return size, size
}

// cutJS returns the longest prefix of s, cut at a character boundary, that
// appendJSString writes in at most n bytes (quotes not counted).
func cutJS(s string, n int) string {
	w := 0
	for i := 0; i < len(s); {
		k, size := jsRune(s, i)
		if w+k > n {
			return s[:i]
		}
		w += k
		i += size
	}
	return s
}

// appendJSMax appends the literal appendJSString writes for the longest
// prefix of s it writes in at most n bytes (quotes not counted), and
// returns that prefix's length. A string short enough to fit whatever it
// holds is read once; of a longer one, only what fits (and one character)
// is read, twice, so that nothing longer than the page keeps is written.
func appendJSMax(dst []byte, s string, n int) ([]byte, int) {
	if len(s) <= n/6 {
		return appendJSString(dst, s), len(s)
	}
	t := cutJS(s, n)
	return appendJSString(dst, t), len(t)
}

// clipped is a string from the input as the page holds it: S, cut so that
// the page writes at most Limits.FieldBytes of it, and Whole, the length
// in bytes of the string the input has when S is cut (0 when it is not).
type clipped struct {
	S     string
	Whole int
}

func (c clipped) Cut() bool { return c.Whole > 0 }

// clip cuts s to n bytes as written in the data island.
func clip(s string, n int) clipped {
	t := cutJS(s, n)
	if len(t) == len(s) {
		return clipped{S: strings.Clone(s)}
	}
	return clipped{S: strings.Clone(t), Whole: len(s)}
}

// invisible reports whether r is shown escaped: a formatting character
// (Unicode Cf: the bidirectional embeddings, overrides and isolates
// U+202A-U+202E and U+2066-U+2069, the marks U+200E and U+200F, zero-width
// spaces and joiners U+200B-U+200D, U+2060-U+2064, the BOM U+FEFF...), a
// control character other than tab, newline and carriage return, or a line
// or paragraph separator. Shown raw, such a character is invisible or
// reorders the text around it, so that "\u202e; / fr- mr" would read as
// "rm -rf /"; package textsafe escapes the same characters in text output.
// common.js's INVISIBLE is the same set.
func invisible(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	case '\u2028', '\u2029':
		return true
	}
	return unicode.Is(unicode.Cf, r) || unicode.IsControl(r)
}

// escapeRune writes r as the page shows it: \u202e, or \U000e0001 past
// U+FFFF.
func escapeRune(r rune) string {
	if r > 0xffff {
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// visText returns s with every invisible character written as its escape,
// for text that cannot hold markup (an attribute, an <option>, the
// <title>); html/template escapes the result.
func visText(s string) string {
	if !hasInvisible(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if invisible(r) {
			b.WriteString(escapeRune(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func hasInvisible(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
		case c < utf8.RuneSelf:
			if invisible(rune(c)) {
				return true
			}
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if invisible(r) {
				return true
			}
			i += size - 1
		}
	}
	return false
}

// escOpen and escClose mark an escaped invisible character in the page
// (view.css; the page's legend says what it is).
const escOpen, escClose = `<span class="esc">`, `</span>`

// visHTML returns s as HTML text, escaped exactly as html/template escapes
// text, with every invisible character written as its escape in a span of
// its own style.
func visHTML(s string) template.HTML {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		appendHTMLRune(&b, r)
	}
	return template.HTML(b.String())
}

// appendHTMLRune writes r as visHTML does: html/template's text escapes
// (its htmlReplacementTable), and the span for an invisible character (NUL
// among them, which html/template writes as U+FFFD).
func appendHTMLRune(b *strings.Builder, r rune) {
	if invisible(r) {
		b.WriteString(escOpen)
		b.WriteString(escapeRune(r))
		b.WriteString(escClose)
		return
	}
	switch r {
	case '"':
		b.WriteString("&#34;")
	case '&':
		b.WriteString("&amp;")
	case '\'':
		b.WriteString("&#39;")
	case '+':
		b.WriteString("&#43;")
	case '<':
		b.WriteString("&lt;")
	case '>':
		b.WriteString("&gt;")
	default:
		b.WriteRune(r)
	}
}

// htmlWritten is how many bytes visHTML writes for the character at s[i],
// and that character's size.
func htmlWritten(s string, i int) (written, size int) {
	r, size := utf8.DecodeRuneInString(s[i:])
	if invisible(r) {
		return len(escOpen) + len(escapeRune(r)) + len(escClose), size
	}
	switch r {
	case '"', '\'', '+', '&':
		return 5, size
	case '<', '>':
		return 4, size
	}
	if r == utf8.RuneError && size == 1 {
		return 3, 1
	}
	return size, size
}

// cutHTML returns the longest prefix of s, at a character boundary, that
// visHTML writes in at most n bytes.
func cutHTML(s string, n int) string {
	w := 0
	for i := 0; i < len(s); {
		k, size := htmlWritten(s, i)
		if w+k > n {
			return s[:i]
		}
		w += k
		i += size
	}
	return s
}

// clipHTML is the template's view of a clipped string: its text, and when
// it was cut, a mark saying how long it is.
func clipHTML(c clipped) template.HTML {
	h := visHTML(c.S)
	if c.Whole > 0 {
		h += template.HTML(fmt.Sprintf(`<span class="cutmark" title="the page keeps the first %d bytes of this value">… (cut: %s in all)</span>`, len(c.S), fmtBytes(int64(c.Whole))))
	}
	return h
}

// fmtBytes writes a size as the page's script does (TC.fmtBytes).
func fmtBytes(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// clipJSON writes the valid JSON text src again with every string (keys
// too) cut to field bytes as the data island writes them, a number longer
// than that written as the string "…", and members and elements past max
// bytes of output left out, so that the result is valid JSON of at most
// about max bytes. cut reports whether anything was cut or left out.
func clipJSON(dst, src []byte, field, max int) (out []byte, cut bool) {
	start := len(dst)
	var walk func(v []byte, depth int)
	full := func() bool { return len(dst)-start >= max }
	str := func(s string) {
		t := cutJS(s, field)
		if len(t) < len(s) {
			cut = true
		}
		dst = jsonv.Str(t).AppendJSON(dst)
	}
	walk = func(v []byte, depth int) {
		switch jsonv.KindOfText(v) {
		case jsonv.Object:
			dst = append(dst, '{')
			first := true
			jsonv.EachMember(v, func(k, val []byte) bool {
				if full() {
					cut = true
					return false
				}
				if !first {
					dst = append(dst, ',')
				}
				first = false
				str(jsonv.KeyText(k))
				dst = append(dst, ':')
				walk(val, depth+1)
				return true
			})
			dst = append(dst, '}')
		case jsonv.Array:
			dst = append(dst, '[')
			first := true
			jsonv.EachElement(v, func(e []byte) bool {
				if full() {
					cut = true
					return false
				}
				if !first {
					dst = append(dst, ',')
				}
				first = false
				walk(e, depth+1)
				return true
			})
			dst = append(dst, ']')
		case jsonv.String:
			s, _ := jsonv.StringText(v)
			str(s)
		default:
			if len(v) > field {
				cut = true
				dst = jsonv.Str("…").AppendJSON(dst)
				return
			}
			dst = append(dst, v...)
		}
	}
	walk(src, 0)
	return dst, cut
}
