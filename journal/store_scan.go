package journal

// LineScanner exposes the lean line path (fastscan.go) to package
// journal/store, which checks and canonicalizes one appended line at a time.

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
// dst is returned unchanged and the caller must use DecodeLine, which
// decides and explains.
func (s *LineScanner) Scan(dst, line []byte) (out []byte, ev Event, payload []byte, ok bool) {
	var l leanLine
	out, ok = s.s.scan(dst, line, &l)
	if !ok {
		return dst, Event{}, nil, false
	}
	return out, l.ev, l.payload, true
}
