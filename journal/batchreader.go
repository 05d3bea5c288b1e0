package journal

import (
	"bytes"
	"io"
)

// batchReader cuts a reader into batches of lines with the line numbers,
// offsets, torn tails, line limit and errors of Reader, reading into the
// batch's own buffer: Reader copies each line twice (from its bufio buffer
// into its own, then into the batch), which the streaming pipeline and
// CheckFiles, reading whole files, do without.
type batchReader struct {
	r       io.Reader
	max     int
	num     int    // the last line's number
	base    int64  // the offset of the next batch's first byte (of carry)
	carry   []byte // read past the last batch's last line
	err     error  // the reader's error, once it gave one
	empty   int    // reads in a row that gave nothing
	tooLong bool   // the input ended at a line longer than max
}

// fill reads lines into *buf and *lines (both emptied first) until they
// hold about batchBytes or batchLines, and reports whether the input ended
// (*readErr says why, nil at EOF; then the lines before it are the
// batch's).
func (r *batchReader) fill(buf *[]byte, lines *[]batchLine, readErr *error) (end bool) {
	b, ls := *buf, (*lines)[:0]
	defer func() { *buf, *lines = b, ls }()
	if cap(b) < batchBytes+readChunk {
		b = make([]byte, 0, batchBytes+readChunk)
	}
	b = append(b[:0], r.carry...)
	r.carry = r.carry[:0]
	base := r.base
	start, scan := 0, 0 // the next line's first byte; where to look for its newline
	// carry keeps what follows the batch's last line for the next one.
	carry := func() bool {
		r.carry = append(r.carry, b[start:]...)
		b = b[:start]
		r.base = base + int64(start)
		return false
	}
	stop := func(err *Error, tooLong bool) bool {
		b = b[:0]
		if len(ls) > 0 {
			b = b[:ls[len(ls)-1].b]
		}
		*readErr, r.tooLong = err, tooLong
		return true
	}
	for {
		for {
			k := bytes.IndexByte(b[scan:], '\n')
			if k < 0 {
				break
			}
			e := scan + k
			if e-start > r.max {
				return stop(&Error{Line: r.num + 1, Code: LineTooLong, Msg: lineTooLongMsg(r.max)}, true)
			}
			r.num++
			ls = append(ls, batchLine{num: r.num, off: base + int64(start), a: start, b: e})
			start, scan = e+1, e+1
			if len(ls) >= batchLines || start >= batchBytes {
				return carry()
			}
		}
		scan = len(b)
		if len(b)-start > r.max+1 {
			return stop(&Error{Line: r.num + 1, Code: LineTooLong, Msg: lineTooLongMsg(r.max)}, true)
		}
		if r.err != nil {
			if r.err != io.EOF {
				return stop(&Error{Line: r.num + 1, Code: ReadFailed, Msg: r.err.Error()}, false)
			}
			if start < len(b) {
				r.num++
				ls = append(ls, batchLine{num: r.num, off: base + int64(start), a: start, b: len(b), torn: true})
			}
			return true
		}
		if cap(b)-len(b) < readChunk {
			if len(ls) > 0 {
				return carry() // a long line is coming: it starts the next batch
			}
			nb := make([]byte, len(b), 2*cap(b))
			copy(nb, b)
			b = nb
		}
		// At most a batch at a time: what is read past a long line's end
		// is carried into the next batch, copied twice.
		n, err := r.r.Read(b[len(b):min(cap(b), len(b)+batchBytes)])
		b = b[:len(b)+n]
		switch {
		case err != nil:
			r.err = err
		case n == 0:
			if r.empty++; r.empty >= 100 {
				r.err = io.ErrNoProgress // as bufio says
			}
		default:
			r.empty = 0
		}
	}
}

// BatchReader reads JSONL input a batch of lines at a time into buffers
// the caller owns, with Reader's line numbers, offsets, torn tails, line
// limit and errors: for a reader of whole files that keeps each batch's
// lines where they were read, instead of copying each line as Reader
// does. A batch holds about 256 KiB or 1024 lines, more when one line is
// longer.
type BatchReader struct {
	br    batchReader
	lines []batchLine
	end   bool
	err   error
}

// NewBatchReader returns a BatchReader with Reader's default line limit.
func NewBatchReader(r io.Reader) *BatchReader {
	return &BatchReader{br: batchReader{r: r, max: DefaultMaxLineBytes}}
}

// Next reads the next batch into *buf (emptied first; its capacity
// reused, or a new buffer when it is too small) and appends the batch's
// lines to dst; each line's Raw views *buf, with no capacity past the
// line. end reports that the input ended after these lines, and err why:
// nil at the end of the input, else the *Error Reader gives (LineTooLong,
// ReadFailed). After the end Next returns no lines, end true and the same
// error.
func (b *BatchReader) Next(buf *[]byte, dst []Line) (lines []Line, end bool, err error) {
	if b.end {
		*buf = (*buf)[:0]
		return dst, true, b.err
	}
	b.end = b.br.fill(buf, &b.lines, &b.err)
	data := *buf
	for _, l := range b.lines {
		dst = append(dst, Line{Num: l.num, Offset: l.off, Raw: data[l.a:l.b:l.b], Torn: l.torn})
	}
	return dst, b.end, b.err
}
