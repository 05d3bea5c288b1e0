package reducer

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// randomValue builds a JSON value of every kind, with the strings, keys
// and numbers encoders get wrong: escapes, control, non-ASCII and
// non-BMP characters, keys out of order and sharing prefixes, floats,
// exponents and negative zero.
func randomValue(r *rand.Rand, depth int) jsonv.Value {
	strs := []string{"", "a", "é", "\"q\"", "back\\slash", "tab\tnew\nline", "\u0001\u001f", "🙂", "\u202eevil", "</script>", "ab", "a b", "aa"}
	nums := []string{"0", "-0", "1", "-17", "2.5", "1e3", "1E-7", "12345678901234567890", "0.1", "-0.0", "3.0"}
	switch k := r.IntN(8); {
	case depth > 3 || k < 4:
		switch k % 4 {
		case 0:
			return jsonv.Str(strs[r.IntN(len(strs))])
		case 1:
			v, _ := jsonv.Parse([]byte(nums[r.IntN(len(nums))]))
			return v
		case 2:
			return jsonv.BoolValue(r.IntN(2) == 0)
		}
		return jsonv.NullValue()
	case k < 6:
		var es []jsonv.Value
		for range r.IntN(4) {
			es = append(es, randomValue(r, depth+1))
		}
		return jsonv.Arr(es...)
	}
	var ms []jsonv.Member
	seen := map[string]bool{}
	for range r.IntN(5) {
		key := strs[r.IntN(len(strs))]
		if !seen[key] {
			seen[key] = true
			ms = append(ms, jsonv.M(key, randomValue(r, depth+1)))
		}
	}
	return jsonv.Obj(ms...)
}

// TestToolResultTextMatchesTheTree: a tool message's content written from
// the payload's text (no tree) is byte for byte what AppendPySpaced writes
// from the parsed payload, for random results and errors, whatever their
// spelling in the file (compact or spaced).
func TestToolResultTextMatchesTheTree(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 13))
	var c jsonv.Canonicalizer
	var scratch []byte
	for i := range 3000 {
		v := randomValue(r, 0)
		payload := jsonv.Obj(jsonv.M("ok", jsonv.BoolValue(i%3 != 0)), jsonv.M("result", v), jsonv.M("error", v), jsonv.M("error_type", jsonv.Str("E")))
		var want string
		if i%3 != 0 {
			want = string(AppendPySpaced(nil, v))
		} else {
			want = string(AppendPySpaced(nil, jsonv.Obj(jsonv.M("ok", jsonv.BoolValue(false)), jsonv.M("error", v), jsonv.M("error_type", jsonv.Str("E")))))
		}
		compact := payload.AppendJSON(nil)
		spaced := []byte(strings.NewReplacer(`,"`, `, "`, `":`, `" : `).Replace(string(compact))) // still valid JSON
		for _, text := range [][]byte{compact, spaced} {
			f := payloadText(text).fields("ok", "result", "error", "error_type")
			if got := toolResultText(&c, &scratch, f[0], f[1], f[2], f[3]); got != want {
				t.Fatalf("payload %s:\n got %s\nwant %s", text, got, want)
			}
		}
	}
}

// TestPayloadTextReadsAsTheTree: the members the history reads from a
// payload's text (fields, text, scalar) are what jsonv.Value's Get and Text
// give for the parsed payload, escaped keys included.
func TestPayloadTextReadsAsTheTree(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 34))
	for range 2000 {
		v := randomValue(r, 0)
		if v.Kind() != jsonv.Object {
			continue
		}
		text := v.AppendJSON(nil)
		escaped := []byte(strings.ReplaceAll(string(text), `"a`, `"\u0061`))
		for _, p := range []payloadText{text, escaped} {
			for _, m := range v.Members() {
				got := p.fields("zzz", m.Key)
				want, _ := v.Get(m.Key)
				if got[0] != nil || got[1] == nil {
					t.Fatalf("%s: fields(zzz, %q) = %q", p, m.Key, got)
				}
				if w, g := want.Text(), got[1].scalar().Text(); w != g || want.Kind() != got[1].kind() {
					t.Fatalf("%s: member %q reads %s %q, the tree %s %q", p, m.Key, got[1].kind(), g, want.Kind(), w)
				}
				if want.Kind() == jsonv.String || want.Kind() == jsonv.Number {
					if g := got[1].text(); g != want.Text() {
						t.Fatalf("%s: text of %q = %q, want %q", p, m.Key, g, want.Text())
					}
				}
			}
		}
	}
}
