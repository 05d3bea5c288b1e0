package view_test

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
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
		p.Close()
	}
}

// BenchmarkBuild1M builds and writes the page of a 1,000,000-event trace
// (647 MB, past Limits.Events: the page holds its first 500,000 lines),
// read from disk as tracecheck view reads it: the file TRACECHECK_BENCH_1M
// names (make gen BENCH_EVENTS=1000000 writes bench/out/trace-1000000.jsonl),
// or one generated in a temporary directory first. Besides the time it
// reports the page's size and the heap, sampled every 8 MiB read and
// written: its peak (garbage included: what drives the process's RSS) and
// its peak after a collection (what is live). Peak RSS of the command is
// in BENCHMARKS.md.
//
//	TRACECHECK_BENCH_1M=$PWD/bench/out/trace-1000000.jsonl go test -run '^$' -bench Build1M -benchtime 3x ./view
func BenchmarkBuild1M(b *testing.B) {
	path := os.Getenv("TRACECHECK_BENCH_1M")
	if path == "" {
		path = filepath.Join(b.TempDir(), "trace-1000000.jsonl")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		if _, err := tracegen.Write(w, tracegen.Options{Events: 1_000_000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	var peak, live uint64
	probes := 0
	probe := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
		if probes++; probes%16 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			live = max(live, ms.HeapAlloc)
		}
	}
	src := view.FileSource(path)
	open := src.Open
	src.Open = func() (io.ReadCloser, error) {
		rc, err := open()
		if err != nil {
			return nil, err
		}
		return &probingReader{ReadCloser: rc, probe: probe}, nil
	}
	var page int64
	for b.Loop() {
		p, err := view.Build([]view.Source{src}, view.Options{})
		if err != nil {
			b.Fatal(err)
		}
		w := &probingWriter{probe: probe}
		if err := p.WriteHTML(w); err != nil {
			b.Fatal(err)
		}
		page = w.n
		p.Close()
	}
	b.ReportMetric(float64(page)/(1<<20), "page-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(live)/(1<<20), "peak-live-MiB")
}

// probingReader probes the heap every 8 MiB read.
type probingReader struct {
	io.ReadCloser
	n, last int64
	probe   func()
}

func (r *probingReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.n += int64(n)
	if r.n-r.last >= 8<<20 {
		r.last = r.n
		r.probe()
	}
	return n, err
}
