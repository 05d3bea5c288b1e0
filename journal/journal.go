// Package journal reads, checks and writes Trace 0.1.0 session journals:
// append-only JSONL files holding one event per line.
//
// A Journal is one run of one session, checked against the invariants of
// the curriculum's lesson s07 (github.com/vpromise/inside-coding-agents):
// at least one event, sequence exactly 0..n-1 in order, a single session_id
// and a single provenance.run_id, every parent_event_id naming an earlier
// event, and no event_id twice. Validate checks a whole file the way
// the reference validator does: every line against the Trace event schema,
// then the same invariants run by run, where a run is the events sharing
// (session_id, provenance.run_id).
//
// Every problem is an *Error carrying a stable Code, the file, the 1-based
// line, the event_id when known and the JSON pointer of the failing field.
// Reading is streaming: memory is bounded by the longest line, not the
// file. Validate and Stream need at most MemoryPerLineByte (8) bytes of
// heap per byte of the longest line, plus a few MB: no line is held as a
// tree unless a caller asks for its payload (StreamOptions.Payloads). The
// event ids a run's invariants need are kept in internal/idset: a few bytes
// of memory an id whatever the ids look like, the rest in temporary files
// under $TMPDIR (a failure there is READ_FAILED). Validate numbers a file's
// runs with such a set and keeps a fixed-size record per run, paged to a
// temporary file past a small cache, so memory is flat in the number of
// events and of runs alike.
package journal

import (
	"fmt"
	"io"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/schema"
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
		return nil, emptyJournal(file)
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
		return nil, err // an empty input included: Scan reports it
	}
	return &Journal{events: events, values: values}, nil
}

// Scan streams a single-run journal: each line is decoded, schema-checked
// and checked against the run invariants before fn sees it. It stops at the
// first problem (returned as an *Error) or the first error from fn. An empty
// input is an EmptyJournal error. Lines are decoded in parallel (see
// pipeline.go); fn is called in order, from the caller's goroutine.
func Scan(r io.Reader, file string, fn func(rec *Record) error) error {
	var rec Record
	n, err := runSingle(r, file, pipeConfig{mode: modeFull}, NewRunChecker(), func(b *batch, i int) error {
		l, res := b.lines[i], &b.res[i]
		rec = Record{Line: l.num, Offset: l.off, Raw: b.buf[l.a:l.b], Value: res.val, Event: res.ev}
		return fn(&rec)
	})
	if err == nil && n == 0 {
		err = emptyJournal(file)
	}
	return err
}

// emptyJournal is the error for a single-run journal without events.
func emptyJournal(file string) *Error {
	return &Error{File: file, Code: EmptyJournal, Msg: "a session journal needs at least one event"}
}

func tornMsg(n int) string {
	return fmt.Sprintf("last line has no newline (%d bytes): the writer stopped mid-line", n)
}

// MaxErrors bounds how many problems Validate collects from one file, and
// with it Validate's memory; the last reported error is TooManyErrors.
const MaxErrors = 100

// isCascade reports whether an invariant error could be caused by lines
// that were already reported as undecodable: a forward sequence gap no
// wider than the undecodable lines, or a parent that may have been on one.
func isCascade(code Code, seq, want int64, undecoded int) bool {
	switch code {
	case SequenceGap:
		return seq > want && seq-want <= int64(undecoded)
	case ParentNotEarlier:
		return true
	}
	return false
}

// Validate checks every line of a JSONL file and the invariants of each run
// in it, and returns every problem found (nil when the file is valid). Runs
// are grouped by (session_id, provenance.run_id) as the reference validator
// does, so a file may hold several runs; each must start at sequence 0.
// Lines are decoded in parallel on the lean path (see pipeline.go).
func Validate(r io.Reader, file string) []*Error {
	return validate(r, file, newRunGroups())
}

// ValidateOptions add checks to what Validate does.
type ValidateOptions struct {
	// Payload, when set, also checks the payload of every event whose
	// envelope is valid (schema.CheckPayload checks it against the payload
	// schema of its type: validate --strict-payloads). What it finds is one
	// PayloadSchema error per event, on the event's line, before any
	// invariant problem of that line.
	Payload PayloadCheck
}

// PayloadCheck checks one event's payload: typ is the event's type,
// payload the payload as written (valid JSON, an object). It returns the
// violations found, pointers relative to the payload ("" is the payload
// itself). It is called from several goroutines at once.
type PayloadCheck func(typ string, payload []byte) []schema.Violation

// ValidateWith is Validate with the checks opt adds.
func ValidateWith(r io.Reader, file string, opt ValidateOptions) []*Error {
	return validateWith(r, file, newRunGroups(), opt)
}

