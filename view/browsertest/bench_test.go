package browsertest

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tracecheck/tracecheck/bench/tracegen"
	"github.com/tracecheck/tracecheck/view"
)

// writeGenerated writes a generated trace of n events (package tracegen:
// the reference's shape, streamed responses, tool calls, compactions).
func writeGenerated(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if _, err := tracegen.Write(w, tracegen.Options{Events: n, Seed: 1}); err != nil {
		tb.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkOpen200k opens the page of a 200,000-event trace (the file
// TRACECHECK_BENCH_FILE names, as make gen writes it, or one generated
// here) in headless Chromium, once per iteration in a new tab, and reports
// the page's own marks, in milliseconds from navigation start:
// DOMContentLoaded (the HTML and its data parsed), tc:data (the data
// island decoded) and tc:rows (the first rows drawn, at the next frame).
// build-ms is tracecheck's side: reading the trace and writing the page.
//
//	go test -run '^$' -bench Open200k -benchtime 5x ./view/browsertest
func BenchmarkOpen200k(b *testing.B) {
	trace := os.Getenv("TRACECHECK_BENCH_FILE")
	dir := b.TempDir()
	if trace == "" {
		trace = filepath.Join(dir, "trace-200000.jsonl")
		writeGenerated(b, trace, 200000)
	}
	start := time.Now()
	p, err := view.Build([]view.Source{view.FileSource(trace)}, view.Options{})
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "200k.html")
	f, err := os.Create(out)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := p.WriteHTML(w); err != nil {
		b.Fatal(err)
	}
	p.Close()
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	build := time.Since(start)
	st, _ := os.Stat(out)
	b.Logf("%d events, page %.1f MB, built in %v", p.Events(), float64(st.Size())/1e6, build)

	bctx := browser(b)
	var dcl, data, rows []float64
	b.ResetTimer()
	for range b.N {
		ctx, cancel := chromedp.NewContext(bctx)
		ctx, tcancel := context.WithTimeout(ctx, 2*time.Minute)
		err := chromedp.Do(ctx, chromedp.Navigate("file://"+out), chromedp.WaitReady(chromedp.CSS(`body[data-ready="1"]`)))
		var marks []float64
		if err == nil {
			marks, err = chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd,
				performance.getEntriesByName("tc:data")[0].startTime,
				performance.getEntriesByName("tc:rows")[0].startTime]`))
		}
		tcancel()
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		dcl, data, rows = append(dcl, marks[0]), append(data, marks[1]), append(rows, marks[2])
	}
	b.StopTimer()
	b.ReportMetric(median(dcl), "dcl-ms")
	b.ReportMetric(median(data), "data-ms")
	b.ReportMetric(median(rows), "rows-ms")
	b.ReportMetric(float64(build.Milliseconds()), "build-ms")
	b.ReportMetric(float64(st.Size())/1e6, "page-MB")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
