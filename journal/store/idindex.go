package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tracecheck/tracecheck/internal/idset"
	"github.com/tracecheck/tracecheck/journal"
)

// idIndex is the set of a session's event IDs, in line order: an ID's
// ordinal in the set is its line − 1. It is an internal/idset.Set in
// Source mode (docs/idset.md): a few bytes of memory an event whatever its
// ID looks like ("evt-%03d" IDs in order a bit each), a 24-byte record an
// event in a temporary file for other IDs, and every answer exact, the set
// reading an ID back from the session file at its line's offset (or from
// the batch being written) when its fingerprint is not enough. The
// checkpoint keeps the set's encoding (about two bytes an event); a set
// decoded from it reads the IDs before the checkpoint back from the file
// once, the first time a lookup needs one of them.
type idIndex struct {
	set *idset.Set // nil until the first ID
	src *idSource
}

// idSource reads event IDs back for the set: an ID's position is its
// line's byte offset.
type idSource struct {
	s   *state
	sc  journal.LineScanner
	buf []byte
}

// goldenStart is how a line in the golden layout starts, up to its event
// ID's first byte.
const goldenStart = `{"trace_version":"0.1.0","event_id":"`

func (r *idSource) eventID(line []byte, off int64) ([]byte, error) {
	// Lines the store wrote are in the golden layout: the ID is the string
	// after goldenStart, taken as it is when it has no escape. Anything
	// else is read by the scanner.
	if rest, ok := bytes.CutPrefix(line, []byte(goldenStart)); ok {
		if end := bytes.IndexAny(rest, `"\`); end >= 0 && rest[end] == '"' {
			return rest[:end], nil
		}
	}
	ev, _, _, jerr := r.sc.Read(line)
	if jerr != nil {
		return nil, fmt.Errorf("the stored line at offset %d no longer parses: %v", off, jerr)
	}
	return []byte(ev.EventID), nil
}

// ReadID appends the ID of the event whose line starts at pos.
func (r *idSource) ReadID(dst []byte, pos uint64) ([]byte, error) {
	s, off := r.s, int64(pos)
	if pending := off >= s.pendingOff && off < s.pendingOff+int64(len(s.pending)); !pending && s.src == nil {
		return dst, errors.New("no session file to read an event ID back from")
	}
	line, err := s.lineAt(off)
	if err != nil {
		return dst, err
	}
	id, err := r.eventID(line, off)
	return append(dst, id...), err
}

// EachID reads the IDs of the first n lines of the session file, in order.
func (r *idSource) EachID(n uint64, fn func(id []byte, pos uint64) error) error {
	if r.s.src == nil {
		return errors.New("no session file to read event IDs back from")
	}
	rd := journal.NewReader(io.NewSectionReader(r.s.src, 0, 1<<62))
	for i := uint64(0); i < n; i++ {
		l, err := rd.Next()
		if err == io.EOF || (err == nil && l.Torn) {
			return fmt.Errorf("the session file ends after %d of the %d events its checkpoint covers", i, n)
		}
		if err != nil {
			return err
		}
		id, err := r.eventID(l.Raw, l.Offset)
		if err != nil {
			return err
		}
		if err := fn(id, uint64(l.Offset)); err != nil {
			return err
		}
	}
	return nil
}

func (x *idIndex) options(s *state) idset.Options {
	if x.src == nil {
		x.src = &idSource{s: s}
	}
	return idset.Options{Source: x.src}
}

// len returns the number of IDs: the lines indexed.
func (x *idIndex) len() int {
	if x.set == nil {
		return 0
	}
	return int(x.set.Len())
}

// has reports whether the session holds an event with this ID.
func (x *idIndex) has(id string) (bool, error) {
	_, _, found, err := x.lookup(id)
	return found, err
}

// lookup returns the line of a stored ID and, when the set knows it, the
// line's offset (-1 when it does not: an "evt-%03d" ID, or one a
// checkpoint covers).
func (x *idIndex) lookup(id string) (line int, off int64, found bool, err error) {
	if x.set == nil {
		return 0, -1, false, nil
	}
	e, found, err := x.set.Lookup(id)
	if err != nil || !found {
		return 0, -1, false, err
	}
	off = -1
	if e.Pos != idset.NoPos {
		off = int64(e.Pos)
	}
	return int(e.Ord) + 1, off, true, nil
}

// known is has without reading IDs back: sure is false when only reading
// the IDs a checkpoint covers back could tell (idset.Set.Known).
func (x *idIndex) known(id string) (found, sure bool, err error) {
	if x.set == nil {
		return false, true, nil
	}
	_, found, sure, err = x.set.Known(id)
	return found, sure, err
}

// vouch says id is new to the IDs the index was decoded with
// (idset.Set.Vouch): a tail receipt proved it.
func (x *idIndex) vouch(id string) {
	if x.set != nil {
		x.set.Vouch(id)
	}
}

// add records the ID of the next line, stored at off.
func (x *idIndex) add(s *state, id string, off int64) error {
	if x.set == nil {
		x.set = idset.New(x.options(s))
	}
	_, added, err := x.set.Add(id, uint64(off))
	if err == nil && !added {
		err = fmt.Errorf("event_id %q is indexed twice", id) // the rules admit each ID once
	}
	return err
}

// encode returns the set's encoding, to be written as it is streamed.
func (x *idIndex) encode() (*idset.Encoding, error) {
	if x.set == nil {
		return nil, errors.New("no event ID to encode")
	}
	return x.set.Encode()
}

// readBinary restores a set from its encoding, reading IDs back through s.
func (x *idIndex) readBinary(s *state, b []byte) error {
	opt := x.options(s)
	opt.KeepEncoding = true // b is the checkpoint's, read aligned and never changed
	set, err := idset.Decode(b, opt)
	if err != nil {
		return err
	}
	x.close()
	x.set = set
	return nil
}

// close releases the set's temporary files.
func (x *idIndex) close() {
	if x.set != nil {
		x.set.Close()
		x.set = nil
	}
}
