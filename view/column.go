package view

import (
	"errors"
	"io"
	"os"
)

// The timeline's string columns (event ids, timestamps, durations,
// payloads) are only read again to write the page, in row order, so each
// is kept as the text the data island writes for it, in chunks: the first
// memColumns bytes of all columns in memory, the rest in one temporary
// file of the page (spill), read back by WriteHTML. A page's memory is
// then its numeric columns and tables, whatever its payloads hold.

const (
	chunkBytes = 256 << 10
	memColumns = 4 << 20
)

// colStore is the page's spill file and what its columns keep in memory.
type colStore struct {
	mem     int64 // bytes of full chunks held in memory
	f       *os.File
	size    int64
	removed bool // the file was unlinked as soon as it was made
	err     error
}

// strCol is one string column: JSON string literals, comma-separated.
type strCol struct {
	st     *colStore
	chunks []colChunk
	cur    []byte
	n      int
}

type colChunk struct {
	mem      []byte // in memory, or
	off, len int64  // in the spill file
}

func newStrCol(st *colStore) *strCol { return &strCol{st: st} }

// addLit appends one item, the literal appendJSString wrote.
func (c *strCol) addLit(lit []byte) {
	if c.n > 0 {
		c.cur = append(c.cur, ',')
	}
	c.cur = append(c.cur, lit...)
	c.n++
	if len(c.cur) >= chunkBytes {
		c.flush()
	}
}

// add appends s as a literal.
func (c *strCol) add(s string) {
	if c.n > 0 {
		c.cur = append(c.cur, ',')
	}
	c.cur = appendJSString(c.cur, s)
	c.n++
	if len(c.cur) >= chunkBytes {
		c.flush()
	}
}

// flush moves the current chunk to memory or to the spill file.
func (c *strCol) flush() {
	st := c.st
	if len(c.cur) == 0 {
		return
	}
	if st.err != nil {
		c.cur = c.cur[:0] // Build fails with st.err
		return
	}
	if st.mem+int64(len(c.cur)) <= memColumns {
		st.mem += int64(len(c.cur))
		c.chunks = append(c.chunks, colChunk{mem: c.cur})
		c.cur = make([]byte, 0, chunkBytes+chunkBytes/4)
		return
	}
	if st.f == nil {
		f, err := os.CreateTemp("", "tracecheck-view-*.spill")
		if err != nil {
			st.err = err
			c.cur = c.cur[:0]
			return
		}
		st.f = f
		// On Unix the open file outlives its name: nothing is left behind
		// whatever happens to the process. Where that fails, Close removes
		// it.
		st.removed = os.Remove(f.Name()) == nil
	}
	if _, err := st.f.WriteAt(c.cur, st.size); err != nil {
		st.err = err
		return
	}
	c.chunks = append(c.chunks, colChunk{off: st.size, len: int64(len(c.cur))})
	st.size += int64(len(c.cur))
	c.cur = c.cur[:0]
}

// writeTo writes the column's items, comma-separated.
func (c *strCol) writeTo(w io.Writer) error {
	for _, ch := range c.chunks {
		if ch.mem != nil {
			if _, err := w.Write(ch.mem); err != nil {
				return err
			}
			continue
		}
		if _, err := io.Copy(w, io.NewSectionReader(c.st.f, ch.off, ch.len)); err != nil {
			return err
		}
	}
	_, err := w.Write(c.cur)
	return err
}

// close ends the store: the spill file is closed and removed.
func (st *colStore) close() error {
	if st.f == nil {
		return nil
	}
	err := st.f.Close()
	if !st.removed {
		err = errors.Join(err, os.Remove(st.f.Name()))
	}
	st.f = nil
	return err
}
