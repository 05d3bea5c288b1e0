package wire

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

// TestSpansChangeNothing: a body decodes to the same request, or the same
// error, whether its walk steps over containers by the spans its check
// recorded or reads them again: every request fixture, an agent's
// conversation, Codex's request, the hostile bodies, and each of them cut
// to the spans' bound.
func TestSpansChangeNothing(t *testing.T) {
	type body struct {
		api  API
		text []byte
	}
	var bodies []body
	files, err := filepath.Glob(filepath.Join("testdata", "requests", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		api := OpenAIChat
		if strings.HasPrefix(filepath.Base(f), "anthropic-") {
			api = AnthropicMessages
		}
		bodies = append(bodies, body{api, b})
	}
	bodies = append(bodies, body{AnthropicMessages, agentBody(4)}, body{OpenAIResponses, []byte(codexRequest)})
	for _, b := range hostileBodies {
		bodies = append(bodies, body{OpenAIResponses, []byte(b)})
	}
	spanned := 0
	for _, b := range bodies {
		for _, limit := range []int{-1, 1, 3} { // -1: the spans' own bound
			k := new(checker)
			root, err := k.check(b.text)
			if err != nil {
				continue // refused before any walk
			}
			if limit >= 0 && len(k.ix.spans) > limit {
				k.ix.spans = k.ix.spans[:limit]
			}
			spanned += len(k.ix.spans)
			got, gotErr := decodeBody(b.api, root, b.text, DecodeOptions{})
			want, wantErr := decodeBody(b.api, rawOf(b.text), b.text, DecodeOptions{})
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
				t.Errorf("%s %.80q (at most %d spans): through spans\n%+v %v\nread\n%+v %v", b.api, b.text, limit, got, gotErr, want, wantErr)
			}
		}
	}
	if spanned == 0 {
		t.Fatal("no body had a span recorded")
	}
}
