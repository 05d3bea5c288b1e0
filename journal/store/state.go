package store

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Run describes one run of a session: a contiguous segment of the file.
type Run struct {
	RunID        string
	FirstLine    int    // 1-based line of the run's first event
	Events       int    // events in the run
	ResumesRunID string // the run this one resumes; "" for the first run
}

// state is a session as far as it has been read or written: everything the
// session rules need to admit the next event, and nothing more. Per event it
// keeps a few bytes in ids (an ID's line is its ordinal there; "evt-%03d"
// IDs in order cost a bit), and the offset of every markEvery-th line
// (offsets of the lines between are found by reading from the mark
// before), nothing of that for the events a checkpoint covers; the offsets
// of the last lines are all kept.
type state struct {
	sessionID string
	ids       idIndex
	runs      []Run
	runSet    map[string]struct{}
	checker   *journal.RunChecker // the current (last) run's, over ids (runIDs)
	lastID    []byte              // the last event's ID; empty in an empty session
	lines     int                 // complete lines, one event each
	size      int64               // bytes of the complete lines
	lastOff   int64               // offset of the last line
	firstLen  int64               // bytes of the first line with its newline
	offBase   int                 // lines before the first of the window offs
	offs      []int64             // the window: offs[i] is the offset of line offBase+1+i
	markFirst int                 // the line of marks[0]
	marks     []int64             // marks[i] is the offset of line markFirst+i*markEvery

	scanner journal.LineScanner
	canon   []byte // canonical encoding of the line being admitted, when it is a retry
	stored  []byte // canonical encoding of a stored line
	canonz  jsonv.Canonicalizer

	// Where a stored line is read back from, to compare a retry with it:
	// src holds the file; pending the lines of the batch being built,
	// which start at offset pendingOff.
	src        io.ReaderAt
	pending    []byte
	pendingOff int64

	// group is set while an all-or-nothing group is staged (beginGroup):
	// what undoGroup needs to take it back.
	group *groupMark

	// The lines that end at or before vouchEnd are vouched for by a tail
	// receipt (receipt.go): scan sets vouching for each of them, and
	// counts them in vouched.
	vouchEnd int64
	vouching bool
	vouched  int
}

// groupMark is the state before an all-or-nothing group, and the IDs of
// the group's events so far. Their IDs go into ids (and the ring of recent
// IDs) only when the group ends accepted; until then they are looked up
// in lines.
type groupMark struct {
	lines                   int
	size, lastOff, firstLen int64
	lastID                  []byte
	offs, runs              int
	lastRun                 Run
	checker                 *journal.RunChecker
	checkerAt               journal.CheckerMark
	ids                     []string       // the group's event IDs, in order
	lines1                  map[string]int // and their lines
}

func newState(sessionID string) *state {
	return &state{sessionID: sessionID, runSet: map[string]struct{}{}}
}

// lastEventID returns the last event's ID, "" in an empty session.
func (s *state) lastEventID() string { return string(s.lastID) }

// admission is an event that passed the rules, ready to be committed.
type admission struct {
	// event's EventID, ParentEventID and Timestamp may alias the line;
	// its Payload is set only when admit was asked for it.
	event   journal.Event
	payload []byte // the payload as written in the line
	golden  bool   // the line is already in the golden layout
	dupOf   int    // > 0: the same event is stored at this line; nothing to write
	dupOff  int64  // and this offset
	newRun  *journal.RunChecker
}

