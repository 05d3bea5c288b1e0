package journal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLineBytes bounds one line, and with it the reader's memory.
const DefaultMaxLineBytes = 16 << 20

// Line is one line of a JSONL file, without its newline.
type Line struct {
	Num    int   // 1-based line number
	Offset int64 // byte offset of the line's first byte
	Raw    []byte
	// Torn is set on a last line that has no newline: its bytes are all
	// that was written before the writer stopped.
	Torn bool
}

// End is the offset just past the line and its newline.
func (l Line) End() int64 {
	if l.Torn {
		return l.Offset + int64(len(l.Raw))
	}
	return l.Offset + int64(len(l.Raw)) + 1
}

// Reader splits JSONL input into lines, one at a time, with memory bounded
// by the longest line. Raw bytes are valid until the next call to Next.
type Reader struct {
	r       *bufio.Reader
	max     int
	num     int
	off     int64
	buf     []byte
	stopped error
}

// NewReader returns a Reader with DefaultMaxLineBytes.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 256<<10), max: DefaultMaxLineBytes}
}

// SetMaxLineBytes changes the line limit.
func (r *Reader) SetMaxLineBytes(n int) { r.max = n }

// Next returns the next line, or io.EOF after the last. A line longer than
// the limit yields an *Error with Code LineTooLong and stops the reader.
func (r *Reader) Next() (Line, error) {
	if r.stopped != nil {
		return Line{}, r.stopped
	}
	if cap(r.buf) > bigBatch {
		r.buf = nil // the last line was very long: do not keep its buffer for the rest
	}
	r.buf = r.buf[:0]
	for {
		frag, err := r.r.ReadSlice('\n')
		if len(r.buf)+len(frag) > r.max+1 { // +1: the newline does not count
			r.num++
			r.stopped = &Error{Line: r.num, Code: LineTooLong, Msg: lineTooLongMsg(r.max)}
			return Line{}, r.stopped
		}
		if need := len(r.buf) + len(frag); need > cap(r.buf) {
			// Double, at least: a long line arrives in 256 KiB fragments,
			// and growing by append's 1.25x would allocate five times it.
			nb := make([]byte, len(r.buf), max(need, 2*cap(r.buf), 4096))
			copy(nb, r.buf)
			r.buf = nb
		}
		r.buf = append(r.buf, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil {
			r.num++
			l := Line{Num: r.num, Offset: r.off, Raw: r.buf[:len(r.buf)-1]}
			r.off += int64(len(r.buf))
			return l, nil
		}
		if err == io.EOF {
			if len(r.buf) == 0 {
				r.stopped = io.EOF
				return Line{}, io.EOF
			}
			r.num++
			l := Line{Num: r.num, Offset: r.off, Raw: r.buf, Torn: true}
			r.off += int64(len(r.buf))
			r.stopped = io.EOF
			return l, nil
		}
		r.num++
		r.stopped = &Error{Line: r.num, Code: ReadFailed, Msg: err.Error()}
		return Line{}, r.stopped
	}
}

func lineTooLongMsg(max int) string {
	return fmt.Sprintf("line is longer than %d bytes; reading stopped", max)
}

// isBlank reports whether a line holds only JSON whitespace.
func isBlank(b []byte) bool {
	return len(bytes.Trim(b, " \t\r")) == 0
}

// asError converts any error to an *Error, filling in file and line.
func asError(err error, file string, line int) *Error {
	var e *Error
	if errors.As(err, &e) {
		c := *e
		if c.File == "" {
			c.File = file
		}
		if c.Line == 0 {
			c.Line = line
		}
		return &c
	}
	return &Error{File: file, Line: line, Code: ReadFailed, Msg: err.Error()}
}
