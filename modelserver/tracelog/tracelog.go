// Package tracelog appends the Trace 0.1.0 journal of a model endpoint to
// a writer, one exchange at a time.
//
// Events get the reference's deterministic identity: event_id evt-NNN of
// the sequence, the fixed clock (2026-08-10T00:00:00Z plus the sequence in
// seconds), each event's parent the event before it, one session and run.
// Append writes all of an exchange's events with a single Write call, so a
// file opened for appending never holds part of an exchange unless the
// process dies inside that call.
//
// A Log is not safe for concurrent use: its callers serialize exchanges.
package tracelog

import (
	"bytes"
	"fmt"
	"io"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/scenarios"
)

// Entry is one event to append: what the Log adds is its identity.
type Entry struct {
	Type    string
	Actor   journal.Actor
	Payload jsonv.Value
	// AppendPayload, when not nil, appends the payload as JSON text to
	// the line being written, in place of Payload: a large payload (a
	// request's message digests) costs its bytes in the line, not a tree
	// of Values nor a copy. It must append one compact JSON object in the
	// golden layout (jsonv's AppendJSON spellings); the Event Append
	// returns for it has no Payload.
	AppendPayload func(dst []byte) []byte
}

// payloadAt is where an event's payload goes in its golden line written
// with an empty payload: the members before it hold only JSON-escaped
// strings, numbers and objects of them, so this text cannot occur earlier.
var payloadAt = []byte(`,"payload":{},"provenance":`)

// Log appends events to a writer.
type Log struct {
	w         io.Writer
	sessionID string
	prov      journal.Provenance
	next      int64
	parent    string
	err       error
}

// New returns a Log that starts a run at sequence 0.
func New(w io.Writer, sessionID string, prov journal.Provenance) *Log {
	return &Log{w: w, sessionID: sessionID, prov: prov}
}

// Continue returns a Log that goes on with the run whose last event is
// last: same session and provenance, the next sequence, last as the
// parent.
func Continue(w io.Writer, last journal.Event) *Log {
	return &Log{w: w, sessionID: last.SessionID, prov: last.Provenance, next: last.Sequence + 1, parent: last.EventID}
}

// Next is the sequence the next event gets.
func (l *Log) Next() int64 { return l.next }

// Append gives entries their identity and writes them in one call. After a
// failed write the Log writes nothing more and every Append returns that
// first error (the events are still numbered, so the caller's view stays
// consistent).
func (l *Log) Append(entries ...Entry) ([]journal.Event, error) {
	events := make([]journal.Event, len(entries))
	var buf []byte
	for i, en := range entries {
		id := fmt.Sprintf("evt-%03d", l.next)
		events[i] = journal.Event{
			TraceVersion:  journal.TraceVersion,
			EventID:       id,
			SessionID:     l.sessionID,
			Sequence:      l.next,
			Timestamp:     scenarios.Stamp(l.next),
			Type:          en.Type,
			Actor:         en.Actor,
			Payload:       en.Payload,
			Provenance:    l.prov,
			Redaction:     journal.CleanRedaction(),
			ParentEventID: l.parent,
		}
		if en.AppendPayload != nil {
			line := events[i].AppendGolden(nil) // Payload unset: {}
			at := bytes.Index(line, payloadAt) + len(`,"payload":`)
			buf = append(en.AppendPayload(append(buf, line[:at]...)), line[at+len("{}"):]...)
		} else {
			buf = events[i].AppendGolden(buf)
		}
		l.next++
		l.parent = id
	}
	if l.err != nil || l.w == nil {
		return events, l.err
	}
	if _, err := l.w.Write(buf); err != nil {
		l.err = fmt.Errorf("writing the trace: %w", err)
	}
	return events, l.err
}

// Err is the first write error, or nil.
func (l *Log) Err() error { return l.err }
