package store

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
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

// entry is what the store remembers of a stored event: where it is and the
// SHA-256 of its canonical encoding, to tell a retry from a conflict.
type entry struct {
	line int
	off  int64
	sum  [sha256.Size]byte
}

// state is a session as far as it has been read or written: everything the
// session rules need to admit the next event, and nothing more.
type state struct {
	sessionID   string
	ids         map[string]entry
	runs        []Run
	runSet      map[string]struct{}
	checker     *journal.RunChecker // the current (last) run's
	lastEventID string
	lines       int   // complete lines, one event each
	size        int64 // bytes of the complete lines
	canon       []byte
	canonicalz  jsonv.Canonicalizer
}

func newState(sessionID string) *state {
	return &state{sessionID: sessionID, ids: map[string]entry{}, runSet: map[string]struct{}{}}
}

// admission is an event that passed the rules, ready to be committed.
type admission struct {
	value  jsonv.Value
	event  journal.Event
	sum    [sha256.Size]byte
	dupOf  int // > 0: the same event is stored at this line; nothing to write
	newRun *journal.RunChecker
}

// admit checks one line against the schema and the session rules without
// changing the state. A retry of a stored event comes back with dupOf set;
// a conflicting one is an EventIDConflict error.
func (s *state) admit(raw []byte) (admission, *journal.Error) {
	var a admission
	if i := bytes.IndexByte(raw, '\n'); i >= 0 {
		return a, &journal.Error{Code: EmbeddedNewline,
			Msg: fmt.Sprintf("byte %d is a newline: an event must be one line", i+1)}
	}
	v, ev, jerr := journal.DecodeLine(raw)
	if jerr != nil {
		return a, jerr
	}
	if ev.SessionID != s.sessionID {
		return a, &journal.Error{EventID: ev.EventID, Code: WrongSession, Pointer: "/session_id",
			Msg: fmt.Sprintf("session_id %q is not this session's %q", ev.SessionID, s.sessionID)}
	}
	// The canonical form of a line DecodeLine accepted cannot fail.
	s.canon, _ = s.canonicalz.Append(s.canon[:0], raw)
	a.value, a.event, a.sum = v, ev, sha256.Sum256(s.canon)
	if old, ok := s.ids[ev.EventID]; ok {
		if old.sum == a.sum {
			a.dupOf = old.line
			return a, nil
		}
		return a, &journal.Error{EventID: ev.EventID, Code: EventIDConflict, Pointer: "/event_id",
			Msg: fmt.Sprintf("event_id %q is already stored at line %d with different content", ev.EventID, old.line)}
	}
	checker := s.checker
	runID := ev.Provenance.RunID
	if len(s.runs) == 0 {
		if resumed(&ev) {
			return a, &journal.Error{EventID: ev.EventID, Code: ResumeMarker, Pointer: "/payload/resumed",
				Msg: "the first run of a session has no run to resume"}
		}
		checker = journal.NewRunChecker()
		a.newRun = checker
	} else if last := s.runs[len(s.runs)-1].RunID; runID != last {
		if _, ended := s.runSet[runID]; ended {
			return a, &journal.Error{EventID: ev.EventID, Code: RunEnded, Pointer: "/provenance/run_id",
				Msg: fmt.Sprintf("run %q already ended: run %q follows it", runID, last)}
		}
		if jerr := checkResumeMarker(&ev, last); jerr != nil {
			return a, jerr
		}
		checker = journal.NewRunChecker()
		a.newRun = checker
	}
	if jerr := checker.TryCheck(&ev); jerr != nil {
		return a, jerr
	}
	return a, nil
}

// commit records an admitted event stored at the next line, size bytes long
// with its newline.
func (s *state) commit(a *admission, size int) {
	off := s.size
	s.lines++
	s.size += int64(size)
	// Clone the IDs: the parsed strings share the whole line's text, which
	// the state must not keep alive.
	id := strings.Clone(a.event.EventID)
	s.ids[id] = entry{line: s.lines, off: off, sum: a.sum}
	if a.newRun != nil {
		r := Run{RunID: strings.Clone(a.event.Provenance.RunID), FirstLine: s.lines}
		if len(s.runs) > 0 {
			r.ResumesRunID = s.runs[len(s.runs)-1].RunID
		}
		s.runs = append(s.runs, r)
		s.runSet[r.RunID] = struct{}{}
		s.checker = a.newRun
	}
	s.runs[len(s.runs)-1].Events++
	s.lastEventID = id
}

