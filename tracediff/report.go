package tracediff

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/tracediff/tolerant"
)

// Report is the outcome of a comparison: every differing event counted, the
// first ones in full, and a unified diff of their lines. It is also the
// report of a trajectory comparison (package trajectory), whose failures
// are EventDiffs of the kinds listed there and which has no line diff.
type Report struct {
	// Mode is "events" for an event-by-event diff, or "trajectory:<match>".
	Mode string `json:"mode"`
	// Tolerant says the expected file was read as a tolerant golden.
	Tolerant bool        `json:"tolerant"`
	Expected FileSummary `json:"expected"`
	Actual   FileSummary `json:"actual"`
	// Equal is true when both files are valid and nothing differs.
	Equal bool `json:"equal"`
	// Differences counts every differing event (or trajectory failure);
	// Changed, Missing and Extra split an event diff's count by kind.
	Differences int `json:"differences"`
	Changed     int `json:"changed"`
	Missing     int `json:"missing"`
	Extra       int `json:"extra"`
	// Events details the first differences (Options.MaxEvents); Omitted
	// counts the others.
	Events  []EventDiff `json:"events"`
	Omitted int         `json:"omitted"`
	// Diff is the unified diff of the detailed events' lines with context.
	Diff string `json:"diff,omitempty"`
}

// Invalid reports whether either file failed its checks; the comparison
// then says nothing about the traces.
func (r *Report) Invalid() bool {
	return len(r.Expected.Problems) > 0 || len(r.Actual.Problems) > 0
}

// FileSummary describes one compared file.
type FileSummary struct {
	File     string    `json:"file"`
	Events   int       `json:"events"` // lines read
	Runs     int       `json:"runs"`
	Problems []Problem `json:"problems,omitempty"`
	// Hint, for a file that failed its checks as a plain trace and holds
	// placeholders, says that it looks like a tolerant golden and how to
	// compare it as one.
	Hint string `json:"hint,omitempty"`
}

// Problem is why a file is not a valid trace (or not a well-formed tolerant
// golden), as journal reports it.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Code    string `json:"code"`
	EventID string `json:"event_id,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	Message string `json:"message"`
}

func problemOf(e *journal.Error) Problem {
	return Problem{File: e.File, Line: e.Line, Code: string(e.Code), EventID: e.EventID, Pointer: e.Pointer, Message: e.Msg}
}

// String formats a problem as validate prints it, every piece from the
// input made safe for a terminal.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(textsafe.Quote(p.File))
	if p.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(p.Line))
	}
	b.WriteString(": ")
	b.WriteString(p.Code)
	if p.EventID != "" {
		b.WriteString(" event ")
		b.WriteString(textsafe.Quote(p.EventID))
	}
	if p.Pointer != "" {
		b.WriteString(" at ")
		b.WriteString(textsafe.Quote(p.Pointer))
	}
	b.WriteString(": ")
	b.WriteString(SafeLine(p.Message))
	return b.String()
}

// The kinds of an event diff.
const (
	KindChanged = "changed" // both files have the event; fields differ
	KindMissing = "missing" // only the expected file has it
	KindExtra   = "extra"   // only the actual file has it
)

// EventDiff is one differing event.
type EventDiff struct {
	Kind string `json:"kind"`
	// Run is the 1-based run of the event in its file (runs numbered in
	// order of first appearance), Sequence its sequence there.
	Run      int    `json:"run"`
	Sequence int64  `json:"sequence"`
	EventID  string `json:"event_id,omitempty"`
	Type     string `json:"type,omitempty"`
	// The event's line in each file; 0 when that file does not have it.
	ExpectedLine int `json:"expected_line,omitempty"`
	ActualLine   int `json:"actual_line,omitempty"`
	// Anchor is the expected file's line a report attaches the event to:
	// ExpectedLine, or for an extra event the expected line it follows.
	Anchor int `json:"-"`
	// Fields are the differing fields (Options.MaxFields); FieldsOmitted
	// counts the others.
	Fields        []FieldDiff `json:"fields,omitempty"`
	FieldsOmitted int         `json:"fields_omitted,omitempty"`
	// Note explains a difference that is not a field's value.
	Note string `json:"note,omitempty"`
}

// FieldDiff is one differing field: its JSON pointer in the event, the
// expected and actual values as compact JSON (cut when long) or Absent,
// and why a placeholder did not match.
type FieldDiff struct {
	Pointer  string `json:"pointer"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	Reason   string `json:"reason,omitempty"`
}

// Absent stands for a value one side does not have.
const Absent = "(absent)"

// showJSON is v as compact JSON cut to n bytes, or Absent.
func showJSON(v jsonv.Value, n int) string {
	if !v.IsValid() {
		return Absent
	}
	return cutText(string(v.AppendJSON(nil)), n)
}

// cutText cuts s to about n bytes at a rune boundary, saying how much was
// left out.
func cutText(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + "…(" + strconv.Itoa(len(s)-k) + " more bytes)"
}

// SafeLine makes a line of JSON (or any text) safe to print on a terminal
// while keeping its meaning as JSON (textsafe.EscapeJSON): each character
// textsafe would not print as is (controls, DEL, invalid bytes,
// bidirectional and invisible formatting characters) becomes a \uXXXX
// escape (\ufffd for an invalid byte); quotes, backslashes and spaces stay.
func SafeLine(s string) string { return textsafe.EscapeJSON(s) }

// FieldOf turns a matcher's mismatch into a FieldDiff, values cut to
// maxValue bytes (0: DefaultMaxValueBytes).
func FieldOf(m tolerant.Mismatch, maxValue int) FieldDiff {
	if maxValue <= 0 {
		maxValue = DefaultMaxValueBytes
	}
	return FieldDiff{Pointer: m.Pointer, Expected: showJSON(m.Expected, maxValue), Actual: showJSON(m.Actual, maxValue), Reason: m.Reason}
}
