package journal

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
)

// runGroups holds the invariant state of every run of a multi-run file, for
// Validate, with memory flat in the number of runs.
//
// Most runs are written as the reference writes them: sequence i carries
// event id evt-%03d of i, and every parent is an earlier event. While a run
// stays that way its ids are exactly evt-000 … evt-(next-1), so its state
// is one number, next: the set is known without being stored. The first
// event that leaves that shape (a gap, another id, a parent that is not
// earlier) gives the run a RunChecker holding those ids, which checks it
// from then on; the verdicts are the same either way (TestRunGroupsMatchMap).
//
// Runs are found by their key (the session id's length, the session id, the
// run id: no two pairs share a key) in an open-addressing table of run
// numbers; the keys sit back to back in one byte arena. A run costs its
// key's bytes and about 24 bytes more, in slices the collector need not
// scan, however many runs a file holds or how they interleave.
type runGroups struct {
	seed   maphash.Seed
	slots  []int32 // run number + 1; 0 is an empty slot; a power of two long
	keyEnd []int   // run r's key is arena[keyEnd[r-1]:keyEnd[r]] (from 0 for run 0)
	arena  []byte
	next   []int64               // per run: the next sequence of a run in the reference shape
	full   map[int32]*RunChecker // runs that left the reference shape
	key    []byte                // scratch for a lookup

	last                 int32 // the run of the previous event, -1 before the first
	lastSession, lastRun string
}

func newRunGroups() *runGroups {
	return &runGroups{seed: maphash.MakeSeed(), slots: make([]int32, 64), full: map[int32]*RunChecker{}, last: -1}
}

func (g *runGroups) keyOf(r int32) []byte {
	start := 0
	if r > 0 {
		start = g.keyEnd[r-1]
	}
	return g.arena[start:g.keyEnd[r]]
}

// identity returns run r's session and run id, aliasing the arena (whose
// bytes never change once written).
func (g *runGroups) identity(r int32) (session, run string) {
	k := g.keyOf(r)
	n, w := binary.Uvarint(k)
	k = k[w:]
	return aliasString(k[:n]), aliasString(k[n:])
}

// find returns the slot of key: the one holding its run, or the empty one
// where it would go.
func (g *runGroups) find(key []byte) int {
	mask := len(g.slots) - 1
	for i := int(maphash.Bytes(g.seed, key)) & mask; ; i = (i + 1) & mask {
		if r := g.slots[i] - 1; r < 0 || bytes.Equal(g.keyOf(r), key) {
			return i
		}
	}
}

// run returns the number of e's run, adding the run when it is new.
func (g *runGroups) run(e *Event) int32 {
	if g.last >= 0 && e.SessionID == g.lastSession && e.Provenance.RunID == g.lastRun {
		return g.last
	}
	g.key = binary.AppendUvarint(g.key[:0], uint64(len(e.SessionID)))
	g.key = append(g.key, e.SessionID...)
	g.key = append(g.key, e.Provenance.RunID...)
	i := g.find(g.key)
	r := g.slots[i] - 1
	if r < 0 {
		r = int32(len(g.next))
		g.arena = append(g.arena, g.key...)
		g.keyEnd = append(g.keyEnd, len(g.arena))
		g.next = append(g.next, 0)
		g.slots[i] = r + 1
		if 2*len(g.next) > len(g.slots) {
			g.grow()
		}
	}
	g.last = r
	g.lastSession, g.lastRun = g.identity(r)
	return r
}

// grow doubles the table, keeping it at most half full.
func (g *runGroups) grow() {
	g.slots = make([]int32, 2*len(g.slots))
	for r := range int32(len(g.next)) {
		g.slots[g.find(g.keyOf(r))] = r + 1
	}
}

// check applies the invariants to e in its run; want is the sequence the
// run expected.
func (g *runGroups) check(e *Event) (want int64, err *Error) {
	r := g.run(e)
	if c := g.full[r]; c != nil {
		return c.next, c.Check(e)
	}
	next := g.next[r]
	if k, ok := RefEventNumber(e.EventID); ok && int64(k) == next && e.Sequence == next {
		parentOK := e.ParentEventID == ""
		if p, ok := RefEventNumber(e.ParentEventID); ok && int64(p) < next {
			parentOK = true
		}
		if parentOK {
			g.next[r] = next + 1
			return next, nil
		}
	}
	// The run leaves the reference shape: hold its ids in a checker.
	c := newGroupChecker()
	if next > 0 {
		session, run := g.identity(r)
		c.started, c.sessionID, c.runID, c.next = true, string([]byte(session)), string([]byte(run)), next
		c.ids.bits.AddRange(0, int(next))
		c.ids.n = int(next)
	}
	g.full[r] = c
	return next, c.Check(e)
}
