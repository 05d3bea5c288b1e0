package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strings"
	"unsafe"

	"github.com/tracecheck/tracecheck/internal/bincodec"
	"github.com/tracecheck/tracecheck/internal/idset"
)

// RunChecker enforces the journal invariants on a stream of events, one at
// a time, so that a file never has to be held in memory to be checked.
//
// The event ids seen so far are kept in an internal/idset.Set: counter ids
// in order (evt-%03d, evt-%07d, ...) cost a bit each, any other id a few
// bytes of memory and a record in a temporary file (unlinked when created),
// and the answers are exact. A checker must not be copied; Mark and
// Rollback take back what it accepted.
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

// RunIDs is where a RunChecker made by NewRunCheckerOver finds the run's
// event ids: the caller keeps them (a session store's index of the whole
// session) and adds an event's id when it keeps the event.
type RunIDs interface {
	// HasRunEvent reports whether the run holds an event with this id.
	HasRunEvent(id string) (bool, error)
}

// NewRunCheckerOver checks one single-run journal as NewRunChecker does,
// but asks ids whether the run holds an id (a parent, the event's own)
// and keeps no id itself: a caller that already indexes every event
// spends no memory twice. An error from ids is READ_FAILED.
func NewRunCheckerOver(ids RunIDs) *RunChecker {
	return &RunChecker{single: true, ids: idSet{st: &idState{ext: ids}}}
}

// newGroupChecker checks one (session, run) group of a multi-run file; the
// caller has already grouped the events.
func newGroupChecker() *RunChecker {
	return &RunChecker{}
}

// Close releases the temporary file and the memory outside the Go heap
// that the checker's id set may hold (the collector releases them too,
// later). The checker must not be used afterwards.
func (c *RunChecker) Close() error {
	if c.ids.st != nil && c.ids.st.set != nil {
		c.ids.st.set.Close()
		c.ids.st.set = nil
		c.ids.st.err = errors.New("journal: the run checker is closed")
	}
	return nil
}

// noOffset is the position of an event checked without its line's offset
// (Check rather than the streaming pass).
const noOffset = -1

// Check applies the invariants to the next event. Line and File of the
// returned error are left for the caller.
func (c *RunChecker) Check(e *Event) *Error { return c.checkAt(e, noOffset) }

// checkAt is Check for the event of the line at byte offset off of its
// file: the id set keeps the offset, so that a set restored from a compact
// state can read the id back from the file (RestoreCompactState).
func (c *RunChecker) checkAt(e *Event, off int64) *Error {
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
	return checkRun(e, &c.next, &c.ids, off)
}

// checkRun applies the invariants of one run to e: next is the sequence
// the run expects (updated), ids the run's event ids (e's id is added
// unless it is a duplicate).
func checkRun(e *Event, next *int64, ids *idSet, off int64) *Error {
	if e.Sequence != *next {
		// want is printed unsigned: after a sequence of math.MaxInt64 the
		// run expects 2^63, which next (wrapped) holds as uint64.
		want := *next
		*next = e.Sequence + 1 // resynchronise: report each gap once, not every later event
		return remember(e, ids, off, &Error{EventID: e.EventID, Code: SequenceGap, Pointer: "/sequence",
			Msg: fmt.Sprintf("sequence %d where %d was expected: sequences start at 0 and are contiguous", e.Sequence, uint64(want))})
	}
	*next++
	if e.ParentEventID != "" {
		found, err := ids.lookup(e.ParentEventID)
		if err != nil {
			return idsFailed(e, err)
		}
		if !found {
			return remember(e, ids, off, &Error{EventID: e.EventID, Code: ParentNotEarlier, Pointer: "/parent_event_id",
				Msg: fmt.Sprintf("parent_event_id %q names no earlier event of this run", e.ParentEventID)})
		}
	}
	added, err := ids.add(e.EventID, off)
	if err != nil {
		return idsFailed(e, err)
	}
	if !added {
		return &Error{EventID: e.EventID, Code: DuplicateEventID, Pointer: "/event_id",
			Msg: fmt.Sprintf("event_id %q appears earlier in this run", e.EventID)}
	}
	return nil
}

// remember records e's id after a problem that does not make the id a
// duplicate, so that later events are judged against it.
func remember(e *Event, ids *idSet, off int64, problem *Error) *Error {
	if _, err := ids.add(e.EventID, off); err != nil {
		return idsFailed(e, err)
	}
	return problem
}

