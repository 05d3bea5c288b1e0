package agentlog

import (
	"bufio"
	"errors"
	"io"
)

// DefaultMaxLine bounds one line, and with it the reader's memory. Agent
// lines are larger than Trace lines (a base64 image, a compaction's
// replacement history), so the limit is larger than the journal reader's.
const DefaultMaxLine = 32 << 20

// line is one line of input without its newline.
type line struct {
	num     int
	off     int64
	raw     []byte // valid until the next call to next
	torn    bool   // the last line, without a newline
	tooLong bool   // longer than the limit: raw is empty, the bytes were skipped
	length  int64  // the line's length in bytes (also when skipped)
}

// lineReader splits input into lines with memory bounded by max; a longer
// line is skipped to its newline and reported, and reading goes on.
type lineReader struct {
	r   *bufio.Reader
	max int
	num int
	off int64
	buf []byte
	err error
}

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &lineReader{r: bufio.NewReaderSize(r, 256<<10), max: max}
}

// next returns the next line, io.EOF after the last, or a read error.
func (lr *lineReader) next() (line, error) {
	if lr.err != nil {
		return line{}, lr.err
	}
	lr.buf = lr.buf[:0]
	var skipped int64
	for {
		frag, err := lr.r.ReadSlice('\n')
		if skipped == 0 && len(lr.buf)+len(frag) <= lr.max+1 {
			lr.buf = append(lr.buf, frag...)
		} else {
			skipped += int64(len(lr.buf) + len(frag))
			lr.buf = lr.buf[:0]
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && err != io.EOF {
			lr.err = err
			return line{}, err
		}
		torn := err == io.EOF
		if torn && skipped == 0 && len(lr.buf) == 0 {
			lr.err = io.EOF
			return line{}, io.EOF
		}
		lr.num++
		l := line{num: lr.num, off: lr.off, torn: torn}
		if skipped > 0 {
			l.tooLong, l.length = true, skipped
			if !torn {
				l.length-- // the newline
			}
		} else {
			l.raw = lr.buf
			if !torn {
				l.raw = lr.buf[:len(lr.buf)-1]
			}
			l.length = int64(len(l.raw))
		}
		lr.off += l.length
		if !torn {
			lr.off++
		}
		if torn {
			lr.err = io.EOF
		}
		return l, nil
	}
}
