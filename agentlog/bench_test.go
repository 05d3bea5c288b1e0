package agentlog

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// Benchmarks read the file in AGENTLOG_BENCH_FILE (make one with
// bench/genagentlog); without it they are skipped. MB/s is of the file.
func benchFile(b *testing.B) []byte {
	p := os.Getenv("AGENTLOG_BENCH_FILE")
	if p == "" {
		b.Skip("set AGENTLOG_BENCH_FILE to a file made by bench/genagentlog")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkLint(b *testing.B) {
	data := benchFile(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		rep := Lint(bytes.NewReader(data), "bench", Options{})
		if rep.Failed() {
			b.Fatal(rep.Findings)
		}
	}
}

func BenchmarkImport(b *testing.B) {
	data := benchFile(b)
	f := Detect([][]byte{data[:bytes.IndexByte(data, '\n')]})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Import(bytes.NewReader(data), "bench", f, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
