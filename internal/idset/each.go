package idset

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Each calls fn with every id in the order they were added, with its
// entry, and stops at fn's first error. The id is valid only during the
// call. It reads the ids back from the spill (own mode), so it is for sets
// without a Source that were not decoded: a linter listing, at the end of
// a file, the tool calls that never got a result (it keeps one bit per
// call, not the calls).
func (s *Set) Each(fn func(id string, e Entry) error) error {
	if s.err != nil {
		return s.err
	}
	if s.opt.Source != nil || s.frozenN > 0 {
		return errors.New("idset: Each needs a set that keeps its ids (no Source, not decoded)")
	}
	var rd *bufio.Reader
	if s.sp != nil {
		if err := s.sp.flushIDs(); err != nil {
			s.err = err
			return err
		}
		if s.sp.ids != nil {
			rd = bufio.NewReaderSize(io.NewSectionReader(s.sp.ids, 0, int64(s.sp.idBase)), 64<<10)
		}
	}
	next := func() (uint64, []byte, error) {
		if rd == nil {
			return 0, nil, errors.New("idset: the id spill ends early")
		}
		pos, err := binary.ReadUvarint(rd)
		if err != nil {
			return 0, nil, fmt.Errorf("idset: spill read: %w", err)
		}
		n, err := binary.ReadUvarint(rd)
		if err == nil && n > s.sp.idBase {
			err = errors.New("bad length")
		}
		if err != nil {
			return 0, nil, fmt.Errorf("idset: spill read: %w", err)
		}
		s.scratch = append(s.scratch[:0], make([]byte, n)...)
		if _, err := io.ReadFull(rd, s.scratch); err != nil {
			return 0, nil, fmt.Errorf("idset: spill read: %w", err)
		}
		return pos, s.scratch, nil
	}
	var buf []byte
	for o := uint64(0); o < s.n; o++ {
		e := Entry{Ord: o, Pos: NoPos}
		var id []byte
		if s.hasStyle && s.bits.has(o) {
			if s.opt.CounterPositions {
				p, _, err := next()
				if err != nil {
					return err
				}
				e.Pos = p
			}
			buf = s.style.format(buf[:0], int64(o)+s.style.offset)
			id = buf
		} else {
			var err error
			if e.Pos, id, err = next(); err != nil {
				return err
			}
		}
		if err := fn(bytesView(id), e); err != nil {
			return err
		}
	}
	return nil
}
