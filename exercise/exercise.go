// Package exercise checks a learner's implementation of the curriculum's
// exercises, in any language, through the subject protocol (package
// subject, docs/protocol.md).
//
// An Exercise is data plus checks: a statement, the ops it needs, and its
// acceptance criteria in order. A Criterion is one named check with a hint
// and its cases: fixtures (the goldens embedded in tracecheck, and the
// reference traces when a reference directory is given) and cases generated
// from a seed, so that a subject cannot hard-code its answers and a seed
// reproduces a run. Every expected answer comes from tracecheck's own
// packages (package reference), never from a table.
//
// Exercises A-F are those of the curriculum's lesson s07, R is resume
// (chapter 20 of the TypeScript harness). Each lives in its own file
// (ex_<id>.go); adding one is that file, one line in Catalog, and its test:
// a mutant per criterion in mutants_test.go, which shows that the
// criterion can fail, and fails first for the mistake it is about.
package exercise

import (
	"fmt"
	"strings"
)

// Exercise is one exercise.
type Exercise struct {
	ID        string // "A"
	Slug      string // "reject-sequence-gap"
	Title     string
	Source    string // where it comes from, as readers can find it
	Statement string // what to build, in a few paragraphs
	Ops       []string
	Criteria  []*Criterion
}

// Criterion is one acceptance criterion: a named check with a hint.
type Criterion struct {
	Name   string // "rejects-sequence-gap": stable, used in the progress file
	Accept string // the criterion, one sentence
	Hint   string
	// Cases returns the criterion's cases for a seed and the fixtures.
	Cases func(g *Gen) []Case
}

// Case is one check of a criterion: a name that says where its input comes
// from ("golden s07-session-replay", "seed 7 #2") and the exchange.
type Case struct {
	Name string
	Run  func(k *conn) error
}

// Catalog returns every exercise, in the order a learner does them.
func Catalog() []*Exercise {
	return []*Exercise{exerciseA(), exerciseB(), exerciseC(), exerciseD(), exerciseE(), exerciseF(), exerciseR()}
}

// Find returns the exercise with id (case-insensitive) or slug.
func Find(id string) (*Exercise, error) {
	var ids []string
	for _, ex := range Catalog() {
		if strings.EqualFold(ex.ID, id) || ex.Slug == id {
			return ex, nil
		}
		ids = append(ids, ex.ID)
	}
	return nil, fmt.Errorf("unknown exercise %q (known: %s)", id, strings.Join(ids, ", "))
}

// CriterionID is the short name of criterion i of ex: "B2".
func (ex *Exercise) CriterionID(i int) string { return fmt.Sprintf("%s%d", ex.ID, i+1) }

// Missing returns the ops ex needs that supports does not report.
func (ex *Exercise) Missing(supports func(op string) bool) []string {
	var out []string
	for _, op := range ex.Ops {
		if !supports(op) {
			out = append(out, op)
		}
	}
	return out
}
