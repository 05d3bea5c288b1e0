package jsonpeek

import (
	"bytes"
	"os"
	"slices"
	"testing"
	"time"
)

func benchLines(b *testing.B) ([]byte, [][]byte) {
	p := os.Getenv("AGENTLOG_BENCH_FILE")
	if p == "" {
		b.Skip("set AGENTLOG_BENCH_FILE to a file made by bench/genagentlog")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	return data, bytes.Split(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'})
}

// BenchmarkParse parses every line of the file in AGENTLOG_BENCH_FILE (make
// one with bench/genagentlog); MB/s is of the file.
func BenchmarkParse(b *testing.B) {
	data, lines := benchLines(b)
	b.SetBytes(int64(len(data)))
	var d Doc
	for b.Loop() {
		for _, l := range lines {
			if err := d.Parse(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkParseNoKeyCheck is BenchmarkParse as lint parses: without
// looking for repeated keys.
func BenchmarkParseNoKeyCheck(b *testing.B) {
	data, lines := benchLines(b)
	b.SetBytes(int64(len(data)))
	d := Doc{NoKeyCheck: true}
	for b.Loop() {
		for _, l := range lines {
			if err := d.Parse(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkParsePaired parses the file with the current parser and with
// the one before the speed work (ref_test.go) in turn, each iteration a
// pair, and reports the median of the per-pair ratios before/now (above 1:
// faster now), which a machine whose load drifts cannot bias.
func BenchmarkParsePaired(b *testing.B) {
	data, lines := benchLines(b)
	b.SetBytes(int64(len(data)))
	var d Doc
	var rd refDoc
	var ratios []float64
	for b.Loop() {
		t0 := time.Now()
		for _, l := range lines {
			if err := d.Parse(l); err != nil {
				b.Fatal(err)
			}
		}
		t1 := time.Now()
		for _, l := range lines {
			if err := rd.Parse(l); err != nil {
				b.Fatal(err)
			}
		}
		ratios = append(ratios, float64(time.Since(t1))/float64(t1.Sub(t0)))
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "before/now")
}
