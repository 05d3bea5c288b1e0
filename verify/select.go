package verify

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tracecheck/tracecheck/cases"
	"github.com/tracecheck/tracecheck/scenarios"
)

// UnknownError names ids that are neither a scenario nor a case of a run.
type UnknownError struct {
	IDs   []string
	Known []string
}

func (e *UnknownError) Error() string {
	q := make([]string, len(e.IDs))
	for i, id := range e.IDs {
		q[i] = fmt.Sprintf("%q", id)
	}
	return fmt.Sprintf("unknown scenario or case %s (known: %s)", strings.Join(q, ", "), strings.Join(e.Known, ", "))
}

// Select returns the scenarios and the cases named by ids (every one of
// each when ids is empty), each once. A case is named by its id, or by the
// id of its model-side trace (<id>.model). With no cases it is
// scenarios.Select. An id naming nothing makes an *UnknownError (or a
// *scenarios.UnknownError).
func Select(scs []*scenarios.Scenario, cs []*cases.Case, ids []string) ([]*scenarios.Scenario, []*cases.Case, error) {
	if len(ids) == 0 {
		return scs, cs, nil
	}
	if len(cs) == 0 {
		sel, err := scenarios.Select(scs, ids)
		return sel, nil, err
	}
	var selS []*scenarios.Scenario
	var selC []*cases.Case
	var unknown []string
	for _, id := range ids {
		if i := slices.IndexFunc(scs, func(s *scenarios.Scenario) bool { return s.ID == id }); i >= 0 {
			if !slices.Contains(selS, scs[i]) {
				selS = append(selS, scs[i])
			}
			continue
		}
		caseID := strings.TrimSuffix(id, cases.ModelSuffix)
		if i := slices.IndexFunc(cs, func(c *cases.Case) bool { return c.ID == caseID }); i >= 0 {
			if !slices.Contains(selC, cs[i]) {
				selC = append(selC, cs[i])
			}
			continue
		}
		if !slices.Contains(unknown, id) {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		var known []string
		for _, s := range scs {
			known = append(known, s.ID)
		}
		for _, c := range cs {
			known = append(known, c.ID)
		}
		sort.Strings(known)
		return nil, nil, &UnknownError{IDs: unknown, Known: known}
	}
	return selS, selC, nil
}

// CheckNames refuses a run whose subjects would share an id or a golden:
// a case named like a scenario, or a case whose golden is a scenario's.
func CheckNames(scs []*scenarios.Scenario, cs []*cases.Case) error {
	owner := map[string]string{}
	for _, s := range scs {
		owner[s.ID] = "scenario " + s.ID
	}
	var errs []error
	for _, c := range cs {
		names := append([]string{c.ID}, c.GoldenNames()...)
		for _, n := range names {
			if o, ok := owner[n]; ok && o != "case "+c.ID {
				errs = append(errs, fmt.Errorf("%s: case %q and %s share the name %q (an id or a golden): rename one", c.File, c.ID, o, n))
				break
			}
		}
		for _, n := range names {
			owner[n] = "case " + c.ID
		}
	}
	return errors.Join(errs...)
}
