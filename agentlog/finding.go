package agentlog

import (
	"fmt"
	"sort"

	"github.com/tracecheck/tracecheck/internal/textsafe"
)

// Finding is one problem in one file.
type Finding struct {
	File     string
	Line     int // 1-based; 0 for the file as a whole
	Code     Code
	Severity Severity
	Message  string   // ids in it are quoted with textsafe.Quote
	IDs      []string // the ids involved, as the file spells them
	fix      *fix     // set when lint --repair can fix it
}

// Repairable reports whether lint --repair fixes this finding.
func (f *Finding) Repairable() bool { return f.fix != nil }

// String formats the finding as "FILE:LINE: CODE message".
func (f *Finding) String() string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d: %s %s", f.File, f.Line, f.Code, f.Message)
	}
	return fmt.Sprintf("%s: %s %s", f.File, f.Code, f.Message)
}

// MaxFindings bounds the findings kept for one file (and with it lint's
// memory); past it only counts go on, and repairs are still collected.
const MaxFindings = 1000

// FileReport is the result of linting one file.
type FileReport struct {
	File     string
	Format   Format
	Lines    int
	Records  int
	Findings []Finding // in line order, at most MaxFindings
	Counts   map[Code]int
	Errors   int
	Warnings int
	Infos    int
	// Repairable counts the findings lint --repair fixes.
	Repairable int

	fixes   []fix
	session string // the session id the file names first
	ids     IDSet  // the entry ids of the file, so repairs mint new ones that do not collide
	idsErr  error  // the error that stopped one of lint's id sets (reported as READ_FAILED)
}

// Failed reports whether the file has an error or a warning.
func (r *FileReport) Failed() bool { return r.Errors+r.Warnings > 0 }

func (r *FileReport) add(f Finding) {
	if r.Counts == nil {
		r.Counts = map[Code]int{}
	}
	r.Counts[f.Code]++
	switch f.Severity {
	case Error:
		r.Errors++
	case Warning:
		r.Warnings++
	default:
		r.Infos++
	}
	if f.fix != nil {
		r.Repairable++
		f.fix.line = f.Line
		r.fixes = append(r.fixes, *f.fix)
	}
	f.File = r.File
	switch {
	case len(r.Findings) < MaxFindings:
		r.Findings = append(r.Findings, f)
	case len(r.Findings) == MaxFindings:
		r.Findings = append(r.Findings, Finding{File: r.File, Line: f.Line, Code: TooManyFindings, Severity: Info,
			Message: fmt.Sprintf("stopped listing after %d findings; the counts below include every one", MaxFindings)})
	}
}

// sortFindings orders findings by line (stable: the order found within a
// line).
func (r *FileReport) sortFindings() {
	sort.SliceStable(r.Findings, func(i, j int) bool { return r.Findings[i].Line < r.Findings[j].Line })
	sort.SliceStable(r.fixes, func(i, j int) bool { return r.fixes[i].line < r.fixes[j].line })
}

// q quotes an id from input for a message.
func q(id string) string { return textsafe.Quote(id) }
