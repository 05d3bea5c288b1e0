package verify

import (
	"fmt"
	"io"
	"strings"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/internal/textsafe"
)

// quote makes a string that came from input safe to print (see textsafe).
func quote(s string) string { return textsafe.Quote(s) }

// SafeLines returns text (a message that may span lines) with every line
// that a terminal would act on quoted and cut (golden.ShowText); other
// lines are kept as they are.
func SafeLines(text string) string { return golden.SafeLines(text) }

// TextOptions say what WriteText adds to the report's lines.
type TextOptions struct {
	// Verbose writes, under a run with cases's short first line, where
	// the scenarios, the cases and the goldens came from (verify -v).
	Verbose bool
}

// WriteText writes the report for a terminal or a log (WriteTextOptions
// without options).
func (r *Report) WriteText(w io.Writer) error { return r.WriteTextOptions(w, TextOptions{}) }

// WriteTextOptions writes the report for a terminal or a log: a first
// line, then one line per result (ok <id> events=<n>, DRIFT <id> with where
// and how it differs, MISSING, INVALID with its problems, OBSOLETE <file>,
// created, updated, removed), each followed by what was written or kept
// for it. With cases the first line only counts what ran and names the
// cases directory ("tracecheck: 3 cases from ci/cases"): a team running its
// own cases knows where they are, and the sentence on where scenarios and
// goldens come from, which a run of cases needs least, comes under it with
// opts.Verbose. A run of scenarios alone says where scenarios and goldens
// came from on its first line, as it always has: that line is short.
func (r *Report) WriteTextOptions(w io.Writer, opts TextOptions) error {
	var b strings.Builder
	switch {
	case r.Cases != nil:
		b.WriteString(r.countLine())
		if opts.Verbose {
			if r.Scenarios != nil {
				fmt.Fprintf(&b, "  scenarios: %s\n", r.Scenarios)
			}
			fmt.Fprintf(&b, "  cases: %s\n", r.Cases)
			if r.Goldens != nil {
				fmt.Fprintf(&b, "  goldens: %s\n", r.Goldens)
			}
		}
	case r.Goldens != nil && r.Scenarios != nil:
		fmt.Fprintf(&b, "scenarios: %s; goldens: %s\n", r.Scenarios, r.Goldens)
	}
	for i := range r.Results {
		writeResult(&b, &r.Results[i])
	}
	writeReliability(&b, r.Reliability)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeReliability writes the pass^k figure of the repeated cases: how
// many passed every run, then each with its count of runs passed.
func writeReliability(w io.Writer, rel *Reliability) {
	if rel == nil {
		return
	}
	fmt.Fprintf(w, "pass^k: %d of %s passed every run\n", rel.PassK, plural(len(rel.Cases), "repeated case", "repeated cases"))
	for _, c := range rel.Cases {
		fmt.Fprintf(w, "  %s %d/%d passed, pass^k %t\n", quote(c.Case), c.Passed, c.Count, c.PassK)
	}
}

// countLine is the first line of a run with cases: how many scenarios and
// cases ran, and from where.
func (r *Report) countLine() string {
	var parts []string
	if r.Scenarios != nil && r.Scenarios.Kind != OriginNone {
		parts = append(parts, plural(r.Counted.Scenarios, "scenario", "scenarios")+" from "+r.Scenarios.place())
	}
	parts = append(parts, plural(r.Counted.Cases, "case", "cases")+" from "+r.Cases.place())
	return "tracecheck: " + strings.Join(parts, ", ") + "\n"
}

// plural is "1 case", "2 cases".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func writeResult(w io.Writer, r *Result) {
	runs := r.runsNote()
	switch r.Status {
	case StatusOK, StatusCreated, StatusUpdated:
		fmt.Fprintf(w, "%s %s events=%d%s\n", r.Status, quote(r.ID), r.Events, runs)
	case StatusRemoved:
		fmt.Fprintf(w, "removed %s\n", quote(r.File))
	case StatusObsolete:
		fmt.Fprintf(w, "OBSOLETE %s (no scenario or case renders it; remove it with --unreferenced=delete)\n", quote(r.File))
	case StatusMissing:
		fmt.Fprintf(w, "MISSING %s (no golden %s)%s\n", quote(r.ID), quote(r.File), runs)
	case StatusInvalid:
		fmt.Fprintf(w, "INVALID %s%s\n", quote(r.ID), runs)
	case StatusDrift:
		fmt.Fprintf(w, "DRIFT %s%s\n", quote(r.ID), runs)
		WriteDrift(w, r.File, r.Drift)
	}
	if rp := r.Repeat; rp != nil {
		for _, run := range rp.Runs {
			if run.Failed && run.Run != rp.Shown {
				fmt.Fprintf(w, "  run %d: %s: %s\n", run.Run, strings.ToUpper(string(run.Status)), SafeLines(run.Summary))
			}
		}
		if s := rp.Runs[0].Status; s == StatusCreated || s == StatusUpdated {
			fmt.Fprintf(w, "  run 1 %s the golden (an update writes the first run only); %s compared with it\n", s, laterRuns(rp.Count))
		}
	}
	switch {
	case r.Pending != "" && r.Repeat != nil:
		fmt.Fprintf(w, "  wrote the pending golden %s from run 1 (an update writes the first run only)\n", quote(r.Pending))
	case r.Pending != "":
		fmt.Fprintf(w, "  wrote the pending golden %s\n", quote(r.Pending))
	}
	if r.RemovedPending != "" {
		fmt.Fprintf(w, "  removed the stale pending golden %s\n", quote(r.RemovedPending))
	}
	if len(r.Artifacts) > 0 {
		q := make([]string, len(r.Artifacts))
		for i, a := range r.Artifacts {
			q[i] = quote(a)
		}
		fmt.Fprintf(w, "  kept %s\n", strings.Join(q, ", "))
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  - %s\n", indent(SafeLines(p), "    "))
	}
}

