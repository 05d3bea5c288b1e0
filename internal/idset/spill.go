package idset

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
)

// The spill holds one record per id (hash, ordinal, reference), the set's
// exact memory of what was added: the filter is rebuilt from it and every
// "maybe" is settled by it. Records are buffered in memory per shard and
// written, when a shard's buffer is full, as a generation: a temporary
// file holding all buffered records grouped by partition (the top
// partBits of the hash), with the partition boundaries kept in memory. A
// lookup reads one partition of each generation; a shard rebuild reads a
// contiguous run of partitions. Generations are merged four at a time
// (partition by partition, sequentially), so there are at most 3 per level
// and log4(ids/buffer) levels.
//
// In own mode (no Source) the spill also keeps each id's bytes, with the
// caller's position, in an append-only file; the record's reference is the
// offset there. Temporary files are unlinked as soon as they are created,
// so nothing is left behind whatever happens to the process.

const (
	shardBits     = 6
	nShards       = 1 << shardBits
	partBits      = 10
	nParts        = 1 << partBits
	partsPerShard = nParts / nShards
	recSize       = 24
	counterFlag   = 1 << 63 // in rec.ord: a counter id's record (positions only)
	mergeFan      = 4
	idArenaFlush  = 256 << 10
)

type rec struct{ h, ord, ref uint64 }

func (r rec) counter() bool   { return r.ord&counterFlag != 0 }
func (r rec) ordinal() uint64 { return r.ord &^ counterFlag }

type gen struct {
	f     *os.File
	level int
	off   [nParts + 1]uint64 // record index where each partition starts
}

func (g *gen) count() uint64 { return g.off[nParts] }

type spill struct {
	dir    string
	bufCap int
	bufs   [nShards][]rec // records not yet in a generation, by shard
	gens   []*gen

	own     bool
	ids     *os.File
	idArena []byte
	idBase  uint64 // bytes of the id stream already in ids

	rd     []byte // read scratch
	sorted []rec  // flush scratch
	bytes  int64  // bytes of spill files now on disk
}

func newSpill(dir string, perShard int, own bool) *spill {
	return &spill{dir: dir, bufCap: perShard, own: own}
}

func (sp *spill) tempFile() (*os.File, error) {
	dir := sp.dir
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, "tracecheck-idset-*")
	if err != nil {
		return nil, fmt.Errorf("idset: spill file: %w", err)
	}
	// Unlinked while open: the space is freed when the file is closed or
	// the process ends, however it ends.
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("idset: spill file: %w", err)
	}
	return f, nil
}

func (sp *spill) close() {
	for _, g := range sp.gens {
		g.f.Close()
	}
	sp.gens = nil
	if sp.ids != nil {
		sp.ids.Close()
		sp.ids = nil
	}
}

// add buffers a record, writing a generation first when its shard's buffer
// is full.
func (sp *spill) add(r rec) error {
	s := int(r.h >> (64 - shardBits))
	if len(sp.bufs[s]) == sp.bufCap {
		if err := sp.flush(); err != nil {
			return err
		}
	}
	sp.bufs[s] = append(sp.bufs[s], r)
	return nil
}

func (sp *spill) shardBuf(s int) []rec { return sp.bufs[s] }

// bufBytes is the memory of the record buffers.
func (sp *spill) bufBytes() int64 {
	var n int64
	for _, b := range sp.bufs {
		n += int64(cap(b)) * recSize
	}
	return n
}

// appendID keeps id with the caller's position (own mode) and returns its
// reference.
func (sp *spill) appendID(pos uint64, id string) (uint64, error) {
	ref := sp.idBase + uint64(len(sp.idArena))
	sp.idArena = binary.AppendUvarint(sp.idArena, pos)
	sp.idArena = binary.AppendUvarint(sp.idArena, uint64(len(id)))
	sp.idArena = append(sp.idArena, id...)
	if len(sp.idArena) >= idArenaFlush {
		if err := sp.flushIDs(); err != nil {
			return 0, err
		}
	}
	return ref, nil
}

