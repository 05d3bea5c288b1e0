package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/tracecheck/tracecheck/internal/atomicfile"
	"github.com/tracecheck/tracecheck/journal"
)

// WriterOptions say how OpenWriter treats a missing or torn session.
type WriterOptions struct {
	// Create lets the writer start a session that does not exist yet: the
	// file is created with the first event the writer accepts (see
	// Writer.Created), never empty. Without it a missing session is
	// ErrNotFound and no file is created.
	Create bool
	// Repair repairs a torn tail (side file, truncate, fsync) instead of
	// failing with ErrTornTail.
	Repair bool
	// NoCheckpoint neither reads nor writes the session's checkpoint (nor
	// its receipt): the whole file is read, and Close writes nothing.
	NoCheckpoint bool
	// CheckpointMinEvents: Close writes a checkpoint when the session holds
	// at least this many events and changed since its checkpoint, and the
	// tail bytes read by the opens since the checkpoint have reached a
	// sixth of its size (a rent-or-buy rule; until then the tail receipt
	// covers them: docs/session-store.md, Checkpoints). 0 means
	// DefaultCheckpointMinEvents; negative, never (WriteCheckpoint still
	// writes one; receipts are still written).
	CheckpointMinEvents int
}

// Ack acknowledges one appended event. It is returned only once the event
// is durable: written and fsynced, now or by an earlier writer.
type Ack struct {
	EventID string
	Line    int   // 1-based line of the stored event
	Offset  int64 // byte offset of that line
	// Duplicate is set when the event was already stored (an identical
	// retry): nothing was written.
	Duplicate bool
}

// Position is where a session stands: what the next event of the current
// run must carry.
type Position struct {
	Events       int    // events in the session
	RunID        string // the current (last) run; "" in an empty session
	NextSequence int64  // the sequence the current run's next event carries
	LastEventID  string // "" in an empty session
	Size         int64  // bytes in the file
}

// Writer appends to one session. It holds the session's exclusive lock
// until Close. Its methods may be called from several goroutines; they are
// serialised.
type Writer struct {
	mu       sync.Mutex
	store    *Store
	id       string
	path     string
	f        *os.File
	st       *state
	buf      []byte
	broken   error
	closed   bool
	created  bool
	repaired *Report
	opts     WriterOptions

	// The checkpoint: how the writer opened, the caller's projection
	// (loaded with the checkpoint or set since), and what the last
	// checkpoint written or loaded covers.
	use         CheckpointUse
	proj        *Projection
	projDirty   bool
	projDropped bool // the last checkpoint written left the projection out
	cpLines     int
	rc          receipts // the tail receipt (receipt.go)
}

// OpenWriter opens session id for appending: it takes the exclusive lock
// (ErrLocked when another writer has it), reads and validates the file,
// handles a torn tail as opts say, and fsyncs the file and the directory so
// that everything read back is durable. Under the lock it removes the
// temporary files killed writers of the session left (atomicfile).
//
// The session file is opened as a regular file only, never through a
// symbolic link (ErrNotRegular). A missing session is ErrNotFound unless
// opts.Create is set; then the writer starts empty and creates the file
// with its first accepted event.
func (s *Store) OpenWriter(id string, opts WriterOptions) (*Writer, error) {
	path, err := s.Path(id)
	if err != nil {
		return nil, err
	}
	w := &Writer{store: s, id: id, path: path, opts: opts}
	f, err := openFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		oe := openError(id, path, err)
		if oe.Kind != ErrNotFound || !opts.Create {
			return nil, oe
		}
		// Nothing to lock yet: the file appears, locked, with its first
		// events (create).
		removeStale(path)
		w.created, w.st = true, newState(id)
		w.use = CheckpointUse{Path: checkpointPath(path)}
		return w, nil
	}
	w.f = f
	if err := w.open(opts); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