// runsNote follows the status line of a repeated result: how many runs
// passed, and which run the detail under it is.
func (r *Result) runsNote() string {
	rp := r.Repeat
	if rp == nil {
		return ""
	}
	if rp.Shown > 1 || r.Status.fails() {
		return fmt.Sprintf(" (%d/%d passed; the detail is run %d's)", rp.Passed, rp.Count, rp.Shown)
	}
	return fmt.Sprintf(" (%d/%d passed)", rp.Passed, rp.Count)
}

// laterRuns names runs 2 to n.
func laterRuns(n int) string {
	if n == 2 {
		return "run 2 was"
	}
	return fmt.Sprintf("runs 2-%d were", n)
}

// WriteDrift writes how a trace departs from its golden file: every
// differing event with the pointers of its fields, the counts and the
// unified diff (golden.Drift.WriteText).
func WriteDrift(w io.Writer, file string, d *golden.Drift) {
	if d != nil {
		d.WriteText(w, file)
	}
}

func indent(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// summary is one line saying what a failed result is about, for JUnit
// messages and annotation titles; a repeated result's says which run it
// is and how many passed.
func (r *Result) summary() string {
	s := r.summaryOfRun()
	if rp := r.Repeat; rp != nil {
		s += fmt.Sprintf(" (run %d of %d; %d/%d passed)", rp.Shown, rp.Count, rp.Passed, rp.Count)
	}
	return s
}

func (r *Result) summaryOfRun() string {
	switch r.Status {
	case StatusDrift:
		if d := r.Drift; d != nil {
			s := fmt.Sprintf("%s differs from %s: %s", r.ID, r.File, d.Summary())
			if len(d.Events) > 0 {
				s += "; first: " + d.Events[0].Title(d.Runs > 1)
			}
			return s
		}
		return r.ID + " differs from " + r.File
	case StatusMissing:
		return fmt.Sprintf("%s has no golden %s", r.ID, r.File)
	case StatusInvalid:
		if len(r.Problems) > 0 {
			first, _, _ := strings.Cut(r.Problems[0], "\n")
			return fmt.Sprintf("%s is INVALID: %s", r.ID, first)
		}
		return r.ID + " is INVALID"
	case StatusObsolete:
		return fmt.Sprintf("%s: no scenario or case renders this golden", r.File)
	}
	return fmt.Sprintf("%s %s", r.Status, r.ID)
}

// detail is the full text report of one result (without its status line).
func (r *Result) detail() string {
	var b strings.Builder
	writeResult(&b, r)
	return b.String()
}
