package idset

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"unsafe"
)

// Source reads back ids that the caller keeps itself (a journal file, a
// session file), so that the set need not keep a copy of them. The
// position is the caller's own (an offset, a line): the set stores it with
// each id and hands it back.
type Source interface {
	// ReadID appends to dst the id that was added with position pos.
	ReadID(dst []byte, pos uint64) ([]byte, error)
	// EachID calls fn with the id and position of each of the first n ids
	// added to the set, in the order they were added, and stops at fn's
	// first error. The set calls it at most once in its life, and only
	// when it was decoded: to turn what the encoding keeps (a fingerprint
	// per id, no position) back into exact records. Returning fewer or
	// other ids than were added is reported as an error.
	EachID(n uint64, fn func(id []byte, pos uint64) error) error
}

// Options configure a Set. The zero value is a set that keeps a copy of
// each id in its own spill file in os.TempDir().
type Options struct {
	// Source, when set, reads ids back from the caller's storage, and the
	// position given to Add must be what Source.ReadID takes. When nil,
	// the set keeps each id's bytes and position in its spill.
	Source Source
	// Dir is the directory of the spill's temporary files; "" is
	// os.TempDir(). Small sets never create one.
	Dir string
	// Window is how many recent ids are kept exactly in memory (default
	// 8192), in at most WindowBytes of id bytes (default 1 MiB).
	Window, WindowBytes int
	// CounterPositions makes Lookup return the position of counter ids
	// too, at the cost of a spill record each (without it their Pos is
	// NoPos).
	CounterPositions bool
	// BufferRecords is how many records are buffered in memory before a
	// spill generation is written (default 32768: 768 KiB).
	BufferRecords int
	// Key keys the hash; zero is DefaultKey.
	Key Key
	// Hash replaces the keyed hash; for tests that force collisions. A set
	// encoded with a replaced hash decodes only with one, and the other
	// way round.
	Hash func(id string) uint64
	// CheckpointBits is the precision the encoding keeps beyond
	// log2(ids): about CheckpointBits+2 bits an id, and a decoded set
	// answers "maybe" for an absent id with probability 2^-CheckpointBits
	// (each such maybe is settled exactly, see Source). Default 12, range
	// 8 to 30.
	CheckpointBits int
	// CheckpointWindow is how many of the newest window entries the
	// encoding keeps with their bytes (default 1024).
	CheckpointWindow int
	// MaxLen bounds the ids a decoded set may claim (default 1<<32); the
	// memory Decode allocates is bounded by MaxLen/512 bytes plus a
	// multiple of the encoding's length.
	MaxLen uint64
	// KeepEncoding lets Decode keep the encoding's Elias-Fano words where
	// they are instead of copying them, when they sit 8-byte aligned in
	// memory on a little-endian machine (Encoding.WordsOffset says where
	// they are, so that a caller can lay them out so): the caller must
	// then never change those bytes. It saves a copy and an allocation of
	// about two bytes an id (1.8 MB at a million UUIDs) per decode.
	KeepEncoding bool
}

// TempDirHint says, for an error message, where the spill files of a set
// whose Options.Dir is dir go and how to move them.
func TempDirHint(dir string) string {
	if dir == "" {
		dir = os.TempDir()
	}
	return "temporary files go to " + dir + ": set TMPDIR to a writable directory with space"
}

// NoPos is Entry.Pos when the position is not kept (a counter id without
// Options.CounterPositions).
const NoPos = ^uint64(0)

// Entry is what the set knows of an id: its ordinal (0 for the first id
// added, 1 for the next...) and the position it was added with.
type Entry struct {
	Ord uint64
	Pos uint64
}

// Set is an exact set of ids (strings) in the order they were added; see
// the package documentation. It is not safe for concurrent use.
type Set struct {
	opt    Options
	hashFn func(string) uint64

	n    uint64 // ids added: the next ordinal
	nGen uint64 // ids on the general path (records in the filter or frozen)

	// Counter ids: a style is adopted when two consecutive ids agree on it
	// (candidate is the last id's); from then on the ids it numbers in
	// order are bits.
	hasStyle  bool
	style     counterStyle
	candidate counterStyle // its prefix is a view of candBuf
	hasCand   bool
	candBuf   []byte
	bits      ordBits

	// Counter-like ids on the general path: before a style is adopted, up
	// to maxPreCounter of them (copies; preOver once more came); after,
	// the numbers of those the style parses, up to maxGenNums. While these
	// stay small (exclusive), an id that the style parses, whose bit is
	// clear and whose number is not among them, is absent: no hash, no
	// filter.
	preCounter []string
	preOver    bool
	genNums    []int64 // sorted
	exclusive  bool

	win        *window
	*resources                 // the filter shards and the spill
	shardRecs  [nShards]uint64 // general records per shard

	// A decoded set: the top frozenP bits of the hash of each general id
	// among its first frozenN ordinals, until upgrade replaces them with
	// records read back from the Source.
	frozen  *ef
	frozenN uint64
	frozenP uint

	// vouched is an id the caller vouched is not among the frozen ones
	// (Vouch), until it is added.
	vouched    []byte
	hasVouched bool

	err     error  // the first I/O error; the set is unusable after it
	scratch []byte // ids read back
	probe   probe  // what find learnt of the id it looked up last
}

