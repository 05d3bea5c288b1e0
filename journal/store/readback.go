package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// StoredEvent is an event read back from a session file: where its line
// is, its envelope, and its payload as stored, without a tree of the
// payload. Its strings and Payload alias the reader's buffer: they are
// valid until the next read (or the callback's return); copy what you
// keep.
type StoredEvent struct {
	Offset int64 // of the line's first byte
	End    int64 // just past the line's newline
	// Event's Payload is not set: Payload is its JSON text.
	Event   journal.Event
	Payload []byte
}

// EachStored reads the events stored from byte offset from (the start of a
// line, at most the session's size: a Projection's Offset, or 0) to the end
// of the session, from the file, not from memory, and calls fn with each in
// order. The memory it needs is a few times the longest line
// (journal.MemoryPerLineByte), whatever the payloads hold. An error from fn
// stops the read and is returned as is.
func (w *Writer) EachStored(from int64, fn func(ev *StoredEvent) error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	if from < 0 || from > w.st.size {
		return &Error{Kind: ErrIO, SessionID: w.id, Path: w.path, Msg: fmt.Sprintf("offset %d is outside the session's %d bytes", from, w.st.size)}
	}
	if w.f == nil {
		return nil // not created yet: no event
	}
	if from > 0 {
		var b [1]byte
		if _, err := w.f.ReadAt(b[:], from-1); err != nil || b[0] != '\n' {
			return &Error{Kind: ErrIO, SessionID: w.id, Path: w.path, Msg: fmt.Sprintf("offset %d does not start a line", from), Err: err}
		}
	}
	rd := journal.NewReader(io.NewSectionReader(w.f, from, w.st.size-from))
	var sc journal.LineScanner
	for {
		l, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err == nil && l.Torn {
			err = errors.New("the last line has no newline")
		}
		if err != nil {
			return &Error{Kind: ErrIO, SessionID: w.id, Path: w.path, Offset: from + l.Offset, Msg: "cannot read the session back", Err: err}
		}
		ev := StoredEvent{Offset: from + l.Offset, End: from + l.End()}
		var jerr *journal.Error
		if ev.Event, ev.Payload, _, jerr = sc.Read(l.Raw); jerr != nil {
			jerr.File = w.path
			return &Error{Kind: ErrCorrupt, SessionID: w.id, Path: w.path, Offset: ev.Offset, Err: jerr}
		}
		if err := fn(&ev); err != nil {
			return err
		}
	}
}

// EachEvent is EachStored with each event whole: its payload parsed
// (Event.Payload) and its strings its own, so that the event and everything
// in it may be kept. A payload's tree costs many times its text; callers
// that need only some of its members should use EachStored.
func (w *Writer) EachEvent(from int64, fn func(e *journal.Event) error) error {
	return w.EachStored(from, func(s *StoredEvent) error {
		ev := s.Event
		ev.Payload, _ = jsonv.Parse(s.Payload) // checked when read
		ev.EventID, ev.ParentEventID, ev.Timestamp = strings.Clone(ev.EventID), strings.Clone(ev.ParentEventID), strings.Clone(ev.Timestamp)
		ev.Redaction.Fields = slices.Clone(ev.Redaction.Fields)
		return fn(&ev)
	})
}

// EventReader reads a session's events back by the offsets of their
// lines, from a descriptor of its own, so that it stays usable after the
// writer that opened it is closed: a complete line of a session file never
// changes (the store only appends, and a repair removes only a torn last
// line, which no offset of an event names). It holds no lock. It is not
// safe for concurrent use.
type EventReader struct {
	f        *os.File
	id, path string
	sc       journal.LineScanner
	buf      []byte
}

