package verify

import (
	"testing"

	"github.com/tracecheck/tracecheck/cases"
	"github.com/tracecheck/tracecheck/scenarios"
)

func TestSelect(t *testing.T) {
	s1, s2 := &scenarios.Scenario{ID: "s1"}, &scenarios.Scenario{ID: "s2"}
	ca, cb := &cases.Case{ID: "a"}, &cases.Case{ID: "b"}
	scs, cs := []*scenarios.Scenario{s1, s2}, []*cases.Case{ca, cb}

	selS, selC, err := Select(scs, cs, []string{"b.model", "s2", "b", "s2"})
	if err != nil || len(selS) != 1 || selS[0] != s2 || len(selC) != 1 || selC[0] != cb {
		t.Errorf("Select: %v %v %v", selS, selC, err)
	}
	selS, selC, err = Select(scs, cs, []string{"a"})
	if err != nil || selS != nil || len(selC) != 1 || selC[0] != ca {
		t.Errorf("Select of a case alone: %v %v %v", selS, selC, err)
	}
	for _, tt := range []struct {
		cs   []*cases.Case
		ids  []string
		want string
	}{
		{cs, []string{"x", "s1", "y", "x"}, `unknown scenario or case "x", "y" (known: a, b, s1, s2)`},
		{nil, []string{"x"}, `unknown scenario "x" (known: s1, s2)`},
		{nil, []string{"x", "y"}, `unknown scenarios "x", "y" (known: s1, s2)`},
		{nil, []string{"s1"}, ``}, // known: selected
		{[]*cases.Case{{ID: "s1-loop"}, {ID: "s1-run.model"}}, []string{"s1-"}, `unknown scenario or case "s1-" (known: s1, s1-loop, s1-run.model, s2)`},
		{[]*cases.Case{{ID: "s2-loop"}}, []string{"s2-lo"}, `unknown scenario or case "s2-lo" (known: s1, s2, s2-loop)`},
		{[]*cases.Case{{ID: "s3-loop"}, {ID: "s3-run.model"}}, []string{"s3"}, `unknown scenario or case "s3": did you mean "s3-loop" or "s3-run.model"? (known: s1, s2, s3-loop, s3-run.model)`},
	} {
		_, _, err := Select(scs, tt.cs, tt.ids)
		if tt.want == "" {
			if err != nil {
				t.Errorf("Select(%v): %v", tt.ids, err)
			}
			continue
		}
		if _, ok := err.(*scenarios.UnknownError); !ok || err.Error() != tt.want {
			t.Errorf("Select(%v): %v, want *scenarios.UnknownError %q", tt.ids, err, tt.want)
		}
	}
}
