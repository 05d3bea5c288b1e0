package journal

import "fmt"

// RunChecker enforces the journal invariants on a stream of events, one at
// a time, so that a file never has to be held in memory to be checked.
type RunChecker struct {
	single    bool // a single-run journal: a second session or run is an error
	started   bool
	sessionID string
	runID     string
	next      int64
	seen      map[string]struct{}
}

// NewRunChecker checks one single-run journal: mixing sessions or runs is
// an error.
func NewRunChecker() *RunChecker {
	return &RunChecker{single: true, seen: map[string]struct{}{}}
}

// newGroupChecker checks one (session, run) group of a multi-run file; the
// caller has already grouped the events.
func newGroupChecker() *RunChecker {
	return &RunChecker{seen: map[string]struct{}{}}
}

// Check applies the invariants to the next event. Line and File of the
// returned error are left for the caller.
func (c *RunChecker) Check(e *Event) *Error {
	if !c.started {
		c.started = true
		c.sessionID, c.runID = e.SessionID, e.Provenance.RunID
	} else if c.single {
		if e.SessionID != c.sessionID {
			return &Error{EventID: e.EventID, Code: MixedSession, Pointer: "/session_id",
				Msg: fmt.Sprintf("session_id %q differs from the journal's %q: a journal holds one session", e.SessionID, c.sessionID)}
		}
		if e.Provenance.RunID != c.runID {
			return &Error{EventID: e.EventID, Code: MixedRun, Pointer: "/provenance/run_id",
				Msg: fmt.Sprintf("run_id %q differs from the journal's %q: a journal holds one run", e.Provenance.RunID, c.runID)}
		}
	}
	if e.Sequence != c.next {
		want := c.next
		c.next = e.Sequence + 1 // resynchronise: report each gap once, not every later event
		return c.remember(e, &Error{EventID: e.EventID, Code: SequenceGap, Pointer: "/sequence",
			Msg: fmt.Sprintf("sequence %d where %d was expected: sequences start at 0 and are contiguous", e.Sequence, want)})
	}
	c.next++
	if e.ParentEventID != "" {
		if _, ok := c.seen[e.ParentEventID]; !ok {
			return c.remember(e, &Error{EventID: e.EventID, Code: ParentNotEarlier, Pointer: "/parent_event_id",
				Msg: fmt.Sprintf("parent_event_id %q names no earlier event of this run", e.ParentEventID)})
		}
	}
	if _, dup := c.seen[e.EventID]; dup {
		return &Error{EventID: e.EventID, Code: DuplicateEventID, Pointer: "/event_id",
			Msg: fmt.Sprintf("event_id %q appears earlier in this run", e.EventID)}
	}
	return c.remember(e, nil)
}

func (c *RunChecker) remember(e *Event, err *Error) *Error {
	c.seen[e.EventID] = struct{}{}
	return err
}
