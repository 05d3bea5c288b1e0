package wire

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestStrEndMatchesBytewise: the end of a string literal found 8 bytes at
// a time is the one found a byte at a time, for quotes and runs of
// backslashes at every offset of strings up to past the words read that
// way, with and without text after the literal.
func TestStrEndMatchesBytewise(t *testing.T) {
	bytewise := func(v []byte, i int) int {
		for j := i + 1; j < len(v); j++ {
			switch v[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(v)
	}
	check := func(v []byte) {
		t.Helper()
		if got, want := strEnd(v, 0), bytewise(v, 0); got != want {
			t.Fatalf("strEnd(%q) = %d, want %d", v, got, want)
		}
	}
	for n := 0; n <= 40; n++ {
		for at := 0; at < n; at++ {
			for _, esc := range []string{`\"`, `\\`, `\\\"`, `\\\\`, `\n`, "é", "\x80"} {
				content := bytes.Repeat([]byte{'a'}, n)
				content = append(content[:at:at], append([]byte(esc), content[at:]...)...)
				lit := append(append([]byte{'"'}, content...), '"')
				check(lit)
				check(append(lit, `,"next":"x\"y"}`...))
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte(`ab"\\é`)
	for range 5000 {
		v := []byte{'"'}
		for range r.IntN(48) {
			v = append(v, alphabet[r.IntN(len(alphabet))])
		}
		check(v)
	}
}