func (w *Writer) open(opts WriterOptions) error {
	if err := lock(w.f, true); err != nil {
		return lockError(w.id, w.path, err)
	}
	removeStale(w.path)
	st, torn, err := w.load(opts)
	if err != nil {
		return err
	}
	if torn != nil {
		if !opts.Repair {
			return tornError(w.id, w.path, torn)
		}
		side, err := repairTorn(w.f, w.store.dir, w.path, w.id, torn)
		if err != nil {
			return err
		}
		w.repaired = &Report{SessionID: w.id, Path: w.path, Events: st.lines, Runs: st.runs, Size: st.size, Torn: torn, SideFile: side}
	}
	if err := w.f.Sync(); err != nil {
		return &Error{Kind: ErrIO, SessionID: w.id, Path: w.path, Msg: "cannot fsync the session file", Err: err}
	}
	if err := syncDir(w.store.dir); err != nil {
		return &Error{Kind: ErrIO, SessionID: w.id, Path: w.path, Msg: "cannot fsync the store directory", Err: err}
	}
	w.st = st
	return nil
}

// errCreatedMeanwhile: the session file appeared between OpenWriter and
// the writer's first append (another writer created it).
var errCreatedMeanwhile = errors.New("the session file was created by another writer meanwhile")

// create makes the session file with its first lines, buf: they are
// written to a temporary file in the store directory (named as atomicfile
// names its temporaries, so that a killed writer's is removed later),
// locked, fsynced, then linked to the session's name with link(2), which
// never replaces an existing file; then the temporary name is removed and
// the directory fsynced. So the file never exists without its first
// event. errCreatedMeanwhile when the name was taken in the meantime;
// nothing is written then.
func (w *Writer) create(buf []byte) error {
	f, err := atomicfile.CreateTemp(w.path, os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return w.fail("cannot create the session file", err)
	}
	tmp := f.Name()
	abandon := func(msg string, err error) error {
		f.Close()
		os.Remove(tmp)
		if err == errCreatedMeanwhile {
			return err
		}
		return w.fail(msg, err)
	}
	if err := lock(f, true); err != nil {
		return abandon("cannot lock the new session file", err)
	}
	if _, err := writeFile(f, buf); err != nil {
		return abandon("write failed", err)
	}
	if err := f.Sync(); err != nil {
		return abandon("fsync failed", err)
	}
	if err := os.Link(tmp, w.path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			err = errCreatedMeanwhile
		}
		return abandon("cannot create the session file", err)
	}
	os.Remove(tmp) // one name is enough; a leftover is removed with the stale ones
	// A checkpoint left by a removed session of the same name describes
	// nothing here.
	os.Remove(checkpointPath(w.path))
	os.Remove(receiptPath(w.path))
	if err := syncDir(w.store.dir); err != nil {
		f.Close()
		return w.fail("cannot fsync the store directory", err)
	}
	w.f = f
	w.st.src = f // a retry is compared with the stored line, read back from it
	return nil
}

// attach opens the session file another writer created after OpenWriter
// found none, as OpenWriter would have: lock, read, repair, fsync.
func (w *Writer) attach() error {
	f, err := openFile(w.path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return openError(w.id, w.path, err)
	}
	w.f = f
	if err := w.open(w.opts); err != nil {
		f.Close()
		w.f = nil
		return err
	}
	w.created = false
	return nil
}

// load reads the session: from its checkpoint and the tail after it when
// the checkpoint holds, else the whole file.
func (w *Writer) load(opts WriterOptions) (*state, *Torn, error) {
	w.use = CheckpointUse{Path: checkpointPath(w.path)}
	w.rc.stop()
	if !opts.NoCheckpoint {
		if st, base, why := w.loadCheckpoint(); st != nil {
			lines, size := st.lines, st.size
			w.rc.start(base)
			if fi, err := w.f.Stat(); err == nil {
				// The events a receipt covers are vouched for (receipt.go).
				st.vouchEnd = w.rc.verified(w.path, w.f, fi.Size())
			}
			torn, err := st.scan(w.f, w.path, nil)
			if err == nil || !errors.Is(err, ErrCorrupt) {
				w.use.Used, w.use.Lines, w.use.Offset, w.use.TailLines = true, lines, size, st.lines-lines
				w.use.TailVouched = st.vouched
				w.cpLines = lines
				if err == nil {
					if herr := w.rc.hashFile(w.f, st.size); herr != nil {
						w.rc.stop()
					}
					w.rc.read += st.size - size
				}
				return st, torn, err
			}
			// A bad line in the tail: let a read of the whole file
			// report the first bad line, whatever the checkpoint says.
			w.use.Ignored = "the tail after it does not check against it"
			w.proj = nil
			w.rc.stop()
		} else {
			w.use.Ignored = why
		}
	}
	return scanFile(w.f, w.path, w.id, nil)
}

