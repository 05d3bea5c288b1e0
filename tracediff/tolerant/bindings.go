package tolerant

import (
	"hash/maphash"
	"math"
	"slices"
)

// bindings holds a Matcher's bindings: for each, the name, the canonical
// JSON of the value, the expected line and the pointer where it was made;
// found by name and by value. A trace of a few hundred thousand events
// binds as many names, so they are kept flat, where the collector has
// nothing to scan: the name and value bytes in chunks of an arena, the
// pointers interned (a trace binds at a handful of places), the records in
// chunks, and two open-addressing tables of record numbers, each slot with
// a byte of its hash beside it so that a probe seldom reads a record
// (linear probing, deletion by backward shift, for Rollback). Names ID-n
// and values that end in a number (numbered.go), most of what a
// normalized golden binds, are found by their number in slices instead,
// where consecutive ids are neighbours. About 32 bytes a binding, its
// name and value, and 5-16 bytes of tables and slices.
type bindings struct {
	seed   maphash.Seed
	arena  [][]byte    // chunks of name+canon (+ptr, when not interned) bytes
	recs   [][]bindRec // chunks of recChunk records
	n      int
	byName table
	byVal  table

	ptrs     []string          // interned pointers
	ptrIndex map[string]uint32 // pointer → index in ptrs
	lastPtr  uint32            // the last pointer interned or found
	bigLines map[int]int       // record → line, for lines past math.MaxUint32

	// recent: record numbers + 1 of names found or added lately (a run's
	// session and run names, the last events named as parents), which
	// are compared before the table is asked: a slot for each name, chosen
	// by its length and last bytes (recentSlot), so that a lookup compares
	// one name, not a list of them.
	recent      [recentSize]uint32
	recentNames [recentSize]string // their names (views of the arena)

	// forgets counts the truncates that forgot a binding: what a pair
	// Prove remembered relies on (provememo.go).
	forgets uint64

	// dense holds the names a normalized golden writes, ID-1, ID-2, ...
	// (a new one on most lines: the event's id) in place of byName: record
	// number + 1 at the name's number, so that binding one is an index,
	// not a probe of a table as large as the trace. A name ID-n goes there
	// when n is within denseRoom of the bindings' count, so that dense
	// stays a few bytes a binding; the others go to byName, and hashedIDs
	// counts those, so that an ID-n absent from dense is looked for in
	// byName only when there are any.
	dense     []uint32
	hashedIDs int

	// forms hold the values that end in a number (numbered.go).
	forms          []numberedForm
	lastForm       int
	numberedLen    int // the forms' slices' lengths, summed
	hashedNumbered int
}

type table struct {
	slots []uint32 // record number + 1; 0 is empty
	tags  []uint8  // the top byte of the slot's hash
	n     int      // records held
}

type bindRec struct {
	off      uint64 // chunk<<32 | position of name, canon (and ptr)
	hn, hv   uint32 // the hashes of name and canon (as tables use them)
	canonLen uint32
	ptr      uint32 // index in ptrs; with ownPtr set, the length of the pointer after canon
	line     uint32 // math.MaxUint32: in bigLines
	nameLen  uint8  // names are at most maxNameLen bytes
	dense    bool   // the name is in dense, not byName
	numbered bool   // the value is in a numbered form's slice, not byVal
}

const (
	arenaChunk = 1 << 20
	recChunk   = 8192
	ownPtr     = 1 << 31
	maxPtrs    = 1 << 16 // pointers interned, at most
)

// recentSize is the number of recent slots, a power of two.
const recentSize = 64

// recentSlot is name's slot in recent: names a normalized golden numbers
// in order ([ID-41], [ID-42]) differ in their last bytes.
func recentSlot(name []byte) int {
	n := len(name)
	if n == 0 {
		return 0
	}
	h := n*7 + int(name[n-1])
	if n > 1 {
		h += int(name[n-2]) * 31
	}
	return h & (recentSize - 1)
}

func newBindings() bindings { return bindings{seed: maphash.MakeSeed(), ptrIndex: map[string]uint32{}} }

func (s *bindings) rec(i int) *bindRec { return &s.recs[i/recChunk][i%recChunk] }

// bytes returns the name, canonical value and pointer of record i (views).
func (s *bindings) bytes(i int) (name, canon, ptr []byte) {
	r := s.rec(i)
	c := s.arena[r.off>>32]
	p := int(r.off & (1<<32 - 1))
	name = c[p : p+int(r.nameLen)]
	p += int(r.nameLen)
	canon = c[p : p+int(r.canonLen)]
	if r.ptr&ownPtr != 0 {
		p += int(r.canonLen)
		return name, canon, c[p : p+int(r.ptr&^ownPtr)]
	}
	return name, canon, []byte(s.ptrs[r.ptr])
}

