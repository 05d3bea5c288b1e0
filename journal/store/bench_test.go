package store_test

import (
	"fmt"
	"testing"

	"github.com/tracecheck/tracecheck/journal/store"
)

// benchLines returns n events of one run in the golden layout, about the
// size of a reference user.message line (~600 bytes).
func benchLines(n int) [][]byte {
	ids := 0
	r := newRun("session-bench", "run-bench", &ids)
	out := make([][]byte, n)
	for i := range out {
		out[i] = line(r.next("user.message", user("Explain an agent loop in one sentence.")))
	}
	return out
}

// BenchmarkAppend: durable events per second, one fsync per event.
func BenchmarkAppend(b *testing.B) {
	lines := benchLines(b.N)
	st, _ := openStore(b)
	w := openWriter(b, st, "session-bench", store.WriterOptions{Create: true})
	b.SetBytes(int64(len(lines[0]) + 1))
	b.ResetTimer()
	for i := range b.N {
		if _, err := w.Append(lines[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAppendBatch: durable events per second with group commit, one
// fsync per batch.
func BenchmarkAppendBatch(b *testing.B) {
	for _, size := range []int{8, 64, 512} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			lines := benchLines(b.N)
			st, _ := openStore(b)
			w := openWriter(b, st, "session-bench", store.WriterOptions{Create: true})
			b.SetBytes(int64(len(lines[0]) + 1))
			b.ResetTimer()
			for i := 0; i < b.N; i += size {
				if _, err := w.AppendBatch(lines[i:min(i+size, b.N)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