func (sp *spill) flushIDs() error {
	if len(sp.idArena) == 0 {
		return nil
	}
	if sp.ids == nil {
		f, err := sp.tempFile()
		if err != nil {
			return err
		}
		sp.ids = f
	}
	if _, err := sp.ids.Write(sp.idArena); err != nil {
		return fmt.Errorf("idset: spill write: %w", err)
	}
	sp.idBase += uint64(len(sp.idArena))
	sp.bytes += int64(len(sp.idArena))
	if cap(sp.idArena) > 4*idArenaFlush {
		sp.idArena = nil // a very long id grew it
	}
	sp.idArena = sp.idArena[:0]
	return nil
}

// readID returns the position and bytes of the id kept at ref (own mode),
// appending the bytes to dst.
func (sp *spill) readID(dst []byte, ref uint64) (uint64, []byte, error) {
	bad := func() (uint64, []byte, error) {
		return 0, dst, fmt.Errorf("idset: spill: bad id reference %d", ref)
	}
	if ref >= sp.idBase {
		b := sp.idArena[ref-sp.idBase:]
		pos, n1 := binary.Uvarint(b)
		ln, n2 := binary.Uvarint(b[max(n1, 0):])
		if n1 <= 0 || n2 <= 0 || ln > uint64(len(b)-n1-n2) {
			return bad()
		}
		return pos, append(dst, b[n1+n2:n1+n2+int(ln)]...), nil
	}
	var hdr [2 * binary.MaxVarintLen64]byte
	n, err := sp.ids.ReadAt(hdr[:], int64(ref))
	if err != nil && err != io.EOF {
		return 0, dst, fmt.Errorf("idset: spill read: %w", err)
	}
	pos, n1 := binary.Uvarint(hdr[:n])
	ln, n2 := binary.Uvarint(hdr[max(n1, 0):n])
	if n1 <= 0 || n2 <= 0 || ln > sp.idBase-ref {
		return bad()
	}
	start := len(dst)
	dst = append(dst, make([]byte, ln)...)
	if _, err := sp.ids.ReadAt(dst[start:], int64(ref)+int64(n1+n2)); err != nil {
		return 0, dst[:start], fmt.Errorf("idset: spill read: %w", err)
	}
	return pos, dst, nil
}

// flush writes every buffered record as a new generation, then merges.
func (sp *spill) flush() error {
	f, err := sp.tempFile()
	if err != nil {
		return err
	}
	g := &gen{f: f}
	w := bufio.NewWriterSize(f, 64<<10)
	var rb [recSize]byte
	if len(sp.sorted) < sp.bufCap {
		sp.sorted = make([]rec, sp.bufCap)
	}
	var idx uint64
	for s := 0; s < nShards; s++ {
		// Counting sort by the partition bits below the shard's.
		buf := sp.shardBuf(s)
		var at [partsPerShard + 1]int
		for _, r := range buf {
			at[r.h>>(64-partBits)%partsPerShard+1]++
		}
		for p := 0; p < partsPerShard; p++ {
			g.off[s*partsPerShard+p] = idx + uint64(at[p])
			at[p+1] += at[p]
		}
		for _, r := range buf {
			p := r.h >> (64 - partBits) % partsPerShard
			sp.sorted[at[p]] = r
			at[p]++
		}
		// Each partition sorted by hash: a lookup reads a window, not the
		// whole partition.
		start := 0
		for p := 0; p < partsPerShard; p++ {
			slices.SortFunc(sp.sorted[start:at[p]], func(a, b rec) int { return cmp.Compare(a.h, b.h) })
			start = at[p]
		}
		for _, r := range sp.sorted[:len(buf)] {
			putRec(rb[:], r)
			w.Write(rb[:])
		}
		idx += uint64(len(buf))
	}
	g.off[nParts] = idx
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("idset: spill write: %w", err)
	}
	sp.bytes += int64(idx) * recSize
	for i := range sp.bufs {
		sp.bufs[i] = sp.bufs[i][:0]
	}
	sp.gens = append(sp.gens, g)
	if sp.own {
		if err := sp.flushIDs(); err != nil {
			return err
		}
	}
	return sp.mergeTiers()
}

