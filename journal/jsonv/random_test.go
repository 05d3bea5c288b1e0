package jsonv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// genDoc writes a random valid JSON text: random whitespace, escapes, key
// orders (including keys sharing their first 8 bytes and objects wide enough
// for the heap sort) and number spellings.
type genDoc struct {
	r *rand.Rand
	b strings.Builder
}

func (g *genDoc) ws() {
	if g.r.IntN(4) == 0 {
		g.b.WriteString([]string{" ", "\t", "\n", "\r\n", "  "}[g.r.IntN(5)])
	}
}

func (g *genDoc) value(depth int) {
	g.ws()
	switch k := g.r.IntN(10); {
	case k < 2 && depth < 6:
		g.b.WriteByte('[')
		for i, n := 0, g.r.IntN(5); i < n; i++ {
			if i > 0 {
				g.b.WriteByte(',')
			}
			g.value(depth + 1)
		}
		g.ws()
		g.b.WriteByte(']')
	case k < 4 && depth < 6:
		g.b.WriteByte('{')
		n := g.r.IntN(6)
		if g.r.IntN(8) == 0 {
			n = 25 + g.r.IntN(20)
		}
		seen := map[string]bool{}
		first := true
		for i := 0; i < n; i++ {
			lit, text := g.key()
			if seen[text] {
				continue
			}
			seen[text] = true
			if !first {
				g.b.WriteByte(',')
			}
			first = false
			g.ws()
			g.b.WriteString(lit)
			g.ws()
			g.b.WriteByte(':')
			g.value(depth + 1)
		}
		g.ws()
		g.b.WriteByte('}')
	case k < 6:
		lit, _ := randString(g.r, 12)
		g.b.WriteString(lit)
	case k < 8:
		g.b.WriteString(g.number())
	default:
		g.b.WriteString([]string{"true", "false", "null"}[g.r.IntN(3)])
	}
	g.ws()
}

func (g *genDoc) key() (lit, text string) {
	switch g.r.IntN(4) {
	case 0: // shared 8-byte prefix, maybe escaped
		suffix := strconv.Itoa(g.r.IntN(30))
		if g.r.IntN(2) == 0 {
			return `"abcdefg\u0068` + suffix + `"`, "abcdefgh" + suffix
		}
		return `"abcdefgh` + suffix + `"`, "abcdefgh" + suffix
	case 1:
		s := strings.Repeat("k", g.r.IntN(10))
		return `"` + s + `"`, s
	}
	return randString(g.r, 5)
}

func (g *genDoc) number() string {
	switch g.r.IntN(6) {
	case 0:
		return strconv.FormatInt(g.r.Int64()>>g.r.IntN(64), 10)
	case 1:
		return []string{"-0", "0", "-0.0", "0e0", "-0E+0", "1E5", "1e16", "1e-7", "100.0", "5e-324", "1e-400"}[g.r.IntN(11)]
	case 2:
		return "-" + strconv.FormatUint(g.r.Uint64(), 10) + strconv.FormatUint(g.r.Uint64(), 10)
	case 3:
		f := math.Float64frombits(g.r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = 1.5
		}
		return strconv.FormatFloat(f, 'e', -1, 64)
	case 4:
		return strconv.FormatFloat(g.r.NormFloat64()*1e6, 'f', g.r.IntN(8), 64)
	}
	return fmt.Sprintf("%d.%de%+d", g.r.IntN(1000), g.r.IntN(1000), g.r.IntN(40)-20)
}

