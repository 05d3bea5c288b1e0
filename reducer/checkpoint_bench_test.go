package reducer_test

import (
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
// sets it to the generated 200k-event trace) or a generated 20k-event one.
func benchFile(b *testing.B) (string, int64, int) {
	b.Helper()
	path := os.Getenv("TRACECHECK_BENCH_FILE")
	if path == "" {
		path = filepath.Join(b.TempDir(), "bench.jsonl")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tracegen.Write(f, tracegen.Options{Events: 20000, Seed: 1}); err != nil {
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

// BenchmarkReplayStream is the whole pass on one file: read, parse,
// schema-check, invariants, replay view and fingerprint.
func BenchmarkReplayStream(b *testing.B) {
	path, size, events := benchFile(b)
	b.SetBytes(size)
	allocsPerEvent(b, events, func() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if _, err := reducer.StreamReplay(f, path, reducer.StreamOptions{}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkValidate is tracecheck validate's pass (no view, no hash).
func BenchmarkValidate(b *testing.B) {
	path, size, events := benchFile(b)
	b.SetBytes(size)
	allocsPerEvent(b, events, func() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if errs := journal.Validate(f, path); errs != nil {
			b.Fatal(errs[0])
		}
	})
}

// BenchmarkScan is journal.Scan, which builds a jsonv.Value per event.
func BenchmarkScan(b *testing.B) {
	path, size, events := benchFile(b)
	b.SetBytes(size)
	allocsPerEvent(b, events, func() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := journal.Scan(f, path, func(*journal.Record) error { return nil }); err != nil {
			b.Fatal(err)
		}
	})
}

var _ = fmt.Sprint
var _ = io.EOF