func putRec(b []byte, r rec) {
	binary.LittleEndian.PutUint64(b[0:], r.h)
	binary.LittleEndian.PutUint64(b[8:], r.ord)
	binary.LittleEndian.PutUint64(b[16:], r.ref)
}

func getRec(b []byte) rec {
	return rec{binary.LittleEndian.Uint64(b[0:]), binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:])}
}

// mergeTiers merges the newest mergeFan generations while they share a
// level.
func (sp *spill) mergeTiers() error {
	for len(sp.gens) >= mergeFan {
		tail := sp.gens[len(sp.gens)-mergeFan:]
		level := tail[0].level
		for _, g := range tail {
			if g.level != level {
				return nil
			}
		}
		m, err := sp.merge(tail)
		if err != nil {
			return err
		}
		for _, g := range tail {
			g.f.Close()
			sp.bytes -= int64(g.count()) * recSize
		}
		sp.gens = append(sp.gens[:len(sp.gens)-mergeFan], m)
	}
	return nil
}

// merge writes one generation holding the records of gs, partition by
// partition, each partition's runs merged in hash order, reading each input
// sequentially.
func (sp *spill) merge(gs []*gen) (*gen, error) {
	f, err := sp.tempFile()
	if err != nil {
		return nil, err
	}
	m := &gen{f: f, level: gs[0].level + 1}
	w := bufio.NewWriterSize(f, 64<<10)
	ins := make([]mergeInput, len(gs))
	for i, g := range gs {
		ins[i] = mergeInput{f: g.f, end: int64(g.count()) * recSize, buf: make([]byte, 0, 2730*recSize)} // whole records, about 64 KiB
	}
	left := make([]uint64, len(gs)) // records of the partition still to read, per input
	heads := make([]rec, len(gs))
	var rb [recSize]byte
	next := func(i int) error {
		r, err := ins[i].next()
		heads[i] = r
		left[i]--
		return err
	}
	fail := func(err error) (*gen, error) {
		f.Close()
		return nil, fmt.Errorf("idset: spill merge: %w", err)
	}
	var idx uint64
	for p := 0; p < nParts; p++ {
		m.off[p] = idx
		live := 0 // inputs with a head record
		for i, g := range gs {
			left[i] = g.off[p+1] - g.off[p]
			if left[i] > 0 {
				if err := next(i); err != nil {
					return fail(err)
				}
				live++
			} else {
				heads[i].ord = ^uint64(0) // marks "done"
			}
		}
		for live > 0 {
			best := -1
			for i := range heads {
				if heads[i].ord != ^uint64(0) && (best < 0 || heads[i].h < heads[best].h) {
					best = i
				}
			}
			putRec(rb[:], heads[best])
			w.Write(rb[:])
			idx++
			if left[best] == 0 {
				heads[best].ord = ^uint64(0)
				live--
			} else if err := next(best); err != nil {
				return fail(err)
			}
		}
	}
	m.off[nParts] = idx
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, fmt.Errorf("idset: spill write: %w", err)
	}
	sp.bytes += int64(idx) * recSize
	return m, nil
}

// mergeInput reads a generation's records in order, a buffer at a time.
type mergeInput struct {
	f        *os.File
	off, end int64
	buf      []byte
	at       int
}

func (in *mergeInput) next() (rec, error) {
	if in.at == len(in.buf) {
		n := min(int64(cap(in.buf)), in.end-in.off)
		if n <= 0 {
			return rec{}, io.ErrUnexpectedEOF
		}
		in.buf = in.buf[:n]
		if _, err := in.f.ReadAt(in.buf, in.off); err != nil {
			return rec{}, err
		}
		in.off += n
		in.at = 0
	}
	r := getRec(in.buf[in.at:])
	in.at += recSize
	return r, nil
}

// readRange calls fn with each record [lo, hi) of g, reading in chunks.
func (sp *spill) readRange(g *gen, lo, hi uint64, fn func(r rec) bool) error {
	const chunk = 2730 // records per read, about 64 KiB
	for lo < hi {
		n := min(hi-lo, chunk)
		if cap(sp.rd) < int(n)*recSize {
			sp.rd = make([]byte, chunk*recSize)
		}
		b := sp.rd[:n*recSize]
		if _, err := g.f.ReadAt(b, int64(lo)*recSize); err != nil {
			return fmt.Errorf("idset: spill read: %w", err)
		}
		for i := 0; i < len(b); i += recSize {
			if !fn(getRec(b[i:])) {
				return nil
			}
		}
		lo += n
	}
	return nil
}

