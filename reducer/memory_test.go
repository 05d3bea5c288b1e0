package reducer_test

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/tracecheck/tracecheck/bench/hostile"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/reducer"
)

// allocated returns the bytes the process allocated while f ran (an upper
// bound on the heap f needed at its peak) and the heap still live after it.
func allocated(f func()) (total, retained uint64) {
	runtime.GC()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	total = b.TotalAlloc - a.TotalAlloc
	runtime.GC()
	runtime.ReadMemStats(&b)
	if b.HeapAlloc > a.HeapAlloc {
		retained = b.HeapAlloc - a.HeapAlloc
	}
	return total, retained
}

const memorySlack = 8 << 20

// TestMemoryBoundedByLongestLine: fingerprinting, replaying (and printing
// the view) and branching a journal of one 8 MiB line whose tool.result
// payload is an array of four million zeros allocates at most
// journal.MemoryPerLineByte bytes per line byte, plus the slack; the view
// keeps the tool result on disk, not in memory. Before the fix replay built
// trees of the payload: about 90 bytes per line byte.
func TestMemoryBoundedByLongestLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 8 MiB of input")
	}
	const L = 8 << 20
	var in bytes.Buffer
	if err := hostile.BigLines(&in, 1, L, "tool.result"); err != nil {
		t.Fatal(err)
	}
	data := in.Bytes()
	limit := uint64(journal.MemoryPerLineByte*L + memorySlack)
	var p *reducer.Progress
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"fingerprint", func() error {
			q, err := reducer.StreamReplay(bytes.NewReader(data), "f", reducer.StreamOptions{FingerprintOnly: true})
			if err == nil {
				q.Close()
			}
			return err
		}},
		{"replay", func() (err error) {
			if p, err = reducer.StreamReplay(bytes.NewReader(data), "f", reducer.StreamOptions{}); err != nil {
				return err
			}
			return p.WriteJSON(io.Discard) // as tracecheck replay --json prints it
		}},
		{"branch", func() error {
			_, err := reducer.StreamBranch(bytes.NewReader(data), "f", 0, "b")
			return err
		}},
	} {
		var err error
		total, retained := allocated(func() { err = tc.run() })
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		t.Logf("%s: %.1f bytes allocated per line byte, %d bytes retained", tc.name, float64(total)/L, retained)
		if total > limit || retained > memorySlack {
			t.Errorf("%s of one %d-byte line: allocated %d bytes (%.1f per line byte), %d still live; want at most %d and %d",
				tc.name, L, total, float64(total)/L, retained, limit, memorySlack)
		}
	}
	p.Close()
}
