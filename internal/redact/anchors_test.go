package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// bySearch is mayHold as it is without AVX2.
func bySearch(text []byte) bool { return anchoredBySearch(text) || secretKeyBySearch(text) }

// TestMayHoldSeesEveryOffset: each credential prefix, whole, and each
// secret-named key, at every offset of texts of every length around the
// vector blocks' 32 bytes, is found both ways.
func TestMayHoldSeesEveryOffset(t *testing.T) {
	var secrets []string
	for _, p := range valuePrefixes {
		secrets = append(secrets, p+strings.Repeat("A", minTail))
	}
	secrets = append(secrets, `"api_key":`, `"Authorization":`, `"x-token":`)
	for _, secret := range secrets {
		for n := len(secret); n <= 100; n++ {
			for at := 0; at+len(secret) <= n; at++ {
				text := []byte(strings.Repeat(".", at) + secret + strings.Repeat(".", n-at-len(secret)))
				if !mayHoldByPairs(text) || !bySearch(text) {
					t.Fatalf("%q at %d of %d bytes: by pairs %v, by search %v", secret, at, n, mayHoldByPairs(text), bySearch(text))
				}
			}
		}
	}
}

// TestMayHoldByPairsMatchesSearch: the vector pass and the searches agree
// on texts dense in the anchors' bytes, keys and pieces of them, cut
// anywhere.
func TestMayHoldByPairsMatchesSearch(t *testing.T) {
	pieces := []string{"k-", "sk-", "xo", "xox", "xoxb-", "xoxp-", "gh", "ghp_", "gho_", "ghs_", "ghu_", "_p", "_pat_", "github_pat_",
		"AK", "AKIA", "Be", "Bearer ", "Bearer", "a", "b", "-", "_", " ", "\"", "\\", ":", "é", "0123456789", strings.Repeat("Z", minTail),
		`"`, `":`, `{"`, "key", "api", "token", "Tokens", "secret", "pass", "word"}
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	found := 0
	for range 200000 {
		b.Reset()
		for n := r.IntN(14); n > 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := []byte(b.String())
		got, want := mayHoldByPairs(text), bySearch(text)
		if got != want {
			t.Fatalf("mayHold(%q): by pairs %v, by search %v", text, got, want)
		}
		if got {
			found++
		}
	}
	if found < 1000 {
		t.Fatalf("%d texts of 200,000 may hold a secret: the test checks too little", found)
	}
}

func FuzzMayHold(f *testing.F) {
	f.Add([]byte(`{"t":"sk-ABCDEFGHIJKLMNOPQRSTU"}`))
	f.Add([]byte(`{"usage":{"input_tokens":3},"api_key":"x"}`))
	f.Add([]byte(strings.Repeat("gh", 40) + "ghp_" + strings.Repeat("x", 20)))
	f.Fuzz(func(t *testing.T, text []byte) {
		if got, want := mayHoldByPairs(text), bySearch(text); got != want {
			t.Fatalf("mayHold(%q): by pairs %v, by search %v", text, got, want)
		}
	})
}

// TestAnchorsStartApart: secretAt finds an anchor by its first byte alone.
func TestAnchorsStartApart(t *testing.T) {
	seen := map[byte]string{}
	for _, a := range anchors {
		if o, ok := seen[a[0]]; ok || a[0] == '"' {
			t.Fatalf("anchors %q and %q start with the same byte", o, a)
		}
		seen[a[0]] = string(a)
	}
}
