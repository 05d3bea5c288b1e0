package store

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// goldenStringBefore is goldenString before issue 25, which searched for
// the closing quote again from each escape (quadratic in a string's
// escapes): the new one must give the same answers.
func goldenStringBefore(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return 0, false
		}
		e := bytes.IndexByte(b[j:j+q], '\\')
		if e < 0 {
			return j + q + 1, true
		}
		j += e + 1
		if j >= len(b) {
			return 0, false
		}
		switch b[j] {
		case '"', '\\', 'n', 'r', 't', 'b', 'f':
		case 'u':
			if j+4 >= len(b) || b[j+1] != '0' || b[j+2] != '0' || (b[j+3] != '0' && b[j+3] != '1') {
				return 0, false
			}
			lo := b[j+4]
			var v byte
			switch {
			case lo >= '0' && lo <= '9':
				v = lo - '0'
			case lo >= 'a' && lo <= 'f':
				v = lo - 'a' + 10
			default:
				return 0, false
			}
			v += (b[j+3] - '0') << 4
			if v == '\b' || v == '\t' || v == '\n' || v == '\f' || v == '\r' {
				return 0, false
			}
			j += 4
		default:
			return 0, false
		}
	}
	return 0, false
}

func TestGoldenStringMatchesBefore(t *testing.T) {
	pieces := []string{"a", "xyz", `\"`, `\\`, `\n`, `\/`, `\u0001`, `\u001f`, `\u000a`, `\u00e9`, `\u0022`, `\x`, `\`, `"`, "é", strings.Repeat("k", 33)}
	r := rand.New(rand.NewPCG(25, 2))
	for n := 0; n < 100000; n++ {
		b := []byte{'"'}
		for k := r.IntN(20); k > 0; k-- {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		e1, ok1 := goldenString(b, 0)
		e2, ok2 := goldenStringBefore(b, 0)
		if e1 != e2 || ok1 != ok2 {
			t.Fatalf("goldenString(%q) = %d %v, before %d %v", b, e1, ok1, e2, ok2)
		}
	}
}

// BenchmarkGoldenLayoutEscapes: a line whose one string holds a million
// escapes (2 MB); before issue 25 each escape searched on to the quote.
func BenchmarkGoldenLayoutEscapes(b *testing.B) {
	src := []byte(`{"text":"` + strings.Repeat(`\n`, 1<<20) + `"}`)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if !goldenLayout(src) {
			b.Fatal("not golden")
		}
	}
}