// OpenedFrom says whether OpenWriter used the session's checkpoint.
func (w *Writer) OpenedFrom() CheckpointUse {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.use
}

// Projection returns the caller's projection kept with the checkpoint the
// writer opened from, or the one set since with SetProjection; nil when
// there is none.
func (w *Writer) Projection() *Projection {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.proj
}

// SetProjection sets the projection the next checkpoint keeps. Its Lines
// and Offset must name a line boundary of the session: Offset is the
// session's size when Lines is its event count, else the offset of line
// Lines+1 (known for the events this writer read or wrote). A projection
// larger than MaxProjectionBytes is ErrTooLarge and not set.
func (w *Writer) SetProjection(p *Projection) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p != nil {
		if len(p.Data) > MaxProjectionBytes {
			return &Error{Kind: ErrTooLarge, SessionID: w.id, Path: checkpointPath(w.path),
				Msg: fmt.Sprintf("a projection of %d bytes is more than the %d a checkpoint keeps", len(p.Data), MaxProjectionBytes)}
		}
		ok := p.Lines == w.st.lines && p.Offset == w.st.size
		if p.Lines < w.st.lines {
			if off, known, _ := w.st.offset(p.Lines + 1); known && off == p.Offset {
				ok = true
			}
		}
		if !ok {
			return &Error{Kind: ErrIO, SessionID: w.id, Path: w.path,
				Msg: fmt.Sprintf("projection of %d events at offset %d is not at a known line boundary", p.Lines, p.Offset)}
		}
	}
	w.proj, w.projDirty = p, true
	return nil
}

// CheckpointWritten says what WriteCheckpoint did.
type CheckpointWritten struct {
	Path string // the checkpoint file
	// Written is false for a session without events: nothing was written.
	Written bool
	Events  int   // events covered
	Size    int64 // bytes of the session file covered
	Runs    int
	// Projection: the projection set with SetProjection (or loaded) is
	// kept in it. ProjectionDropped: one was set but left out, because
	// the checkpoint would have been larger than MaxCheckpointBytes.
	Projection        bool
	ProjectionDropped bool
}

// WriteCheckpoint writes the session's checkpoint now, atomically
// (temporary file, fsync, rename), with the current projection. It writes
// nothing for an empty session. A state too large for a checkpoint even
// without its projection is ErrTooLarge (cause *CheckpointTooLargeError),
// and nothing is written.
func (w *Writer) WriteCheckpoint() (CheckpointWritten, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := CheckpointWritten{Path: checkpointPath(w.path)}
	if err := w.usable(); err != nil {
		return out, err
	}
	if err := w.writeCheckpoint(); err != nil {
		return out, w.checkpointError(err)
	}
	out.Written = w.st.lines > 0
	out.Events, out.Size, out.Runs = w.st.lines, w.st.size, len(w.st.runs)
	out.ProjectionDropped = w.projDropped
	out.Projection = out.Written && w.proj != nil && !w.projDropped
	return out, nil
}

// checkpointError is the error of a checkpoint that was not written.
func (w *Writer) checkpointError(err error) error {
	path := checkpointPath(w.path)
	var tl *CheckpointTooLargeError
	if errors.As(err, &tl) {
		return &Error{Kind: ErrTooLarge, SessionID: w.id, Path: path, Err: err}
	}
	return &Error{Kind: ErrIO, SessionID: w.id, Path: path, Msg: "cannot write the checkpoint", Err: err}
}

// SessionID returns the session's ID.
func (w *Writer) SessionID() string { return w.id }

// Path returns the session file.
func (w *Writer) Path() string { return w.path }

// Created reports whether the session did not exist when OpenWriter
// opened it (WriterOptions.Create): this writer creates its file, with the
// first event it accepts. A writer that appends nothing creates nothing.
func (w *Writer) Created() bool { return w.created }

// Repaired returns what OpenWriter repaired, or nil when the file had no
// torn tail.
func (w *Writer) Repaired() *Report { return w.repaired }

// Position returns where the session stands.
func (w *Writer) Position() Position {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := Position{Events: w.st.lines, LastEventID: w.st.lastEventID(), Size: w.st.size}
	if n := len(w.st.runs); n > 0 {
		p.RunID = w.st.runs[n-1].RunID
		p.NextSequence = w.st.checker.Next()
	}
	return p
}

