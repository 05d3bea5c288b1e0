package modelserver

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/internal/placeholder"
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

// TestDigestsAcrossRequests: a digest taken from the last request is the
// one digestText gives for the text as it is now, whether the message at
// that place is the same, changed, new or gone; what is kept stays within
// maxRememberedText.
func TestDigestsAcrossRequests(t *testing.T) {
	set := placeholder.New(placeholder.Pair{Name: placeholder.Workspace, Value: "/w"})
	big := strings.Repeat("x", maxRememberedText/2+1)
	requests := [][]string{
		{"sys /w", "hello"},
		{"sys /w", "hello", "ran ls /w"},    // grows: two remembered
		{"sys /w", "HELLO", "ran ls /w"},    // message 1 changed
		{"sys /w"},                          // shrinks
		{"sys /w", big, big, "after"},       // the second big one is past the bound
		{"sys /w", big, big, "after", "ok"}, // ... and digested again, correctly
		{"other", "", big},
	}
	var ds digests
	for r, msgs := range requests {
		for i, text := range msgs {
			if got, want := ds.of(i, text, set), digestText(text, set); got != want {
				t.Errorf("request %d message %d: digest %x %d %q, want %x %d %q", r, i, got.sum, got.chars, got.preview, want.sum, want.chars, want.preview)
			}
		}
		ds.keep(len(msgs))
		kept := 0
		for i, m := range ds.last {
			if m.ok && m.text != msgs[i] {
				t.Errorf("request %d: message %d remembered as %.20q, sent %.20q", r, i, m.text, msgs[i])
			}
			kept += len(m.text)
		}
		if len(ds.last) != len(msgs) || kept != ds.kept || kept > maxRememberedText {
			t.Errorf("request %d: %d remembered of %d, %d bytes (counted %d, bound %d)", r, len(ds.last), len(msgs), kept, ds.kept, maxRememberedText)
		}
	}
	if ds.last[0].d.preview != "other" || ds.last[2].ok != true {
		t.Errorf("last request: remembered %+v", ds.last)
	}
}
