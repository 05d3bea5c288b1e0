package jsonv

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
)

// spansOf is where each array and object of a valid doc is, by
// encoding/json's decoder: the offset of each opening delimiter and the
// offset past its closing one, in the order they open.
func spansOf(tb testing.TB, doc []byte) []Span {
	tb.Helper()
	var out []Span
	var open []int
	d := json.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := d.Token()
		if err != nil {
			return out
		}
		delim, ok := tok.(json.Delim)
		if !ok {
			continue
		}
		// InputOffset is past the token; the delimiter is its last byte.
		end := int(d.InputOffset())
		switch delim {
		case '{', '[':
			open = append(open, len(out))
			out = append(out, Span{Start: int32(end - 1)})
		default:
			out[open[len(open)-1]].End = int32(end)
			open = open[:len(open)-1]
		}
	}
}

// TestCheckSpans: CheckSpans records every container where encoding/json
// finds it, in the order they open, and no more than asked for.
func TestCheckSpans(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	var c Canonicalizer
	docs := goldenLines(t)
	for range 2000 {
		g := genDoc{r: r}
		g.value(0)
		docs = append(docs, []byte(g.b.String()))
	}
	docs = append(docs, []byte(` { "a" : [ {}, [ [] ] ] , "b":"[{" } `), []byte(`"top"`), []byte(`[]`))
	for _, doc := range docs {
		want := spansOf(t, doc)
		got, err := c.CheckSpans(doc, nil, len(doc)+1)
		if err != nil {
			t.Fatalf("%q: %v", clip(doc), err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%q: spans\n got %v\nwant %v", clip(doc), got, want)
		}
		if len(want) > 1 {
			cut, err := c.CheckSpans(doc, got[:0], len(want)/2)
			if err != nil || !slices.Equal(cut, want[:len(want)/2]) {
				t.Fatalf("%q: at most %d spans: got %v (%v), want %v", clip(doc), len(want)/2, cut, err, want[:len(want)/2])
			}
		}
	}
	if got, err := c.CheckSpans([]byte(`[{"a":1},{"a":2,"a":3}]`), nil, 10); err == nil || len(got) != 0 {
		t.Errorf("a duplicate key: spans %v, error %v; want the error and no spans", got, err)
	}
	if err := c.Check([]byte(`[1,2]`)); err != nil {
		t.Errorf("Check after CheckSpans: %v", err)
	}
}