// idsFailed is the error for an id set that could not be written or read
// back (its temporary files, or the journal a restored set reads ids
// from): the check cannot go on.
func idsFailed(e *Event, err error) *Error {
	return &Error{EventID: e.EventID, Code: ReadFailed,
		Msg: fmt.Sprintf("the event ids seen so far could not be kept or read back: %v (%s)", err, idset.TempDirHint(""))}
}

// idSet is a run's event ids: a handle on state that copies of the
// checker (Mark) share, so that what one copy records the others see.
type idSet struct {
	st *idState
	// keyed makes this the run numbered run of a set shared by the runs of
	// a file (runGroups): its ids are keyed by the run. Only an unkeyed set
	// takes ids back (remove).
	keyed bool
	run   uint64
}

type idState struct {
	set *idset.Set    // created with the first id
	opt idset.Options // the set's; tests make hashes collide here
	ext RunIDs        // instead of set: the caller's ids (NewRunCheckerOver)
	// removed holds ids taken back (Rollback) that the set, which never
	// forgets, still holds: rare, and only in a session store.
	removed   map[string]struct{}
	noOffsets bool   // an id was added without its line's offset
	restored  bool   // restored from a compact state: ids are read back from the file
	key       []byte // scratch: a shared set's key
	err       error  // after Close
}

func (s idSet) key(id string) string {
	if !s.keyed {
		return id
	}
	k := binary.AppendUvarint(s.st.key[:0], s.run)
	k = append(k, id...)
	s.st.key = k
	return unsafe.String(unsafe.SliceData(k), len(k))
}

// lookup reports whether id was added (and not taken back).
func (s idSet) lookup(id string) (bool, error) {
	if s.st != nil && s.st.ext != nil {
		return s.st.ext.HasRunEvent(id)
	}
	if s.st == nil || s.st.set == nil {
		if s.st != nil && s.st.err != nil {
			return false, s.st.err
		}
		return false, nil
	}
	_, found, err := s.st.set.Lookup(s.key(id))
	if found && s.st.removed != nil {
		if _, gone := s.st.removed[id]; gone {
			return false, nil
		}
	}
	return found, err
}

// has is lookup for callers that check the set's error later: an error
// sticks in the set, and the next Check reports it.
func (s idSet) has(id string) bool {
	found, _ := s.lookup(id)
	return found
}

// add adds id, at the byte offset off of its line (noOffset when unknown),
// and reports whether it was new.
func (s *idSet) add(id string, off int64) (bool, error) {
	if s.st == nil {
		s.st = &idState{}
	}
	st := s.st
	if st.ext != nil {
		found, err := st.ext.HasRunEvent(id)
		return !found, err
	}
	if st.set == nil {
		if st.err != nil {
			return false, st.err
		}
		st.set = idset.New(st.opt)
	}
	pos := uint64(off)
	if off < 0 {
		if st.restored {
			return false, errors.New("journal: a checker restored from a compact state reads ids back from its file, so it checks that file's lines only (the streaming pass)")
		}
		pos, st.noOffsets = 0, true
	}
	_, added, err := st.set.Add(s.key(id), pos)
	if err != nil {
		return false, err
	}
	if !added && st.removed != nil {
		if _, gone := st.removed[id]; gone {
			delete(st.removed, id)
			added = true
		}
	}
	return added, nil
}

// remove takes back id, which add added (an id never added is ignored).
func (s idSet) remove(id string) {
	if s.st == nil || s.st.ext != nil || !s.has(id) {
		return
	}
	if s.st.removed == nil {
		s.st.removed = map[string]struct{}{}
	}
	s.st.removed[string([]byte(id))] = struct{}{}
}

// refBits is a bitset of the numbers k of reference event ids (see
// RefEventNumber): the checker's full state (MarshalBinary) writes them as
// their ranges.
type refBits []uint64

// add puts k (k >= 0) in the set, growing it as needed.
func (s *refBits) add(k int) {
	for k/64 >= len(*s) {
		*s = append(*s, 0)
	}
	(*s)[k/64] |= 1 << (k % 64)
}

