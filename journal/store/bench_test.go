package store_test

import (
	"fmt"
	"testing"

	"github.com/tracecheck/tracecheck/journal/store"
)

// benchChunk is how many lines a benchmark generates at a time, with the
// timer stopped, so that the lines of a long run are not all in memory
// (their garbage would be collected on the timed path).
const benchChunk = 1 << 15

// benchLines returns events from, from+1, ... of one run in the golden
// layout, about the size of a reference user.message line (~600 bytes).
type benchLines struct {
	ids int
	r   *run
}

func newBenchLines() *benchLines {
	b := &benchLines{}
	b.r = newRun("session-bench", "run-bench", &b.ids)
	return b
}

func (g *benchLines) next(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = line(g.r.next("user.message", user("Explain an agent loop in one sentence.")))
	}
	return out
}

// benchAppend appends b.N events in batches of size, generating them a
// chunk at a time with the timer stopped.
func benchAppend(b *testing.B, size int) {
	st, _ := openStore(b)
	w := openWriter(b, st, "session-bench", store.WriterOptions{Create: true})
	gen := newBenchLines()
	b.SetBytes(int64(len(newBenchLines().next(1)[0]) + 1))
	b.ResetTimer()
	for done := 0; done < b.N; {
		b.StopTimer()
		lines := gen.next(min(benchChunk, b.N-done))
		b.StartTimer()
		for i := 0; i < len(lines); i += size {
			batch := lines[i:min(i+size, len(lines))]
			if size == 1 {
				if _, err := w.Append(batch[0]); err != nil {
					b.Fatal(err)
				}
			} else if _, err := w.AppendBatch(batch); err != nil {
				b.Fatal(err)
			}
		}
		done += len(lines)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAppend: durable events per second, one fsync per event.
func BenchmarkAppend(b *testing.B) { benchAppend(b, 1) }

// BenchmarkAppendBatch: durable events per second with group commit, one
// fsync per batch.
func BenchmarkAppendBatch(b *testing.B) {
	for _, size := range []int{8, 64, 512} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) { benchAppend(b, size) })
	}
}
