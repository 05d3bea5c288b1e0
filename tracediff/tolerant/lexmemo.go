package tolerant

import (
	"bytes"
	"strings"
)

// Most of a golden line is its top-level objects, and most of those repeat
// from line to line byte for byte (actor, provenance, redaction): the lexer
// remembers the last few it read under each top-level key, with their
// holes, and recognises a repeat by its bytes alone. A container's tokens
// depend only on its bytes, and its holes' pointers on the key it stands
// under too, so a repeat has the same holes at the same offsets.

const (
	memoKeys     = 8    // top-level keys remembered
	memoPerKey   = 4    // values remembered per key
	memoMaxBytes = 4096 // a longer value is not remembered
	// A key whose values keep changing (a payload) is remembered again
	// only now and then: each miss would copy the value.
	memoMissRun   = 32
	memoRetryMiss = 256
)

// lexMemo is one remembered value: its text, its holes (offsets from the
// text's start; their strings the memo's own) and where provenance's run_id
// stands in it (runID[0] < 0: not met).
type lexMemo struct {
	text  []byte
	holes []Hole
	runID [2]int
}

// memoSlot is the values remembered under one top-level key.
type memoSlot struct {
	name   string
	vals   [memoPerKey]*lexMemo
	next   int // the value to replace next
	misses int // misses in a row
}

// memoPending is a value being lexed under slot, to be remembered when it
// closes.
type memoPending struct {
	slot  *memoSlot
	start int // in the line
	holes int // len(k.holes) at the start
}

// slot returns the memo of a top-level key, nil when the memo is full.
func (x *lexer) slot(name []byte) *memoSlot {
	for i := range x.memo {
		if x.memo[i].name == string(name) {
			return &x.memo[i]
		}
	}
	if len(x.memo) >= memoKeys {
		return nil
	}
	x.memo = append(x.memo, memoSlot{name: string(name)})
	return &x.memo[len(x.memo)-1]
}

// recall looks for the container value at line[vs] under s: on a repeat it
// appends its holes, takes its run_id and returns the index past it.
func (x *lexer) recall(k *Compiler, s *memoSlot, line []byte, vs int) (int, bool) {
	for _, m := range s.vals {
		if m == nil || !bytes.HasPrefix(line[vs:], m.text) {
			continue
		}
		for _, h := range m.holes {
			h.Start += vs
			h.End += vs
			k.holes = append(k.holes, h)
		}
		if m.runID[0] >= 0 {
			x.key.RunID = line[vs+m.runID[0] : vs+m.runID[1]]
		}
		s.misses = 0
		return vs + len(m.text), true
	}
	s.misses++
	if s.misses <= memoMissRun || s.misses%memoRetryMiss == 0 {
		x.pending = memoPending{slot: s, start: vs, holes: len(k.holes)}
	}
	return 0, false
}

// remember keeps the value that closed at line[end-1], as pending says.
func (x *lexer) remember(k *Compiler, line []byte, end int) {
	p := x.pending
	x.pending = memoPending{}
	if p.slot == nil || !k.ok || end-p.start > memoMaxBytes {
		return
	}
	m := &lexMemo{text: bytes.Clone(line[p.start:end]), runID: [2]int{-1, -1}}
	for _, h := range k.holes[p.holes:] {
		h.Start -= p.start
		h.End -= p.start
		h.Arg, h.Ptr = strings.Clone(h.Arg), strings.Clone(h.Ptr)
		m.holes = append(m.holes, h)
	}
	if r := x.key.RunID; r != nil {
		if off := cap(line) - cap(r); off >= p.start && off+len(r) <= end {
			m.runID = [2]int{off - p.start, off - p.start + len(r)}
		}
	}
	s := p.slot
	s.vals[s.next] = m
	s.next = (s.next + 1) % memoPerKey
}
