package store

import (
	"encoding/binary"
	"errors"
	"maps"
	"math/bits"
	"slices"

	"github.com/tracecheck/tracecheck/journal"
)

// idIndex is the set of a session's event IDs and, for the events this
// process has read or written, their line numbers.
//
// The store names events "evt-%03d" of their position in the session, so an
// ID of that form is a bit in a bitset indexed by its number and its line
// goes into a slice indexed by the same number: no allocation per event,
// about 4 bytes and a bit each. Other IDs go into a map. Lines of events
// covered by a checkpoint are not kept (0: unknown); the writer finds them
// in the file when a retry needs them.
type idIndex struct {
	n     int             // IDs added
	bits  journal.RefBits // evt-k IDs present
	lo    int             // refLine[i] is the line of evt-(lo+i)
	lines []uint32        // 0: unknown
	other map[string]uint32
	far   map[string]uint32 // lines of evt-k IDs outside [lo, lo+len(lines))
}

// limit bounds the bitset and the line slice: IDs numbered far beyond the
// IDs seen go to the maps, so an adversarial ID cannot make them huge.
func (x *idIndex) limit() int { return 2*x.n + 1<<16 }

func (x *idIndex) has(id string) bool {
	if k, ok := journal.RefEventNumber(id); ok && x.bits.Has(k) {
		return true
	}
	_, ok := x.other[id]
	return ok
}

// line returns the line of a stored ID, or 0 when it is not known.
func (x *idIndex) line(id string) int {
	if k, ok := journal.RefEventNumber(id); ok && x.bits.Has(k) {
		if i := k - x.lo; i >= 0 && i < len(x.lines) && x.lines[i] != 0 {
			return int(x.lines[i])
		}
		return int(x.far[id])
	}
	return int(x.other[id])
}

// add records a new ID stored at line (0: unknown).
func (x *idIndex) add(id string, line int) {
	x.n++
	k, ok := journal.RefEventNumber(id)
	if !ok || k >= x.limit() {
		if x.other == nil {
			x.other = map[string]uint32{}
		}
		x.other[string([]byte(id))] = uint32(line) // a copy: id may alias a buffer
		return
	}
	x.bits.Add(k)
	x.setLine(id, line)
}

// setLine records the line of an ID in the set.
func (x *idIndex) setLine(id string, line int) {
	if line == 0 {
		return
	}
	k, ok := journal.RefEventNumber(id)
	if !ok || !x.bits.Has(k) {
		if _, in := x.other[id]; in {
			x.other[id] = uint32(line)
		}
		return
	}
	if len(x.lines) == 0 {
		x.lo = k
	}
	if i := k - x.lo; i >= 0 && i < x.limit() {
		for i >= len(x.lines) {
			x.lines = append(x.lines, 0)
		}
		x.lines[i] = uint32(line)
		return
	}
	if x.far == nil {
		x.far = map[string]uint32{}
	}
	x.far[string([]byte(id))] = uint32(line)
}

// appendBinary records the set (not the lines): the evt-k IDs as ranges of
// set bits, then the other IDs. A store's IDs are one range.
func (x *idIndex) appendBinary(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(x.n))
	b = x.bits.AppendRanges(b)
	b = binary.AppendUvarint(b, uint64(len(x.other)))
	for _, id := range slices.Sorted(maps.Keys(x.other)) { // same index, same bytes
		b = binary.AppendUvarint(b, uint64(len(id)))
		b = append(b, id...)
	}
	return b
}

var errBadIDs = errors.New("bad event-id set")

// readBinary restores a set written by appendBinary; every line is unknown.
func (x *idIndex) readBinary(b []byte) error {
	*x = idIndex{}
	d := &dec{b: b}
	n := d.uv()
	if d.err != nil || n > 1<<32 {
		return errBadIDs
	}
	x.n = int(n)
	nr := d.count()
	for range nr {
		start, cnt := d.uv(), d.uv()
		if d.err != nil || start+cnt > uint64(x.limit()) {
			return errBadIDs
		}
		x.bits.AddRange(int(start), int(start+cnt))
	}
	no := d.count()
	for range no {
		id := d.str()
		if d.err != nil {
			return errBadIDs
		}
		if x.other == nil {
			x.other = map[string]uint32{}
		}
		x.other[id] = 0
	}
	if d.err != nil || len(d.b) != 0 {
		return errBadIDs
	}
	// Each ID once: the bits and the other IDs add up to the count.
	set := len(x.other)
	for _, w := range x.bits {
		set += bits.OnesCount64(w)
	}
	if set != x.n {
		return errBadIDs
	}
	return nil
}
