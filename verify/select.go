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

// Select returns the scenarios and the cases named by ids (every one of
// each when ids is empty), each once. A case is named by its id, or by the
// id of its model-side trace (<id>.model); a scenario's id wins over a
// case's. With no cases it is scenarios.Select. Ids naming nothing make a
// *scenarios.UnknownError, whose noun is "scenario or case" when there are
// cases.
func Select(scs []*scenarios.Scenario, cs []*cases.Case, ids []string) ([]*scenarios.Scenario, []*cases.Case, error) {
	if len(ids) == 0 {
		return scs, cs, nil
	}
	if len(cs) == 0 {
		sel, err := scenarios.Select(scs, ids)
		return sel, nil, err
	}
	isScenario := make(map[string]bool, len(scs))
	for _, s := range scs {
		isScenario[s.ID] = true
	}
	var scIDs []string // the ids left to scenarios.Select
	var selC []*cases.Case
	for _, id := range ids {
		caseID := strings.TrimSuffix(id, cases.ModelSuffix)
		if i := slices.IndexFunc(cs, func(c *cases.Case) bool { return c.ID == caseID }); i >= 0 && !isScenario[id] {
			if !slices.Contains(selC, cs[i]) {
				selC = append(selC, cs[i])
			}
			continue
		}
		scIDs = append(scIDs, id)
	}
	if len(scIDs) == 0 {
		return nil, selC, nil
	}
	selS, err := scenarios.Select(scs, scIDs)
	var ue *scenarios.UnknownError
	if errors.As(err, &ue) {
		known := make([]string, 0, len(scs)+len(cs))
		for _, s := range scs {
			known = append(known, s.ID)
		}
		for _, c := range cs {
			known = append(known, c.ID)
		}
		sort.Strings(known)
		return nil, nil, &scenarios.UnknownError{IDs: ue.IDs, Known: known, Noun: "scenario or case"}
	}
	if err != nil {
		return nil, nil, err
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
