package tracediff

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// refSkip is skip as it was before it passed strings with IndexByte.
func refSkip(line []byte, i int) (int, bool) {
	depth := 0
	for j := i; j < len(line); j++ {
		switch c := line[j]; c {
		case '"':
			for j++; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' {
					j++
				}
			}
			if j >= len(line) {
				return 0, false
			}
			if depth == 0 {
				return j + 1, true
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return j, j > i
			}
			if depth == 0 {
				return j + 1, true
			}
		case ',':
			if depth == 0 {
				return j, j > i
			}
		case ' ', '\t', '\r', '\n':
			if depth == 0 {
				return j, j > i
			}
		}
	}
	return len(line), depth == 0 && len(line) > i
}

// refPlainString is plainString as it was before it looked 8 bytes at a
// time.
func refPlainString(line []byte, i int) ([]byte, int, bool) {
	if i >= len(line) || line[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '"':
			return line[i+1 : j], j + 1, true
		case '\\':
			return nil, 0, false
		}
	}
	return nil, 0, false
}

func TestSkipMatchesReference(t *testing.T) {
	files, _ := filepath.Glob("../testdata/good/*.jsonl")
	bad, _ := filepath.Glob("../testdata/bad/*.jsonl")
	var lines [][]byte
	for _, f := range append(files, bad...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(data, []byte{'\n'})...)
	}
	lines = append(lines, []byte(`{"a":"x\\\"y\\","b":["\\\\",{"c":"\""}]}`), []byte(`"abc\`), []byte(`"abc\"`), []byte(`["\\`),
		[]byte(`"`+strings.Repeat("abcdefg", 20)+`\"`+strings.Repeat("x", 50)+`"`), []byte(`"`+strings.Repeat("y", 40)))
	r := rand.New(rand.NewPCG(22, 3))
	specials := []byte{'"', '\\', '{', '}', '[', ']', ',', ' ', 'x'}
	n := 0
	for _, l := range lines {
		for k := 0; k < 8; k++ {
			m := append([]byte(nil), l...)
			if k > 0 && len(m) > 0 {
				for e := r.IntN(3) + 1; e > 0; e-- {
					m[r.IntN(len(m))] = specials[r.IntN(len(specials))]
				}
			}
			for i := 0; i <= len(m); i += 1 + r.IntN(7) {
				a, aok := skip(m, i)
				b, bok := refSkip(m, i)
				if a != b || aok != bok {
					t.Fatalf("%q at %d: skip = %d %v, reference %d %v", m, i, a, aok, b, bok)
				}
				ps, pe, pok := plainString(m, i)
				rs, re, rok := refPlainString(m, i)
				if !bytes.Equal(ps, rs) || pe != re || pok != rok {
					t.Fatalf("%q at %d: plainString = %q %d %v, reference %q %d %v", m, i, ps, pe, pok, rs, re, rok)
				}
				n++
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d cases", n)
	}
}
