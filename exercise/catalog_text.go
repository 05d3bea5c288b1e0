package exercise

import (
	"fmt"
	"github.com/tracecheck/tracecheck/internal/jsonout"
	"io"
	"strings"
	"text/tabwriter"
)

// ListEntry is one exercise in `exercise list`.
type ListEntry struct {
	ID       string   `json:"id"`
	Slug     string   `json:"slug"`
	Title    string   `json:"title"`
	Ops      []string `json:"ops"`
	Criteria int      `json:"criteria"`
	Passed   int      `json:"passed"`
	Done     bool     `json:"done"`
}

// List returns every exercise with the progress p records.
func List(p *Progress) []ListEntry {
	var out []ListEntry
	for _, ex := range Catalog() {
		en := ListEntry{ID: ex.ID, Slug: ex.Slug, Title: ex.Title, Ops: ex.Ops, Criteria: len(ex.Criteria), Passed: p.Count(ex)}
		en.Done = en.Passed == en.Criteria
		out = append(out, en)
	}
	return out
}

// WriteListText writes the exercise table and what to do next; program is
// the command's name, for the suggested command lines.
func WriteListText(w io.Writer, p *Progress, program string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tOPS\tPROGRESS")
	for _, en := range List(p) {
		prog := fmt.Sprintf("%d/%d", en.Passed, en.Criteria)
		if en.Done {
			prog += " done"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", en.ID, en.Title, strings.Join(en.Ops, ", "), prog)
	}
	tw.Flush()
	if next := p.Next(); next != nil {
		fmt.Fprintf(w, "next: %s exercise show %s, then %s exercise run %s -- <your subject>\n", program, next.ID, program, next.ID)
	} else {
		fmt.Fprintf(w, "every exercise is done; %s conform -- <your subject> checks them all at once\n", program)
	}
}

// statementJSON is `exercise show --format json`.
type statementJSON struct {
	ID        string          `json:"id"`
	Slug      string          `json:"slug"`
	Title     string          `json:"title"`
	Source    string          `json:"source"`
	Ops       []string        `json:"ops"`
	Statement string          `json:"statement"`
	Criteria  []criterionJSON `json:"criteria"`
}

type criterionJSON struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Accept string `json:"accept"`
	Hint   string `json:"hint"`
	Passed bool   `json:"passed"`
}

// WriteStatementJSON writes ex, its criteria and which passed, as JSON.
func (ex *Exercise) WriteStatementJSON(w io.Writer, p *Progress) error {
	passed := p.PassedSet(ex)
	out := statementJSON{ID: ex.ID, Slug: ex.Slug, Title: ex.Title, Source: ex.Source, Ops: ex.Ops, Statement: ex.Statement}
	for i, c := range ex.Criteria {
		out.Criteria = append(out.Criteria, criterionJSON{ex.CriterionID(i), c.Name, c.Accept, c.Hint, passed[c.Name]})
	}
	return jsonout.Write(w, out)
}

// WriteStatement writes ex for a learner: the statement, then the criteria
// in order (passed ones ticked, the current one marked), with their hints
// when hints is set, and how to check it.
func (ex *Exercise) WriteStatement(w io.Writer, p *Progress, hints bool, program string) {
	passed, cur := p.PassedSet(ex), p.Current(ex)
	fmt.Fprintf(w, "%s. %s (%s)\nops: %s\n\n%s\n\nAcceptance criteria:\n", ex.ID, ex.Title, ex.Source, strings.Join(ex.Ops, ", "), ex.Statement)
	for i, c := range ex.Criteria {
		mark, note := "[ ]", ""
		if passed[c.Name] {
			mark = "[x]"
		}
		if i == cur {
			note = "  <- current"
		}
		fmt.Fprintf(w, "  %d. %s %s %s: %s%s\n", i+1, mark, ex.CriterionID(i), c.Name, c.Accept, note)
		if hints {
			fmt.Fprintf(w, "       hint: %s\n", strings.ReplaceAll(c.Hint, "\n", "\n             "))
		}
	}
	fmt.Fprintf(w, "\nCheck it: %s exercise run %s -- <your subject, e.g. python3 subject.py>\n", program, ex.ID)
	if !hints {
		fmt.Fprintf(w, "Stuck? %s exercise show %s --hint\n", program, ex.ID)
	}
}
