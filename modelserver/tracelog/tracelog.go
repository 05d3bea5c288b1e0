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
	"strconv"
	"time"

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

// Log appends events to a writer.
type Log struct {
	w         io.Writer
	sessionID string
	prov      journal.Provenance
	next      int64
	parent    string
	err       error
	// parent is the id of the event before the next (Append's, or the
	// event Continue was given); derived: it is evt-%03d of next-1
	// instead (Write does not spell it out).
	derived bool
	buf     []byte // the lines of the last exchange, reused
	// session and tail: the members every line of Write has, written once:
	// `,"session_id":…,"sequence":` and `,"provenance":{…},"redaction":{…}`.
	session, tail []byte
	// heads are the `","type":…,"actor":{…` of the entries written last
	// (an exchange's are a few, the same from one exchange to the next),
	// so that their strings are escaped once.
	heads [4]head
	// day is the date part of the timestamps of the day day-1 of the
	// clock (`2026-08-10T`), so that each stamp computes only the time
	// of day; 0: none yet.
	day     int64
	dayText []byte
}

// head is the type and actor of an entry, written.
type head struct {
	typ   string
	actor journal.Actor
	text  []byte
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
	return events, l.append(entries, events)
}

// Write is Append for a caller that does not need the events: each line
// is written straight, the members that are the same on every line of the
// Log (session, provenance, redaction) written once and copied (the bytes
// Append writes: TestWriteMatchesAppend).
func (l *Log) Write(entries ...Entry) error {
	if l.session == nil {
		l.session = jsonv.AppendPyString([]byte(`,"session_id":`), l.sessionID)
		l.session = append(l.session, `,"sequence":`...)
		ev := journal.Event{Provenance: l.prov, Redaction: journal.CleanRedaction()}
		line := ev.AppendGolden(nil)
		l.tail = line[bytes.Index(line, []byte(`},"payload":{},"provenance":`))+len(`},"payload":{}`) : len(line)-2] // ,"provenance":{…},"redaction":{…}
	}
	buf := l.buf[:0]
	for _, en := range entries {
		buf = append(buf, `{"trace_version":"`+journal.TraceVersion+`","event_id":"evt-`...)
		buf = appendSeq(buf, l.next)
		buf = append(buf, '"')
		buf = append(buf, l.session...)
		buf = jsonv.AppendInt(buf, l.next)
		buf = append(buf, `,"timestamp":"`...)
		buf = l.appendStamp(buf, l.next)
		buf = append(buf, l.head(&en)...)
		buf = append(buf, `},"payload":`...)
		switch {
		case en.AppendPayload != nil:
			buf = en.AppendPayload(buf)
		case en.Payload.IsValid():
			buf = en.Payload.AppendJSON(buf)
		default:
			buf = append(buf, "{}"...)
		}
		buf = append(buf, l.tail...)
		switch {
		case l.derived:
			buf = append(buf, `,"parent_event_id":"evt-`...)
			buf = appendSeq(buf, l.next-1)
			buf = append(buf, '"')
		case l.parent != "":
			buf = jsonv.AppendPyString(append(buf, `,"parent_event_id":`...), l.parent)
		}
		buf = append(buf, '}', '\n')
		l.parent, l.derived = "", true
		l.next++
	}
	return l.flush(buf)
}

// head is `","type":…,"actor":{"kind":…,"id":…(,"parent_id":…)` of en,
// from the heads kept when it is one of them.
func (l *Log) head(en *Entry) []byte {
	for i := range l.heads {
		if h := &l.heads[i]; h.text != nil && h.typ == en.Type && h.actor == en.Actor {
			return h.text
		}
	}
	b := jsonv.AppendPyString([]byte(`","type":`), en.Type)
	b = jsonv.AppendPyString(append(b, `,"actor":{"kind":`...), en.Actor.Kind)
	b = jsonv.AppendPyString(append(b, `,"id":`...), en.Actor.ID)
	if en.Actor.ParentID != "" {
		b = jsonv.AppendPyString(append(b, `,"parent_id":`...), en.Actor.ParentID)
	}
	copy(l.heads[1:], l.heads[:len(l.heads)-1])
	l.heads[0] = head{typ: en.Type, actor: en.Actor, text: b}
	return b
}

