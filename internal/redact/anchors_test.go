package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAnchoredSeesEveryOffset: each credential prefix, whole, at every
// offset of texts of every length around the vector blocks' 32 bytes, is
// found by both ways of searching.
func TestAnchoredSeesEveryOffset(t *testing.T) {
	for _, p := range valuePrefixes {
		secret := p + strings.Repeat("A", minTail)
		for n := len(secret); n <= 100; n++ {
			for at := 0; at+len(secret) <= n; at++ {
				text := []byte(strings.Repeat(".", at) + secret + strings.Repeat(".", n-at-len(secret)))
				if !anchored(text) || !anchoredBySearch(text) {
					t.Fatalf("%q at %d of %d bytes: anchored %v, by search %v", p, at, n, anchored(text), anchoredBySearch(text))
				}
			}
		}
	}
}

// TestAnchoredMatchesSearch: the vector pass and the searches agree on
// texts dense in the anchors' bytes and pieces of them, cut anywhere.
func TestAnchoredMatchesSearch(t *testing.T) {
	pieces := []string{"k-", "sk-", "xo", "xox", "xoxb-", "xoxp-", "gh", "ghp_", "gho_", "ghs_", "ghu_", "_p", "_pat_", "github_pat_",
		"AK", "AKIA", "Be", "Bearer ", "Bearer", "a", "b", "-", "_", " ", "\"", "\\", "é", "0123456789", strings.Repeat("Z", minTail)}
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	found := 0
	for range 200000 {
		b.Reset()
		for n := r.IntN(12); n > 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := []byte(b.String())
		got, want := anchored(text), anchoredBySearch(text)
		if got != want {
			t.Fatalf("anchored(%q) = %v, by search %v", text, got, want)
		}
		if got {
			found++
		}
	}
	if found == 0 {
		t.Fatal("no text held a credential: the test checks nothing")
	}
}

func FuzzAnchored(f *testing.F) {
	f.Add([]byte(`{"t":"sk-ABCDEFGHIJKLMNOPQRSTU"}`))
	f.Add([]byte(strings.Repeat("gh", 40) + "ghp_" + strings.Repeat("x", 20)))
	f.Fuzz(func(t *testing.T, text []byte) {
		if got, want := anchored(text), anchoredBySearch(text); got != want {
			t.Fatalf("anchored(%q) = %v, by search %v", text, got, want)
		}
	})
}
