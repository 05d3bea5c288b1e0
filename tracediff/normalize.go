package tracediff

import (
	"bufio"
	"io"

	"github.com/tracecheck/tracecheck/tracediff/tolerant"
)

// Normalize writes the tolerant form of the actual trace in to w, one event
// per line in the golden layout (compact JSON, member order kept): the
// form a first golden is captured in (see tolerant.Normalizer for what it
// replaces). The trace is validated while it is read; when it is not valid
// the problems are returned, and what was written must not be used as a
// golden. Memory is bounded by the longest line and the number of distinct
// identities.
func Normalize(in Input, w io.Writer) ([]Problem, error) {
	s := newSource(in, true, false, true)
	go s.run()
	c := &cursor{s: s}
	z := tolerant.NewNormalizer()
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	var werr error
	for l := c.next(); l != nil; l = c.next() {
		if !l.valOK || werr != nil {
			continue // an invalid line: validation reports it
		}
		buf = z.Event(l.val).AppendJSON(buf[:0])
		buf = append(buf, '\n')
		_, werr = bw.Write(buf)
	}
	var problems []Problem
	for _, p := range s.problems {
		problems = append(problems, problemOf(p))
	}
	if werr == nil {
		werr = bw.Flush()
	}
	return problems, werr
}
