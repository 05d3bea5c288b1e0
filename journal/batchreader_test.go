package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readLines is what a reader of lines gives: each line as Reader returns
// it, then the error that ended the input (nil at a clean end).
type readLines struct {
	Lines []Line
	Err   string
}

func byReader(r io.Reader, max, first int, off int64) readLines {
	rd := NewReader(r)
	rd.SetMaxLineBytes(max)
	rd.num, rd.off = first, off
	var got readLines
	for {
		l, err := rd.Next()
		if err == io.EOF {
			return got
		}
		if err != nil {
			got.Err = err.Error()
			return got
		}
		l.Raw = bytes.Clone(l.Raw)
		got.Lines = append(got.Lines, l)
	}
}

func byBatches(r io.Reader, max, first int, off int64) (readLines, int) {
	rd := batchReader{r: r, max: max, num: first, base: off}
	var got readLines
	var buf []byte
	var lines []batchLine
	for batches := 1; ; batches++ {
		var readErr error
		end := rd.fill(&buf, &lines, &readErr)
		for _, l := range lines {
			got.Lines = append(got.Lines, Line{Num: l.num, Offset: l.off, Raw: bytes.Clone(buf[l.a:l.b]), Torn: l.torn})
		}
		if readErr != nil {
			got.Err = readErr.Error()
		}
		if end || len(lines) == 0 && readErr == nil {
			return got, batches
		}
	}
}

// byBatchReader reads as BatchReader's users do (tracediff's sources),
// checking that no line's Raw reaches past the line.
func byBatchReader(t *testing.T, r io.Reader, max, first int, off int64) readLines {
	rd := NewBatchReader(r)
	rd.br.max, rd.br.num, rd.br.base = max, first, off
	var got readLines
	var buf []byte
	var lines []Line
	for {
		var end bool
		var err error
		lines, end, err = rd.Next(&buf, lines[:0])
		for _, l := range lines {
			if cap(l.Raw) != len(l.Raw) {
				t.Fatalf("line %d: Raw has room for %d more bytes past the line", l.Num, cap(l.Raw)-len(l.Raw))
			}
			l.Raw = bytes.Clone(l.Raw)
			got.Lines = append(got.Lines, l)
		}
		if end {
			if err != nil {
				got.Err = err.Error()
			}
			if lines, end2, err2 := rd.Next(&buf, nil); len(lines) != 0 || !end2 || err2 != err {
				t.Fatalf("after the end: %d lines, end %v, %v (want none, true, %v)", len(lines), end2, err2, err)
			}
			return got
		}
	}
}

// TestBatchReaderMatchesReader: the pipeline and CheckFiles read whole
// batches with batchReader, and must see the lines, numbers, offsets, torn
// tails, line limit and errors that Reader gives, however the input is cut
// into reads.
func TestBatchReaderMatchesReader(t *testing.T) {
	boom := errors.New("disk on fire")
	long := strings.Repeat("x", batchBytes+2*readChunk+17) // past a batch and its first growth
	var many strings.Builder
	for i := range 3 * batchLines {
		fmt.Fprintf(&many, "{\"n\":%d}\n", i)
	}
	tests := []struct {
		name  string
		input string
		max   int
		err   error // after the input
	}{
		{name: "empty"},
		{name: "one line", input: "{}\n"},
		{name: "torn tail", input: "{}\n{\"a\""},
		{name: "only a torn line", input: "{"},
		{name: "blank lines and CRLF", input: "\n\r\n{}\r\n\n"},
		{name: "more lines than a batch holds", input: many.String()},
		{name: "a line longer than a batch", input: "{}\n" + long + "\n{}\n"},
		{name: "a long torn tail", input: "{}\n" + long},
		{name: "line at the limit", input: "{}\n12345678\n{}\n", max: 8},
		{name: "line over the limit", input: "{}\n123456789\n{}\n", max: 8},
		{name: "torn tail over the limit", input: "{}\n1234567890", max: 8},
		{name: "long line over the limit", input: "{}\n" + long + "\n", max: batchBytes},
		{name: "error after whole lines", input: "{}\n{}\n", err: boom},
		{name: "error inside a line", input: "{}\n{\"a\":", err: boom},
	}
	cuts := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"whole", func(r io.Reader) io.Reader { return r }},
		{"one byte", iotest.OneByteReader},
		{"half", iotest.HalfReader},
		{"data with error", iotest.DataErrReader},
	}
	for _, tt := range tests {
		for _, c := range cuts {
			t.Run(tt.name+"/"+c.name, func(t *testing.T) {
				max := tt.max
				if max == 0 {
					max = DefaultMaxLineBytes
				}
				open := func() io.Reader {
					var r io.Reader = strings.NewReader(tt.input)
					if tt.err != nil {
						r = io.MultiReader(r, iotest.ErrReader(tt.err))
					}
					return c.wrap(r)
				}
				// Lines numbered and placed from a point in a file, as
				// Stream's resume reads them.
				want := byReader(open(), max, 7, 1000)
				got, batches := byBatches(open(), max, 7, 1000)
				if diff := cmp.Diff(want, got, rawEqual); diff != "" {
					t.Errorf("batches differ from Reader (-Reader +batches):\n%s", diff)
				}
				if diff := cmp.Diff(want, byBatchReader(t, open(), max, 7, 1000), rawEqual); diff != "" {
					t.Errorf("BatchReader differs from Reader (-Reader +BatchReader):\n%s", diff)
				}
				if n := len(want.Lines); n > batchLines && batches < 2 {
					t.Errorf("%d lines in %d batch", n, batches)
				}
			})
		}
	}
}

// TestBatchReaderNoProgress: a reader that keeps returning nothing ends the
// input with io.ErrNoProgress, as bufio (and so Reader) says.
func TestBatchReaderNoProgress(t *testing.T) {
	var r io.Reader = zeroReader{}
	want := byReader(r, DefaultMaxLineBytes, 0, 0)
	got, _ := byBatches(r, DefaultMaxLineBytes, 0, 0)
	if diff := cmp.Diff(want, got); diff != "" || !strings.Contains(got.Err, io.ErrNoProgress.Error()) {
		t.Errorf("got %+v, Reader %+v", got, want)
	}
}

// rawEqual compares lines' bytes at once: cmp would report a long line
// byte by byte.
var rawEqual = cmp.Comparer(bytes.Equal)

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }
