package agentlog

import (
	"bytes"
	"io"

	"github.com/tracecheck/tracecheck/journal"
)

// lintTrace reports a Trace 0.1.0 file's problems with the journal
// package's own validation (schema and invariants, run by run), so lint
// and validate never disagree. Their codes are the journal's (SEQUENCE_GAP,
// SCHEMA, ...), all errors.
func lintTrace(r io.Reader, rep *FileReport) {
	cr := &lineCounter{r: r}
	errs := journal.Validate(cr, rep.File)
	rep.Lines, rep.Records = cr.lines, cr.lines
	for _, e := range errs {
		msg := e.Msg
		if e.Pointer != "" {
			msg = "at " + e.Pointer + ": " + msg
		}
		var ids []string
		if e.EventID != "" {
			msg = "event " + q(e.EventID) + " " + msg
			ids = []string{e.EventID}
		}
		rep.add(Finding{Line: e.Line, Code: Code(e.Code), Severity: Error, Message: msg, IDs: ids})
	}
}

// lineCounter counts the newlines read through it.
type lineCounter struct {
	r     io.Reader
	lines int
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.lines += bytes.Count(p[:n], []byte{'\n'})
	return n, err
}