// Runs returns the session's runs in order.
func (w *Writer) Runs() []Run {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Run(nil), w.st.runs...)
}

// HasEventID reports whether an event with this ID is stored. When the
// index cannot answer (its temporary file, or the session file read back,
// fails) it says true, the answer that makes no caller reuse the ID, and
// the writer is broken: the next append says why.
func (w *Writer) HasEventID(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.taken(id)
}

// MayHaveEventID is HasEventID for picking the ID of a new event, as
// NextEventID does: an ID that only a read of every ID a checkpoint covers
// could tell apart from them (about one in 4,096 in a session of
// non-counter IDs opened from its checkpoint) counts as stored, so that
// another is picked rather than that read paid for.
func (w *Writer) MayHaveEventID(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mayBeTaken(id)
}

// HasRun reports whether the session holds a run with this ID.
func (w *Writer) HasRun(runID string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.st.runSet[runID]
	return ok
}

// NextEventID returns the event_id a writer that numbers events as the
// reference does should give the next event: "evt-%03d" of the event's
// 0-based position in the whole session, or of the first position after it
// whose ID is known to be free (a writer opened from a checkpoint skips an
// ID that only a read of every older ID could prove free: about one in
// 4,096 where a checkpoint keeps IDs as fingerprints). Within a single run
// this is the reference's evt-%03d of the sequence; across runs it keeps
// IDs unique.
func (w *Writer) NextEventID() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return NextEventIDs(w.st.lines, w.mayBeTaken, 1)[0]
}

// NextEventIDs returns the IDs of the next n events, as NextEventID would
// give them one after the other.
func (w *Writer) NextEventIDs(n int) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return NextEventIDs(w.st.lines, w.mayBeTaken, n)
}

func (w *Writer) taken(id string) bool {
	found, err := w.st.ids.has(id)
	if err != nil {
		w.fail("cannot look an event ID up", err)
		return true
	}
	return found
}

// mayBeTaken is taken for numbering new events: an ID that only reading
// the checkpoint's older IDs back could tell apart from them (about one in
// 4,096 matches a checkpoint's fingerprint) counts as taken, so that the
// next number is used rather than that read paid for.
func (w *Writer) mayBeTaken(id string) bool {
	found, sure, err := w.st.ids.known(id)
	if err != nil {
		w.fail("cannot look an event ID up", err)
		return true
	}
	return found || !sure
}

// checkpointTailRatio: Close rewrites a checkpoint once the tail bytes
// that the opens since it have read (the receipt counts them), with the
// tail the next open will read, reach 1/checkpointTailRatio of the
// checkpoint's own size; before that it leaves it, with a receipt for the
// tail. This is the rent-or-buy rule: reading a tail byte on open (checking
// the event, rebuilding the resume history) costs about 36 ns, rewriting a
// checkpoint byte about 6 ns with its fsync (at a million UUIDs: 2 ms for a
// tail of a hundred events, about 11 ms of wall time to rewrite 1.8 MB;
// BENCHMARKS.md, "Resume after 1M events"), so the checkpoint is rewritten
// once the opens have paid about what one rewrite costs: whatever the
// pattern of appends and opens, never more than about twice the work of
// the best schedule. A session of counter IDs has a checkpoint of a few
// KB, rewritten nearly as often as before.
const checkpointTailRatio = 6

// checkpointDue reports whether Close should write the checkpoint: always
// when the writer has none to build on or no receipt can cover the tail,
// else by checkpointTailRatio.
func (w *Writer) checkpointDue() bool {
	b := w.rc.base
	if b == nil || w.rc.hashed != w.st.size {
		return true
	}
	return (w.rc.read+w.st.size-b.size)*checkpointTailRatio >= b.fileSize
}