// OpenEventReader opens the session file again, read-only, with the rules
// of every open (a regular file, never through a link), and checks that it
// is the file w holds. A writer that has not created its file yet gives a
// reader that finds no event. Close it when done.
func (w *Writer) OpenEventReader() (*EventReader, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := &EventReader{id: w.id, path: w.path}
	if w.f == nil {
		return r, nil
	}
	f, err := openFile(w.path, os.O_RDONLY, 0)
	if err != nil {
		return nil, openError(w.id, w.path, err)
	}
	dev, ino, _, err := fileID(f)
	wdev, wino, _, werr := fileID(w.f)
	if err == nil {
		err = werr
	}
	if err == nil && (dev != wdev || ino != wino) {
		err = errors.New("the session file was replaced under its name")
	}
	if err != nil {
		f.Close()
		return nil, &Error{Kind: ErrIO, SessionID: w.id, Path: w.path, Msg: "cannot open the session file again to read it back", Err: err}
	}
	r.f = f
	return r, nil
}

// ReadAt reads the event whose line starts at byte offset off (an offset
// EachStored or an Ack gave). The event is valid until the next call.
func (r *EventReader) ReadAt(off int64) (*StoredEvent, error) {
	fail := func(msg string, err error) (*StoredEvent, error) {
		return nil, &Error{Kind: ErrIO, SessionID: r.id, Path: r.path, Offset: off, Msg: msg, Err: err}
	}
	if r.f == nil {
		return fail("no event stored at this offset", nil)
	}
	if off > 0 {
		var b [1]byte
		if _, err := r.f.ReadAt(b[:], off-1); err != nil || b[0] != '\n' {
			return fail("the offset does not start a line", err)
		}
	}
	line, err := r.line(off)
	if err != nil {
		return fail("cannot read the session back", err)
	}
	ev := &StoredEvent{Offset: off, End: off + int64(len(line)) + 1}
	var jerr *journal.Error
	if ev.Event, ev.Payload, _, jerr = r.sc.Read(line); jerr != nil {
		jerr.File = r.path
		return nil, &Error{Kind: ErrCorrupt, SessionID: r.id, Path: r.path, Offset: off, Err: jerr}
	}
	return ev, nil
}

// line reads the line that starts at off, without its newline, into
// r.buf. A line longer than the first read's 64 KiB is measured first,
// 64 KiB at a time, then read whole into a buffer of its size: the buffer
// costs the longest line once, not the sum of a series of doublings. It is
// kept for the next line.
func (r *EventReader) line(off int64) ([]byte, error) {
	const chunk = 64 << 10
	if cap(r.buf) < chunk {
		r.buf = make([]byte, chunk)
	}
	n, end, err := r.lineEnd(r.buf[:chunk], off)
	if err != nil {
		return nil, err
	}
	if end < n {
		return r.buf[:end], nil // within the first read
	}
	if end+1 > cap(r.buf) {
		r.buf = make([]byte, end+1)
	}
	buf := r.buf[:end+1]
	if _, err := r.f.ReadAt(buf, off); err != nil || buf[end] != '\n' {
		if err == nil || err == io.EOF {
			err = errors.New("the line changed while it was read")
		}
		return nil, err
	}
	return buf[:end], nil
}

// lineEnd returns the length of the line at off (the offset of its newline
// from off), reading into probe: n is what the first read gave, so that a
// line shorter than it is in probe already.
func (r *EventReader) lineEnd(probe []byte, off int64) (n, end int, err error) {
	for pos := 0; ; {
		m, err := r.f.ReadAt(probe, off+int64(pos))
		if pos == 0 {
			n = m
		}
		if i := bytes.IndexByte(probe[:m], '\n'); i >= 0 {
			return n, pos + i, nil
		}
		pos += m
		if pos > journal.DefaultMaxLineBytes {
			return 0, 0, fmt.Errorf("no line end within %d bytes", journal.DefaultMaxLineBytes+1)
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, 0, err
		}
	}
}

// Close closes the reader's descriptor.
func (r *EventReader) Close() error {
	if r.f == nil {
		return nil
	}
	return r.f.Close()
}
