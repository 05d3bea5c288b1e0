package tracediff

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/internal/textsafe"
)

// WriteText writes the report for a terminal or a CI log:
//
//	same EXPECTED ACTUAL events=N
//
// or a DIFFERENT header with the counts, one paragraph per detailed
// difference (the event, then "  POINTER: expected X, actual Y" per
// field), how many were left out, and the unified diff; or INVALID with
// each file's problems.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	e, a := textsafe.Quote(r.Expected.File), textsafe.Quote(r.Actual.File)
	switch {
	case r.Invalid():
		for _, f := range []*FileSummary{&r.Expected, &r.Actual} {
			if len(f.Problems) == 0 {
				continue
			}
			fmt.Fprintf(bw, "INVALID %s: %s\n", textsafe.Quote(f.File), plural(len(f.Problems), "problem"))
			for _, p := range f.Problems {
				fmt.Fprintf(bw, "  %s\n", p)
			}
			if f.Hint != "" {
				fmt.Fprintf(bw, "  hint: %s\n", SafeLine(f.Hint))
			}
		}
	case r.Equal:
		what := "events"
		if r.Mode != "events" {
			what = "calls"
		}
		fmt.Fprintf(bw, "same %s %s %s=%d%s\n", e, a, what, r.Actual.Events, r.modeNote())
	default:
		fmt.Fprintf(bw, "DIFFERENT %s %s%s: %s\n", e, a, r.modeNote(), r.counts())
		multiRun := r.Expected.Runs > 1 || r.Actual.Runs > 1
		for i := range r.Events {
			r.Events[i].writeText(bw, multiRun)
		}
		if r.Omitted > 0 {
			fmt.Fprintf(bw, "... and %s not shown (raise --max-events to see them)\n", plural(r.Omitted, "more difference"))
		}
		if r.Diff != "" {
			bw.WriteString(r.Diff)
		}
	}
	return bw.Flush()
}

func (r *Report) modeNote() string {
	switch {
	case r.Mode != "events":
		return " (" + r.Mode + ")"
	case r.Tolerant:
		return " (tolerant)"
	}
	return ""
}

func (r *Report) counts() string {
	if r.Mode != "events" {
		return fmt.Sprintf("%s; expected %s, actual %d", plural(r.Differences, "failure"), plural(r.Expected.Events, "call"), r.Actual.Events)
	}
	verb := "differ"
	if r.Differences == 1 {
		verb = "differs"
	}
	return fmt.Sprintf("%s %s (%d changed, %d missing, %d extra); expected %d events, actual %d",
		plural(r.Differences, "event"), verb, r.Changed, r.Missing, r.Extra, r.Expected.Events, r.Actual.Events)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Title is a one-line description of the event: kind, run, sequence,
// event_id, type and lines.
func (ed *EventDiff) Title(multiRun bool) string {
	var b strings.Builder
	b.WriteString(ed.Kind)
	if multiRun && ed.Run > 0 {
		fmt.Fprintf(&b, " run=%d", ed.Run)
	}
	if ed.ExpectedLine > 0 || ed.ActualLine > 0 {
		fmt.Fprintf(&b, " sequence=%d", ed.Sequence)
	}
	if ed.EventID != "" {
		b.WriteString(" event_id=" + textsafe.Quote(ed.EventID))
	}
	if ed.Type != "" {
		b.WriteString(" type=" + textsafe.Quote(ed.Type))
	}
	switch {
	case ed.ExpectedLine > 0 && ed.ActualLine > 0:
		fmt.Fprintf(&b, " (expected line %d, actual line %d)", ed.ExpectedLine, ed.ActualLine)
	case ed.ExpectedLine > 0:
		fmt.Fprintf(&b, " (expected line %d)", ed.ExpectedLine)
	case ed.ActualLine > 0:
		fmt.Fprintf(&b, " (actual line %d)", ed.ActualLine)
	}
	return b.String()
}

// Text is the detail of the difference: its note and one line per field.
func (ed *EventDiff) Text() string {
	var b strings.Builder
	if ed.Note != "" {
		b.WriteString("  " + SafeLine(ed.Note) + "\n")
	}
	for _, f := range ed.Fields {
		fmt.Fprintf(&b, "  %s: expected %s, actual %s", textsafe.Quote(f.Pointer), SafeLine(f.Expected), SafeLine(f.Actual))
		if f.Reason != "" {
			b.WriteString(": " + SafeLine(f.Reason))
		}
		b.WriteByte('\n')
	}
	if ed.FieldsOmitted > 0 {
		fmt.Fprintf(&b, "  ... and %s\n", plural(ed.FieldsOmitted, "more field"))
	}
	return b.String()
}

func (ed *EventDiff) writeText(w *bufio.Writer, multiRun bool) {
	w.WriteString(ed.Title(multiRun))
	w.WriteByte('\n')
	w.WriteString(ed.Text())
}
