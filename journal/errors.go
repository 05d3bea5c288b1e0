package journal

import (
	"fmt"
	"strings"

	"github.com/tracecheck/tracecheck/internal/textsafe"
)

// Code classifies why a line or a journal was rejected. Callers branch on
// it; the strings are stable and appear in tracecheck's output.
type Code string

// Journal invariant codes.
const (
	// EmptyJournal: the input holds no event at all.
	EmptyJournal Code = "EMPTY_JOURNAL"
	// SequenceGap: sequence is not the next integer of its run (runs start at 0).
	SequenceGap Code = "SEQUENCE_GAP"
	// MixedSession: a single-run journal holds a second session_id.
	MixedSession Code = "MIXED_SESSION"
	// MixedRun: a single-run journal holds a second provenance.run_id.
	MixedRun Code = "MIXED_RUN"
	// ParentNotEarlier: parent_event_id names no earlier event of the run.
	ParentNotEarlier Code = "PARENT_NOT_EARLIER"
	// DuplicateEventID: an event_id appears twice in one run.
	DuplicateEventID Code = "DUPLICATE_EVENT_ID"
)

// Line-level codes.
const (
	// Schema: the event does not match the Trace 0.1.0 JSON Schema.
	Schema Code = "SCHEMA"
	// NotObject: the line is valid JSON but not an object.
	NotObject Code = "NOT_OBJECT"
	// BlankLine: an empty or whitespace-only line.
	BlankLine Code = "BLANK_LINE"
	// TornTail: the last line has no newline, as after a crash mid-write.
	TornTail Code = "TORN_TAIL"
	// LineTooLong: a line exceeds the reader's limit; nothing past it is read.
	LineTooLong Code = "LINE_TOO_LONG"
	// TooManyErrors: Validate stopped collecting problems (see MaxErrors).
	TooManyErrors Code = "TOO_MANY_ERRORS"
	// ReadFailed: the underlying reader failed.
	ReadFailed Code = "READ_FAILED"
	// PayloadSchema: the payload does not match the payload schema of its
	// event type (ValidateOptions.Payload; validate --strict-payloads).
	PayloadSchema Code = "PAYLOAD_SCHEMA"
)

// JSON syntax codes are those of package jsonv (INVALID_JSON,
// DUPLICATE_KEY, NON_FINITE_NUMBER, NUMBER_OVERFLOW, INVALID_UTF8,
// LONE_SURROGATE, TOO_DEEP, TRAILING_DATA), carried as a Code.

// Error is one problem found in a journal: where (file, line, event), what
// class (Code), which field (a JSON pointer, when known) and why.
type Error struct {
	File    string
	Line    int // 1-based; 0 when the problem is the file as a whole
	EventID string
	Code    Code
	Pointer string
	Msg     string
}

// Error formats as "file:line: CODE event <id> at <pointer>: message".
// The file name, the event id and the pointer came from input: each is
// printed as textsafe.Quote gives it (as is when plain, quoted and escaped
// otherwise), and any character of the message that could forge a line or
// drive a terminal is escaped (SafeText), so the line is one line, as
// written.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(textsafe.Quote(e.File))
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	b.WriteString(string(e.Code))
	if e.EventID != "" {
		fmt.Fprintf(&b, " event %s", textsafe.Quote(e.EventID))
	}
	if e.Pointer != "" {
		fmt.Fprintf(&b, " at %s", textsafe.Quote(e.Pointer))
	}
	b.WriteString(": ")
	b.WriteString(SafeText(e.Msg))
	return b.String()
}

// SafeText is textsafe.Escape: prose that quotes input (a schema
// library's message, a JSON line) with every character a terminal would act
// on escaped, and on one line.
func SafeText(s string) string { return textsafe.Escape(s) }

// Is lets errors.Is match an *Error by Code alone: errors.Is(err,
// &journal.Error{Code: journal.SequenceGap}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.File == "" || t.File == e.File) && (t.Line == 0 || t.Line == e.Line)
}