// admit checks one line against the schema and the session rules without
// changing the state. A retry of a stored event comes back with dupOf set;
// a conflicting one is an EventIDConflict error. withPayload asks for
// event.Payload as a tree (the rules themselves read the payload's text).
// err is an I/O error reading a stored line back.
//
// The line is read in one pass by the lean scanner, which checks the schema
// and writes the canonical encoding; anything it does not take (whitespace,
// escapes in the envelope, any violation) goes to the general path of
// journal.LineScanner.Decode, which decides and explains as
// journal.DecodeLine does without a tree of the payload.
func (s *state) admit(raw []byte, withPayload bool) (a admission, jerr *journal.Error, err error) {
	if i := bytes.IndexByte(raw, '\n'); i >= 0 {
		return a, &journal.Error{Code: EmbeddedNewline,
			Msg: fmt.Sprintf("byte %d is a newline: an event must be one line", i+1)}, nil
	}
	var lean bool
	a.event, a.payload, lean, jerr = s.scanner.Read(raw)
	if jerr != nil {
		return a, jerr, nil
	}
	// The scanner takes an envelope only when it is compact and its
	// strings have no escape: the golden layout. The payload decides.
	a.golden = lean && goldenLayout(a.payload)
	if withPayload {
		a.event.Payload, _ = jsonv.Parse(a.payload) // the scanner validated it
	}
	ev := &a.event
	if ev.SessionID != s.sessionID {
		return a, &journal.Error{EventID: ev.EventID, Code: WrongSession, Pointer: "/session_id",
			Msg: fmt.Sprintf("session_id %q is not this session's %q", ev.SessionID, s.sessionID)}, nil
	}
	if s.vouching {
		s.ids.vouch(ev.EventID)
	}
	held, err := s.hasID(ev.EventID)
	if err != nil {
		return a, nil, err
	}
	if held {
		// A retry, or a conflict: compare the canonical encodings (only
		// now written: most lines never need theirs).
		s.canon, _, _, _, _ = s.scanner.Decode(s.canon[:0], raw)
		line, off, err := s.locate(ev.EventID)
		if err != nil {
			return a, nil, err
		}
		same, err := s.sameAsStored(off)
		if err != nil {
			return a, nil, err
		}
		if same {
			a.dupOf, a.dupOff = line, off
			return a, nil, nil
		}
		return a, &journal.Error{EventID: ev.EventID, Code: EventIDConflict, Pointer: "/event_id",
			Msg: fmt.Sprintf("event_id %q is already stored at line %d with different content", ev.EventID, line)}, nil
	}
	checker := s.checker
	runID := ev.Provenance.RunID
	if len(s.runs) == 0 {
		if resumed(ev.Type, a.payload) {
			return a, &journal.Error{EventID: ev.EventID, Code: ResumeMarker, Pointer: "/payload/resumed",
				Msg: "the first run of a session has no run to resume"}, nil
		}
		checker = journal.NewRunCheckerOver(runIDs{s, s.lines + 1})
		a.newRun = checker
	} else if last := s.runs[len(s.runs)-1].RunID; runID != last {
		if _, ended := s.runSet[runID]; ended {
			return a, &journal.Error{EventID: ev.EventID, Code: RunEnded, Pointer: "/provenance/run_id",
				Msg: fmt.Sprintf("run %q already ended: run %q follows it", runID, last)}, nil
		}
		if jerr := checkResumeMarker(ev, a.payload, last); jerr != nil {
			return a, jerr, nil
		}
		checker = journal.NewRunCheckerOver(runIDs{s, s.lines + 1})
		a.newRun = checker
	}
	if jerr := tryCheck(checker, ev); jerr != nil {
		return a, jerr, nil
	}
	return a, nil, nil
}

// tryCheck is c.Check for an event the session may still refuse: when the
// event is rejected, c is left exactly as it was, so the next event is
// checked as if the rejected one had never been offered. An accepted event
// is checked as Check does.
func tryCheck(c *journal.RunChecker, e *journal.Event) *journal.Error {
	m := c.Mark()
	had := c.HasEventID(e.EventID)
	err := c.Check(e)
	if err != nil {
		if had {
			c.Rollback(m)
		} else {
			c.Rollback(m, e.EventID)
		}
	}
	return err
}

// runIDs are the event IDs of the run that starts at line first: the
// session's, from that line on (a RunChecker over them keeps none).
type runIDs struct {
	s     *state
	first int
}

func (r runIDs) HasRunEvent(id string) (bool, error) {
	if g := r.s.group; g != nil {
		if line, ok := g.lines1[id]; ok {
			return line >= r.first, nil
		}
	}
	line, _, found, err := r.s.ids.lookup(id)
	return found && line >= r.first, err
}

// commit records an admitted event stored at the next line, size bytes long
// with its newline. The error is the index's (its temporary file, or an ID
// read back): the state is then unusable.
func (s *state) commit(a *admission, size int) error {
	off := s.size
	s.lines++
	s.size += int64(size)
	s.offs = append(s.offs, off)
	if len(s.offs) >= 2*offsetWindow && s.group == nil {
		s.slideWindow()
	}
	s.lastOff = off
	if s.lines == 1 {
		s.firstLen = int64(size)
	}
	if g := s.group; g != nil {
		id := strings.Clone(a.event.EventID)
		g.ids = append(g.ids, id)
		g.lines1[id] = s.lines
	} else if err := s.ids.add(s, a.event.EventID, off); err != nil {
		return err
	}
	if a.newRun != nil {
		// A copy: the parsed string may share the whole line's text.
		r := Run{RunID: strings.Clone(a.event.Provenance.RunID), FirstLine: s.lines}
		if len(s.runs) > 0 {
			r.ResumesRunID = s.runs[len(s.runs)-1].RunID
		}
		s.runs = append(s.runs, r)
		s.runSet[r.RunID] = struct{}{}
		s.checker = a.newRun
	}
	s.runs[len(s.runs)-1].Events++
	s.lastID = append(s.lastID[:0], a.event.EventID...)
	return nil
}

