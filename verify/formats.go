package verify

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/internal/cireport"
	"github.com/tracecheck/tracecheck/internal/jsonout"
)

// Formats lists the report formats: text, json, junit, github.
func Formats() []string { return []string{"text", "json", "junit", "github"} }

// Write writes the report in format (one of Formats). root is the
// directory GitHub annotations name files relative to (the repository
// root); "" keeps paths as they are.
func (r *Report) Write(w io.Writer, format, root string) error {
	switch format {
	case "text":
		return r.WriteText(w)
	case "json":
		return r.WriteJSON(w)
	case "junit":
		return r.WriteJUnit(w)
	case "github":
		return r.WriteGitHub(w, root)
	}
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats(), ", "))
}

// WriteJSON writes the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	return jsonout.Write(w, r)
}

// WriteJUnit writes the report as JUnit XML: one testsuite, one testcase
// per result (a subject, or an unreferenced golden), the failing ones with
// a <failure> whose text is the result's full report (the drift with every
// differing field and the diff). A subject run K times (a case's
// "repeat") is K testcases, <id>#1 to <id>#K, so that CI counts each run:
// the run the result details carries the full report, another failed run
// the one line kept of it.
func (r *Report) WriteJUnit(w io.Writer) error {
	suite := cireport.Suite{Name: "tracecheck verify", Cases: make([]cireport.Case, 0, len(r.Results))}
	for i := range r.Results {
		res := &r.Results[i]
		c := cireport.Case{Name: res.ID, Classname: "tracecheck.verify." + res.Kind, File: res.File}
		if res.ID == "" {
			c.Name, c.Classname = res.File, "tracecheck.verify.unreferenced"
		}
		if res.Drift != nil {
			c.Line = res.Drift.Line
		}
		switch {
		case res.Failed:
			c.Failure = &cireport.Failure{Message: res.summary(), Type: strings.ToUpper(string(res.Status)), Text: res.detail()}
		case res.Status != StatusOK || res.Pending != "" || res.RemovedPending != "":
			c.SystemOut = res.detail()
		}
		if res.Repeat == nil {
			suite.Cases = append(suite.Cases, c)
			continue
		}
		for _, run := range res.Repeat.Runs {
			rc := cireport.Case{Name: fmt.Sprintf("%s#%d", res.ID, run.Run), Classname: c.Classname, File: c.File}
			switch {
			case run.Run == res.Repeat.Shown:
				rc.Line, rc.Failure, rc.SystemOut = c.Line, c.Failure, c.SystemOut
			case run.Failed:
				msg := fmt.Sprintf("%s run %d of %d: %s", res.ID, run.Run, res.Repeat.Count, run.Summary)
				rc.Failure = &cireport.Failure{Message: msg, Type: strings.ToUpper(string(run.Status)),
					Text: fmt.Sprintf("%s\n(the full report is kept for run %d only: %s#%d)\n", msg, res.Repeat.Shown, res.ID, res.Repeat.Shown)}
			}
			suite.Cases = append(suite.Cases, rc)
		}
	}
	return cireport.WriteJUnit(w, "tracecheck", suite)
}

// WriteGitHub writes GitHub Actions annotations for the results that need
// attention: an error on the golden's line of each differing event of a
// drift (a notice for those left out), on the golden for a missing one, on
// the subject's file for an INVALID one; a warning for an unreferenced
// golden that does not fail the run; a notice for a golden written.
func (r *Report) WriteGitHub(w io.Writer, root string) error {
	var anns []cireport.Annotation
	for i := range r.Results {
		res := &r.Results[i]
		a := cireport.Annotation{File: annotationPath(root, res.File), Message: res.summary() + "\n" + res.detail()}
		switch {
		case res.Failed:
			a.Level = cireport.LevelError
		case res.Status == StatusObsolete:
			a.Level = cireport.LevelWarning
		case res.Status == StatusCreated || res.Status == StatusUpdated || res.Status == StatusRemoved || res.Pending != "":
			a.Level = cireport.LevelNotice
		default:
			continue
		}
		if res.Drift != nil {
			a.Line = res.Drift.Line
		}
		if res.Status == StatusInvalid && res.Source != "" {
			a.File = annotationPath(root, res.Source)
		}
		a.Title = fmt.Sprintf("tracecheck verify: %s %s%s", strings.ToUpper(string(res.Status)), res.ID, res.runsNote())
		if res.ID == "" {
			a.Title = fmt.Sprintf("tracecheck verify: %s golden", strings.ToUpper(string(res.Status)))
		}
		if d := res.Drift; res.Status == StatusDrift && d != nil && len(d.Events) > 0 {
			anns = append(anns, driftAnnotations(a, res, d)...)
			continue
		}
		anns = append(anns, a)
	}
	return cireport.WriteGitHub(w, anns)
}

// driftAnnotations are one annotation per detailed event of a drift, at the
// golden's line of it (the line an extra event follows), and a notice for
// the events left out.
func driftAnnotations(a cireport.Annotation, res *Result, d *golden.Drift) []cireport.Annotation {
	out := make([]cireport.Annotation, 0, len(d.Events)+1)
	for i := range d.Events {
		e := &d.Events[i]
		b := a
		b.Line = max(e.Anchor, 1)
		head := fmt.Sprintf("%s differs from %s: event %d of %d", res.ID, res.File, i+1, d.Differences)
		if i == 0 {
			head = fmt.Sprintf("%s differs from %s: %s", res.ID, res.File, d.Summary())
		}
		b.Message = head + "\n" + e.Title(d.Runs > 1) + "\n" + strings.TrimSuffix(e.Text(), "\n")
		out = append(out, b)
	}
	if d.Omitted > 0 {
		b := a
		b.Level, b.Line = cireport.LevelNotice, 0
		b.Message = fmt.Sprintf("%s: %d more differing events not shown (the artifacts or a local verify show them)", res.ID, d.Omitted)
		out = append(out, b)
	}
	return out
}

// annotationPath names path relative to root (the repository root, where
// GitHub looks files up), with forward slashes; a path outside root, or
// with no root, as it is; an embedded golden has no file.
func annotationPath(root, path string) string {
	if path == "" || strings.HasPrefix(path, "embedded:") {
		return ""
	}
	if root != "" {
		if abs, err := filepath.Abs(path); err == nil {
			if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				path = rel
			}
		}
	}
	return filepath.ToSlash(path)
}
