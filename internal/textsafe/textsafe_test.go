package textsafe

import (
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"evt-001", "evt-001"},
		{"café ☕", "café ☕"},
		{"", `""`},
		{"evt-1\nok forged", `"evt-1\nok forged"`},
		{"\x1b[31mred\x1b[0m", `"\x1b[31mred\x1b[0m"`},
		{"a\rb", `"a\rb"`},
		{"tab\there", `"tab\there"`},
		{"\xff\xfe", `"\xff\xfe"`},
		{" lead", `" lead"`},
		{"trail ", `"trail "`},
		{`say "hi"`, `"say \"hi\""`},
		{`back\slash`, `"back\\slash"`},
		{"rtl\u202eevil", `"rtl\u202eevil"`},
		{"zero\u200bwidth", `"zero\u200bwidth"`},
		{"bom\ufeff", `"bom\ufeff"`},
		{"del\x7f", `"del\x7f"`},
	} {
		got := Quote(tc.in)
		if got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f || r == '\u202e' || r == '\u200b' || r == '\ufeff' {
				t.Errorf("Quote(%q) = %q still holds %U", tc.in, got, r)
			}
		}
	}
}

func FuzzQuote(f *testing.F) {
	f.Add("evt-001")
	f.Add("a\nb\x1b[0m\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		if strings.ContainsAny(q, "\n\r\x1b\x00\x7f\u202e\u2066\ufeff") {
			t.Fatalf("Quote(%q) = %q holds an unsafe character", s, q)
		}
		if q == s && !Plain(s) {
			t.Fatalf("Quote(%q) returned a non-plain string unchanged", s)
		}
	})
}