// payloadError is the PayloadSchema error of event e whose payload is
// payload, or nil when check finds nothing wrong: the first violation's
// pointer under /payload, every violation in the message (the others with
// their pointers), as a SCHEMA error lists the envelope's.
func payloadError(e *Event, payload []byte, check PayloadCheck) *Error {
	vs := check(e.Type, payload)
	if len(vs) == 0 {
		return nil
	}
	msgs := make([]string, len(vs))
	for i, v := range vs {
		if i == 0 {
			msgs[i] = v.Message
			continue
		}
		msgs[i] = "/payload" + v.Pointer + ": " + v.Message
	}
	return &Error{EventID: strings.Clone(e.EventID), Code: PayloadSchema, Pointer: "/payload" + vs[0].Pointer,
		Msg: strings.Clone(e.Type) + " payload: " + strings.Join(msgs, "; ")}
}

func validate(r io.Reader, file string, groups *runGroups) []*Error {
	return validateWith(r, file, groups, ValidateOptions{})
}

func validateWith(r io.Reader, file string, groups *runGroups, opt ValidateOptions) []*Error {
	c := fileCheck{file: file, groups: groups}
	defer groups.close()
	runPipeline(r, pipeConfig{mode: modeLean, checkOnly: true, payloadCheck: opt.Payload}, func(b *batch) bool {
		return c.batch(b.lines, b.res, b.readErr)
	})
	return c.finish()
}

// fileCheck is the sequential part of Validate for one file: each line's
// verdict from the workers, then the invariants of its run, in file order,
// with the problems gathered up to MaxErrors. Validate and CheckFiles
// share it, so that both report the same problems in the same order.
type fileCheck struct {
	file      string
	groups    *runGroups
	errs      []*Error
	n         int // lines seen
	undecoded int // lines that failed before the invariants could see them
	stopped   bool
}

// batch checks the lines of one batch (res[i] is the workers' verdict on
// lines[i]; readErr what ended the input after them) and reports whether
// the checks go on.
func (c *fileCheck) batch(lines []batchLine, res []lineResult, readErr error) bool {
	if c.stopped {
		return false
	}
	for i, l := range lines {
		if !c.line(l, &res[i]) {
			c.stopped = true
			return false
		}
	}
	if readErr != nil {
		c.errs = append(c.errs, asError(readErr, c.file, 0))
		c.stopped = true
		return false
	}
	return true
}

// line checks one line; false stops the checks.
func (c *fileCheck) line(l batchLine, res *lineResult) bool {
	file := c.file
	c.n++
	if len(c.errs) >= MaxErrors {
		c.errs = append(c.errs, &Error{File: file, Line: l.num, Code: TooManyErrors,
			Msg: fmt.Sprintf("stopped after %d problems; fix these and run again", MaxErrors)})
		return false
	}
	if l.torn {
		c.errs = append(c.errs, tornTail(file, l.num, l.b-l.a))
		return false
	}
	if res.err != nil {
		res.err.File, res.err.Line = file, l.num
		c.errs = append(c.errs, res.err)
		c.undecoded++
		return true
	}
	if res.perr != nil {
		res.perr.File, res.perr.Line = file, l.num
		c.errs = append(c.errs, res.perr)
	}
	ev := &res.ev
	want, cerr := c.groups.check(ev)
	if cerr != nil && c.undecoded > 0 && isCascade(cerr.Code, ev.Sequence, want, c.undecoded) {
		// An earlier line was already reported as undecodable; a gap
		// or a missing parent it explains would only repeat it.
		cerr = nil
	}
	if cerr != nil && len(c.errs) >= MaxErrors {
		// The line's payload problem was the last one there is room for.
		c.errs = append(c.errs, &Error{File: file, Line: l.num, Code: TooManyErrors,
			Msg: fmt.Sprintf("stopped after %d problems; fix these and run again", MaxErrors)})
		return false
	}
	if cerr != nil {
		cerr.File, cerr.Line = file, l.num
		cerr.EventID = string([]byte(cerr.EventID))
		c.errs = append(c.errs, cerr)
		if cerr.Code == ReadFailed {
			return false // the runs' state is lost: nothing after this can be checked
		}
	}
	return true
}

// finish returns the problems found; a file without lines is EmptyJournal.
func (c *fileCheck) finish() []*Error {
	if c.n == 0 && len(c.errs) == 0 {
		c.errs = append(c.errs, &Error{File: c.file, Code: EmptyJournal, Msg: "file holds no event"})
	}
	return c.errs
}
