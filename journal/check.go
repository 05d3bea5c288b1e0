package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"slices"
)

// RunChecker enforces the journal invariants on a stream of events, one at
// a time, so that a file never has to be held in memory to be checked.
//
// The event ids seen so far are kept flat: the reference writes evt-%03d of
// the sequence, so an id of that form is a bit in a bitset indexed by its
// number, and only other ids go into a map. A million reference events cost
// 125 KB, not a map entry each.
type RunChecker struct {
	single    bool // a single-run journal: a second session or run is an error
	started   bool
	sessionID string
	runID     string
	next      int64
	ids       idSet
}

// NewRunChecker checks one single-run journal: mixing sessions or runs is
// an error.
func NewRunChecker() *RunChecker {
	return &RunChecker{single: true}
}

// newGroupChecker checks one (session, run) group of a multi-run file; the
// caller has already grouped the events.
func newGroupChecker() *RunChecker {
	return &RunChecker{}
}

// Check applies the invariants to the next event. Line and File of the
// returned error are left for the caller.
func (c *RunChecker) Check(e *Event) *Error {
	if !c.started {
		c.started = true
		// Copies: e's strings may alias a reader's buffer.
		c.sessionID, c.runID = string([]byte(e.SessionID)), string([]byte(e.Provenance.RunID))
	} else if c.single {
		if e.SessionID != c.sessionID {
			return &Error{EventID: e.EventID, Code: MixedSession, Pointer: "/session_id",
				Msg: fmt.Sprintf("session_id %q differs from the journal's %q: a journal holds one session", e.SessionID, c.sessionID)}
		}
		if e.Provenance.RunID != c.runID {
			return &Error{EventID: e.EventID, Code: MixedRun, Pointer: "/provenance/run_id",
				Msg: fmt.Sprintf("run_id %q differs from the journal's %q: a journal holds one run (to read one run of a multi-run file, give --run RUN_ID)", e.Provenance.RunID, c.runID)}
		}
	}
	if e.Sequence != c.next {
		want := c.next
		c.next = e.Sequence + 1 // resynchronise: report each gap once, not every later event
		return c.remember(e, &Error{EventID: e.EventID, Code: SequenceGap, Pointer: "/sequence",
			Msg: fmt.Sprintf("sequence %d where %d was expected: sequences start at 0 and are contiguous", e.Sequence, want)})
	}
	c.next++
	if e.ParentEventID != "" && !c.ids.has(e.ParentEventID) {
		return c.remember(e, &Error{EventID: e.EventID, Code: ParentNotEarlier, Pointer: "/parent_event_id",
			Msg: fmt.Sprintf("parent_event_id %q names no earlier event of this run", e.ParentEventID)})
	}
	if c.ids.has(e.EventID) {
		return &Error{EventID: e.EventID, Code: DuplicateEventID, Pointer: "/event_id",
			Msg: fmt.Sprintf("event_id %q appears earlier in this run", e.EventID)}
	}
	return c.remember(e, nil)
}

func (c *RunChecker) remember(e *Event, err *Error) *Error {
	c.ids.add(e.EventID)
	return err
}

// idSet is a set of event ids: evt-%03d ids as bits, the rest in a map.
type idSet struct {
	bits  RefBits
	other map[string]struct{}
	n     int // ids added
}

// RefBits is a bitset of the numbers k of reference event ids (see
// RefEventNumber): the checker's id set and package journal/store's id
// index keep evt-%03d ids in one, a bit each.
type RefBits []uint64

// Has reports whether k (k >= 0) is in the set.
func (s RefBits) Has(k int) bool { return k/64 < len(s) && s[k/64]&(1<<(k%64)) != 0 }

// Add puts k (k >= 0) in the set, growing it as needed.
func (s *RefBits) Add(k int) {
	for k/64 >= len(*s) {
		*s = append(*s, 0)
	}
	(*s)[k/64] |= 1 << (k % 64)
}

// AddRange puts [lo, hi) in the set, a word at a time.
func (s *RefBits) AddRange(lo, hi int) {
	if hi <= lo {
		return
	}
	if need := (hi + 63) / 64; need > len(*s) {
		*s = append(*s, make([]uint64, need-len(*s))...)
	}
	b := *s
	for k := lo; k < hi; {
		if k%64 == 0 && hi-k >= 64 {
			b[k/64] = ^uint64(0)
			k += 64
			continue
		}
		b[k/64] |= 1 << (k % 64)
		k++
	}
}

