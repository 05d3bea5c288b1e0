package view_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/tracecheck/tracecheck/bench/tracegen"
	"github.com/tracecheck/tracecheck/view"
)

// BenchmarkBuild builds and writes the page of a generated 50,000-event
// trace (about 32 MB): tracecheck's side of opening a large trace.
func BenchmarkBuild(b *testing.B) {
	var trace bytes.Buffer
	if _, err := tracegen.Write(&trace, tracegen.Options{Events: 50000, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(trace.Len()))
	b.ReportAllocs()
	for b.Loop() {
		p, err := view.Build([]view.Source{view.BytesSource("gen.jsonl", trace.Bytes())}, view.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := p.WriteHTML(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
