// Package journal reads, checks and writes Trace 0.1.0 session journals:
// append-only JSONL files holding one event per line.
//
// A Journal is one run of one session, checked against the seed's
// invariants: at least one event, sequence exactly 0..n-1 in order, a single
// session_id and a single provenance.run_id, every parent_event_id naming an
// earlier event, and no event_id twice. Validate checks a whole file the way
// the reference validator does: every line against the Trace event schema,
// then the same invariants run by run, where a run is the events sharing
// (session_id, provenance.run_id).
//
// Every problem is an *Error carrying a stable Code, the file, the 1-based
// line, the event_id when known and the JSON pointer of the failing field.
// Reading is streaming: memory is bounded by the longest line, not the file.
package journal

import (
	"fmt"
	"io"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Journal is a validated, single-run event sequence. It is immutable: the
// accessors return slices that callers must not modify.
type Journal struct {
	events []Event
	values []jsonv.Value
}

// New checks events against the journal invariants and returns the journal.
// The error is an *Error naming the first violation (Line is the 1-based
// position of the offending event).
func New(events []Event) (*Journal, error) {
	values := make([]jsonv.Value, len(events))
	for i := range events {
		values[i] = events[i].Value()
	}
	return newJournal(append([]Event(nil), events...), values, "")
}

func newJournal(events []Event, values []jsonv.Value, file string) (*Journal, error) {
	if len(events) == 0 {
		return nil, &Error{File: file, Code: EmptyJournal, Msg: "a session journal needs at least one event"}
	}
	c := NewRunChecker()
	for i := range events {
		if err := c.Check(&events[i]); err != nil {
			err.File, err.Line = file, i+1
			return nil, err
		}
	}
	return &Journal{events: events, values: values}, nil
}

// Events returns the events in order.
func (j *Journal) Events() []Event { return j.events }

// Values returns each event as parsed (or as built), for hashing.
func (j *Journal) Values() []jsonv.Value { return j.values }

// Len returns the number of events.
func (j *Journal) Len() int { return len(j.events) }

// SessionID returns the journal's session identity.
func (j *Journal) SessionID() string { return j.events[0].SessionID }

// RunID returns the journal's run identity (provenance.run_id).
func (j *Journal) RunID() string { return j.events[0].Provenance.RunID }

// Read reads a whole single-run journal, validating every line. It stops at
// the first problem and returns it as an *Error.
func Read(r io.Reader, file string) (*Journal, error) {
	var events []Event
	var values []jsonv.Value
	err := Scan(r, file, func(rec *Record) error {
		events = append(events, rec.Event)
		values = append(values, rec.Value)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return nil, &Error{File: file, Code: EmptyJournal, Msg: "a session journal needs at least one event"}
	}
	return &Journal{events: events, values: values}, nil
}

// Scan streams a single-run journal: each line is decoded, schema-checked
// and checked against the run invariants before fn sees it. It stops at the
// first problem (returned as an *Error) or the first error from fn. An empty
// input is an EmptyJournal error.
func Scan(r io.Reader, file string, fn func(rec *Record) error) error {
	rd := NewReader(r)
	c := NewRunChecker()
	n := 0
	for {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return asError(err, file, 0)
		}
		if l.Torn {
			return &Error{File: file, Line: l.Num, Code: TornTail, Msg: fmt.Sprintf("last line has no newline (%d bytes): the writer stopped mid-line", len(l.Raw))}
		}
		v, ev, lerr := DecodeLine(l.Raw)
		if lerr != nil {
			lerr.File, lerr.Line = file, l.Num
			return lerr
		}
		if cerr := c.Check(&ev); cerr != nil {
			cerr.File, cerr.Line = file, l.Num
			return cerr
		}
		n++
		if err := fn(&Record{Line: l.Num, Offset: l.Offset, Raw: l.Raw, Value: v, Event: ev}); err != nil {
			return err
		}
	}
	if n == 0 {
		return &Error{File: file, Code: EmptyJournal, Msg: "a session journal needs at least one event"}
	}
	return nil
}

// Validate checks every line of a JSONL file and the invariants of each run
// in it, and returns every problem found (nil when the file is valid). Runs
// are grouped by (session_id, provenance.run_id) as the reference validator
// does, so a file may hold several runs; each must start at sequence 0.
func Validate(r io.Reader, file string) []*Error {
	var errs []*Error
	rd := NewReader(r)
	groups := map[[2]string]*RunChecker{}
	n := 0
	for {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, asError(err, file, 0))
			break
		}
		n++
		if l.Torn {
			errs = append(errs, &Error{File: file, Line: l.Num, Code: TornTail, Msg: fmt.Sprintf("last line has no newline (%d bytes): the writer stopped mid-line", len(l.Raw))})
			break
		}
		_, ev, lerr := DecodeLine(l.Raw)
		if lerr != nil {
			lerr.File, lerr.Line = file, l.Num
			errs = append(errs, lerr)
			continue
		}
		key := [2]string{ev.SessionID, ev.Provenance.RunID}
		c := groups[key]
		if c == nil {
			c = newGroupChecker()
			groups[key] = c
		}
		if cerr := c.Check(&ev); cerr != nil {
			cerr.File, cerr.Line = file, l.Num
			errs = append(errs, cerr)
		}
	}
	if n == 0 && len(errs) == 0 {
		errs = append(errs, &Error{File: file, Code: EmptyJournal, Msg: "file holds no event"})
	}
	return errs
}
