package journal

import "github.com/tracecheck/tracecheck/journal/jsonv"

// LineScanner is the event line path for callers that take lines one at a
// time as they arrive (package journal/store checks each appended line and
// each line it reads back): the lean scanner of the streaming pass
// (fastscan.go), and the same tree-free decoding of the envelope that the
// pass uses for lines outside the lean subset.

// LineScanner reads event lines in the reference layout without building a
// jsonv.Value. The zero LineScanner is ready to use; it remembers the
// actor, provenance and redaction objects it has checked, so it is not safe
// for concurrent use.
type LineScanner struct {
	s lineScanner
}

// Scan reads one line (without its newline) on the lean path. When ok, the
// line is a schema-valid event that DecodeLine would accept and read the
// same way, and everything in it but the payload is in the golden layout
// (compact, envelope strings without escapes, integers as AppendJSON writes
// them): Scan has appended the event's canonical encoding (the bytes a
// fingerprint hashes, equal to DecodeLine's value AppendCanonical) to dst,
// and returns the event and its payload as written. EventID, ParentEventID
// and Timestamp alias line; Event.Payload is not set (parse payload when it
// is needed); Redaction.Fields may be shared with other events and must not
// be modified. When not ok the line is outside the lean subset or invalid:
// dst is returned unchanged and the caller must use Decode (or DecodeLine),
// which decides and explains.
func (s *LineScanner) Scan(dst, line []byte) (out []byte, ev Event, payload []byte, ok bool) {
	var l leanLine
	out, ok = s.s.scan(dst, line, &l)
	if !ok {
		return dst, Event{}, nil, false
	}
	return out, l.ev, l.payload, true
}

// Members reads one line on the lean path, as Scan does but without the
// canonical encoding, and appends to dst where each top-level member's
// value stands in line, in line order; ok is false when the line is not
// on the lean path (Scan's not ok). CheckFiles gives the same spans as
// CheckedLine.Members.
func (s *LineScanner) Members(dst []MemberSpan, line []byte) (_ []MemberSpan, ok bool) {
	var l leanLine
	var mem members
	s.s.checkOnly, s.s.mem = true, &mem
	_, ok = s.s.scan(nil, line, &l)
	s.s.checkOnly, s.s.mem = false, nil
	ms := mem.list()
	if !ok || ms == nil {
		return dst, false
	}
	return append(dst, ms...), true
}

// Decode reads any line (without its newline) with DecodeLine's verdict
// and error, but without a tree of the payload: Scan when the line is in
// the lean subset (lean is then true), else the streaming pass's general
// path, which checks the line keeping only its open containers and decodes
// the envelope member by member. When the line is an event, Decode appends
// its canonical encoding to dst and returns the event (Payload not set)
// and the payload as written (valid JSON). On the general path the
// event's strings are its own. The memory Decode needs is a few times the
// line's length, whatever the payload holds (MemoryPerLineByte).
func (s *LineScanner) Decode(dst, line []byte) (out []byte, ev Event, payload []byte, lean bool, err *Error) {
	if out, ev, payload, lean = s.Scan(dst, line); lean {
		return out, ev, payload, true, nil
	}
	env, ev, payload, err := decodeEnvelope(&s.s.canon, line)
	if err != nil {
		return dst, Event{}, nil, false, err
	}
	out, _ = appendCanonicalEvent(dst, &s.s.canon, env, payload) // the payload was checked
	ev.Payload = jsonv.Value{}
	return out, ev, payload, false, nil
}

// Read is Decode for a caller that does not need the canonical encoding:
// the same checks and verdict, the event and its payload as written, and
// whether the line was on the lean path; the lean path only checks the
// payload, keeping nothing of it.
func (s *LineScanner) Read(line []byte) (ev Event, payload []byte, lean bool, err *Error) {
	s.s.checkOnly = true
	_, ev, payload, lean = s.Scan(nil, line)
	s.s.checkOnly = false
	if lean {
		return ev, payload, true, nil
	}
	_, ev, payload, err = decodeEnvelope(&s.s.canon, line)
	if err != nil {
		return Event{}, nil, false, err
	}
	ev.Payload = jsonv.Value{}
	return ev, payload, false, nil
}
