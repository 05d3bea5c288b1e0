package tolerant

import (
	"unsafe"

	"github.com/tracecheck/tracecheck/journal"
)

// Most top-level members of a golden line that hold a hole hold the same
// text on every line of a run, and so does the event's value there: a
// session_id of "[ID-2]" against "session-bench", a provenance whose
// run_id is "[ID-3]". Prove remembers, per member, the last such pair it
// proved: a later line with the same two texts at that member is proven
// by comparing them, without reading the golden's tokens or asking the
// bindings again.
//
// That holds because a hole's verdict depends only on the two texts and
// on the bindings already made, and a pair is remembered only when its
// holes bind or check and keep no other state (not a Timestamp hole,
// whose time the Matcher keeps): the bindings it made or found stay as
// they were while no binding is forgotten. So a remembered pair is
// recalled only for the Matcher it was proven with, and only while that
// Matcher has forgotten no binding since (bindings.forgets): a Rollback
// that forgets any, even of the line that proved the pair, retires it.

// proofMemo is the last pair of texts proven at one top-level member.
type proofMemo struct {
	m       *Matcher // the Matcher it was proven with; nil: none
	forgets uint64   // m.binds.forgets then
	gLen    int      // buf[:gLen] is the golden's text, buf[gLen:aEnd] the event's
	aEnd    int
	buf     []byte // both texts, then the holes' strings
	holes   []Hole // offsets from the golden text's start; strings views of buf
	runID   [2]int // provenance's run_id in the golden text; runID[0] < 0: none
	misses  int    // lines in a row where the member held another pair
	// fresh: remembered since the last try. A member whose pair keeps
	// changing (an event_id, a timestamp) is tried only when fresh, once
	// it has missed memoMissRun times in a row.
	fresh bool
}

// recallProof appends the holes of the pair remembered for member when
// the golden's text at g[gp] and the event's value av are that pair, and
// returns the index past the golden's value.
func (k *Compiler) recallProof(m *Matcher, member journal.Member, g []byte, gp int, av []byte) (int, bool) {
	pm := &k.proofs[member]
	if pm.m == nil || pm.misses > memoMissRun && !pm.fresh {
		pm.misses++
		return 0, false
	}
	pm.fresh = false
	end := gp + pm.gLen
	if pm.m != m || pm.forgets != m.binds.forgets || string(pm.buf[pm.gLen:pm.aEnd]) != string(av) ||
		end > len(g) || string(g[gp:end]) != string(pm.buf[:pm.gLen]) {
		pm.misses++
		return 0, false
	}
	pm.misses = 0
	for _, h := range pm.holes {
		h.Start += gp
		h.End += gp
		k.holes = append(k.holes, h)
	}
	switch member {
	case journal.MemberSequence:
		k.lex.key.Sequence = g[gp:end]
	case journal.MemberSessionID:
		k.lex.key.SessionID = g[gp:end]
	case journal.MemberProvenance:
		if pm.runID[0] >= 0 {
			k.lex.key.RunID = g[gp+pm.runID[0] : gp+pm.runID[1]]
		}
	}
	return end, true
}

// rememberProof keeps the pair just proven at member: the golden's text
// g[gs:ge], the event's value av, and the holes Prove found in it,
// k.holes[n:]. A pair without holes is the clean memo's (proveContainer),
// and one with a Timestamp hole is not kept.
func (k *Compiler) rememberProof(m *Matcher, member journal.Member, g []byte, gs, ge int, av []byte, n int) {
	pm := &k.proofs[member]
	if len(k.holes) == n || ge-gs+len(av) > memoMaxBytes {
		return
	}
	if pm.misses > memoMissRun && pm.misses%memoRetryMiss != 0 {
		return // a member whose texts keep changing (an event_id) is copied only now and then
	}
	for _, h := range k.holes[n:] {
		if h.Kind == Timestamp {
			return
		}
	}
	buf := append(pm.buf[:0], g[gs:ge]...)
	buf = append(buf, av...)
	gLen, aEnd := ge-gs, len(buf)
	for _, h := range k.holes[n:] {
		buf = append(buf, h.Arg...)
		buf = append(buf, h.Ptr...)
	}
	// buf is now as long as it will be: the holes' strings may view it.
	holes, at := pm.holes[:0], aEnd
	for _, h := range k.holes[n:] {
		h.Start -= gs
		h.End -= gs
		h.Arg = view(buf[at : at+len(h.Arg)])
		at += len(h.Arg)
		h.Ptr = view(buf[at : at+len(h.Ptr)])
		at += len(h.Ptr)
		holes = append(holes, h)
	}
	*pm = proofMemo{m: m, forgets: m.binds.forgets, gLen: gLen, aEnd: aEnd, buf: buf, holes: holes, runID: [2]int{-1, -1}, misses: pm.misses, fresh: true}
	if r := k.lex.key.RunID; member == journal.MemberProvenance && r != nil {
		if off := offsetIn(g, r); off >= gs && off+len(r) <= ge {
			pm.runID = [2]int{off - gs, off - gs + len(r)}
		}
	}
}

// offsetIn is where sub, a slice of line, starts in it; -1 when it is not
// one.
func offsetIn(line, sub []byte) int {
	if len(sub) == 0 || len(line) == 0 {
		return -1
	}
	off := int(uintptr(unsafe.Pointer(unsafe.SliceData(sub))) - uintptr(unsafe.Pointer(unsafe.SliceData(line))))
	if off < 0 || off > len(line) {
		return -1
	}
	return off
}
