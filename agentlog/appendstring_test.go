package agentlog

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// refAppendString is appendString as it was before it copied runs whole.
func refAppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

func TestAppendStringMatchesReference(t *testing.T) {
	pieces := []string{"a", "bc", "defghijk", "\"", "\\", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", " ", "é", "数据", "😀",
		"\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\uFFFD", "~", "!"}
	r := rand.New(rand.NewPCG(22, 2))
	for n := 0; n < 20000; n++ {
		var sb strings.Builder
		for k := r.IntN(30); k > 0; k-- {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := sb.String()
		if got, want := string(appendString([]byte("x"), s)), string(refAppendString([]byte("x"), s)); got != want {
			t.Fatalf("%q: %q, want %q", s, got, want)
		}
	}
}
