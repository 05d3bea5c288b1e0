package modelserver

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
)

// TestSum256: the hash through the short text's buffer and through the
// chunked one, at and around both sizes, is crypto/sha256's.
func TestSum256(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 257, 16<<10 - 1, 16 << 10, 16<<10 + 1, 40_000} {
		s := strings.Repeat("é-x", n)[:n]
		if got, want := sum256(s), sha256.Sum256([]byte(s)); got != want {
			t.Errorf("%d bytes: %x, want %x", n, got, want)
		}
	}
}

// TestPad: the ids' numbers as %03d spells them.
func TestPad(t *testing.T) {
	for _, n := range []int{-1234, -5, -1, 0, 1, 9, 10, 99, 100, 999, 1000, 12345} {
		want := fmt.Sprintf("%03d", n)
		if got := pad(n); got != want {
			t.Errorf("pad(%d) = %q, want %q", n, got, want)
		}
		if got := string(appendPad([]byte("id_"), n)); got != "id_"+want {
			t.Errorf("appendPad(%d) = %q, want %q", n, got, "id_"+want)
		}
	}
}
