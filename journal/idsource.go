package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
)

// fileIDs reads event ids back from a journal file for a checker's id set
// restored from a compact state (idset.Source): the position of an id is
// the byte offset of its event's line.
type fileIDs struct {
	r   io.ReaderAt
	s   lineScanner
	buf []byte
}

func newFileIDs(r io.ReaderAt) *fileIDs { return &fileIDs{r: r} }

// eventID returns the event id of a line that was checked when it was
// written: the lean envelope read, else the general path's.
func (f *fileIDs) eventID(line []byte) ([]byte, error) {
	var env envelope
	if f.s.readEnvelope(line, &env) {
		return env.eventID, nil
	}
	_, ev, _, err := decodeEnvelope(&f.s.canon, line)
	if err != nil {
		return nil, err
	}
	return []byte(ev.EventID), nil
}

// ReadID appends the event id of the line at byte offset pos.
func (f *fileIDs) ReadID(dst []byte, pos uint64) ([]byte, error) {
	if pos > math.MaxInt64 {
		return dst, fmt.Errorf("journal: no line at offset %d", pos)
	}
	line, err := f.lineAt(int64(pos))
	if err != nil {
		return dst, err
	}
	id, err := f.eventID(line)
	if err != nil {
		return dst, fmt.Errorf("journal: the line at offset %d: %v", pos, err)
	}
	return append(dst, id...), nil
}

// lineAt reads the line that starts at off, without its newline, into
// f.buf: 4 KiB at a time, up to the reader's line limit.
func (f *fileIDs) lineAt(off int64) ([]byte, error) {
	f.buf = f.buf[:0]
	for {
		at := len(f.buf)
		if at > DefaultMaxLineBytes {
			return nil, fmt.Errorf("journal: the line at offset %d is longer than %d bytes", off, DefaultMaxLineBytes)
		}
		f.buf = append(f.buf, make([]byte, 4096)...)
		n, err := f.r.ReadAt(f.buf[at:], off+int64(at))
		if i := bytes.IndexByte(f.buf[at:at+n], '\n'); i >= 0 {
			return f.buf[:at+i], nil
		}
		f.buf = f.buf[:at+n]
		if err != nil {
			if err == io.EOF {
				err = fmt.Errorf("journal: the line at offset %d has no newline", off)
			}
			return nil, err
		}
	}
}

// EachID calls fn with the event id and line offset of each of the first
// n lines of the file.
func (f *fileIDs) EachID(n uint64, fn func(id []byte, pos uint64) error) error {
	rd := NewReader(io.NewSectionReader(f.r, 0, math.MaxInt64))
	for i := uint64(0); i < n; i++ {
		l, err := rd.Next()
		if err == io.EOF {
			return fmt.Errorf("journal: the file ends after %d of the %d events the checker state covers", i, n)
		}
		if err != nil {
			return err
		}
		if l.Torn {
			return fmt.Errorf("journal: line %d has no newline", l.Num)
		}
		id, err := f.eventID(l.Raw)
		if err != nil {
			return fmt.Errorf("journal: line %d: %v", l.Num, err)
		}
		if err := fn(id, uint64(l.Offset)); err != nil {
			return err
		}
	}
	return nil
}

// noIDs is the source of a set decoded only to be checked.
type noIDs struct{}

var errNoIDs = errors.New("journal: no file to read ids back from")

func (noIDs) ReadID(dst []byte, _ uint64) ([]byte, error)            { return dst, errNoIDs }
func (noIDs) EachID(uint64, func(id []byte, pos uint64) error) error { return errNoIDs }
