package jsonv

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// stringsOf lists the string values of v (not keys) in document order,
// each with its path ("/key/0/...") and text, as CheckStrings should see
// them.
func stringsOf(v Value, path string, out []string) []string {
	switch v.Kind() {
	case String:
		out = append(out, path+"="+v.Text())
	case Array:
		for i, e := range v.Elems() {
			out = stringsOf(e, fmt.Sprintf("%s/%d", path, i), out)
		}
	case Object:
		for _, m := range v.Members() {
			out = stringsOf(m.Value, path+"/"+m.Key, out)
		}
	}
	return out
}

type visitFunc func(a, b int, esc bool, p Path)

func (f visitFunc) VisitString(a, b int, esc bool, p Path) { f(a, b, esc, p) }

func TestCheckStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 8))
	var c Canonicalizer
	docs := goldenLines(t)
	for i := 0; i < 3000; i++ {
		g := genDoc{r: r}
		g.value(0)
		docs = append(docs, []byte(g.b.String()))
	}
	docs = append(docs, []byte(`{"a":[{"b":"x"},["y",{"c\u0064":"z"}]],"e":{"f":{}},"g":"w"}`), []byte(`"top"`), []byte(`{"a":"x","a":"y"}`), []byte(`[1,"a",tru]`))
	for _, doc := range docs {
		var got []string
		err := c.CheckStrings(doc, visitFunc(func(a, b int, esc bool, p Path) {
			var sb strings.Builder
			for k := 0; k < p.Len(); k++ {
				key, idx := p.At(k)
				if key != nil {
					sb.WriteString("/" + string(key))
				} else {
					fmt.Fprintf(&sb, "/%d", idx)
				}
			}
			text := string(doc[a:b])
			if esc {
				text = string(appendUnescaped(nil, doc[a:b]))
			} else if strings.IndexByte(text, '\\') >= 0 {
				t.Fatalf("%q: a string with escapes reported without", doc)
			}
			got = append(got, sb.String()+"="+text)
		}))
		v, perr := Parse(doc)
		if fmt.Sprint(err) != fmt.Sprint(perr) {
			t.Fatalf("%q: CheckStrings %v, Parse %v", clip(doc), err, perr)
		}
		if err != nil {
			continue
		}
		want := stringsOf(v, "", nil)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q:\n got %q\nwant %q", clip(doc), got, want)
		}
	}
}

// Check finds duplicate keys pair by pair in small objects and Parse by
// sorting: the same error.
func TestCheckDuplicateKeysMatchParse(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 11))
	keys := []string{`"a"`, `"b"`, `"abcdefgh1"`, `"abcdefgh2"`, `"abcdefgh1"`, `"\u0061"`, `"ab\u0063defgh1"`, `""`, `"é"`, `"\u00e9"`}
	var c Canonicalizer
	for n := 0; n < 20000; n++ {
		var sb strings.Builder
		var obj func(depth int)
		obj = func(depth int) {
			sb.WriteByte('{')
			m := r.IntN(30)
			for i := 0; i < m; i++ {
				if i > 0 {
					sb.WriteByte(',')
				}
				if r.IntN(3) == 0 {
					fmt.Fprintf(&sb, `"k%d"`, r.IntN(40))
				} else {
					sb.WriteString(keys[r.IntN(len(keys))])
				}
				sb.WriteByte(':')
				if depth < 2 && r.IntN(5) == 0 {
					obj(depth + 1)
				} else {
					sb.WriteString("1")
				}
			}
			sb.WriteByte('}')
		}
		obj(0)
		doc := []byte(sb.String())
		_, perr := Parse(doc)
		cerr := c.Check(doc)
		if fmt.Sprint(perr) != fmt.Sprint(cerr) {
			t.Fatalf("%s: Check %v, Parse %v", doc, cerr, perr)
		}
	}
}
