package agentlog

import (
	"bytes"
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

// lineReaderSize is the reader's buffer to start with; it grows to the
// longest line kept (at most the limit).
const lineReaderSize = 256 << 10

// maxEmptyReads is how many reads in a row may return nothing before the
// reader gives up with io.ErrNoProgress (as bufio does).
const maxEmptyReads = 100

// lineReader splits input into lines with memory bounded by max; a longer
// line is skipped to its newline and reported, and reading goes on. A line
// is handed out where it lies in the reader's buffer, not copied.
type lineReader struct {
	r          io.Reader
	max        int
	num        int
	off        int64
	buf        []byte
	start, end int   // the unread bytes: buf[start:end]
	rerr       error // the source's error, once it gave one (io.EOF at its end)
	err        error // what next returns from now on
}

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &lineReader{r: r, max: max, buf: make([]byte, lineReaderSize)}
}

// next returns the next line, io.EOF after the last, or a read error.
func (lr *lineReader) next() (line, error) {
	if lr.err != nil {
		return line{}, lr.err
	}
	// A line longer than the limit (its newline counted) is skipped:
	// skipped counts its bytes read so far, which are not kept.
	var skipped int64
	scan := lr.start
	for {
		if j := bytes.IndexByte(lr.buf[scan:lr.end], '\n'); j >= 0 {
			nl := scan + j
			n := nl + 1 - lr.start
			if skipped == 0 && n <= lr.max+1 {
				return lr.emit(lr.buf[lr.start:nl], int64(n), false, false), nil
			}
			lr.start = nl + 1
			return lr.emit(nil, skipped+int64(n), false, true), nil
		}
		pending := lr.end - lr.start
		if lr.rerr != nil {
			if lr.rerr != io.EOF {
				lr.err = lr.rerr
				return line{}, lr.err
			}
			lr.err = io.EOF
			if skipped == 0 && pending == 0 {
				return line{}, io.EOF
			}
			if skipped == 0 && pending <= lr.max+1 {
				return lr.emit(lr.buf[lr.start:lr.end], int64(pending), true, false), nil
			}
			lr.start = lr.end
			return lr.emit(nil, skipped+int64(pending), true, true), nil
		}
		switch {
		case skipped > 0 || pending > lr.max+1:
			skipped += int64(pending)
			lr.start, lr.end = 0, 0
		case lr.start > 0 && (lr.end == len(lr.buf) || lr.start >= len(lr.buf)/2):
			copy(lr.buf, lr.buf[lr.start:lr.end])
			lr.start, lr.end = 0, pending
		case lr.end == len(lr.buf):
			grown := make([]byte, min(2*len(lr.buf), max(lr.max+2, len(lr.buf)+1)))
			copy(grown, lr.buf[lr.start:lr.end])
			lr.buf, lr.start, lr.end = grown, 0, pending
		}
		scan = lr.end
		lr.fill()
	}
}

// fill reads once into the free end of the buffer (retrying reads that
// return nothing); a failure is kept in rerr.
func (lr *lineReader) fill() {
	for i := 0; i < maxEmptyReads; i++ {
		n, err := lr.r.Read(lr.buf[lr.end:])
		if n < 0 || n > len(lr.buf)-lr.end {
			panic("agentlog: reader returned an impossible count")
		}
		lr.end += n
		if err != nil {
			lr.rerr = err
			return
		}
		if n > 0 {
			return
		}
	}
	lr.rerr = io.ErrNoProgress
}

// emit numbers a line: n is its length with the newline, when it has one.
func (lr *lineReader) emit(raw []byte, n int64, torn, tooLong bool) line {
	lr.num++
	l := line{num: lr.num, off: lr.off, torn: torn, tooLong: tooLong, length: n}
	if !torn {
		l.length--
	}
	if !tooLong {
		l.raw = raw
		lr.start += len(raw)
		if !torn {
			lr.start++
		}
	}
	lr.off += n
	return l
}
