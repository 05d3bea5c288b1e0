package idset

// cuckoo is one shard of the filter: a cuckoo filter (Fan, Andersen,
// Kaminsky and Mitzenmacher) of 16-bit fingerprints, four to a bucket (one
// uint64), each fingerprint in one of two buckets. The bucket count need
// not be a power of two: the first bucket is a fixed-point multiply of 32
// hash bits, and the alternate bucket (t(fp) - i) mod nb is an involution,
// so a fingerprint can move between its two buckets knowing only itself.
//
// It answers "maybe" for every hash inserted (no false negative, ever) and
// for a hash never inserted with probability at most 8/65535 (two buckets
// of four lanes) plus what the stash adds. A fingerprint already present in
// either bucket is not stored again, so any number of equal hashes fit.
// Insertion that cannot place a fingerprint after maxKicks moves, while the
// table is under maxLoad, puts it in the stash (only crafted or test hashes
// get there); at maxLoad the set rebuilds the shard bigger from its records.
type cuckoo struct {
	b     []uint64
	nb    uint64
	count uint64 // fingerprints stored, stash included
	stash []stashed
	rng   uint64
	kicks uint64 // fingerprints moved to make room, for Stats
}

type stashed struct {
	i  uint64
	fp uint16
}

const (
	growth = 1.5 // a full shard is rebuilt this much bigger
	// smallShard: a shard of fewer records than this is rebuilt 4 times
	// bigger (Set.rebuild).
	smallShard = 1024
	maxLoad    = 0.93
	maxKicks   = 500
	laneOnes   = 0x0001000100010001
	laneHighs  = 0x8000800080008000
)

func newCuckoo(nb uint64) *cuckoo {
	if nb < 1 {
		nb = 1
	}
	return &cuckoo{b: allocWords(int(nb)), nb: nb, rng: 0x9e3779b97f4a7c15}
}

func (c *cuckoo) free() {
	if c.b != nil {
		freeWords(c.b)
		c.b = nil
	}
}

// full reports whether one more fingerprint would pass maxLoad.
func (c *cuckoo) full() bool { return float64(c.count+1) > maxLoad*4*float64(c.nb) }

func fingerprint(h uint64) uint16 {
	fp := uint16(h >> 32)
	if fp == 0 {
		fp = 1 // 0 marks an empty lane
	}
	return fp
}

func (c *cuckoo) index(h uint64) uint64 { return uint64(uint32(h)) * c.nb >> 32 }

func (c *cuckoo) alt(i uint64, fp uint16) uint64 {
	t := (uint64(fp) * 0x9e3779b97f4a7c15 >> 32) % c.nb
	return (t + c.nb - i) % c.nb
}

func hasLane(w uint64, fp uint16) bool {
	x := w ^ uint64(fp)*laneOnes
	return (x-laneOnes)&^x&laneHighs != 0
}

// contains reports whether h may have been inserted.
func (c *cuckoo) contains(h uint64) bool {
	fp := fingerprint(h)
	i1 := c.index(h)
	if hasLane(c.b[i1], fp) || hasLane(c.b[c.alt(i1, fp)], fp) {
		return true
	}
	if len(c.stash) > 0 {
		i2 := c.alt(i1, fp)
		for _, s := range c.stash {
			if s.fp == fp && (s.i == i1 || s.i == i2) {
				return true
			}
		}
	}
	return false
}

// place puts fp in an empty lane of bucket i.
func (c *cuckoo) place(i uint64, fp uint16) bool {
	w := c.b[i]
	for l := 0; l < 64; l += 16 {
		if w>>l&0xffff == 0 {
			c.b[i] = w | uint64(fp)<<l
			return true
		}
	}
	return false
}

// insert adds h. The caller grows the shard first when it is full.
func (c *cuckoo) insert(h uint64) {
	if c.contains(h) {
		return
	}
	c.insertAbsent(h)
}

// insertAbsent adds h, known to answer false to contains: into the emptier
// of its two buckets, else by moving fingerprints to their other bucket.
func (c *cuckoo) insertAbsent(h uint64) {
	fp := fingerprint(h)
	i := c.index(h)
	c.count++
	if j := c.alt(i, fp); freeLanes(c.b[j]) > freeLanes(c.b[i]) {
		i = j
	}
	if c.place(i, fp) {
		return
	}
	for range maxKicks {
		c.rng ^= c.rng << 13
		c.rng ^= c.rng >> 7
		c.rng ^= c.rng << 17
		l := (c.rng & 3) * 16
		old := uint16(c.b[i] >> l)
		c.b[i] = c.b[i]&^(0xffff<<l) | uint64(fp)<<l
		fp = old
		c.kicks++
		i = c.alt(i, fp)
		if c.place(i, fp) {
			return
		}
	}
	c.stash = append(c.stash, stashed{i: i, fp: fp})
}

func freeLanes(w uint64) int {
	n := 0
	for l := 0; l < 64; l += 16 {
		if w>>l&0xffff == 0 {
			n++
		}
	}
	return n
}

// bucketsFor returns the bucket count that holds n fingerprints at
// 1/growth of maxLoad.
func bucketsFor(n uint64) uint64 {
	nb := uint64(float64(n)*growth/(4*maxLoad)) + 1
	return max(nb, 16)
}
