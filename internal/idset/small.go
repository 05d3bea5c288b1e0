package idset

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// Small is an exact set of ids held in memory up to a byte budget: the
// ids' bytes in one arena and an open-addressing table of their hashes.
// It is the front a caller puts before a Set: most session logs hold a few
// thousand to a hundred thousand ids, which Small keeps in about 16 bytes
// an id beyond the ids' own bytes and answers in one or two cache misses,
// where a Set pays for its bounded memory with a spill record, a filter
// and a window per id (several hundred nanoseconds). When an Add would
// pass the budget, Small refuses it (full) and the caller moves the ids,
// in the order they were added (Each), into a Set.
//
// The hash is the runtime's (hash/maphash) with a seed drawn per Small, so
// ids crafted to collide cannot be prepared in advance; collisions cost
// only comparisons, never a wrong answer. A Small holds no pointers, so the
// collector never scans it.
type Small struct {
	max   int
	seed  maphash.Seed
	arena []byte // each id: uvarint length, bytes; in order of addition
	// slots: 0 empty; else tag<<32 | (arena offset + 1), where the tag is
	// the hash's top 32 bits, whose top bits are also the home slot, so
	// that growing the table reads neither the arena nor the hash again.
	slots []uint64
	mask  uint64
	shift uint // home slot of h: h >> shift
	n     int
}

// NewSmall returns an empty Small that holds at most maxBytes of ids and
// table together.
func NewSmall(maxBytes int) *Small {
	return &Small{max: maxBytes, seed: maphash.MakeSeed()}
}

// Len returns how many ids were added.
func (s *Small) Len() int { return s.n }

// Bytes returns the memory the set holds (arena and table capacity).
func (s *Small) Bytes() int { return cap(s.arena) + 8*cap(s.slots) }

func tagOf(h uint64) uint64 { return h >> 32 }

// find returns the slot of id (hash h) and whether id is there; when it is
// not, the slot is the empty one where it would go.
func (s *Small) find(h uint64, id string) (uint64, bool) {
	tag := tagOf(h)
	for i := h >> s.shift; ; i = (i + 1) & s.mask {
		v := s.slots[i]
		if v == 0 {
			return i, false
		}
		if v>>32 == tag && s.is(int(uint32(v)-1), id) {
			return i, true
		}
	}
}

// is reports whether the record at arena offset off holds id.
func (s *Small) is(off int, id string) bool {
	b, _ := s.record(off)
	return string(b) == id
}

// Prefetch asks the processor to bring in the table slot where a search
// for id starts, so that an Add or Has of id a few hundred nanoseconds on
// does not wait for memory: in a set larger than the cache, that wait
// was nearly all of find's time. It changes nothing the set answers.
func (s *Small) Prefetch(id string) {
	if len(s.slots) == 0 {
		return
	}
	prefetch(unsafe.Pointer(&s.slots[maphash.String(s.seed, id)>>s.shift]))
}

// Has reports whether id was added.
func (s *Small) Has(id string) bool {
	if s.n == 0 {
		return false
	}
	_, ok := s.find(maphash.String(s.seed, id), id)
	return ok
}

// Add adds id and reports whether it was new. full: adding it would pass
// the budget, and nothing was added (added is false then).
func (s *Small) Add(id string) (added, full bool) {
	if s.slots == nil {
		s.grow(64)
	}
	h := maphash.String(s.seed, id)
	i, ok := s.find(h, id)
	if ok {
		return false, false
	}
	need := binary.MaxVarintLen64 + len(id)
	slots := len(s.slots)
	if 2*(s.n+1) > slots {
		slots *= 2
	}
	limit := s.max - 8*slots // what the arena may hold beside the table
	if len(s.arena)+need > 1<<32-1 || cap(s.arena) > limit || !s.reserve(need, limit) {
		return false, true
	}
	if slots != len(s.slots) {
		s.grow(slots)
		i, _ = s.find(h, id)
	}
	off := len(s.arena)
	s.arena = binary.AppendUvarint(s.arena, uint64(len(id)))
	s.arena = append(s.arena, id...)
	s.slots[i] = tagOf(h)<<32 | uint64(off+1)
	s.n++
	return true, false
}

// reserve makes room for need more arena bytes within limit bytes of
// arena capacity: doubling while that fits, then just what fits, so that
// the budget, not append's growth, decides when the set is full.
func (s *Small) reserve(need, limit int) bool {
	want := len(s.arena) + need
	if want <= cap(s.arena) {
		return true
	}
	if want > limit {
		return false
	}
	c := min(max(2*cap(s.arena), 4096, want), limit)
	a := make([]byte, len(s.arena), c)
	copy(a, s.arena)
	s.arena = a
	return true
}

// grow rebuilds the table with size slots (a power of two, at most 2^32).
func (s *Small) grow(size int) {
	old := s.slots
	s.slots = make([]uint64, size)
	s.mask = uint64(size - 1)
	s.shift = uint(64 - bits.TrailingZeros(uint(size)))
	for _, v := range old {
		if v == 0 {
			continue
		}
		i := (v >> 32 << 32) >> s.shift // the tag's top bits: its home
		for s.slots[i] != 0 {
			i = (i + 1) & s.mask
		}
		s.slots[i] = v
	}
}

// record returns the id's bytes at arena offset off and the offset after
// it.
func (s *Small) record(off int) ([]byte, int) {
	l, k := binary.Uvarint(s.arena[off:])
	start := off + k
	return s.arena[start : start+int(l)], start + int(l)
}

// Each calls fn with every id, in the order they were added, until fn
// returns false.
func (s *Small) Each(fn func(id string) bool) {
	for off := 0; off < len(s.arena); {
		b, next := s.record(off)
		if !fn(string(b)) {
			return
		}
		off = next
	}
}