// beginGroup starts staging an all-or-nothing group: the events committed
// until endGroup or undoGroup can all be taken back.
func (s *state) beginGroup() {
	g := &groupMark{lines: s.lines, size: s.size, lastOff: s.lastOff, firstLen: s.firstLen,
		lastID: slices.Clone(s.lastID), offs: len(s.offs), runs: len(s.runs), checker: s.checker,
		lines1: map[string]int{}}
	if g.runs > 0 {
		g.lastRun = s.runs[g.runs-1]
	}
	if s.checker != nil {
		g.checkerAt = s.checker.Mark()
	}
	s.group = g
}

// endGroup keeps the group's events. The error is the index's, as for
// commit.
func (s *state) endGroup() error {
	g := s.group
	s.group = nil
	for _, id := range g.ids {
		off, _, _ := s.offset(g.lines1[id]) // in the window: written by this state
		if err := s.ids.add(s, id, off); err != nil {
			return err
		}
	}
	return nil
}

// undoGroup takes back every event committed since beginGroup.
func (s *state) undoGroup() {
	g := s.group
	s.group = nil
	for _, r := range s.runs[g.runs:] {
		delete(s.runSet, r.RunID)
	}
	s.runs = s.runs[:g.runs]
	if g.runs > 0 {
		s.runs[g.runs-1] = g.lastRun
	}
	if g.checker != nil {
		// The events the current run's checker accepted are among the
		// group's, which the session did not hold before.
		g.checker.Rollback(g.checkerAt, g.ids...)
	}
	s.checker = g.checker
	s.offs = s.offs[:g.offs]
	s.lines, s.size, s.lastOff, s.firstLen = g.lines, g.size, g.lastOff, g.firstLen
	s.lastID = append(s.lastID[:0], g.lastID...)
}

// hasID reports whether the session holds an event with this ID, counting
// those of the group being staged.
func (s *state) hasID(id string) (bool, error) {
	if g := s.group; g != nil {
		if _, ok := g.lines1[id]; ok {
			return true, nil
		}
	}
	return s.ids.has(id)
}

// The offsets a state keeps: all of the last offsetWindow to
// 2*offsetWindow lines (at least the checkpointRecent a checkpoint keeps,
// and every line of a group being staged), and before them every
// markEvery-th line's. A line between two marks is found by reading the
// lines after the mark before it: only a retry of an old event needs that.
const (
	offsetWindow = checkpointRecent
	markEvery    = 64
)

// slideWindow moves the oldest offsetWindow offsets out of the window,
// keeping the marks among them.
func (s *state) slideWindow() {
	if len(s.marks) == 0 {
		s.markFirst = s.offBase + 1
	}
	for i, off := range s.offs[:offsetWindow] {
		if (s.offBase+1+i-s.markFirst)%markEvery == 0 {
			s.marks = append(s.marks, off)
		}
	}
	s.offBase += offsetWindow
	s.offs = append(s.offs[:0], s.offs[offsetWindow:]...)
}

// offset returns the offset of a line this state read or wrote, reading
// the lines after the mark before it when it is older than the window. ok
// is false for a line it does not know (one a checkpoint covers).
func (s *state) offset(line int) (off int64, ok bool, err error) {
	if i := line - s.offBase - 1; i >= 0 && i < len(s.offs) {
		return s.offs[i], true, nil
	}
	if len(s.marks) == 0 || line < s.markFirst || line > s.offBase {
		return 0, false, nil
	}
	k := (line - s.markFirst) / markEvery
	off = s.marks[k]
	for l := s.markFirst + k*markEvery; l < line; l++ {
		b, err := s.lineAt(off)
		if err != nil {
			return 0, false, err
		}
		off += int64(len(b)) + 1
	}
	return off, true, nil
}

// firstKnownOffset is the offset of the first line whose offset the state
// knows (directly or from a mark); the session's size when there is none.
func (s *state) firstKnownOffset() int64 {
	switch {
	case len(s.marks) > 0:
		return s.marks[0]
	case len(s.offs) > 0:
		return s.offs[0]
	}
	return s.size
}

