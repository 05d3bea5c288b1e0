package verify

import "github.com/tracecheck/tracecheck/scenarios"

// KindScenario is the Kind of a scripted scenario's subject.
const KindScenario = "scenario"

// ScenarioSubjects adapts scripted scenarios: each renders with the
// scripted model (scenarios.Render), is checked (scenarios.Check: schema,
// invariants, its own expectations) and is compared byte for byte.
func ScenarioSubjects(list []*scenarios.Scenario) []Subject {
	out := make([]Subject, len(list))
	for i, sc := range list {
		out[i] = Subject{ID: sc.ID, Kind: KindScenario, File: sc.File, ActualName: "rendered " + sc.ID, Render: func() Actual { return renderScenario(sc) }}
	}
	return out
}

func renderScenario(sc *scenarios.Scenario) Actual {
	r, err := scenarios.Render(sc)
	if err != nil {
		return Actual{Invalid: []string{err.Error()}}
	}
	return Actual{Bytes: r.Bytes, Events: len(r.Events), Invalid: scenarios.Check(r)}
}
