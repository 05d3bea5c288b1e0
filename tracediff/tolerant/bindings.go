package tolerant

import (
	"hash/maphash"
)

// bindings holds a Matcher's bindings: for each, the name, the canonical
// JSON of the value, the expected line and the pointer where it was made;
// found by name and by value. A trace of a few hundred thousand events
// binds as many names, so they are kept flat, where the collector has
// nothing to scan: the bytes in chunks of an arena, the records in chunks,
// two open-addressing tables of record numbers (linear probing, deletion
// by backward shift, for Rollback). About 32 bytes a binding plus its
// bytes plus 16 bytes of tables.
type bindings struct {
	seed   maphash.Seed
	arena  [][]byte    // chunks of name+canon+ptr bytes
	recs   [][]bindRec // chunks of recChunk records
	n      int
	byName []uint32 // record number + 1; 0 is empty
	byVal  []uint32
}

type bindRec struct {
	off                      uint64 // chunk<<32 | position of name, canon, ptr
	nameLen, canonLen, ptrLn uint32
	line                     int
}

const (
	arenaChunk = 1 << 20
	recChunk   = 8192
)

func newBindings() bindings { return bindings{seed: maphash.MakeSeed()} }

func (s *bindings) rec(i int) *bindRec { return &s.recs[i/recChunk][i%recChunk] }

// bytes returns the name, canonical value and pointer of record i (views).
func (s *bindings) bytes(i int) (name, canon, ptr []byte) {
	r := s.rec(i)
	c := s.arena[r.off>>32]
	p := int(r.off & (1<<32 - 1))
	name = c[p : p+int(r.nameLen)]
	canon = c[p+int(r.nameLen) : p+int(r.nameLen)+int(r.canonLen)]
	ptr = c[p+int(r.nameLen)+int(r.canonLen) : p+int(r.nameLen)+int(r.canonLen)+int(r.ptrLn)]
	return
}

func (s *bindings) binding(i int) binding {
	_, canon, ptr := s.bytes(i)
	return binding{canon: string(canon), line: s.rec(i).line, ptr: string(ptr)}
}

func (s *bindings) name(i int) string { n, _, _ := s.bytes(i); return string(n) }

func (s *bindings) hashName(name []byte) uint64 { return maphash.Bytes(s.seed, name) }
func (s *bindings) hashVal(canon []byte) uint64 {
	return maphash.Bytes(s.seed, canon) * 0x9e3779b97f4a7c15 // another hash than names'
}

// find returns the record whose name (byValue: canonical value) is b, or -1.
func (s *bindings) find(b []byte, byValue bool) int {
	t, h := s.byName, uint64(0)
	if byValue {
		t, h = s.byVal, s.hashVal(b)
	} else {
		h = s.hashName(b)
	}
	if len(t) == 0 {
		return -1
	}
	mask := uint64(len(t) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		r := t[i]
		if r == 0 {
			return -1
		}
		name, canon, _ := s.bytes(int(r - 1))
		k := name
		if byValue {
			k = canon
		}
		if string(k) == string(b) {
			return int(r - 1)
		}
	}
}

// add records a binding; name must not be bound, nor canon bound to a
// name.
func (s *bindings) add(name, canon, ptr []byte, line int) {
	size := len(name) + len(canon) + len(ptr)
	last := len(s.arena) - 1
	if last < 0 || len(s.arena[last])+size > cap(s.arena[last]) {
		s.arena = append(s.arena, make([]byte, 0, max(arenaChunk, size)))
		last++
	}
	c := s.arena[last]
	off := uint64(last)<<32 | uint64(len(c))
	c = append(c, name...)
	c = append(c, canon...)
	s.arena[last] = append(c, ptr...)
	if s.n%recChunk == 0 && s.n/recChunk == len(s.recs) {
		s.recs = append(s.recs, make([]bindRec, recChunk))
	}
	*s.rec(s.n) = bindRec{off: off, nameLen: uint32(len(name)), canonLen: uint32(len(canon)), ptrLn: uint32(len(ptr)), line: line}
	s.n++
	if 2*s.n > len(s.byName) {
		s.rehash(max(64, 4*s.n))
		return
	}
	s.insert(s.byName, s.hashName(name), s.n)
	s.insert(s.byVal, s.hashVal(canon), s.n)
}

func (s *bindings) insert(t []uint32, h uint64, r int) {
	mask := uint64(len(t) - 1)
	i := h & mask
	for t[i] != 0 {
		i = (i + 1) & mask
	}
	t[i] = uint32(r)
}

// rehash builds both tables anew with size slots (a power of two).
func (s *bindings) rehash(size int) {
	n := 1
	for n < size {
		n <<= 1
	}
	s.byName, s.byVal = make([]uint32, n), make([]uint32, n)
	for i := 0; i < s.n; i++ {
		name, canon, _ := s.bytes(i)
		s.insert(s.byName, s.hashName(name), i+1)
		s.insert(s.byVal, s.hashVal(canon), i+1)
	}
}

// truncate forgets the records from mark on, the newest first.
func (s *bindings) truncate(mark int) {
	for s.n > mark {
		i := s.n - 1
		name, canon, _ := s.bytes(i)
		s.remove(s.byName, s.hashName(name), i+1, false)
		s.remove(s.byVal, s.hashVal(canon), i+1, true)
		r := s.rec(i)
		c := r.off >> 32
		s.arena[c] = s.arena[c][:r.off&(1<<32-1)]
		if len(s.arena[c]) == 0 && int(c) == len(s.arena)-1 {
			s.arena = s.arena[:c]
		}
		s.n--
	}
}

// remove deletes record r from table t, moving back the records after it
// that would no longer be found.
func (s *bindings) remove(t []uint32, h uint64, r int, byValue bool) {
	mask := uint64(len(t) - 1)
	i := h & mask
	for t[i] != uint32(r) {
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; t[j] != 0; j = (j + 1) & mask {
		name, canon, _ := s.bytes(int(t[j] - 1))
		var home uint64
		if byValue {
			home = s.hashVal(canon) & mask
		} else {
			home = s.hashName(name) & mask
		}
		// t[j] may move to i when its home is not in (i, j], cyclically.
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			t[i] = t[j]
			i = j
		}
	}
	t[i] = 0
}
