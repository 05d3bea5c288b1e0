package agentlog

import (
	"io"

	"github.com/tracecheck/tracecheck/journal"
)

// lintTrace reports a Trace 0.1.0 file's problems with the journal
// package's own validation (schema and invariants, run by run), so lint
// and validate never disagree. Their codes are the journal's (SEQUENCE_GAP,
// SCHEMA, ...), all errors.
func lintTrace(r io.Reader, rep *FileReport) {
	for _, e := range journal.Validate(r, rep.File) {
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
