package agentlog

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// refLineReader is the line reader as it was before it handed out lines in
// place (bufio.Reader.ReadSlice, each line copied): the current one must
// give the same lines, lengths, offsets, flags and errors.
type refLineReader struct {
	r   *bufio.Reader
	max int
	num int
	off int64
	buf []byte
	err error
}

func newRefLineReader(r io.Reader, max int) *refLineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &refLineReader{r: bufio.NewReaderSize(r, 256<<10), max: max}
}

func (lr *refLineReader) next() (line, error) {
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
				l.length--
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

var errBoom = errors.New("boom")

// failAfter returns the bytes of r, then errBoom instead of io.EOF.
type failAfter struct{ r io.Reader }

func (f failAfter) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		err = errBoom
	}
	return n, err
}

func randomInput(r *rand.Rand) []byte {
	var b []byte
	lines := r.IntN(12)
	for i := 0; i < lines; i++ {
		var n int
		switch r.IntN(6) {
		case 0:
			n = 0
		case 1:
			n = r.IntN(4)
		case 2:
			n = 250<<10 + r.IntN(20<<10) // about the buffer's size
		case 3:
			n = 600<<10 + r.IntN(1<<10)
		default:
			n = r.IntN(200)
		}
		for k := 0; k < n; k++ {
			b = append(b, byte('a'+k%26))
		}
		if i < lines-1 || r.IntN(2) == 0 {
			b = append(b, '\n')
		}
	}
	return b
}

func TestLineReaderMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 1))
	wrap := []func(io.Reader) io.Reader{
		func(x io.Reader) io.Reader { return x },
		iotest.OneByteReader,
		iotest.HalfReader,
		iotest.DataErrReader,
		func(x io.Reader) io.Reader { return failAfter{x} },
		func(x io.Reader) io.Reader { return failAfter{iotest.HalfReader(x)} },
	}
	for iter := 0; iter < 300; iter++ {
		in := randomInput(r)
		max := []int{0, 1, 3, 100, 255 << 10, 256 << 10, 300 << 10, 1 << 20}[r.IntN(8)]
		w := wrap[r.IntN(len(wrap))]
		if len(in) > 2<<20 && iter%4 != 0 {
			w = wrap[0] // one byte at a time is slow
		}
		got := newLineReader(w(bytes.NewReader(in)), max)
		want := newRefLineReader(w(bytes.NewReader(in)), max)
		for k := 0; ; k++ {
			gl, gerr := got.next()
			wl, werr := want.next()
			if gerr != werr || gl.num != wl.num || gl.off != wl.off || gl.torn != wl.torn || gl.tooLong != wl.tooLong ||
				gl.length != wl.length || !bytes.Equal(gl.raw, wl.raw) {
				t.Fatalf("input %d (%d bytes, max %d), line %d: got %+v %v, want %+v %v", iter, len(in), max, k,
					summary(gl), gerr, summary(wl), werr)
			}
			if gerr != nil {
				if again, err := got.next(); err != gerr || again.num != 0 {
					t.Fatalf("after %v: %v", gerr, err)
				}
				break
			}
		}
	}
}

func summary(l line) line {
	if len(l.raw) > 20 {
		l.raw = l.raw[:20]
	}
	return l
}

func TestLineReaderNoProgress(t *testing.T) {
	_, want := newRefLineReader(iotest.ErrReader(nil), 0).next()
	if _, err := newLineReader(iotest.ErrReader(nil), 0).next(); err != want {
		t.Fatalf("err = %v, reference %v", err, want)
	}
}
