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
// that place is the same, changed, new or gone; what is kept (records,
// texts, previews) stays within maxRemembered, however many messages a
// request holds.
func TestDigestsAcrossRequests(t *testing.T) {
	set := placeholder.New(placeholder.Pair{Name: placeholder.Workspace, Value: "/w"})
	big := strings.Repeat("x", maxRemembered/2+1)
	many := make([]string, 2*maxRemembered/rememberedSize) // more records than the bound allows
	for i := range many {
		many[i] = fmt.Sprint(i % 7)
	}
	requests := [][]string{
		{"sys /w", "hello"},
		{"sys /w", "hello", "ran ls /w"},    // grows: two remembered
		{"sys /w", "HELLO", "ran ls /w"},    // message 1 changed
		{"sys /w"},                          // shrinks
		{"sys /w", big, big, "after"},       // the second big one is past the bound
		{"sys /w", big, big, "after", "ok"}, // ... and digested again, correctly
		{"other", "", big},
		many,
		many,
		{"after many"},
	}
	var ds digests
	for r, msgs := range requests {
		ds.keep(len(msgs))
		for i, text := range msgs {
			if got, want := ds.of(i, text, set), digestText(text, set); got != want {
				t.Fatalf("request %d message %d: digest %x %d %q, want %x %d %q", r, i, got.sum, got.chars, got.preview, want.sum, want.chars, want.preview)
			}
		}
		kept := 0
		for i, m := range ds.last {
			if m.ok && m.text != msgs[i] {
				t.Errorf("request %d: message %d remembered as %.20q, sent %.20q", r, i, m.text, msgs[i])
			}
			kept += rememberedSize + m.strings()
		}
		if len(ds.last) > len(msgs) || kept != ds.kept || kept > maxRemembered {
			t.Errorf("request %d: %d remembered of %d, %d bytes (counted %d, bound %d)", r, len(ds.last), len(msgs), kept, ds.kept, maxRemembered)
		}
	}
	if len(ds.last) != 1 || !ds.last[0].ok || ds.last[0].d.preview != "after many" {
		t.Errorf("last request: remembered %+v", ds.last)
	}
}