// ResumedKey and ResumesRunIDKey are the session.start payload members of a
// resume marker.
const (
	ResumedKey      = "resumed"
	ResumesRunIDKey = "resumes_run_id"
)

func resumed(ev *journal.Event) bool {
	if ev.Type != "session.start" {
		return false
	}
	r, _ := ev.Payload.Get(ResumedKey)
	return r.IsTrue()
}

func checkResumeMarker(ev *journal.Event, prev string) *journal.Error {
	if ev.Type != "session.start" {
		return &journal.Error{EventID: ev.EventID, Code: ResumeMarker, Pointer: "/type",
			Msg: fmt.Sprintf("run %q starts with %s: a resumed run starts with session.start {\"resumed\": true, \"resumes_run_id\": %q}", ev.Provenance.RunID, ev.Type, prev)}
	}
	if !resumed(ev) {
		return &journal.Error{EventID: ev.EventID, Code: ResumeMarker, Pointer: "/payload/resumed",
			Msg: fmt.Sprintf("run %q follows run %q, so its session.start must say \"resumed\": true", ev.Provenance.RunID, prev)}
	}
	r, _ := ev.Payload.Get(ResumesRunIDKey)
	if r.Kind() != jsonv.String || r.Text() != prev {
		got := "nothing"
		if r.IsValid() {
			got = string(r.AppendJSON(nil))
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

// scan reads a session file from the start, admitting every complete line.
// A torn last line is returned, not an error; any other bad line is an
// ErrCorrupt *Error naming it. keep, when set, sees every event in order.
func scan(r io.Reader, path, sessionID string, keep func(ev *journal.Event)) (*state, *Torn, error) {
	s := newState(sessionID)
	rd := journal.NewReader(r)
	for {
		l, err := rd.Next()
		if err == io.EOF {
			return s, nil, nil
		}
		if err != nil {
			je, ok := err.(*journal.Error)
			if ok && je.Code == journal.LineTooLong {
				c := *je
				c.File = path
				return s, nil, &Error{Kind: ErrCorrupt, SessionID: sessionID, Path: path, Line: c.Line, Offset: s.size, Err: &c}
			}
			return s, nil, &Error{Kind: ErrIO, SessionID: sessionID, Path: path, Err: err}
		}
		if l.Torn {
			return s, &Torn{Line: l.Num, Offset: l.Offset, Bytes: append([]byte(nil), l.Raw...)}, nil
		}
		a, jerr := s.admit(l.Raw)
		if jerr == nil && a.dupOf > 0 {
			jerr = &journal.Error{EventID: a.event.EventID, Code: journal.DuplicateEventID, Pointer: "/event_id",
				Msg: fmt.Sprintf("event_id %q already appears at line %d", a.event.EventID, a.dupOf)}
		}
		if jerr != nil {
			jerr.File, jerr.Line = path, l.Num
			return s, nil, &Error{Kind: ErrCorrupt, SessionID: sessionID, Path: path, Line: l.Num, Offset: l.Offset, EventID: jerr.EventID, Err: jerr}
		}
		s.commit(&a, len(l.Raw)+1)
		if keep != nil {
			keep(&a.event)
		}
	}
}

func tornError(sessionID, path string, t *Torn) *Error {
	return &Error{Kind: ErrTornTail, SessionID: sessionID, Path: path, Line: t.Line, Offset: t.Offset,
		Err: &journal.Error{File: path, Line: t.Line, Code: journal.TornTail,
			Msg: fmt.Sprintf("last line has no newline (%d bytes at offset %d): a writer stopped mid-line; repair moves them to %s", len(t.Bytes), t.Offset, sideName(path, t.Offset))}}
}

func sideName(path string, offset int64) string {
	return fmt.Sprintf("%s.torn-%d", path, offset)
}