// recent returns the offsets of the last lines whose offsets are known, at
// most checkpointRecent.
func (s *state) recent() []int64 {
	return s.offs[len(s.offs)-min(len(s.offs), checkpointRecent):]
}

// locate returns the line and offset of a stored event ID. The index
// gives the line, and the offset of an ID it reads back; else the offsets
// of recent lines and the marks give it; else (an event a checkpoint
// covers) the file is read up to that line: a retry of such an old event
// is rare.
func (s *state) locate(id string) (int, int64, error) {
	if g := s.group; g != nil {
		if line, ok := g.lines1[id]; ok {
			off, _, _ := s.offset(line) // in the window: written by this state
			return line, off, nil
		}
	}
	line, off, found, err := s.ids.lookup(id)
	if err != nil {
		return 0, 0, err
	}
	if !found {
		return 0, 0, fmt.Errorf("event_id %q is not in the session's index", id)
	}
	if off >= 0 {
		return line, off, nil
	}
	if off, ok, err := s.offset(line); err != nil || ok {
		return line, off, err
	}
	rd := journal.NewReader(io.NewSectionReader(s.src, 0, s.firstKnownOffset()))
	for {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, err
		}
		if l.Num == line {
			return line, l.Offset, nil
		}
	}
	return 0, 0, fmt.Errorf("event_id %q is at line %d by the index, which is not before offset %d", id, line, s.firstKnownOffset())
}

// sameAsStored reports whether the line stored at off has the canonical
// encoding of the line being admitted (s.canon).
func (s *state) sameAsStored(off int64) (bool, error) {
	line, err := s.lineAt(off)
	if err != nil {
		return false, err
	}
	var ok bool
	if s.stored, _, _, ok = s.scanner.Scan(s.stored[:0], line); !ok {
		var err error
		if s.stored, err = s.canonz.Append(s.stored[:0], line); err != nil {
			return false, fmt.Errorf("the stored line at offset %d no longer parses: %v", off, err)
		}
	}
	return bytes.Equal(s.stored, s.canon), nil
}

// lineAt returns the stored line that starts at off, without its newline:
// from the batch being built when it is there, else from the file.
func (s *state) lineAt(off int64) ([]byte, error) {
	if off >= s.pendingOff && off < s.pendingOff+int64(len(s.pending)) {
		line := s.pending[off-s.pendingOff:]
		return line[:bytes.IndexByte(line, '\n')], nil
	}
	return readLineAt(s.src, off)
}