// appendRanges appends the set as runs of consecutive numbers: a uvarint
// count, then a (start, length) pair of uvarints per run, found a word at
// a time. A reference journal's ids are one run whatever its length.
func (s refBits) appendRanges(b []byte) []byte {
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

// MarshalBinary records the checker's state (identity, next sequence, ids
// seen) in full, so that checking can resume without the prefix and
// without its file: the ids of the form evt-%03d as ranges of their numbers
// (a reference journal's ids are one range whatever its length), the others
// listed, sorted. It is as large as the ids are; a checker fed by the
// streaming pass has a compact form too (AppendCompactState). A checker
// restored from the compact form has no full form: its ids are in its
// file, not in the checker.
func (c *RunChecker) MarshalBinary() ([]byte, error) {
	if c.ids.st != nil && c.ids.st.ext != nil {
		return nil, errors.New("journal: the checker's ids are its caller's: its state is AppendCompactState's")
	}
	flags := byte(0)
	if c.single {
		flags |= 1
	}
	if c.started {
		flags |= 2
	}
	e := bincodec.Encoder{B: []byte{'R', 'C', '1', flags}}
	e.String(c.sessionID)
	e.String(c.runID)
	e.Varint(c.next)
	var bits refBits
	var other []string
	n := 0
	if st := c.ids.st; st != nil && st.set != nil {
		limit := int(st.set.Len()) + 1<<16 // no huge bitset for a far-out number
		err := st.set.Each(func(id string, _ idset.Entry) error {
			if _, gone := st.removed[id]; gone {
				return nil
			}
			n++
			if k, ok := RefEventNumber(id); ok && k < limit {
				bits.add(k)
			} else {
				other = append(other, strings.Clone(id))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("journal: checker state: %w", err)
		}
	} else if st != nil && st.err != nil {
		return nil, st.err
	}
	e.Uvarint(uint64(n))
	e.B = bits.appendRanges(e.B)
	slices.Sort(other) // same state, same bytes
	e.Uvarint(uint64(len(other)))
	for _, id := range other {
		e.String(id)
	}
	return e.B, nil
}

// maxStateIDs bounds the ids a state written by MarshalBinary may hold
// (restoring one adds each to a set: its ranges are not free).
const maxStateIDs = 1 << 28

// UnmarshalBinary restores a state written by MarshalBinary.
func (c *RunChecker) UnmarshalBinary(b []byte) error {
	bad := errors.New("journal: bad RunChecker state")
	if len(b) < 4 || string(b[:3]) != "RC1" || b[3]&^3 != 0 {
		return bad
	}
	d := bincodec.NewDecoder(b[4:])
	fresh := RunChecker{single: b[3]&1 != 0, started: b[3]&2 != 0}
	fresh.sessionID = d.String()
	fresh.runID = d.String()
	fresh.next = d.Varint()
	n := d.Uvarint() // at least the ids that follow (states written before the id set counted repeats too)
	if n > maxStateIDs {
		return bad
	}
	var ids []byte
	var held uint64
	nr := d.Uvarint()
	for i := uint64(0); i < nr && d.Err() == nil; i++ {
		start, k := d.Uvarint(), d.Uvarint()
		if held += k; held > n || start+k < start || k == 0 {
			fresh.Close()
			return bad
		}
		for num := start; num < start+k; num++ {
			ids = fmt.Appendf(ids[:0], "evt-%03d", num)
			if _, err := fresh.ids.add(aliasString(ids), noOffset); err != nil {
				fresh.Close()
				return err
			}
		}
	}
	no := d.Uvarint()
	if no > n-min(held, n) {
		d.Fail()
	}
	for i := uint64(0); i < no && d.Err() == nil; i++ {
		id := d.String()
		if d.Err() != nil {
			break
		}
		if _, err := fresh.ids.add(id, noOffset); err != nil {
			fresh.Close()
			return err
		}
	}
	if d.Err() != nil || len(d.Rest()) != 0 {
		fresh.Close()
		return bad
	}
	c.Close()
	*c = fresh
	return nil
}

// Compact state: identity, next sequence and the id set's encoding
// (internal/idset), about two bytes an id whatever the ids look like. The
// encoding keeps a fingerprint of each id, not the id, so restoring it
// needs the journal file the ids came from: the set reads ids back from
// the lines at the offsets the streaming pass gave it.

const (
	compactSingle   = 1
	compactStarted  = 2
	compactIDs      = 4 // an id set's encoding follows
	compactExternal = 8 // the ids are the caller's (NewRunCheckerOver)
)

// AppendCompactState appends the checker's state in the compact form a
// replay checkpoint keeps. It needs a checker fed by the streaming pass
// (Stream, or one restored by RestoreCompactState and fed by it since),
// which gave the set each event's line offset.
func (c *RunChecker) AppendCompactState(b []byte) ([]byte, error) {
	st := c.ids.st
	if st != nil && (st.noOffsets || len(st.removed) > 0) {
		return b, errors.New("journal: a compact checker state needs a checker fed by the streaming pass")
	}
	if st != nil && st.err != nil {
		return b, st.err
	}
	flags := byte(0)
	if c.single {
		flags |= compactSingle
	}
	if c.started {
		flags |= compactStarted
	}
	hasIDs := st != nil && st.set != nil
	if hasIDs {
		flags |= compactIDs
	}
	if st != nil && st.ext != nil {
		flags |= compactExternal
	}
	b = append(b, 'R', 'C', '2', flags)
	e := bincodec.Encoder{B: b}
	e.String(c.sessionID)
	e.String(c.runID)
	e.Varint(c.next)
	b = e.B
	if !hasIDs {
		return b, nil
	}
	b, err := st.set.AppendBinary(b)
	if err != nil {
		return b, fmt.Errorf("journal: checker state: %w", err)
	}
	return b, nil
}

// ErrOldCheckerState is the error for a checker state in the full form
// (MarshalBinary) where a compact one is expected: a checkpoint written
// before the compact form existed.
var ErrOldCheckerState = errors.New("journal: a checker state of the older, full form")

// readCompactHeader reads what precedes the id set's encoding.
func readCompactHeader(b []byte) (c RunChecker, set []byte, err error) {
	bad := errors.New("journal: bad compact RunChecker state")
	if len(b) >= 3 && string(b[:3]) == "RC1" {
		return c, nil, ErrOldCheckerState
	}
	if len(b) < 4 || string(b[:3]) != "RC2" || b[3]&^(compactSingle|compactStarted|compactIDs|compactExternal) != 0 ||
		b[3]&(compactIDs|compactExternal) == compactIDs|compactExternal {
		return c, nil, bad
	}
	d := bincodec.NewDecoder(b[4:])
	c = RunChecker{single: b[3]&compactSingle != 0, started: b[3]&compactStarted != 0}
	c.sessionID = d.String()
	c.runID = d.String()
	c.next = d.Varint()
	if d.Err() != nil || (b[3]&compactIDs == 0) != (len(d.Rest()) == 0) {
		return c, nil, bad
	}
	return c, d.Rest(), nil
}

// RestoreCompactState restores a state written by AppendCompactState. src
// is the journal file the state was made from, whose prefix the caller has
// checked (a replay checkpoint's anchors): the restored set reads ids
// back from it when it needs them (a parent far back, or once to settle a
// fingerprint collision), then continues on the lines after the prefix.
func (c *RunChecker) RestoreCompactState(b []byte, src io.ReaderAt) error {
	return c.restoreCompact(b, src, idset.Options{})
}

// restoreCompact is RestoreCompactState with the id set's options (those
// it was made with: a test's hash).
func (c *RunChecker) restoreCompact(b []byte, src io.ReaderAt, opt idset.Options) error {
	fresh, set, err := readCompactHeader(b)
	if err != nil {
		return err
	}
	if b[3]&compactExternal != 0 {
		return errors.New("journal: the checker state's ids are kept by its caller (RestoreCompactStateOver)")
	}
	if len(set) > 0 {
		opt.Source = newFileIDs(src)
		s, err := idset.Decode(set, opt)
		if err != nil {
			return fmt.Errorf("journal: checker state: %w", err)
		}
		fresh.ids.st = &idState{set: s, opt: opt, restored: true}
	}
	c.Close()
	*c = fresh
	return nil
}

// RestoreCompactStateOver restores the state of a checker made by
// NewRunCheckerOver, written by AppendCompactState, over ids.
func (c *RunChecker) RestoreCompactStateOver(b []byte, ids RunIDs) error {
	fresh, _, err := readCompactHeader(b)
	if err != nil {
		return err
	}
	if b[3]&compactExternal == 0 {
		return errors.New("journal: the checker state holds its own ids, not a caller's")
	}
	fresh.ids.st = &idState{ext: ids}
	c.Close()
	*c = fresh
	return nil
}

// CompactStatePosition checks a state written by AppendCompactState
// (its id set's encoding included: checksum and structure) without a
// source, and returns the run identity and next sequence it holds.
func CompactStatePosition(b []byte) (sessionID, runID string, next int64, err error) {
	c, set, err := readCompactHeader(b)
	if err != nil {
		return "", "", 0, err
	}
	if len(set) > 0 {
		s, err := idset.Decode(set, idset.Options{Source: noIDs{}})
		if err != nil {
			return "", "", 0, fmt.Errorf("journal: checker state: %w", err)
		}
		s.Close()
	}
	return c.sessionID, c.runID, c.next, nil
}

// Position returns the run identity the checker holds (empty before the
// first event) and the sequence the next event must carry.
func (c *RunChecker) Position() (sessionID, runID string, next int64) {
	return c.sessionID, c.runID, c.next
}
