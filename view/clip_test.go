package view

import (
	"bytes"
	"encoding/json"
	"html/template"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

var clipSamples = []string{
	"", "plain", `quote " backslash \ `, "</script><!--<script>", "a\u2028b\u2029c", "tab\tnl\ncr\rbel\x07del\x7f",
	"<>&'+", "é日本🚀", "\u202eRLO", "a\xffb", "nul\x00", "zw\u200bj\u200dbom\ufeff", "tag\U000e0041",
}

// The budgets count what appendJSString writes, and cutJS keeps the
// longest prefix that fits.
func TestWrittenLengths(t *testing.T) {
	for _, s := range clipSamples {
		if got, want := jsWritten(s), len(appendJSString(nil, s))-2; got != want {
			t.Errorf("jsWritten(%q) = %d, appendJSString writes %d", s, got, want)
		}
		if got, want := htmlWritten2(s), len(visHTML(s)); got != want {
			t.Errorf("htmlWritten(%q) = %d, visHTML writes %d", s, got, want)
		}
		for n := 0; n <= len(s)*6+2; n++ {
			c := cutJS(s, n)
			if !strings.HasPrefix(s, c) || jsWritten(c) > n || !utf8.ValidString(c) && utf8.ValidString(s) {
				t.Fatalf("cutJS(%q, %d) = %q (%d written)", s, n, c, jsWritten(c))
			}
			if len(c) < len(s) {
				_, size := jsRune(s, len(c))
				if jsWritten(s[:len(c)+size]) <= n {
					t.Fatalf("cutJS(%q, %d) = %q stops early", s, n, c)
				}
			}
			if h := cutHTML(s, n); !strings.HasPrefix(s, h) || len(visHTML(h)) > n {
				t.Fatalf("cutHTML(%q, %d) = %q (%d written)", s, n, h, len(visHTML(h)))
			}
		}
	}
}

func htmlWritten2(s string) int {
	n := 0
	for i := 0; i < len(s); {
		k, size := htmlWritten(s, i)
		n += k
		i += size
	}
	return n
}

// visHTML escapes as html/template escapes text, so that a string without
// invisible characters is written as before; each invisible character
// becomes its escape in a span.
func TestVisHTMLIsTheTemplatesEscaping(t *testing.T) {
	tm := template.Must(template.New("").Parse(`<p>{{.}}</p>`))
	for _, s := range clipSamples {
		var b bytes.Buffer
		if err := tm.Execute(&b, s); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(strings.TrimPrefix(b.String(), "<p>"), "</p>")
		got := string(visHTML(s))
		if hasInvisible(s) {
			if !strings.Contains(got, `<span class="esc">\u`) && !strings.Contains(got, `<span class="esc">\U`) {
				t.Errorf("visHTML(%q) = %s: no escape", s, got)
			}
			for _, r := range s {
				if invisible(r) && strings.ContainsRune(got, r) {
					t.Errorf("visHTML(%q) = %s holds a raw %U", s, got, r)
				}
			}
			continue
		}
		if utf8.ValidString(s) && got != want {
			t.Errorf("visHTML(%q) = %s, html/template writes %s", s, got, want)
		}
	}
	for r, want := range map[rune]bool{'\u202a': true, '\u202e': true, '\u2066': true, '\u2069': true, '\u200b': true, '\u200f': true,
		'\u2060': true, '\u2064': true, '\ufeff': true, '\x07': true, '\u2028': true, '\t': false, '\n': false, 'a': false, 'é': false, '\u05d0': false} {
		if invisible(r) != want {
			t.Errorf("invisible(%U) = %v", r, !want)
		}
	}
	if got := visText("rm\u202e -rf"); got != `rm\u202e -rf` {
		t.Errorf("visText: %q", got)
	}
}

// clipJSON keeps JSON valid while it cuts strings and leaves members out,
// and leaves JSON that needs no cut as it is.
func TestClipJSON(t *testing.T) {
	var c jsonv.Canonicalizer
	long := strings.Repeat("<", 5000)
	for _, in := range []string{
		`{"a":"b","n":[1,2.5,true,null,{"k":"v"}]}`,
		`{"` + long + `":"` + long + `","b":[` + strings.Repeat(`"xx",`, 2000) + `1],"c":{"d":"` + long + `"}}`,
		`{"big":` + strings.Repeat("9", 3000) + `}`,
	} {
		src, err := c.AppendOrdered(nil, []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		out, cut := clipJSON(nil, src, 100, 400)
		if !json.Valid(out) {
			t.Fatalf("clipJSON(%.60s) = %.200s: not JSON", in, out)
		}
		if len(in) < 100 && (cut || string(out) != string(src)) {
			t.Errorf("clipJSON(%s) = %s (cut %v): changed JSON that fits", in, out, cut)
		}
		if len(in) > 1000 && (!cut || len(out) > 1200) {
			t.Errorf("clipJSON of %d bytes: %d bytes, cut %v", len(in), len(out), cut)
		}
	}
}
