package idset

// window keeps the most recently added (or confirmed) ids exactly: their
// bytes in a ring arena, with their hash, ordinal and position, indexed by
// an open-addressing table. It answers nearly every parent lookup without
// touching the filter or the disk. It is a cache: the set's answers never
// depend on what it holds, only their speed.
type window struct {
	ents  []winEntry // a ring of at most len(ents) entries
	head  int        // index of the oldest entry
	count int
	arena []byte   // id bytes, allocated as a ring in entry order
	used  int      // arena bytes held by live entries, gaps included
	wp    int      // where the next id's bytes go
	table []uint32 // 0 empty, else 1 + index into ents
	mask  uint64
}

type winEntry struct {
	h        uint64
	ord, pos uint64
	off, n   uint32
	gap      uint32 // arena bytes skipped before off (a wrap)
}

func newWindow(entries, bytes int) *window {
	size := 1
	for size < 2*entries {
		size <<= 1
	}
	return &window{
		ents:  make([]winEntry, entries),
		arena: make([]byte, bytes),
		table: make([]uint32, size),
		mask:  uint64(size - 1),
	}
}

func (w *window) slot(h uint64) uint64 { return (h ^ h>>29) & w.mask }

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

// last returns the newest entry and its id.
func (w *window) last() (winEntry, string, bool) {
	if w.count == 0 {
		return winEntry{}, "", false
	}
	e := w.ents[(w.head+w.count-1)%len(w.ents)]
	return e, string(w.arena[e.off : e.off+e.n]), true
}

// insert adds an id that is not in the window, evicting the oldest entries
// as needed. Ids longer than an eighth of the arena are not kept.
func (w *window) insert(h uint64, id string, ord, pos uint64) {
	n := len(id)
	if n > len(w.arena)/8 {
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
	idx := (w.head + w.count) % len(w.ents)
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