// nameCanon is bytes without the pointer.
func (s *bindings) nameCanon(i int) (name, canon []byte) {
	r := s.rec(i)
	c := s.arena[r.off>>32]
	p := int(r.off & (1<<32 - 1))
	return c[p : p+int(r.nameLen)], c[p+int(r.nameLen) : p+int(r.nameLen)+int(r.canonLen)]
}

func (s *bindings) line(i int) int {
	if l := s.rec(i).line; l != math.MaxUint32 {
		return int(l)
	}
	return s.bigLines[i]
}

func (s *bindings) binding(i int) binding {
	_, canon, ptr := s.bytes(i)
	return binding{canon: string(canon), line: s.line(i), ptr: string(ptr)}
}

func (s *bindings) name(i int) string { n, _ := s.nameCanon(i); return string(n) }

// hashName and hashVal are the hashes of a name and of a canonical value:
// 32 bits, the low ones a table's slot, the top byte its tag.
func (s *bindings) hashName(name []byte) uint32 { return uint32(maphash.Bytes(s.seed, name)) }
func (s *bindings) hashVal(canon []byte) uint32 {
	return uint32(maphash.Bytes(s.seed, canon) >> 32) // other bits than names'
}

// find returns the record whose name (byValue: canonical value) is b, or
// -1; h is b's hash (hashName, or hashVal for byValue).
func (s *bindings) find(b []byte, h uint32, byValue bool) int {
	t := &s.byName
	if byValue {
		t = &s.byVal
	}
	if len(t.slots) == 0 {
		return -1
	}
	mask := uint64(len(t.slots) - 1)
	tag := uint8(h >> 24)
	for i := uint64(h) & mask; ; i = (i + 1) & mask {
		r := t.slots[i]
		if r == 0 {
			return -1
		}
		if t.tags[i] != tag {
			continue
		}
		name, canon := s.nameCanon(int(r - 1))
		k := name
		if byValue {
			k = canon
		}
		if string(k) == string(b) {
			return int(r - 1)
		}
	}
}

// findName returns the record named name, or -1, trying the recent name
// in name's slot first; when name is not bound, h is its hash for add (0:
// not computed).
func (s *bindings) findName(name []byte) (i int, h uint32) {
	k := recentSlot(name)
	if r := s.recent[k]; r != 0 && s.recentNames[k] == string(name) {
		return int(r - 1), 0
	}
	if i, h = s.lookupName(name); i >= 0 {
		s.remember(i)
	}
	return i, h
}

// lookupName is findName without the recent names.
func (s *bindings) lookupName(name []byte) (i int, h uint32) {
	if n, ok := idNumber(name); ok {
		if n < len(s.dense) && s.dense[n] != 0 {
			return int(s.dense[n] - 1), 0
		}
		if s.hashedIDs == 0 {
			return -1, 0
		}
	}
	h = s.hashName(name)
	return s.find(name, h, false), h
}