// appendStamp is appendStamp with the date part of the stamps of one day
// computed once: consecutive events are seconds apart, on the same day.
func (l *Log) appendStamp(dst []byte, n int64) []byte {
	if n < 0 || n >= 1<<33 { // past 1<<33 seconds, time.Duration(n)*time.Second wraps as Stamp's does
		return appendStamp(dst, n)
	}
	sec := n + clockSecond
	if day := sec/86400 + 1; day != l.day {
		stamp := appendStamp(l.dayText[:0], n)
		l.day, l.dayText = day, stamp[:len(stamp)-len("15:04:05Z")]
	}
	s := int(sec % 86400)
	dst = append(dst, l.dayText...)
	return append(dst, byte('0'+s/36000), byte('0'+s/3600%10), ':', byte('0'+s/600%6), byte('0'+s/60%10), ':', byte('0'+s%60/10), byte('0'+s%10), 'Z')
}

// clockSecond is the second of its day scenarios.ClockStart is.
var clockSecond = int64(scenarios.ClockStart.UTC().Hour()*3600 + scenarios.ClockStart.UTC().Minute()*60 + scenarios.ClockStart.UTC().Second())

// appendStamp appends scenarios.Stamp(n) (the clock start plus n seconds
// in the layout 2006-01-02T15:04:05Z) without time's layout parsing, which
// was the most of a short line's cost after the payload.
func appendStamp(dst []byte, n int64) []byte {
	t := scenarios.ClockStart.Add(time.Duration(n) * time.Second).UTC()
	y, mo, d := t.Date()
	hh, mm, ss := t.Clock()
	if y < 1000 || y > 9999 {
		return t.AppendFormat(dst, "2006-01-02T15:04:05Z")
	}
	two := func(b []byte, v int) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }
	dst = strconv.AppendInt(dst, int64(y), 10)
	dst = two(append(dst, '-'), int(mo))
	dst = two(append(dst, '-'), d)
	dst = two(append(dst, 'T'), hh)
	dst = two(append(dst, ':'), mm)
	dst = two(append(dst, ':'), ss)
	return append(dst, 'Z')
}

// appendSeq appends n as eventID spells it ("%03d" when n >= 0).
func appendSeq(dst []byte, n int64) []byte {
	if n >= 0 && n < 100 {
		dst = append(dst, '0')
		if n < 10 {
			dst = append(dst, '0')
		}
	}
	return jsonv.AppendInt(dst, n)
}

// flush writes an exchange's lines and keeps the buffer when it is small.
func (l *Log) flush(buf []byte) error {
	if cap(buf) <= maxKeptBuf {
		l.buf = buf
	}
	if l.err != nil || l.w == nil {
		return l.err
	}
	if _, err := l.w.Write(buf); err != nil {
		l.err = fmt.Errorf("writing the trace: %w", err)
	}
	return l.err
}

// append writes entries, building their events in events.
func (l *Log) append(entries []Entry, events []journal.Event) error {
	buf := l.buf[:0]
	for i, en := range entries {
		id := eventID(l.next)
		ev := &events[i]
		*ev = journal.Event{
			TraceVersion:  journal.TraceVersion,
			EventID:       id,
			SessionID:     l.sessionID,
			Sequence:      l.next,
			Timestamp:     scenarios.Stamp(l.next),
			Type:          en.Type,
			Actor:         en.Actor,
			Payload:       en.Payload,
			Provenance:    l.prov,
			Redaction:     journal.Redaction{Status: "clean", Fields: noFields},
			ParentEventID: l.parentID(),
		}
		buf = ev.AppendGoldenPayload(buf, en.AppendPayload)
		l.next++
		l.parent, l.derived = id, false
	}
	return l.flush(buf)
}

// parentID is the id of the event before the next, "" for a run's first.
func (l *Log) parentID() string {
	if l.derived {
		return eventID(l.next - 1)
	}
	return l.parent
}

// maxKeptBuf bounds the line buffer a Log keeps from one Append to the
// next: a large exchange's is let go.
const maxKeptBuf = 64 << 10

// noFields is every event's redaction fields (journal.CleanRedaction's),
// shared: nothing writes to it.
var noFields = []string{}

// eventID is "evt-%03d" of n, without fmt.
func eventID(n int64) string {
	var b [24]byte
	d := strconv.AppendInt(b[:0], n, 10)
	if len(d) >= 3 || n < 0 {
		return "evt-" + string(d)
	}
	return "evt-" + "00"[:3-len(d)] + string(d)
}

// Err is the first write error, or nil.
func (l *Log) Err() error { return l.err }
