package cases

import (
	"bytes"
	"testing"
)

// TestLimitBufferHoldsAtMostMax: what fits is kept whole, a flood is cut
// and lets go of what it held, and the chunks never hold more than max.
func TestLimitBufferHoldsAtMostMax(t *testing.T) {
	chunk := bytes.Repeat([]byte("0123456789"), 77)
	fits := &limitBuffer{max: 3 * limitChunk}
	var want []byte
	for len(want)+len(chunk) <= fits.max {
		fits.Write(chunk)
		want = append(want, chunk...)
		held := 0
		for _, c := range fits.chunks {
			held += cap(c)
		}
		if held > fits.max {
			t.Fatalf("the chunks hold %d bytes, past max %d", held, fits.max)
		}
	}
	if got := fits.bytes(); fits.cut || !bytes.Equal(got, want) {
		t.Fatalf("cut %v, kept %d bytes of %d", fits.cut, len(got), len(want))
	}
	l := &limitBuffer{max: 10000}
	for range 40 {
		if n, err := l.Write(chunk); n != len(chunk) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if !l.cut || l.chunks != nil || l.bytes() != nil {
		t.Errorf("a flood: cut %v, %d chunks held", l.cut, len(l.chunks))
	}
	small := &limitBuffer{max: 10000}
	small.Write([]byte("abc"))
	if got := small.bytes(); small.cut || string(got) != "abc" {
		t.Errorf("a small write: cut %v, %q", small.cut, got)
	}
}