// idNumber is n when name is ID-n, n written in decimal without a leading
// zero (one spelling per number) and at most 9 digits.
func idNumber(name []byte) (int, bool) {
	if len(name) < 4 || len(name) > 12 || name[0] != 'I' || name[1] != 'D' || name[2] != '-' || name[3] == '0' {
		return 0, false
	}
	n := 0
	for _, c := range name[3:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// denseRoom bounds the numbers dense holds: below 4 a binding, and 4096.
func (s *bindings) denseRoom() int { return 4*s.n + 4096 }

func (s *bindings) remember(i int) {
	n, _ := s.nameCanon(i)
	k := recentSlot(n)
	s.recent[k], s.recentNames[k] = uint32(i+1), view(n)
}

// add records a binding; name must not be bound, nor canon bound to a
// name. hn and hv are their hashes (0: not computed), nb canon's
// numbering (lookupVal's).
func (s *bindings) add(name, canon, ptr []byte, line int, hn, hv uint32, nb numbering) {
	id, isID := idNumber(name)
	dense := isID && id < s.denseRoom()
	if !dense && hn == 0 {
		hn = s.hashName(name)
	}
	pi, own := s.lastPtr, false
	if int(pi) < len(s.ptrs) && s.ptrs[pi] == string(ptr) {
		// the pointer of the binding before
	} else if k, ok := s.ptrIndexOf(ptr); ok {
		pi = k
	} else if len(s.ptrs) < maxPtrs {
		pi = uint32(len(s.ptrs))
		p := string(ptr)
		s.ptrs = append(s.ptrs, p)
		s.ptrIndex[p] = pi
	} else {
		pi, own = uint32(len(ptr))|ownPtr, true
	}
	if !own {
		s.lastPtr = pi
	}
	size := len(name) + len(canon)
	if own {
		size += len(ptr)
	}
	last := len(s.arena) - 1
	if last < 0 || len(s.arena[last])+size > cap(s.arena[last]) {
		s.arena = append(s.arena, make([]byte, 0, max(arenaChunk, size)))
		last++
	}
	c := s.arena[last]
	off := uint64(last)<<32 | uint64(len(c))
	c = append(c, name...)
	c = append(c, canon...)
	if own {
		c = append(c, ptr...)
	}
	s.arena[last] = c
	if s.n%recChunk == 0 && s.n/recChunk == len(s.recs) {
		s.recs = append(s.recs, make([]bindRec, recChunk))
	}
	r := bindRec{off: off, hn: hn, hv: hv, canonLen: uint32(len(canon)), ptr: pi, line: math.MaxUint32, nameLen: uint8(len(name)), dense: dense}
	if line >= 0 && line < math.MaxUint32 {
		r.line = uint32(line)
	} else {
		if s.bigLines == nil {
			s.bigLines = map[int]int{}
		}
		s.bigLines[s.n] = line
	}
	*s.rec(s.n) = r
	s.n++
	switch {
	case dense:
		if id >= len(s.dense) {
			s.dense = slices.Grow(s.dense, id+1-len(s.dense))[:id+1]
		}
		s.dense[id] = uint32(s.n)
	case isID:
		s.hashedIDs++
	}
	if !dense {
		s.insert(&s.byName, hn, false)
	}
	if s.placeNumbered(nb, s.n) {
		s.rec(s.n - 1).numbered = true
	} else {
		if hv == 0 {
			hv = s.hashVal(canon)
			s.rec(s.n - 1).hv = hv
		}
		s.insert(&s.byVal, hv, true)
	}
	k := recentSlot(name)
	s.recent[k], s.recentNames[k] = uint32(s.n), view(c[off&(1<<32-1):][:len(name)])
}

// insert puts the newest record in t, under hash h, growing t first
// when it is three quarters full.
func (s *bindings) insert(t *table, h uint32, byValue bool) {
	if 4*(t.n+1) > 3*len(t.slots) {
		s.rehash(t, max(64, 2*len(t.slots)), byValue)
	}
	t.insert(h, s.n)
	t.n++
}

// ptrIndexOf is the index of ptr among the interned pointers: looked for
// in turn while they are few (a golden binds at a handful of places, in
// turn: an event's id, then its parent's), by the map past that.
func (s *bindings) ptrIndexOf(ptr []byte) (uint32, bool) {
	if len(s.ptrs) <= 8 {
		for k, p := range s.ptrs {
			if p == string(ptr) {
				return uint32(k), true
			}
		}
		return 0, false
	}
	k, ok := s.ptrIndex[string(ptr)]
	return k, ok
}

func (t *table) insert(h uint32, r int) {
	mask := uint64(len(t.slots) - 1)
	i := uint64(h) & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i], t.tags[i] = uint32(r), uint8(h>>24)
}

// rehash builds t (byName, or byVal) anew with size slots (a power of
// two), from the records before the newest.
func (s *bindings) rehash(t *table, size int, byValue bool) {
	*t = table{slots: make([]uint32, size), tags: make([]uint8, size), n: t.n}
	for i := 0; i < s.n-1; i++ {
		switch r := s.rec(i); {
		case byValue && !r.numbered:
			t.insert(r.hv, i+1)
		case !byValue && !r.dense:
			t.insert(r.hn, i+1)
		}
	}
}

// truncate forgets the records from mark on, the newest first.
func (s *bindings) truncate(mark int) {
	if s.n > mark {
		s.forgets++
	}
	for k, r := range s.recent {
		if int(r) > mark {
			s.recent[k], s.recentNames[k] = 0, ""
		}
	}
	for s.n > mark {
		i := s.n - 1
		r := s.rec(i)
		name, canon := s.nameCanon(i)
		id, isID := idNumber(name)
		switch {
		case r.dense:
			s.dense[id] = 0
		case isID:
			s.hashedIDs--
			fallthrough
		default:
			s.remove(&s.byName, r.hn, i+1, false)
		}
		s.unplaceNumbered(canon, r.numbered)
		if !r.numbered {
			s.remove(&s.byVal, r.hv, i+1, true)
		}
		c := r.off >> 32
		s.arena[c] = s.arena[c][:r.off&(1<<32-1)]
		if len(s.arena[c]) == 0 && int(c) == len(s.arena)-1 {
			s.arena = s.arena[:c]
		}
		delete(s.bigLines, i)
		s.n--
	}
}

// remove deletes record r from table t, moving back the records after it
// that would no longer be found.
func (s *bindings) remove(t *table, h uint32, r int, byValue bool) {
	mask := uint64(len(t.slots) - 1)
	i := uint64(h) & mask
	for t.slots[i] != uint32(r) {
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; t.slots[j] != 0; j = (j + 1) & mask {
		o := s.rec(int(t.slots[j] - 1))
		home := uint64(o.hn) & mask
		if byValue {
			home = uint64(o.hv) & mask
		}
		// t[j] may move to i when its home is not in (i, j], cyclically.
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			t.slots[i], t.tags[i] = t.slots[j], t.tags[j]
			i = j
		}
	}
	t.slots[i] = 0
	t.n--
}