// TestRandomDocuments checks Parse, AppendJSON, AppendCanonical and
// Canonicalizer against the encoding/json-based reference on generated
// valid documents, and error parity between Parse and Canonicalizer on
// single-byte mutations of them.
func TestRandomDocuments(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 400
	}
	r := rand.New(rand.NewPCG(7, 11))
	var c Canonicalizer
	streaming := Canonicalizer{tapeLimit: -1}
	for i := 0; i < n; i++ {
		g := genDoc{r: r}
		g.value(0)
		doc := []byte(g.b.String())

		v, err := Parse(doc)
		if err != nil {
			t.Fatalf("doc %d: Parse(%q): %v", i, clip(doc), err)
		}
		ref, err := refParse(doc)
		if err != nil {
			t.Fatalf("doc %d: reference: %v", i, err)
		}
		if got, want := v.AppendJSON(nil), ref.AppendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("doc %d %q: AppendJSON\n got %q\nwant %q", i, clip(doc), clip(got), clip(want))
		}
		want := ref.AppendCanonical(nil)
		if got := v.AppendCanonical(nil); !bytes.Equal(got, want) {
			t.Fatalf("doc %d %q: AppendCanonical\n got %q\nwant %q", i, clip(doc), clip(got), clip(want))
		}
		got, err := c.Append(nil, doc)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("doc %d %q: Canonicalizer %v\n got %q\nwant %q", i, clip(doc), err, clip(got), clip(want))
		}
		if got, err := streaming.Append(nil, doc); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("doc %d %q: Canonicalizer without a tape %v\n got %q\nwant %q", i, clip(doc), err, clip(got), clip(want))
		}
		if got, err := c.AppendOrdered(nil, doc); err != nil || !bytes.Equal(got, v.AppendJSON(nil)) {
			t.Fatalf("doc %d %q: AppendOrdered %v\n got %q\nwant %q", i, clip(doc), err, clip(got), clip(v.AppendJSON(nil)))
		}
		if got, err := c.AppendPyRepr(nil, doc); err != nil || !bytes.Equal(got, v.AppendPyRepr(nil)) {
			t.Fatalf("doc %d %q: AppendPyRepr %v\n got %q\nwant %q", i, clip(doc), err, clip(got), clip(v.AppendPyRepr(nil)))
		}

		// Mutate one byte: both readers must agree, and a grammar error
		// must be one encoding/json agrees with.
		m := append([]byte(nil), doc...)
		m[r.IntN(len(m))] = "\"\\{}[],:0-eE.u \x00\xff\xc3"[r.IntN(17)]
		_, perr := Parse(m)
		_, cerr := c.Append(nil, m)
		if (perr == nil) != (cerr == nil) {
			t.Fatalf("mutant %q: Parse %v, Canonicalizer %v", clip(m), perr, cerr)
		}
		if _, serr := streaming.Append(nil, m); (serr == nil) != (cerr == nil) || serr != nil && *syntaxErr(t, serr) != *syntaxErr(t, cerr) {
			t.Fatalf("mutant %q: Canonicalizer with a tape %v, without %v", clip(m), cerr, serr)
		}
		if perr != nil {
			pe, ce := syntaxErr(t, perr), syntaxErr(t, cerr)
			if *pe != *ce {
				t.Fatalf("mutant %q: Parse %+v, Canonicalizer %+v", clip(m), *pe, *ce)
			}
			if (pe.Code == ErrInvalidJSON || pe.Code == ErrTrailingData) && utf8.Valid(m) && json.Valid(m) {
				t.Fatalf("mutant %q rejected as %v but encoding/json accepts it", clip(m), pe)
			}
		} else if !json.Valid(m) {
			t.Fatalf("mutant %q accepted but encoding/json rejects it", clip(m))
		}
	}
}

// EachMember and MemberText read valid texts; on anything else they must
// not panic.
func TestMemberTextOnInvalidInput(t *testing.T) {
	for _, s := range []string{``, `{`, `{"a`, `{"a"`, `{"a":`, `{"a":[1,`, `{"a":"x`, `[1]`, `{"a":1,"b"`, `{"a\`} {
		MemberText([]byte(s), "b")
		EachMember([]byte(s), func(k, v []byte) bool { return true })
	}
	if v, ok := MemberText([]byte(`{"a" : [1, {"b":2}] , "b\u0021":3, "b" :"x\"y"}`), "b"); !ok || string(v) != `"x\"y"` {
		t.Errorf("MemberText: %q %v", v, ok)
	}
	if v, ok := MemberText([]byte(`{"b\u0021":3}`), "b!"); !ok || string(v) != "3" {
		t.Errorf("MemberText, escaped key: %q %v", v, ok)
	}
}

func FuzzMemberText(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[2]}`))
	f.Add([]byte(`{"a\"":"\\","b":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := MemberText(data, "b")
		v, err := Parse(data)
		if err != nil || v.Kind() != Object {
			return // anything but a panic will do
		}
		want, has := v.Get("b")
		if ok != has || ok && !bytes.Equal(mustParse(t, got).AppendJSON(nil), want.AppendJSON(nil)) {
			t.Fatalf("MemberText(%q) = %q %v, Parse gives %v", data, got, ok, want.AppendJSON(nil))
		}
	})
}
