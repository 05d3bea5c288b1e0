package reducer_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tracecheck/tracecheck/bench/tracegen"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/reducer"
)

// benchFile returns a trace to measure: $TRACECHECK_BENCH_FILE (make bench
// sets it to the generated 200k-event trace) or a generated 100k-event one.
func benchFile(b *testing.B) (string, int64, int) {
	b.Helper()
	path := os.Getenv("TRACECHECK_BENCH_FILE")
	if path == "" {
		path = filepath.Join(b.TempDir(), "bench.jsonl")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tracegen.Write(f, tracegen.Options{Events: 100000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, int64(len(data)), bytes.Count(data, []byte("\n"))
}

func allocsPerEvent(b *testing.B, events int, run func()) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	n := 0
	for b.Loop() {
		run()
		n++
	}
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(n*events), "allocs/event")
}

// benchPass measures one pass over the benchmark file per iteration.
func benchPass(b *testing.B, pass func(f *os.File, path string) error) {
	path, size, events := benchFile(b)
	b.SetBytes(size)
	allocsPerEvent(b, events, func() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := pass(f, path); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkReplayStream is the whole pass on one file: read, parse,
// schema-check, invariants, replay view and fingerprint.
func BenchmarkReplayStream(b *testing.B) {
	benchPass(b, func(f *os.File, path string) error {
		p, err := reducer.StreamReplay(f, path, reducer.StreamOptions{})
		if err != nil {
			return err
		}
		return p.Close()
	})
}

// BenchmarkValidate is tracecheck validate's pass (no view, no hash).
func BenchmarkValidate(b *testing.B) {
	benchPass(b, func(f *os.File, path string) error {
		if errs := journal.Validate(f, path); errs != nil {
			return errs[0]
		}
		return nil
	})
}

// BenchmarkScan is journal.Scan, which builds a jsonv.Value per event.
func BenchmarkScan(b *testing.B) {
	benchPass(b, func(f *os.File, path string) error {
		return journal.Scan(f, path, func(*journal.Record) error { return nil })
	})
}

// writeJournal writes the first n events of a generated journal to path
// and returns the generator positioned after them.
func writeJournal(b *testing.B, path string, n int, total int) *tracegen.Generator {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	g := tracegen.New(tracegen.Options{Events: total, Seed: 1})
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 0; i < n; i++ {
		w.Write(g.Next())
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkCheckpointResume replays a journal whose first `prior` events
// are covered by a checkpoint and whose last 100 are new: verify the
// checkpoint against the file, seek, read and check the tail, and produce
// the fingerprint. "resume" leaves the checkpoint's projection on disk;
// "resume+view" also reads it back (proportional to the view, not to the
// events). The acceptance: prior=1000000 within 2x of prior=1000.
func BenchmarkCheckpointResume(b *testing.B) {
	const tail = 100
	for _, prior := range []int{1000, 1000000} {
		if prior > 100000 && testing.Short() {
			continue
		}
		dir := b.TempDir()
		path, cpPath := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "s.cp")
		g := writeJournal(b, path, prior, prior+tail)
		p, _, err := reducer.ReplayFile(path, cpPath, reducer.StreamOptions{}, false)
		if err != nil {
			b.Fatal(err)
		}
		p.Close()
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		for line := g.Next(); line != nil; line = g.Next() {
			f.Write(line)
		}
		f.Close()
		for _, view := range []bool{false, true} {
			name := fmt.Sprintf("prior=%d/resume", prior)
			if view {
				name += "+view"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					cp, err := reducer.LoadCheckpoint(cpPath)
					if err != nil {
						b.Fatal(err)
					}
					src, err := os.Open(path)
					if err != nil {
						b.Fatal(err)
					}
					fi, _ := src.Stat()
					if err := cp.Verify(src, fi.Size(), false); err != nil {
						b.Fatal(err)
					}
					src.Seek(cp.Offset, io.SeekStart)
					p, err := reducer.StreamReplay(src, path, reducer.StreamOptions{From: cp})
					src.Close()
					if err != nil {
						b.Fatal(err)
					}
					if p.Applied() != prior+tail || p.Fingerprint() == "" {
						b.Fatalf("applied %d", p.Applied())
					}
					if view {
						if err := p.WriteJSON(io.Discard); err != nil {
							b.Fatal(err)
						}
					}
					p.Close()
				}
			})
		}
	}
}
