package journal

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/bench/hostile"
)

// allocated returns the bytes the process allocated while f ran: an upper
// bound on the heap f needed at its peak, whatever the collector did.
func allocated(f func()) uint64 {
	runtime.GC()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// memorySlack is the input-independent part of the bound: the pipeline's
// batches, the scanners' scratch space, the schema.
const memorySlack = 8 << 20

// TestMemoryBoundedByLongestLine: validating a line of L bytes whose
// payload is one array of millions of zeros allocates at most
// MemoryPerLineByte*L (plus the slack), so it can never need more at its
// peak; before the fix it built a tree of the array, about 50 bytes per
// input byte. Each further such line costs the same again and nothing
// stays behind (the collector reclaims it; see runPipeline).
func TestMemoryBoundedByLongestLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 24 MiB of input")
	}
	const L = 8 << 20
	for _, lines := range []int{1, 3} {
		var in bytes.Buffer
		if err := hostile.BigLines(&in, lines, L, "tool.result"); err != nil {
			t.Fatal(err)
		}
		var errs []*Error
		got := allocated(func() { errs = Validate(bytes.NewReader(in.Bytes()), "f") })
		if errs != nil {
			t.Fatalf("%d lines: %v", lines, errs)
		}
		if limit := uint64(lines*MemoryPerLineByte*L + memorySlack); got > limit {
			t.Errorf("validate, %d lines of %d bytes: allocated %d bytes (%.1f per line byte), want at most %d",
				lines, L, got, float64(got)/float64(lines*L), limit)
		}
	}
}

// TestMemoryBoundedOnInvalidEnvelope: the same array under a key the schema
// does not allow (the line is invalid; its explanation needs the key, not
// the array) costs no more. It cost a tree for the schema library, about
// 100 bytes per line byte.
func TestMemoryBoundedOnInvalidEnvelope(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 8 MiB of input")
	}
	const L = 8 << 20
	var in bytes.Buffer
	if err := hostile.BigLines(&in, 1, L, "tool.result"); err != nil {
		t.Fatal(err)
	}
	line := bytes.Replace(in.Bytes(), []byte(`"payload":{"data":[`), []byte(`"payload":{},"zzz":[`), 1)
	line = bytes.Replace(line, []byte(`]},"provenance"`), []byte(`],"provenance"`), 1)
	var errs []*Error
	got := allocated(func() { errs = Validate(bytes.NewReader(line), "f") })
	if len(errs) != 1 || errs[0].Code != Schema || !strings.Contains(errs[0].Msg, "additionalProperties 'zzz' not allowed") {
		t.Fatalf("got %v, want one SCHEMA error about zzz", errs)
	}
	if limit := uint64(MemoryPerLineByte*L + memorySlack); got > limit {
		t.Errorf("allocated %d bytes (%.1f per line byte), want at most %d", got, float64(got)/L, limit)
	}
}

// TestMemoryFlatInRuns: a file of many one-event runs (issue 8 item 9: 1M
// runs held 797 MB in validate) keeps no more live heap for 200k runs than
// for 20k: the runs are numbered by an id set and their records live in a
// paged table, not in a map. The live heap is measured after a collection
// when half, six tenths ... nine tenths of the input have been read, and
// the least of those counts: what the pipeline holds in flight at one
// instant varies by a few MB with the scheduling (one measurement, at nine
// tenths, gave 5.1-8.9 MB for 20k runs and 5.6-9.9 MB for 200k), while
// state kept per run grows at every point. The peak of the whole process
// is in BENCHMARKS.md.
func TestMemoryFlatInRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("validates 220k runs")
	}
	live := func(n int) uint64 {
		var in bytes.Buffer
		if err := hostile.Runs(&in, n); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		r := &measuringReader{r: bytes.NewReader(in.Bytes()), size: in.Len()}
		Validate(r, "f")
		if r.points != len(measurePoints) {
			t.Fatalf("%d runs: the reader measured at %d of %d points", n, r.points, len(measurePoints))
		}
		if r.least < before.HeapAlloc {
			return 0
		}
		return r.least - before.HeapAlloc
	}
	small, large := live(20_000), live(200_000)
	t.Logf("least live heap past half the input: %d bytes for 20k runs, %d for 200k", small, large)
	if large > small+4<<20 {
		t.Errorf("200k runs keep %d bytes of live heap, 20k runs %d: it grows with the runs", large, small)
	}
}

// measurePoints are where measuringReader measures, in tenths of the
// input read.
var measurePoints = []int{5, 6, 7, 8, 9}

// measuringReader records the least live heap (each after a collection)
// at measurePoints of an input of size bytes.
type measuringReader struct {
	r      *bytes.Reader
	size   int
	read   int
	points int // measured so far
	least  uint64
}

func (m *measuringReader) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	m.read += n
	for m.points < len(measurePoints) && m.read > m.size*measurePoints[m.points]/10 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if m.points == 0 || ms.HeapAlloc < m.least {
			m.least = ms.HeapAlloc
		}
		m.points++
	}
	return n, err
}
