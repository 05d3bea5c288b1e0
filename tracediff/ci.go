package tracediff

import (
	"bytes"
	"strings"

	"github.com/tracecheck/tracecheck/internal/cireport"
)

// JUnitCase is the report as one JUnit test case named name: passed when
// the traces are equal, a failure listing the differences (or the
// problems of an invalid file) otherwise.
func (r *Report) JUnitCase(name string) cireport.Case {
	c := cireport.Case{Name: name, File: r.Expected.File}
	if r.Equal {
		return c
	}
	var text bytes.Buffer
	r.WriteText(&text)
	f := &cireport.Failure{Text: text.String()}
	switch {
	case r.Invalid():
		f.Type, f.Message = "invalid", "not a valid trace: "+r.firstProblem().String()
	default:
		f.Type, f.Message = "different", r.counts()
		if len(r.Events) > 0 {
			c.Line = r.Events[0].Anchor
		}
	}
	c.Failure = f
	return c
}

func (r *Report) firstProblem() Problem {
	if len(r.Expected.Problems) > 0 {
		return r.Expected.Problems[0]
	}
	return r.Actual.Problems[0]
}

// Annotations are GitHub Actions annotations: one per detailed difference
// at the expected file's line (the line an extra event follows), one per
// problem at its own file and line, and a notice for the differences left
// out. file names the expected file for GitHub (relative to the repository
// root); "" leaves the file out, as for standard input.
func (r *Report) Annotations(file string) []cireport.Annotation {
	var out []cireport.Annotation
	if r.Invalid() {
		for _, f := range []*FileSummary{&r.Expected, &r.Actual} {
			for _, p := range f.Problems {
				name := p.File
				if f == &r.Expected {
					name = file
				}
				out = append(out, cireport.Annotation{Level: cireport.LevelError, File: name, Line: p.Line,
					Title: "tracecheck: " + p.Code, Message: p.String()})
			}
		}
		return out
	}
	multiRun := r.Expected.Runs > 1 || r.Actual.Runs > 1
	for i := range r.Events {
		ed := &r.Events[i]
		line := ed.Anchor
		if file == "" {
			line = 0
		}
		out = append(out, cireport.Annotation{Level: cireport.LevelError, File: file, Line: line,
			Title:   "tracecheck diff: " + ed.Kind,
			Message: ed.Title(multiRun) + "\n" + strings.TrimSuffix(ed.Text(), "\n")})
	}
	if r.Omitted > 0 {
		out = append(out, cireport.Annotation{Level: cireport.LevelNotice, File: file,
			Title: "tracecheck diff", Message: plural(r.Omitted, "more difference") + " not shown"})
	}
	return out
}
