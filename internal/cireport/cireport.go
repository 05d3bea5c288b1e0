// Package cireport writes check results in the two formats CI systems read
// without plugins: JUnit XML (one testcase per checked thing; Jenkins,
// GitLab, Azure Pipelines, Buildkite and most test-report actions read it)
// and GitHub Actions workflow commands (::error file=…,line=…::message),
// which GitHub turns into annotations on the named line.
//
// Output is deterministic: no timestamps, no host names, no durations
// unless the caller gives them, so a report can itself be compared with a
// golden. Text from input is escaped for each format (XML character data
// with characters XML 1.0 forbids replaced by U+FFFD; in workflow
// commands, every control, DEL, invalid byte and bidirectional or
// invisible formatting character as textsafe escapes it in text output,
// then the workflow-command escapes for '%', CR, LF and, in properties,
// ':' and ',').
package cireport

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/tracecheck/tracecheck/internal/textsafe"
)

// Suite is one <testsuite>: the results of one command over its inputs.
type Suite struct {
	Name  string
	Cases []Case
}

// Case is one <testcase>: one scenario, case, file or criterion. It passed
// when Failure, Error and Skipped are all empty.
type Case struct {
	Name      string
	Classname string // defaults to the suite name
	File      string // the file the result is about, when there is one
	Line      int    // 1-based line in File, 0 when unknown
	Failure   *Failure
	Error     *Failure // the check itself could not run (exit 2 or 3 territory)
	Skipped   string   // why it was skipped; "" when it ran
	SystemOut string
}

// Failure is a <failure> or <error>: a one-line message and the full text.
type Failure struct {
	Message string
	Type    string
	Text    string
}

type xmlSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Name     string     `xml:"name,attr,omitempty"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Errors   int        `xml:"errors,attr"`
	Skipped  int        `xml:"skipped,attr"`
	Suites   []xmlSuite `xml:"testsuite"`
}

type xmlSuite struct {
	Name     string    `xml:"name,attr"`
	Tests    int       `xml:"tests,attr"`
	Failures int       `xml:"failures,attr"`
	Errors   int       `xml:"errors,attr"`
	Skipped  int       `xml:"skipped,attr"`
	Cases    []xmlCase `xml:"testcase"`
}

type xmlCase struct {
	Name      string      `xml:"name,attr"`
	Classname string      `xml:"classname,attr"`
	File      string      `xml:"file,attr,omitempty"`
	Line      int         `xml:"line,attr,omitempty"`
	Skipped   *xmlSkipped `xml:"skipped"`
	Failure   *xmlFailure `xml:"failure"`
	Error     *xmlFailure `xml:"error"`
	SystemOut string      `xml:"system-out,omitempty"`
}

type xmlSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

type xmlFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes suites as one JUnit XML document.
func WriteJUnit(w io.Writer, name string, suites ...Suite) error {
	doc := xmlSuites{Name: name, Suites: make([]xmlSuite, 0, len(suites))}
	for _, s := range suites {
		xs := xmlSuite{Name: s.Name, Cases: make([]xmlCase, 0, len(s.Cases))}
		for _, c := range s.Cases {
			xc := xmlCase{Name: c.Name, Classname: c.Classname, File: c.File, Line: c.Line, SystemOut: c.SystemOut}
			if xc.Classname == "" {
				xc.Classname = s.Name
			}
			switch {
			case c.Error != nil:
				xc.Error = toXML(c.Error)
				xs.Errors++
			case c.Failure != nil:
				xc.Failure = toXML(c.Failure)
				xs.Failures++
			case c.Skipped != "":
				xc.Skipped = &xmlSkipped{Message: c.Skipped}
				xs.Skipped++
			}
			xs.Cases = append(xs.Cases, xc)
		}
		xs.Tests = len(xs.Cases)
		doc.Tests += xs.Tests
		doc.Failures += xs.Failures
		doc.Errors += xs.Errors
		doc.Skipped += xs.Skipped
		doc.Suites = append(doc.Suites, xs)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func toXML(f *Failure) *xmlFailure {
	return &xmlFailure{Message: firstLine(f.Message), Type: f.Type, Text: f.Text}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Level is the kind of a GitHub annotation.
type Level string

// The three annotation levels GitHub Actions knows.
const (
	LevelError   Level = "error"
	LevelWarning Level = "warning"
	LevelNotice  Level = "notice"
)

// Annotation is one GitHub Actions workflow command. File is relative to
// the repository root for GitHub to attach it to a line; Line and Col are
// 1-based, 0 when unknown.
type Annotation struct {
	Level   Level
	File    string
	Line    int
	Col     int
	Title   string
	Message string
}

// WriteGitHub writes one workflow command per annotation.
func WriteGitHub(w io.Writer, anns []Annotation) error {
	for _, a := range anns {
		if err := writeAnnotation(w, a); err != nil {
			return err
		}
	}
	return nil
}

func writeAnnotation(w io.Writer, a Annotation) error {
	level := a.Level
	if level == "" {
		level = LevelError
	}
	var props []string
	if a.File != "" {
		props = append(props, "file="+escapeProperty(a.File))
		if a.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", a.Line))
			if a.Col > 0 {
				props = append(props, fmt.Sprintf("col=%d", a.Col))
			}
		}
	}
	if a.Title != "" {
		props = append(props, "title="+escapeProperty(a.Title))
	}
	cmd := "::" + string(level)
	if len(props) > 0 {
		cmd += " " + strings.Join(props, ",")
	}
	_, err := fmt.Fprintf(w, "%s::%s\n", cmd, escapeData(a.Message))
	return err
}

// escapeData is the runner's escaping of a command's message, over
// textsafe's: see escape.
func escapeData(s string) string {
	return escape(s, dataEscapes)
}

// escapeProperty is the runner's escaping of a property value, over
// textsafe's: see escape.
func escapeProperty(s string) string {
	return escape(s, propertyEscapes)
}

var (
	dataEscapes     = strings.NewReplacer("%", "%25")
	propertyEscapes = strings.NewReplacer("%", "%25", ":", "%3A", ",", "%2C")
)

// escape makes s one safe line of a workflow command: CR and LF become the
// runner's %0D and %0A (GitHub turns them back into line breaks of the
// annotation); every other character the CLI's text output would escape
// (a C0 or C1 control, DEL, a byte that is not UTF-8, a bidirectional or
// invisible formatting character) becomes textsafe's escape for it, as
// textsafe.Escape writes it, so the log shows what the text output shows
// and no input can colour, move or reorder it; then the runner's own
// escapes (r) apply. textsafe's escapes hold no '%', ':' or ','.
func escape(s string, r *strings.Replacer) string {
	var b strings.Builder
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			b.WriteString(r.Replace(textsafe.Escape(s)))
			return b.String()
		}
		b.WriteString(r.Replace(textsafe.Escape(s[:i])))
		if s[i] == '\r' {
			b.WriteString("%0D")
		} else {
			b.WriteString("%0A")
		}
		s = s[i+1:]
	}
}
