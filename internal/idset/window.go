package idset

// window keeps the most recently added (or confirmed) ids exactly: their
// bytes in a ring arena, with their hash, ordinal and position, indexed by
// an open-addressing table. It answers nearly every parent lookup without
// touching the filter or the disk. It is a cache: the set's answers never
// depend on what it holds, only their speed.
type window struct {
	maxEnts, maxBytes int        // it grows up to these, then evicts
	ents              []winEntry // a ring of at most len(ents) entries
	head              int        // index of the oldest entry
	newest            int        // index of the newest, when count > 0
	count             int
	arena             []byte   // id bytes, allocated as a ring in entry order
	used              int      // arena bytes held by live entries, gaps included
	wp                int      // where the next id's bytes go
	table             []uint32 // 0 empty, else 1 + index into ents
	mask              uint64
	shift             uint
}

type winEntry struct {
	h        uint64
	ord, pos uint64
	off, n   uint32
	gap      uint32 // arena bytes skipped before off (a wrap)
}

func newWindow(maxEntries, maxBytes int) *window {
	return newWindowSized(maxEntries, maxBytes, 64, 4096)
}

// newWindowSized is newWindow with room for entries ids in bytes from the
// start (a decoded set knows how many it restores).
func newWindowSized(maxEntries, maxBytes, entries, bytes int) *window {
	w := &window{maxEnts: maxEntries, maxBytes: maxBytes}
	w.resize(min(max(entries, 64), maxEntries), min(max(bytes, 4096), maxBytes))
	return w
}

// resize reallocates the window for entries ids in bytes of arena, keeping
// the newest entries that fit.
func (w *window) resize(entries, bytes int) {
	old := *w
	size, shift := 2, uint(63)
	for size < 2*entries {
		size <<= 1
		shift--
	}
	w.ents = make([]winEntry, entries)
	w.arena = make([]byte, bytes)
	w.table = make([]uint32, size)
	w.mask, w.shift = uint64(size-1), shift
	w.head, w.count, w.used, w.wp = 0, 0, 0, 0
	if old.count == 0 {
		return
	}
	old.each(old.count, func(e winEntry, id string) { w.put(e.h, id, e.ord, e.pos) })
}

// slot is the home of hash h: a multiplicative hash of all its bits, so
// that hashes which differ in a few bits only still spread.
func (w *window) slot(h uint64) uint64 { return (h * 0x9e3779b97f4a7c15) >> w.shift }

// find returns the entry of id (hash h).
func (w *window) find(h uint64, id string) (winEntry, bool) {
	for i := w.slot(h); ; i = (i + 1) & w.mask {
		v := w.table[i]
		if v == 0 {
			return winEntry{}, false
		}
		e := &w.ents[v-1]
		if e.h == h && string(w.arena[e.off:e.off+e.n]) == id {
			return *e, true
		}
	}
}

// lastIs returns the newest entry when it is id's.
func (w *window) lastIs(id string) (winEntry, bool) {
	if w.count == 0 {
		return winEntry{}, false
	}
	e := &w.ents[w.newest]
	return *e, string(w.arena[e.off:e.off+e.n]) == id
}

// insert adds an id that is not in the window, evicting the oldest entries
// as needed. Ids longer than an eighth of the arena are not kept.
func (w *window) insert(h uint64, id string, ord, pos uint64) {
	n := len(id)
	if n > w.maxBytes/8 {
		return
	}
	for (w.count == len(w.ents) && len(w.ents) < w.maxEnts) || (w.used+2*n > len(w.arena) && len(w.arena) < w.maxBytes) {
		w.resize(min(2*len(w.ents), w.maxEnts), min(2*len(w.arena), w.maxBytes))
	}
	w.put(h, id, ord, pos)
}

// put inserts without growing the window.
func (w *window) put(h uint64, id string, ord, pos uint64) {
	n := len(id)
	if n > len(w.arena) {
		return
	}
	if w.count == len(w.ents) {
		w.evict()
	}
	var gap, off int
	for {
		if w.count == 0 {
			w.wp, w.used = 0, 0
		}
		off, gap = w.wp, 0
		if tail := len(w.arena) - w.wp; tail < n {
			off, gap = 0, tail // wrap: the tail is skipped
		}
		if len(w.arena)-w.used >= gap+n {
			break
		}
		w.evict()
	}
	copy(w.arena[off:], id)
	w.wp = off + n
	w.used += gap + n
	idx := w.head + w.count
	if idx >= len(w.ents) {
		idx -= len(w.ents)
	}
	w.newest = idx
	w.ents[idx] = winEntry{h: h, ord: ord, pos: pos, off: uint32(off), n: uint32(n), gap: uint32(gap)}
	w.count++
	i := w.slot(h)
	for w.table[i] != 0 {
		i = (i + 1) & w.mask
	}
	w.table[i] = uint32(idx + 1)
}

// evict drops the oldest entry.
func (w *window) evict() {
	idx := w.head
	e := &w.ents[idx]
	w.used -= int(e.gap + e.n)
	w.head = (w.head + 1) % len(w.ents)
	w.count--
	// Find its slot, then close the hole (backward-shift deletion).
	i := w.slot(e.h)
	for w.table[i] != uint32(idx+1) {
		i = (i + 1) & w.mask
	}
	for {
		w.table[i] = 0
		j := i
		for {
			j = (j + 1) & w.mask
			v := w.table[j]
			if v == 0 {
				return
			}
			home := w.slot(w.ents[v-1].h)
			// Move v back into the hole when its home is not in (i, j].
			if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
				w.table[i] = v
				i = j
				break
			}
		}
	}
}

// each calls fn with the last n entries, oldest first.
func (w *window) each(n int, fn func(e winEntry, id string)) {
	if n > w.count {
		n = w.count
	}
	for k := w.count - n; k < w.count; k++ {
		e := w.ents[(w.head+k)%len(w.ents)]
		fn(e, string(w.arena[e.off:e.off+e.n]))
	}
}
