package journal

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// validateByMap is Validate's invariant checking as it was before runGroups:
// one RunChecker per (session, run) in a map. It is the reference the flat
// state must agree with.
func validateByMap(t *testing.T, data []byte) []string {
	t.Helper()
	groups := map[[2]string]*RunChecker{}
	var out []string
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		_, ev, err := DecodeLine(bytes.TrimSuffix(line, []byte("\n")))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		key := [2]string{ev.SessionID, ev.Provenance.RunID}
		c := groups[key]
		if c == nil {
			c = newGroupChecker()
			groups[key] = c
		}
		if cerr := c.Check(&ev); cerr != nil {
			out = append(out, fmt.Sprintf("%d: %s %s", i+1, cerr.Code, cerr.Msg))
		}
	}
	return out
}

// interleavedRuns writes events of runs interleaved at random, which mostly
// follow the reference shape and sometimes leave it (gaps, repeated ids,
// ids of another form, parents later or unknown): one event in oneIn on
// average leaves it.
func interleavedRuns(rng *rand.Rand, runs, events, oneIn int) []byte {
	next := make([]int, runs)
	var data []byte
	for n := 0; n < events; n++ {
		r := rng.IntN(runs)
		seq, id, parent := next[r], fmt.Sprintf("evt-%03d", next[r]), ""
		if next[r] > 0 {
			parent = fmt.Sprintf("evt-%03d", next[r]-1)
		}
		switch rng.IntN(12 * oneIn) {
		case 0:
			seq += 1 + rng.IntN(2) // a gap
		case 1:
			id = fmt.Sprintf("evt-%03d", rng.IntN(next[r]+1)) // perhaps a repeat
		case 2:
			id = fmt.Sprintf("other-%d", rng.IntN(4))
		case 3:
			parent = fmt.Sprintf("evt-%03d", next[r]+rng.IntN(3)) // not earlier
		case 4:
			parent = fmt.Sprintf("other-%d", rng.IntN(4))
		case 5:
			parent = ""
		}
		next[r] = seq + 1
		line := fmt.Sprintf(`{"trace_version":"0.1.0","event_id":%q,"session_id":"s-%d","sequence":%d,"timestamp":"2026-08-10T00:00:00Z","type":"user.message","actor":{"kind":"user","id":"u"},"payload":{},"provenance":{"agent_id":"a","snapshot_id":"x","surface":"sdk","harness_mode":"fake","run_id":"r-%d"},"redaction":{"status":"clean","fields":[]}`,
			id, r%2, seq, r)
		if parent != "" {
			line += fmt.Sprintf(`,"parent_event_id":%q`, parent)
		}
		data = append(data, line+"}\n"...)
	}
	return data
}

// TestRunGroupsMatchMap: on random files of interleaved runs, Validate
// reports exactly what one RunChecker per run reports.
func TestRunGroupsMatchMap(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		data := interleavedRuns(rng, 1+rng.IntN(6), 60, 1)
		want := validateByMap(t, data)
		var got []string
		for _, e := range Validate(bytes.NewReader(data), "f") {
			got = append(got, fmt.Sprintf("%d: %s %s", e.Line, e.Code, e.Msg))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("seed %d: Validate differs from one RunChecker per run (-want +got):\n%s", seed, diff)
		}
	}
}

// TestRunGroupsManyRuns: thousands of interleaved runs with a table that
// caches two pages, so that run records go to its file and come back
// (in order of run numbers and out of it); the verdicts are the same.
func TestRunGroupsManyRuns(t *testing.T) {
	for seed := uint64(0); seed < 3; seed++ {
		data := interleavedRuns(rand.New(rand.NewPCG(seed, 4)), 3000, 15000, 300)
		want := validateByMap(t, data)
		g := newRunGroups()
		g.table.nslots = 2
		var got []string
		for _, e := range validate(bytes.NewReader(data), "f", g) {
			got = append(got, fmt.Sprintf("%d: %s %s", e.Line, e.Code, e.Msg))
		}
		if g.table.pages == 0 {
			t.Fatal("no page of the run table went to its file")
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("seed %d: Validate differs from one RunChecker per run (-want +got):\n%s", seed, diff)
		}
	}
}