// readLineAt reads the line that starts at off, without its newline.
func readLineAt(src io.ReaderAt, off int64) ([]byte, error) {
	var line []byte
	buf := make([]byte, 4096)
	for {
		n, err := src.ReadAt(buf, off+int64(len(line)))
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return append(line, buf[:i]...), nil
		}
		line = append(line, buf[:n]...)
		if len(line) > journal.DefaultMaxLineBytes {
			return nil, fmt.Errorf("no line end after offset %d", off)
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// ResumedKey and ResumesRunIDKey are the session.start payload members of a
// resume marker.
const (
	ResumedKey      = "resumed"
	ResumesRunIDKey = "resumes_run_id"
)

// resumed reports whether an event of type typ with this payload (its
// JSON text) is a resume marker: a session.start whose payload says
// "resumed": true.
func resumed(typ string, payload []byte) bool {
	if typ != "session.start" {
		return false
	}
	r, _ := jsonv.MemberText(payload, ResumedKey)
	return string(r) == "true"
}

func checkResumeMarker(ev *journal.Event, payload []byte, prev string) *journal.Error {
	if ev.Type != "session.start" {
		return &journal.Error{EventID: ev.EventID, Code: ResumeMarker, Pointer: "/type",
			Msg: fmt.Sprintf("run %q starts with %s: a resumed run starts with session.start {\"resumed\": true, \"resumes_run_id\": %q}", ev.Provenance.RunID, ev.Type, prev)}
	}
	if !resumed(ev.Type, payload) {
		return &journal.Error{EventID: ev.EventID, Code: ResumeMarker, Pointer: "/payload/resumed",
			Msg: fmt.Sprintf("run %q follows run %q, so its session.start must say \"resumed\": true", ev.Provenance.RunID, prev)}
	}
	r, ok := jsonv.MemberText(payload, ResumesRunIDKey)
	if text, isString := jsonv.StringText(r); !isString || text != prev {
		got := "nothing"
		if ok {
			var c jsonv.Canonicalizer
			b, _ := c.AppendOrdered(nil, r) // valid: the line was checked
			got = string(b)
		}
		return &journal.Error{EventID: ev.EventID, Code: ResumeMarker, Pointer: "/payload/" + ResumesRunIDKey,
			Msg: fmt.Sprintf("resumes_run_id must name the run just before, %q; it is %s", prev, got)}
	}
	return nil
}

// Torn describes a torn last line: where it starts and its bytes.
type Torn struct {
	Line   int
	Offset int64
	Bytes  []byte
}

// scan reads the file from where s stands (line s.lines, offset s.size) to
// its end, admitting every complete line. A torn last line is returned, not
// an error; any other bad line is an ErrCorrupt *Error naming it. keep, when
// set, sees every event in order, with its payload and strings of its own.
func (s *state) scan(src io.ReaderAt, path string, keep func(ev *journal.Event)) (*Torn, error) {
	s.src = src
	line0, off0 := s.lines, s.size
	rd := journal.NewReader(io.NewSectionReader(src, off0, 1<<62))
	for {
		l, err := rd.Next()
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			je, ok := err.(*journal.Error)
			if ok && je.Code == journal.LineTooLong {
				c := *je
				c.File, c.Line = path, c.Line+line0
				return nil, &Error{Kind: ErrCorrupt, SessionID: s.sessionID, Path: path, Line: c.Line, Offset: s.size, Err: &c}
			}
			return nil, &Error{Kind: ErrIO, SessionID: s.sessionID, Path: path, Err: err}
		}
		l.Num += line0
		l.Offset += off0
		if l.Torn {
			return &Torn{Line: l.Num, Offset: l.Offset, Bytes: append([]byte(nil), l.Raw...)}, nil
		}
		s.vouching = l.Offset+int64(len(l.Raw))+1 <= s.vouchEnd
		a, jerr, err := s.admit(l.Raw, keep != nil)
		if s.vouching {
			s.vouched++
			s.vouching = false
		}
		if err != nil {
			return nil, &Error{Kind: ErrIO, SessionID: s.sessionID, Path: path, Line: l.Num, Offset: l.Offset, Err: err}
		}
		if jerr == nil && a.dupOf > 0 {
			jerr = &journal.Error{EventID: a.event.EventID, Code: journal.DuplicateEventID, Pointer: "/event_id",
				Msg: fmt.Sprintf("event_id %q already appears at line %d", a.event.EventID, a.dupOf)}
		}
		if jerr != nil {
			jerr.File, jerr.Line = path, l.Num
			jerr.EventID = strings.Clone(jerr.EventID)
			return nil, &Error{Kind: ErrCorrupt, SessionID: s.sessionID, Path: path, Line: l.Num, Offset: l.Offset, EventID: jerr.EventID, Err: jerr}
		}
		if err := s.commit(&a, len(l.Raw)+1); err != nil {
			return nil, &Error{Kind: ErrIO, SessionID: s.sessionID, Path: path, Line: l.Num, Offset: l.Offset, Msg: "cannot index the session's event IDs", Err: err}
		}
		if keep != nil {
			ev := a.event // a copy: a itself stays off the heap
			ev.EventID, ev.ParentEventID, ev.Timestamp = strings.Clone(ev.EventID), strings.Clone(ev.ParentEventID), strings.Clone(ev.Timestamp)
			ev.Redaction.Fields = slices.Clone(ev.Redaction.Fields) // the scanner shares them
			keep(&ev)
		}
	}
}

// scanFile is scan of a whole file into a new state.
func scanFile(src io.ReaderAt, path, sessionID string, keep func(ev *journal.Event)) (*state, *Torn, error) {
	s := newState(sessionID)
	torn, err := s.scan(src, path, keep)
	return s, torn, err
}

func tornError(sessionID, path string, t *Torn) *Error {
	return &Error{Kind: ErrTornTail, SessionID: sessionID, Path: path, Line: t.Line, Offset: t.Offset,
		Err: &journal.Error{File: path, Line: t.Line, Code: journal.TornTail,
			Msg: fmt.Sprintf("last line has no newline (%d bytes at offset %d): a writer stopped mid-line; repair moves them to %s", len(t.Bytes), t.Offset, sideName(path, t.Offset))}}
}

func sideName(path string, offset int64) string {
	return fmt.Sprintf("%s.torn-%d", path, offset)
}
