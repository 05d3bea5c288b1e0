package golden

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tracecheck/tracecheck/internal/textsafe"
)

// WriteText writes the drift for a terminal or a CI log, every line
// indented by two spaces: the golden file and the summary (Summary), the
// note, each detailed event (tracediff.EventDiff.Title) with one line per
// differing field, how many were left out, and the unified diff. Every
// string from the input is quoted or escaped.
func (d *Drift) WriteText(w io.Writer, file string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "  %s: %s\n", textsafe.Quote(file), d.Summary())
	if d.Note != "" {
		fmt.Fprintf(bw, "  %s\n", indent(SafeLines(d.Note), "  "))
	}
	for i := range d.Events {
		e := &d.Events[i]
		fmt.Fprintf(bw, "  %s\n", e.Title(d.Runs > 1))
		if t := e.Text(); t != "" {
			bw.WriteString(indent("  "+strings.TrimSuffix(t, "\n"), "  "))
			bw.WriteByte('\n')
		}
	}
	if d.Omitted > 0 {
		fmt.Fprintf(bw, "  ... and %s not shown\n", plural(d.Omitted, "more difference"))
	}
	if d.Diff != "" {
		fmt.Fprintf(bw, "  %s\n", indent(SafeLines(strings.TrimSuffix(d.Diff, "\n")), "  "))
	}
	return bw.Flush()
}

// Text is WriteText's output as a string.
func (d *Drift) Text(file string) string {
	var b strings.Builder
	d.WriteText(&b, file)
	return b.String()
}

func indent(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}
