package jsonv

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// refStringEnd is StringEnd a byte at a time: the first quote not escaped
// (a backslash escaping the byte after it), or len(src).
func refStringEnd(src []byte, i int) (int, bool) {
	esc := false
	for ; i < len(src); i++ {
		switch src[i] {
		case '"':
			return i, esc
		case '\\':
			esc = true
			i++
		}
	}
	return len(src), esc
}

// stringEndBefore is StringEnd as emit.go had it before issue 25: each
// backslash searched for the next quote again, from itself to the end.
func stringEndBefore(src []byte, i int) (int, bool) {
	esc := false
	for {
		if i >= len(src) {
			return len(src), esc
		}
		q := bytes.IndexByte(src[i:], '"')
		if q < 0 {
			return len(src), esc
		}
		if b := bytes.IndexByte(src[i:i+q], '\\'); b < 0 {
			return i + q, esc
		} else {
			esc = true
			i += b + 2
		}
	}
}

func stringEndCases() [][]byte {
	var cases [][]byte
	for _, s := range []string{``, `"`, `\`, `\"`, `\\`, `\\"`, `\\\"`, `a\"b"`, `\"\"\""`, `x\\\\"y`,
		strings.Repeat(`\n`, 40) + `"`, strings.Repeat(`\"`, 40), strings.Repeat("a", 31) + `\"` + `"`,
		strings.Repeat("a", 30) + `\"` + `"`, strings.Repeat("a", 32) + `\`, strings.Repeat("b", 7) + `\\` + `"`,
		strings.Repeat("é", 20) + `"`, strings.Repeat(`\\`, 33) + `"`, strings.Repeat(`\\`, 33) + `\"`} {
		cases = append(cases, []byte(s))
	}
	return cases
}

func TestStringEndMatchesReference(t *testing.T) {
	check := func(b []byte, i int) {
		t.Helper()
		e1, x1 := StringEnd(b, i)
		e2, x2 := refStringEnd(b, i)
		if e1 != e2 || x1 != x2 {
			t.Fatalf("StringEnd(%q, %d) = %d %v, byte at a time %d %v", b, i, e1, x1, e2, x2)
		}
		// On the strings emit reads (closed by a quote), the code before
		// issue 25 agrees too.
		if e2 < len(b) {
			if e3, x3 := stringEndBefore(b, i); e3 != e2 || x3 != x2 {
				t.Fatalf("stringEndBefore(%q, %d) = %d %v, byte at a time %d %v", b, i, e3, x3, e2, x2)
			}
		}
	}
	for _, b := range stringEndCases() {
		for i := 0; i <= len(b); i++ {
			check(b, i)
		}
	}
	pieces := []string{"a", "bcdefgh", `\"`, `\\`, `\n`, `\u00e9`, `"`, `\`, "é", "数据", strings.Repeat("x", 29)}
	r := rand.New(rand.NewPCG(25, 1))
	for n := 0; n < 100000; n++ {
		var b []byte
		for k := r.IntN(30); k > 0; k-- {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		check(b, 0)
		if len(b) > 0 {
			check(b, r.IntN(len(b)))
		}
	}
}

func FuzzStringEnd(f *testing.F) {
	for _, b := range stringEndCases() {
		f.Add(b, 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i > len(b) {
			return
		}
		e1, x1 := StringEnd(b, i)
		e2, x2 := refStringEnd(b, i)
		if e1 != e2 || x1 != x2 {
			t.Fatalf("StringEnd(%q, %d) = %d %v, byte at a time %d %v", b, i, e1, x1, e2, x2)
		}
	})
}

// BenchmarkStringEndEscapes: a 2 MB string of a million escapes. Before
// issue 25 emit's string end searched for the closing quote again from
// each escape: a fingerprint of one such line took 34 s.
func BenchmarkStringEndEscapes(b *testing.B) {
	src := []byte(strings.Repeat(`\n`, 1<<20) + `"`)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if e, _ := StringEnd(src, 0); e != len(src)-1 {
			b.Fatal(e)
		}
	}
}

// BenchmarkCanonicalEscapes: the canonical form of a line whose one string
// holds a million escapes, as fingerprint writes it.
func BenchmarkCanonicalEscapes(b *testing.B) {
	src := []byte(`{"text":"` + strings.Repeat(`\n`, 1<<20) + `"}`)
	var c Canonicalizer
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := c.AppendOrdered(nil, src); err != nil {
			b.Fatal(err)
		}
	}
}