// resources are what the set holds outside the Go heap (filter tables) or
// in files: Close releases them, and so does the collector for a set that
// was never closed (they do not point back to the Set).
type resources struct {
	shards [nShards]*cuckoo
	sp     *spill
}

func (r *resources) release() {
	for i, c := range r.shards {
		if c != nil {
			c.free()
			r.shards[i] = nil
		}
	}
	if r.sp != nil {
		r.sp.close()
		r.sp = nil
	}
}

const (
	maxPreCounter = 64
	maxGenNums    = 1024
)

// Defaults.
const (
	DefaultWindow         = 8192
	DefaultWindowBytes    = 1 << 20
	DefaultBufferRecords  = 1 << 15
	DefaultCheckpointBits = 12
	DefaultCheckpointWin  = 1024
	DefaultMaxLen         = 1 << 32
)

// New returns an empty set.
func New(opt Options) *Set {
	if opt.Window <= 0 {
		opt.Window = DefaultWindow
	}
	if opt.WindowBytes <= 0 {
		opt.WindowBytes = DefaultWindowBytes
	}
	if opt.BufferRecords <= 0 {
		opt.BufferRecords = DefaultBufferRecords
	}
	if opt.CheckpointBits == 0 {
		opt.CheckpointBits = DefaultCheckpointBits
	}
	opt.CheckpointBits = min(max(opt.CheckpointBits, 8), 30)
	if opt.CheckpointWindow <= 0 {
		opt.CheckpointWindow = DefaultCheckpointWin
	}
	if opt.MaxLen == 0 {
		opt.MaxLen = DefaultMaxLen
	}
	if opt.Key == (Key{}) {
		opt.Key = DefaultKey
	}
	s := &Set{opt: opt, hashFn: opt.Hash, resources: &resources{}}
	if s.hashFn == nil {
		key := opt.Key
		s.hashFn = func(id string) uint64 { return sipHash13(key, id) }
	}
	runtime.AddCleanup(s, func(r *resources) { r.release() }, s.resources)
	return s
}

// Close releases the set's memory outside the Go heap and its spill files.
// The set must not be used afterwards.
func (s *Set) Close() error {
	s.release()
	s.err = errors.New("idset: set is closed")
	return nil
}

// Len returns the number of ids added.
func (s *Set) Len() uint64 { return s.n }

// Lookup reports whether id was added, with its entry. The error is an I/O
// error of the spill or the Source; after one, the set answers only with
// that error.
func (s *Set) Lookup(id string) (Entry, bool, error) {
	if s.err != nil {
		return Entry{}, false, s.err
	}
	if o, state := s.counterFast(id); state != counterUnknown {
		return Entry{Ord: o, Pos: NoPos}, state == counterPresent, nil
	}
	e, ok, err := s.find(id)
	if err != nil {
		s.err = err
	}
	return e, ok, err
}

// Known is Lookup without reading ids back through the Source: sure is
// false when only that could settle whether id is there (a decoded set
// whose fingerprints match id and whose records do not; found is then
// false), and the entry of a counter id has no position (NoPos) where
// Options.CounterPositions would read it back. A caller free to pick another id (a writer numbering its next
// event) uses it to never pay for that read: about one absent id in
// 2^CheckpointBits is unsure.
func (s *Set) Known(id string) (e Entry, found, sure bool, err error) {
	if s.err != nil {
		return Entry{}, false, false, s.err
	}
	if o, state := s.counterFast(id); state != counterUnknown {
		return Entry{Ord: o, Pos: NoPos}, state == counterPresent, true, nil
	}
	e, found, err = s.lookup(id, false)
	if err == errUnsure {
		return Entry{}, false, false, nil
	}
	if err != nil {
		s.err = err
	}
	return e, found, err == nil, err
}

// Vouch tells a decoded set that id is none of the ids it was decoded with
// (its first Len() ids at Decode), because the caller knows: the session
// store vouches for an event that a writer admitted against the same
// checkpoint, when a receipt proves the bytes are the ones it admitted.
// Until id is added, lookups of id skip the decoded fingerprints, so that
// a false "maybe" of theirs does not make the set read every older id
// back; everything else about id is answered as before. One id is vouched
// for at a time (a new Vouch replaces it; "" withdraws it). A vouch that is
// wrong makes the set hold id twice: the caller must know.
func (s *Set) Vouch(id string) {
	s.vouched, s.hasVouched = append(s.vouched[:0], id...), id != ""
}