// NextEventIDs is the event_id rule of NextEventID for a session of events
// events whose taken IDs taken reports: the next n IDs "evt-%03d" from
// position events on, skipping taken ones.
func NextEventIDs(events int, taken func(id string) bool, n int) []string {
	ids := make([]string, 0, n)
	for i := events; len(ids) < n; i++ {
		if id := fmt.Sprintf("evt-%03d", i); !taken(id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// Events re-reads the session from the file (not from memory) and returns
// its events in order.
func (w *Writer) Events() ([]journal.Event, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return nil, err
	}
	if w.f == nil {
		return nil, nil // not created yet: no event
	}
	return readAll(w.f, w.st.size, w.path, w.id)
}

// Append validates one event (a JSON object on one line, without the
// newline), writes it and fsyncs the file, and only then returns its Ack.
// An identical retry of a stored event is acknowledged without writing; a
// rejected event (ErrRejected, ErrConflict) writes nothing.
func (w *Writer) Append(line []byte) (Ack, error) {
	acks, err := w.AppendBatch([][]byte{line})
	if len(acks) == 1 {
		return acks[0], err
	}
	return Ack{}, err
}

// AppendEvent appends e in the golden layout.
func (w *Writer) AppendEvent(e *journal.Event) (Ack, error) {
	return w.Append(e.Value().AppendJSON(nil))
}

// AppendEvents appends events in the golden layout as one batch.
func (w *Writer) AppendEvents(evs []journal.Event) ([]Ack, error) {
	lines := make([][]byte, len(evs))
	for i := range evs {
		lines[i] = evs[i].Value().AppendJSON(nil)
	}
	return w.AppendBatch(lines)
}

// AppendBatch is group commit: it validates the lines in order, each
// against the session as it stands after the ones before it, writes every
// accepted line with one write and makes them durable with one fsync, and
// only then returns their Acks, in order. It stops at the first rejected
// line: the lines before it are written and acknowledged (len(acks) is the
// rejected line's index), the error names it, and it and the lines after
// it are not written. On an I/O error nothing is acknowledged and the
// writer is broken.
func (w *Writer) AppendBatch(lines [][]byte) ([]Ack, error) {
	return w.append(lines, false)
}

// AppendGroup is all-or-nothing group commit: it validates every line, in
// order, before the first byte is written. When one is rejected nothing is
// written, the writer stands where it stood, and the error names that line
// (acks is nil). Otherwise the lines are written with one write(2), made
// durable with one fsync, and acknowledged, as AppendBatch does. A retry of
// a stored event in the group is acknowledged as a duplicate.
//
// A crash during that one write can still leave a prefix of the group's
// bytes: complete lines (never acknowledged), then possibly a torn line,
// which the next open reports (ErrTornTail) or repairs.
func (w *Writer) AppendGroup(lines [][]byte) ([]Ack, error) {
	return w.append(lines, true)
}

func (w *Writer) append(lines [][]byte, all bool) ([]Ack, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return nil, err
	}
	for {
		acks, buf, rejected, err := w.stage(lines, all)
		if err != nil {
			return nil, err
		}
		if len(buf) > 0 {
			if w.f == nil {
				err = w.create(buf)
			} else {
				err = w.write(buf)
			}
		}
		if cap(buf) <= 1<<20 {
			w.buf = buf[:0]
		} else {
			w.buf = nil
		}
		if err == errCreatedMeanwhile {
			// Another writer created the session since OpenWriter: open
			// it as OpenWriter would now, and admit the lines again
			// against what it holds.
			w.st = newState(w.id)
			if err := w.attach(); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		return acks, rejected
	}
}

// stage admits lines into w's state and returns their acks and the bytes
// to write. Without all it stops at the first rejected line, keeping the
// ones before it; with all a rejected line takes back every line staged
// before it (acks and buf are then empty). err is an I/O error that broke
// the writer.
func (w *Writer) stage(lines [][]byte, all bool) (acks []Ack, buf []byte, rejected, err error) {
	acks = make([]Ack, 0, len(lines))
	buf = w.buf[:0]
	st := w.st
	if all {
		st.beginGroup()
	}
	// A retry of an event earlier in this batch is compared with its line
	// in buf, not yet written.
	st.pendingOff = st.size
	defer func() { st.pending = nil }()
	for _, raw := range lines {
		st.pending = buf
		var mark journal.CheckerMark
		if st.checker != nil {
			mark = st.checker.Mark()
		}
		a, jerr, ioErr := st.admit(raw, false)
		if ioErr != nil {
			if all {
				st.undoGroup()
			}
			return nil, nil, nil, w.fail("cannot read back a stored event", ioErr)
		}
		if jerr == nil && a.dupOf > 0 {
			acks = append(acks, Ack{EventID: strings.Clone(a.event.EventID), Line: a.dupOf, Offset: a.dupOff, Duplicate: true})
			continue
		}
		start := len(buf)
		if jerr == nil {
			if a.golden {
				buf = append(buf, raw...) // already in the golden layout
			} else {
				// What jsonv.Parse(raw).AppendJSON writes, without the tree.
				buf, _ = st.canonz.AppendOrdered(buf, raw) // the scanner accepted it
			}
			if n := len(buf) - start; n > journal.DefaultMaxLineBytes {
				buf = buf[:start]
				jerr = &journal.Error{EventID: a.event.EventID, Code: journal.LineTooLong,
					Msg: fmt.Sprintf("the event is %d bytes; a line may hold at most %d", n, journal.DefaultMaxLineBytes)}
				if a.newRun == nil {
					// The run's checker accepted the event: take it back.
					st.checker.Rollback(mark, a.event.EventID)
				}
			}
		}
		if jerr != nil {
			kind := ErrRejected
			if jerr.Code == EventIDConflict {
				kind = ErrConflict
			}
			id := strings.Clone(jerr.EventID) // it may alias the caller's line
			jerr.EventID = id
			rejected = &Error{Kind: kind, SessionID: w.id, Path: w.path, EventID: id, Err: jerr}
			if all {
				st.undoGroup()
				return nil, buf[:0], rejected, nil
			}
			break
		}
		buf = append(buf, '\n')
		off := st.size
		if err := st.commit(&a, len(buf)-start); err != nil {
			return nil, nil, nil, w.fail("cannot index the session's event IDs", err)
		}
		acks = append(acks, Ack{EventID: st.lastEventID(), Line: st.lines, Offset: off})
	}
	if all {
		if err := st.endGroup(); err != nil {
			return nil, nil, nil, w.fail("cannot index the session's event IDs", err)
		}
	}
	return acks, buf, rejected, nil
}

// writeFile is the write(2) of a batch. Tests replace it to fail, or to
// crash the process in the middle of a write.
var writeFile = func(f *os.File, b []byte) (int, error) { return f.Write(b) }

// write writes the lines and fsyncs; any failure breaks the writer.
func (w *Writer) write(buf []byte) error {
	hashed := w.rc.hashed
	_, err := writeFile(w.f, buf)
	msg := "write failed"
	if err == nil {
		if err = w.f.Sync(); err != nil {
			msg = "fsync failed"
		}
	}
	if err != nil {
		return w.fail(msg, err)
	}
	// Durable: the receipt may now cover it.
	if hashed+int64(len(buf)) != w.st.size {
		w.rc.stop() // not where the receipt's bytes end: no receipt
	}
	w.rc.appended(buf)
	w.rc.write(w.path)
	return nil
}

// fail breaks the writer: the state in memory may be ahead of the file.
func (w *Writer) fail(msg string, err error) error {
	w.broken = err
	return &Error{Kind: ErrIO, SessionID: w.id, Path: w.path, Msg: msg + "; the writer is broken, reopen the session", Err: err}
}

func (w *Writer) usable() error {
	if w.closed {
		return &Error{Kind: ErrClosed, SessionID: w.id, Path: w.path}
	}
	if w.broken != nil {
		return &Error{Kind: ErrBroken, SessionID: w.id, Path: w.path, Err: w.broken}
	}
	return nil
}

// Close writes the session's checkpoint when WriterOptions ask for it (the
// session holds at least CheckpointMinEvents events and changed since its
// checkpoint; never for a broken writer), then releases the lock and
// closes the file. Everything acknowledged is already durable; Close adds
// nothing to that. A checkpoint that cannot be written is reported after
// the file is closed; the next open reads the whole file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	var cerr error
	if min := w.opts.CheckpointMinEvents; w.broken == nil && !w.opts.NoCheckpoint && min >= 0 {
		if min == 0 {
			min = DefaultCheckpointMinEvents
		}
		if w.st.lines >= min && (w.st.lines != w.cpLines || w.projDirty) && w.checkpointDue() {
			if err := w.writeCheckpoint(); err != nil {
				cerr = w.checkpointError(err)
			}
		}
	}
	if w.broken == nil {
		w.rc.write(w.path) // the tail this writer read or wrote, when no checkpoint covers it
	}
	w.rc.close()
	w.closed = true
	if w.f == nil {
		return nil // never created: nothing was written
	}
	if err := w.f.Close(); err != nil {
		return &Error{Kind: ErrIO, SessionID: w.id, Path: w.path, Err: err}
	}
	return cerr
}
