package textsafe

import (
	"encoding/json"
	"reflect"
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

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		in, want    string
		displayable bool
	}{
		{"evt-001", "evt-001", true},
		{"", "", true},
		{` say "hi" \ there `, ` say "hi" \ there `, true},
		{"evt-1\nok forged", `evt-1\nok forged`, false},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, false},
		{"\xff\xfe é", `\xff\xfe é`, false},
		{"rtl\u202eevil", `rtl\u202eevil`, false},
		{"tab\there\r", `tab\there\r`, false},
		{"emoji \U0001F600 ok", "emoji \U0001F600 ok", true},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := Displayable(tc.in); got != tc.displayable {
			t.Errorf("Displayable(%q) = %v, want %v", tc.in, got, tc.displayable)
		}
	}
}

func TestEscapeJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"id":"evt-001","s":"é \"q\""}`, `{"id":"evt-001","s":"é \"q\""}`},
		{"{\"id\":\"a\nb\x1b[0m\"}", `{"id":"a\u000ab\u001b[0m"}`},
		{"\"rtl\u202e\ufeff\x7f\"", `"rtl\u202e\ufeff\u007f"`},
		{"\"\xff\"", `"\ufffd"`},
		{"\"tag \U000E0001\"", `"tag \udb40\udc01"`},
	} {
		got := EscapeJSON(tc.in)
		if got != tc.want {
			t.Errorf("EscapeJSON(%q) = %s, want %s", tc.in, got, tc.want)
		}
		var a, b any
		if json.Unmarshal([]byte(tc.in), &a) == nil {
			if err := json.Unmarshal([]byte(got), &b); err != nil || !reflect.DeepEqual(a, b) {
				t.Errorf("EscapeJSON(%q) = %s: a different JSON value (%v)", tc.in, got, err)
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
		if j := EscapeJSON(s); !Displayable(j) {
			t.Fatalf("EscapeJSON(%q) = %q holds an unsafe character", s, j)
		}
		e := Escape(s)
		if strings.ContainsAny(e, "\n\r\x1b\x00\x7f\u202e\u2066\ufeff") || !Displayable(e) {
			t.Fatalf("Escape(%q) = %q holds an unsafe character", s, e)
		}
		if Quote(s) != s && `"`+e+`"` != q && !strings.ContainsAny(s, `"\`) {
			t.Fatalf("Escape(%q) = %q is not Quote's escaping without its quotes (%s)", s, e, q)
		}
	})
}