func (s *Set) isVouched(id string) bool {
	return s.hasVouched && string(s.vouched) == id
}

// Add adds id with the caller's position unless it is already in the set.
// It returns the id's entry, and whether it was added now.
func (s *Set) Add(id string, pos uint64) (Entry, bool, error) {
	if s.err != nil {
		return Entry{}, false, s.err
	}
	switch o, state := s.counterFast(id); {
	case state == counterPresent:
		return Entry{Ord: o, Pos: NoPos}, false, nil
	case state == counterAbsent && o == s.n:
		// The style's id of the next ordinal: a bit, as add would make it.
		s.bits.set(o)
		s.n++
		return Entry{Ord: o, Pos: NoPos}, true, nil
	}
	e, ok, err := s.find(id)
	if err == nil && !ok {
		e, err = s.add(id, pos)
	}
	if err != nil {
		s.err = err
		return Entry{}, false, err
	}
	return e, !ok, nil
}

func (s *Set) window() *window {
	if s.win == nil {
		s.win = newWindow(s.opt.Window, s.opt.WindowBytes)
	}
	return s.win
}

func (s *Set) spill() *spill {
	if s.sp == nil {
		s.sp = newSpill(s.opt.Dir, max(s.opt.BufferRecords/nShards, 1), s.opt.Source == nil)
	}
	return s.sp
}

// What counterFast knows of an id.
const (
	counterUnknown = iota // find must say
	counterPresent
	counterAbsent
)

// counterFast answers for an id of the adopted style without find's
// bookkeeping, when the set keeps no positions for counter ids: present
// when its bit is set; absent while the set is exclusive and the id's
// number never took the general path (find's first answers, the same
// invariants). o is the ordinal the id's number stands for.
func (s *Set) counterFast(id string) (o uint64, state int) {
	if !s.hasStyle || s.opt.CounterPositions {
		return 0, counterUnknown
	}
	k, ok := s.style.parse(id)
	if !ok {
		return 0, counterUnknown
	}
	o, ok = s.style.ordinal(k)
	switch {
	case ok && o < s.n && s.bits.has(o):
		return o, counterPresent
	case ok && s.exclusive && !s.generalNumber(k):
		return o, counterAbsent
	}
	return 0, counterUnknown
}

// probe is what find learnt of an id that add can use again.
type probe struct {
	h      uint64 // the hash, when hashed
	hashed bool
	k      int64 // the counter style's number, when parsed
	parsed bool
	tried  bool // parse was tried under the current style
	// filterAbsent: the hash's shard existed and its filter answered
	// "absent" for h, so add inserts it without asking again.
	filterAbsent bool
}

// find looks id up: counter bits, the newest window entry (most parents
// name the event just before), the window, the filter, then the records
// for a filter's maybe. What it learns of id is left in s.probe for add.
func (s *Set) find(id string) (e Entry, ok bool, err error) { return s.lookup(id, true) }

// errUnsure: lookup without readBack could not settle the id.
var errUnsure = errors.New("idset: only the decoded ids could say")

// lookup is find; without readBack it returns errUnsure where find would
// read the decoded ids back.
func (s *Set) lookup(id string, readBack bool) (e Entry, ok bool, err error) {
	p := &s.probe
	*p = probe{}
	if s.hasStyle {
		p.tried = true
		if p.k, p.parsed = s.style.parse(id); p.parsed {
			if o, ok := s.style.ordinal(p.k); ok && o < s.n && s.bits.has(o) {
				if !s.opt.CounterPositions || !readBack {
					return Entry{Ord: o, Pos: NoPos}, true, nil
				}
				e, ok, err := s.counterEntry(id, o)
				return e, ok, err
			}
			if s.exclusive && !s.generalNumber(p.k) {
				return Entry{}, false, nil
			}
		}
	}
	if s.win != nil {
		if we, ok := s.win.lastIs(id); ok {
			return Entry{Ord: we.ord, Pos: we.pos}, true, nil
		}
	}
	p.h, p.hashed = s.hashFn(id), true
	h := p.h
	if s.win != nil {
		if we, ok := s.win.find(h, id); ok {
			return Entry{Ord: we.ord, Pos: we.pos}, true, nil
		}
	}
	sh := s.shards[h>>(64-shardBits)]
	frozenMaybe := s.frozen != nil && !s.isVouched(id) && s.frozen.contains(h>>(64-s.frozenP))
	if !frozenMaybe && (sh == nil || !sh.contains(h)) {
		p.filterAbsent = sh != nil
		return Entry{}, false, nil
	}
	e, ok, err = s.confirm(id, h)
	if err != nil || ok || !frozenMaybe {
		return e, ok, err
	}
	if !readBack {
		return Entry{}, false, errUnsure
	}
	// Only the fingerprints of the decoded ids could say: read them back.
	if err := s.upgrade(); err != nil {
		return Entry{}, false, err
	}
	e, ok, err = s.confirm(id, h)
	return e, ok, err
}

