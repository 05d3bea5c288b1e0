package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tracecheck/tracecheck/internal/cireport"
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
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteJUnit writes the report as JUnit XML: one testsuite, one testcase
// per result (a subject, or an unreferenced golden), the failing ones with
// a <failure> whose text is the result's full report (the drift with every
// differing field and the diff).
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
		suite.Cases = append(suite.Cases, c)
	}
	return cireport.WriteJUnit(w, "tracecheck", suite)
}

// WriteGitHub writes one GitHub Actions annotation per result that needs
// attention: an error on the golden's first differing line for a drift,
// on the golden for a missing one, on the scenario file for an INVALID
// one; a warning for an unreferenced golden that does not fail the run; a
// notice for a golden written.
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
		a.Title = fmt.Sprintf("tracecheck verify: %s %s", strings.ToUpper(string(res.Status)), res.ID)
		if res.ID == "" {
			a.Title = fmt.Sprintf("tracecheck verify: %s golden", strings.ToUpper(string(res.Status)))
		}
		anns = append(anns, a)
	}
	return cireport.WriteGitHub(w, anns)
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