// AppendRanges appends the set as runs of consecutive numbers: a uvarint
// count, then a (start, length) pair of uvarints per run, found a word at
// a time. A reference journal's ids are one run whatever its length.
func (s RefBits) AppendRanges(b []byte) []byte {
	var ranges []int
	total := 64 * len(s)
	for k := 0; k < total; {
		w := s[k/64] >> (k % 64)
		if w == 0 {
			k += 64 - k%64
			continue
		}
		k += bits.TrailingZeros64(w)
		start := k
		// The run ends at the next clear bit.
		for k < total {
			gaps := ^s[k/64] >> (k % 64)
			if gaps == 0 {
				k += 64 - k%64
				continue
			}
			k += bits.TrailingZeros64(gaps)
			break
		}
		ranges = append(ranges, start, k-start)
	}
	b = binary.AppendUvarint(b, uint64(len(ranges)/2))
	for _, r := range ranges {
		b = binary.AppendUvarint(b, uint64(r))
	}
	return b
}

// RefEventNumber returns k when id is exactly fmt.Sprintf("evt-%03d", k),
// the reference's event id for position k. Stores use it to keep such ids
// as bits rather than strings.
func RefEventNumber(id string) (int, bool) {
	const prefix = "evt-"
	if len(id) < len(prefix)+3 || len(id) > len(prefix)+12 || id[:len(prefix)] != prefix {
		return 0, false
	}
	digits := id[len(prefix):]
	if len(digits) > 3 && digits[0] == '0' {
		return 0, false // %03d pads to three digits only
	}
	k := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		k = k*10 + int(c-'0')
	}
	return k, true
}

// bitLimit bounds the bitset: ids numbered far beyond the ids seen go to the
// map, so an adversarial id cannot make the bitset huge.
func (s *idSet) bitLimit() int { return 2*s.n + 1<<16 }

func (s *idSet) has(id string) bool {
	if k, ok := RefEventNumber(id); ok && s.bits.Has(k) {
		return true
	}
	_, ok := s.other[id]
	return ok
}

// remove undoes add(id) for an id that was not in the set before.
func (s *idSet) remove(id string) {
	if k, ok := RefEventNumber(id); ok && s.bits.Has(k) {
		s.bits[k/64] &^= 1 << (k % 64)
		return
	}
	delete(s.other, id)
}

func (s *idSet) add(id string) {
	s.n++
	if k, ok := RefEventNumber(id); ok && k < s.bitLimit() {
		s.bits.Add(k)
		return
	}
	if s.other == nil {
		s.other = map[string]struct{}{}
	}
	s.other[string([]byte(id))] = struct{}{} // a copy: id may alias a buffer
}

// MarshalBinary records the checker's state (identity, next sequence, ids
// seen) so that checking can resume after a checkpoint without the prefix.
// Runs of set bits are stored as ranges: a reference journal's ids are one
// range whatever its length.
func (c *RunChecker) MarshalBinary() ([]byte, error) {
	var b []byte
	b = append(b, 'R', 'C', '1')
	flags := byte(0)
	if c.single {
		flags |= 1
	}
	if c.started {
		flags |= 2
	}
	b = append(b, flags)
	b = appendStr(b, c.sessionID)
	b = appendStr(b, c.runID)
	b = binary.AppendVarint(b, c.next)
	b = binary.AppendUvarint(b, uint64(c.ids.n))
	b = c.ids.bits.AppendRanges(b)
	b = binary.AppendUvarint(b, uint64(len(c.ids.other)))
	for _, id := range slices.Sorted(maps.Keys(c.ids.other)) { // same state, same bytes
		b = appendStr(b, id)
	}
	return b, nil
}

// UnmarshalBinary restores a state written by MarshalBinary.
func (c *RunChecker) UnmarshalBinary(b []byte) error {
	bad := errors.New("journal: bad RunChecker state")
	if len(b) < 4 || string(b[:3]) != "RC1" {
		return bad
	}
	d := decoder{b: b[4:]}
	*c = RunChecker{single: b[3]&1 != 0, started: b[3]&2 != 0}
	c.sessionID = d.str()
	c.runID = d.str()
	c.next = d.varint()
	c.ids.n = int(d.uvarint())
	nr := d.uvarint()
	for i := uint64(0); i < nr && d.err == nil; i++ {
		start, n := d.uvarint(), d.uvarint()
		if start+n > 1<<40 {
			return bad
		}
		c.ids.bits.AddRange(int(start), int(start+n))
	}
	no := d.uvarint()
	for i := uint64(0); i < no && d.err == nil; i++ {
		if c.ids.other == nil {
			c.ids.other = map[string]struct{}{}
		}
		c.ids.other[d.str()] = struct{}{}
	}
	if d.err != nil || len(d.b) != 0 {
		return bad
	}
	return nil
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errors.New("short")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errors.New("short")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errors.New("short")
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// Position returns the run identity the checker holds (empty before the
// first event) and the sequence the next event must carry.
func (c *RunChecker) Position() (sessionID, runID string, next int64) {
	return c.sessionID, c.runID, c.next
}