// counterEntry is the entry of the counter id at ordinal o, with its
// position (Options.CounterPositions).
func (s *Set) counterEntry(id string, o uint64) (Entry, bool, error) {
	h := s.hashFn(id)
	if s.win != nil {
		if e, ok := s.win.find(h, id); ok {
			return Entry{Ord: e.ord, Pos: e.pos}, true, nil
		}
	}
	if o < s.frozenN { // decoded: only the Source knows its position
		if err := s.upgrade(); err != nil {
			return Entry{}, false, err
		}
	}
	e := Entry{Ord: o, Pos: NoPos}
	var found bool
	err := s.searchRecords(h, func(r rec) (bool, error) {
		if !r.counter() || r.ordinal() != o {
			return true, nil
		}
		pos, _, err := s.resolve(r, false)
		e.Pos, found = pos, true
		return false, err
	})
	if err == nil && !found {
		err = fmt.Errorf("idset: no position for counter id at ordinal %d", o)
	}
	return e, true, err
}

func (s *Set) searchRecords(h uint64, fn func(r rec) (bool, error)) error {
	if s.sp == nil {
		return nil
	}
	return s.sp.search(h, fn)
}

// confirm settles a filter's maybe: the records with hash h, compared byte
// for byte with id.
func (s *Set) confirm(id string, h uint64) (Entry, bool, error) {
	var e Entry
	var found bool
	err := s.searchRecords(h, func(r rec) (bool, error) {
		if r.counter() {
			return true, nil
		}
		pos, got, err := s.resolve(r, true)
		if err != nil {
			return false, err
		}
		if string(got) == id {
			e, found = Entry{Ord: r.ordinal(), Pos: pos}, true
			return false, nil
		}
		return true, nil
	})
	if found {
		s.window().insert(h, id, e.Ord, e.Pos) // a parent named once is often named again
	}
	return e, found, err
}

// resolve returns the position of a record and, when wantID, its id bytes
// (in s.scratch).
func (s *Set) resolve(r rec, wantID bool) (uint64, []byte, error) {
	if s.opt.Source == nil {
		pos, id, err := s.sp.readID(s.scratch[:0], r.ref)
		s.scratch = id
		return pos, id, err
	}
	if !wantID {
		return r.ref, nil, nil
	}
	id, err := s.opt.Source.ReadID(s.scratch[:0], r.ref)
	if err != nil {
		return 0, nil, fmt.Errorf("idset: reading back the id at position %d: %w", r.ref, err)
	}
	s.scratch = id
	return r.ref, id, nil
}

// bytesView is b as a string without a copy; the set copies what it keeps.
func bytesView(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// Stats describe where a set's bytes are.
type Stats struct {
	IDs, CounterIDs uint64
	FilterBytes     int64 // the shards' tables (outside the Go heap)
	FrozenBytes     int64 // a decoded set's fingerprints
	FrozenInPlace   bool  // they are the encoding's own bytes (Options.KeepEncoding)
	WindowBytes     int64
	BufferBytes     int64 // spill records and id bytes not yet written
	CounterBytes    int64 // counter bits
	SpillBytes      int64 // on disk now
	Generations     int
}

// Stats returns the set's current memory and disk use.
func (s *Set) Stats() Stats {
	st := Stats{IDs: s.n, CounterIDs: s.bits.ones}
	for _, c := range s.shards {
		if c != nil {
			st.FilterBytes += int64(c.nb)*8 + int64(cap(c.stash))*16
		}
	}
	if s.frozen != nil {
		st.FrozenBytes = int64(len(s.frozen.low)+len(s.frozen.high)+len(s.frozen.samples)) * 8
		st.FrozenInPlace = s.frozen.inPlace
	}
	if s.win != nil {
		st.WindowBytes = int64(len(s.win.arena) + len(s.win.ents)*int(unsafe.Sizeof(winEntry{})) + len(s.win.table)*4)
	}
	if s.sp != nil {
		st.BufferBytes = s.sp.bufBytes() + int64(cap(s.sp.idArena))
		st.SpillBytes = s.sp.bytes
		st.Generations = len(s.sp.gens)
	}
	st.CounterBytes = int64(len(s.bits.chunks)) * 8
	for _, c := range s.bits.chunks {
		if c != nil && c != fullChunk {
			st.CounterBytes += chunkWords * 8
		}
	}
	return st
}
