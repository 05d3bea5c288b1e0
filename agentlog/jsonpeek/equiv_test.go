package jsonpeek

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The current parser against the one before the speed work (ref_test.go):
// for every input the same result of Parse and ParsePrefix (offset, error
// text, flags) and the same values through the whole Value API.

func equivCorpus(t testing.TB) [][]byte {
	var lines [][]byte
	for _, pat := range []string{"../testdata/*/*.jsonl", "../../testdata/agentlog/*/*.jsonl", "../../testdata/good/*.jsonl", "../../testdata/bad/*.jsonl"} {
		files, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range bytes.Split(data, []byte{'\n'}) {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) < 100 {
		t.Fatalf("corpus of %d lines", len(lines))
	}
	lines = append(lines, [][]byte{
		[]byte(`{"a":"` + strings.Repeat("x", 100) + `\"` + strings.Repeat("é", 40) + `\u00e9\ud83d\ude00 数据 \n\t"}`),
		[]byte(`{"k":"` + strings.Repeat("\\\\", 50) + `"}`),
		[]byte(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"abcdefghij":1,"abcdefghik":2,"abcdefghij":3}`),
		[]byte(`{"longkey_aaaaaaaa":1,"longkey_aaaaaaab":2,"longkey_aaaaaaaa":3}`),
		[]byte(`{"a\u0062cdefghijk":1,"abcdefghijk":2}`),
		[]byte(`{"\u0061":1,"a":2}`),
		[]byte("{\"a\":\"\xed\xa0\x80\"}"),
		[]byte("{\"a\":\"\xf4\x90\x80\x80\"}"),
		[]byte("{\"a\":\"\xc0\xaf\"}"),
		[]byte("{\"a\":\"abc\xe2\x82\"}"),
		[]byte("{\"a\":\"abcdefgh\xe2\x82\xac\xe2\x82\xac\xf0\x9f\x98\x80xyz\"}"),
		[]byte("{\"a\":\"" + strings.Repeat("\xe6\x95\xb0", 30) + "\x01\"}"),
		[]byte(`{"a":"\ud800\ud800\udc00"}`),
		[]byte(`{"a":"\udbff"}`),
		[]byte(`{"a":"` + strings.Repeat("a", 5000) + `"}`),
		[]byte(`[` + strings.Repeat(`{"x":[1,2,{"y":null}]},`, 200) + `0]`),
		[]byte(strings.Repeat("[", 600) + strings.Repeat("]", 600)),
		[]byte(`{"a":123456789012345678901234567890,"b":-0.0e-0,"c":1E+400}`),
	}...)
	big := make([]byte, 0, 3000)
	big = append(big, '{')
	for i := 0; i < 1100; i++ {
		if i > 0 {
			big = append(big, ',')
		}
		big = append(big, `"k`...)
		big = append(big, byte('a'+i%26), byte('a'+i/26%26), byte('a'+i/676))
		big = append(big, `":0`...)
	}
	big = append(big, `,"kaaa":1}`...)
	lines = append(lines, big)
	// Strings across the windows of stop bits (stopbits.WindowBytes): of
	// every length up to a few hundred bytes, with an escape, a
	// multi-byte character or a control at varying offsets, so that some
	// straddle each window's end.
	var long []byte
	long = append(long, '[')
	for i := 0; len(long) < 3*16<<10+500; i++ {
		if i > 0 {
			long = append(long, ',')
		}
		long = append(long, '"')
		long = append(long, strings.Repeat("x", i%300)...)
		long = append(long, [...]string{"", `
`, "é", `é`, "数据", `\`}[i%6]...)
		long = append(long, '"')
	}
	long = append(long, ']')
	lines = append(lines, long, bytes.Replace(long, []byte(`
`), []byte(""), 1))
	return lines
}

// mutate returns a copy of l with a few random edits of the kinds that
// reach the parser's corners.
func mutate(r *rand.Rand, l []byte) []byte {
	b := append([]byte(nil), l...)
	specials := []string{`"`, `\`, `\u`, `\ud800`, `\udc00`, `\u12`, "\x01", "\x1f", "\x7f", "\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80", "é", "数", "{", "}", "[", "]", ",", ":", " ", "\t", "\r\n", "1e999", "-", "0", "tru", "null", "\\n", `\"`, `\\`, `"a":1,"a":2`}
	for n := 1 + r.IntN(3); n > 0; n-- {
		switch op := r.IntN(5); {
		case len(b) == 0 || op == 0:
			s := specials[r.IntN(len(specials))]
			at := 0
			if len(b) > 0 {
				at = r.IntN(len(b) + 1)
			}
			b = append(b[:at], append([]byte(s), b[at:]...)...)
		case op == 1:
			b[r.IntN(len(b))] = byte(r.IntN(256))
		case op == 2:
			b = b[:r.IntN(len(b))]
		case op == 3:
			at := r.IntN(len(b))
			b = append(b[:at], b[at+1:]...)
		default:
			at := r.IntN(len(b))
			b[at] = specials[r.IntN(len(specials))][0]
		}
	}
	return b
}

func TestParseMatchesReference(t *testing.T) {
	lines := equivCorpus(t)
	r := rand.New(rand.NewPCG(22, 5))
	var d Doc
	var rd refDoc
	n := 0
	for _, l := range lines {
		checkSame(t, &d, &rd, l)
		n++
		for k := 0; k < 16; k++ {
			checkSame(t, &d, &rd, mutate(r, l))
			n++
		}
	}
	t.Logf("%d inputs", n)
}

func FuzzParseMatchesReference(f *testing.F) {
	for _, l := range equivCorpus(f) {
		if len(l) < 4096 {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Doc
		var rd refDoc
		checkSame(t, &d, &rd, b)
	})
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func checkSame(t testing.TB, d *Doc, rd *refDoc, src []byte) {
	t.Helper()
	err, rerr := d.Parse(src), rd.Parse(src)
	if errText(err) != errText(rerr) || d.Flags() != rd.Flags() {
		t.Fatalf("%q: Parse: %v flags %b; reference: %v flags %b", src, err, d.Flags(), rerr, rd.Flags())
	}
	if err == nil {
		sameValue(t, src, d.Root(), rd.Root(), "")
	}
	n, err := d.ParsePrefix(src)
	rn, rerr := rd.ParsePrefix(src)
	if n != rn || errText(err) != errText(rerr) || d.Flags() != rd.Flags() {
		t.Fatalf("%q: ParsePrefix: %d %v flags %b; reference: %d %v flags %b", src, n, err, d.Flags(), rn, rerr, rd.Flags())
	}
	if err == nil {
		sameValue(t, src, d.Root(), rd.Root(), "")
	}
}

var probeKeys = []string{"type", "payload", "message", "content", "id", "uuid", "a", "", "nope", "timestamp"}

var probePrefixes = []string{"", "a", "<turn_aborted>", "[Request interrupted by user", "é", "\n", `"`}

func sameValue(t testing.TB, src []byte, v Value, r refValue, at string) {
	t.Helper()
	fail := func(what string, got, want any) {
		t.Fatalf("%q at %q: %s = %v, reference %v", src, at, what, got, want)
	}
	if v.Kind() != r.Kind() {
		fail("Kind", v.Kind(), r.Kind())
	}
	if v.Exists() != r.Exists() || v.Flags() != r.Flags() {
		fail("Exists/Flags", v.Flags(), r.Flags())
	}
	if !bytes.Equal(v.Raw(), r.Raw()) {
		fail("Raw", string(v.Raw()), string(r.Raw()))
	}
	if a, b := v.Str(), r.Str(); a != b {
		fail("Str", a, b)
	}
	if a, b := v.IsEmpty(), r.IsEmpty(); a != b {
		fail("IsEmpty", a, b)
	}
	if a, b := v.Len(), r.Len(); a != b {
		fail("Len", a, b)
	}
	if a, b := v.True(), r.True(); a != b {
		fail("True", a, b)
	}
	if a, ok := v.Int(); true {
		b, rok := r.Int()
		if a != b || ok != rok {
			fail("Int", a, b)
		}
	}
	if a, ok := v.Bool(); true {
		b, rok := r.Bool()
		if a != b || ok != rok {
			fail("Bool", a, b)
		}
	}
	s1, e1 := v.Span()
	s2, e2 := r.Span()
	if s1 != s2 || e1 != e2 {
		fail("Span", [2]int{s1, e1}, [2]int{s2, e2})
	}
	for _, p := range probePrefixes {
		if a, b := v.HasPrefix(p), r.HasPrefix(p); a != b {
			fail("HasPrefix "+p, a, b)
		}
		if a, b := v.Is(p), r.Is(p); a != b {
			fail("Is "+p, a, b)
		}
	}
	for _, k := range []int{0, 1, 7, 30, 64, 1000} {
		full := r.Str()
		p, whole := v.StrPrefix(k)
		if !strings.HasPrefix(full, p) || whole != (p == full) || (!whole && len(p) < k) {
			fail("StrPrefix", [2]any{p, whole}, full)
		}
	}
	if s := r.Str(); s != "" {
		if a, b := v.Is(s), r.Is(s); a != b {
			fail("Is itself", a, b)
		}
		for _, k := range []int{1, len(s) / 2, len(s) - 1} {
			if k > 0 && k < len(s) {
				if a, b := v.HasPrefix(s[:k]), r.HasPrefix(s[:k]); a != b {
					fail("HasPrefix own", a, b)
				}
			}
		}
	}
	switch v.Kind() {
	case Object:
		var keys []string
		var vals []Value
		v.Members(func(k string, x Value) bool { keys = append(keys, k); vals = append(vals, x); return true })
		i := 0
		r.Members(func(k string, x refValue) bool {
			if i >= len(keys) || keys[i] != k {
				fail("member key", keys, k)
			}
			sameValue(t, src, vals[i], x, at+"/"+k)
			i++
			return true
		})
		if i != len(keys) {
			fail("members", len(keys), i)
		}
		for _, k := range append(keys, probeKeys...) {
			sameValue(t, src, v.Get(k), r.Get(k), at+"/"+k+"(Get)")
		}
		if len(keys) > 0 {
			sameValue(t, src, v.Path(keys[0], "type"), r.Path(keys[0], "type"), at+"(Path)")
		}
	case Array:
		var vals []Value
		v.Elems(func(_ int, x Value) bool { vals = append(vals, x); return true })
		i := 0
		r.Elems(func(j int, x refValue) bool {
			if i >= len(vals) || j != i {
				fail("elems", len(vals), j)
			}
			sameValue(t, src, vals[i], x, at+"/"+string(rune('0'+i%10)))
			i++
			return true
		})
		if i != len(vals) {
			fail("elems", len(vals), i)
		}
	}
}