// search calls fn with every record whose hash is h, until fn returns
// false.
func (sp *spill) search(h uint64, fn func(r rec) (bool, error)) error {
	var ferr error
	cont := true
	visit := func(r rec) bool {
		if r.h == h && cont {
			cont, ferr = fn(r)
		}
		return cont && ferr == nil
	}
	for _, r := range sp.shardBuf(int(h >> (64 - shardBits))) {
		if !visit(r) {
			return ferr
		}
	}
	for _, g := range sp.gens {
		if err := sp.searchGen(g, h, visit); err != nil {
			return err
		}
		if !cont || ferr != nil {
			return ferr
		}
	}
	return nil
}

// searchWindow is how many records a lookup reads at a time (6 KiB).
const searchWindow = 256

// searchGen calls visit with the records of g whose hash is h. A partition
// is sorted by hash and hashes are uniform, so the first window read, where
// the hash's bits below the partition's say it should be, nearly always
// holds them; otherwise the search halves the range that must.
func (sp *spill) searchGen(g *gen, h uint64, visit func(r rec) bool) error {
	p := h >> (64 - partBits)
	lo, hi := g.off[p], g.off[p+1]
	// [left, right] holds the first record whose hash is >= h.
	left, right := lo, hi
	guess := lo + uint64((h<<partBits)>>32)*(hi-lo)>>32
	for right-left > searchWindow {
		start := min(max(guess, left+searchWindow/2)-searchWindow/2, right-searchWindow)
		b, err := sp.readRecs(g, start, start+searchWindow)
		if err != nil {
			return err
		}
		first, last := getRec(b).h, getRec(b[len(b)-recSize:]).h
		switch {
		case first >= h:
			right = start
		case last < h:
			left = start + searchWindow
		default:
			left, right = start, start+searchWindow // it is in this window
		}
		if right-left > searchWindow {
			guess = left + (right-left)/2
		}
	}
	for at := left; at < hi; at += searchWindow {
		b, err := sp.readRecs(g, at, min(at+searchWindow, hi))
		if err != nil {
			return err
		}
		for i := 0; i < len(b); i += recSize {
			r := getRec(b[i:])
			if r.h > h {
				return nil
			}
			if r.h == h && !visit(r) {
				return nil
			}
		}
	}
	return nil
}

// readRecs reads records [lo, hi) of g into the read scratch.
func (sp *spill) readRecs(g *gen, lo, hi uint64) ([]byte, error) {
	n := int(hi-lo) * recSize
	if cap(sp.rd) < n {
		sp.rd = make([]byte, max(n, searchWindow*recSize))
	}
	b := sp.rd[:n]
	if _, err := g.f.ReadAt(b, int64(lo)*recSize); err != nil {
		return nil, fmt.Errorf("idset: spill read: %w", err)
	}
	return b, nil
}

// eachShard calls fn with every record of shard s.
func (sp *spill) eachShard(s int, fn func(r rec)) error {
	for _, r := range sp.shardBuf(s) {
		fn(r)
	}
	for _, g := range sp.gens {
		err := sp.readRange(g, g.off[s*partsPerShard], g.off[(s+1)*partsPerShard], func(r rec) bool { fn(r); return true })
		if err != nil {
			return err
		}
	}
	return nil
}

// eachPart calls fn with every record of partition p.
func (sp *spill) eachPart(p int, fn func(r rec)) error {
	for _, r := range sp.shardBuf(p / partsPerShard) {
		if int(r.h>>(64-partBits)) == p {
			fn(r)
		}
	}
	for _, g := range sp.gens {
		err := sp.readRange(g, g.off[p], g.off[p+1], func(r rec) bool { fn(r); return true })
		if err != nil {
			return err
		}
	}
	return nil
}
