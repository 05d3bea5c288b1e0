package verify

import (
	"bytes"
	"context"
	"sync"

	"github.com/tracecheck/tracecheck/cases"
	"github.com/tracecheck/tracecheck/scenarios"
)

// KindCase is the Kind of a command case's subjects.
const KindCase = "case"

// CaseSubjects adapts command cases (package cases). A case yields up to
// two subjects sharing one run of its command: its trace (id <id>, golden
// <golden>.trace.jsonl), compared as the case says (cases.Case.Compare),
// written through its tolerant form when the case is tolerant; and with a
// model, the trace the scripted model server wrote (id <id>.model, golden
// <golden>.model.trace.jsonl), compared byte for byte. A command that fails
// or times out makes both INVALID, with the tail of its standard error. An
// agent case whose scenario has resumes, a kill or faults has one subject
// instead, its conformance report (id <id>.report, golden
// <golden>.report.trace.jsonl, one JSON line per step), compared line by
// line. A case with "repeat": K runs K times (Subject.Repeat): run n of
// every subject of the case is the same run n of its command.
func CaseSubjects(ctx context.Context, list []*cases.Case) []Subject {
	var out []Subject
	for _, c := range list {
		// One run of the command per repetition, made when a subject
		// first asks for it and shared by the case's subjects.
		runs := make([]func() *cases.Result, max(c.Repeat, 1))
		for i := range runs {
			runs[i] = sync.OnceValue(func() *cases.Result { return c.Run(ctx) })
		}
		subject := func(s Subject, actual func(r *cases.Result) Actual) Subject {
			s.Kind, s.File = KindCase, c.File
			s.Render = func() Actual { return actual(runs[0]()) }
			if len(runs) > 1 {
				s.Repeat, s.Group = len(runs), c.ID
				s.Again = func(run int) Actual { return actual(runs[run-1]()) }
			}
			return s
		}
		if c.Agent != nil && c.Agent.Report {
			out = append(out, subject(Subject{ID: c.ID + cases.ReportSuffix, Golden: c.Golden + cases.ReportSuffix, ActualName: "conformance report of " + c.ID},
				func(r *cases.Result) Actual {
					return Actual{Bytes: r.Report, Events: bytes.Count(r.Report, []byte("\n")), Invalid: invalid(r, nil)}
				}))
			continue
		}
		if c.Trace != nil {
			out = append(out, subject(Subject{ID: c.ID, Golden: c.Golden, Compare: c.Compare, Tolerant: c.Tolerant},
				func(r *cases.Result) Actual {
					return Actual{Bytes: r.Trace, Events: r.Events, Golden: r.Capture, Invalid: invalid(r, r.TraceProblems)}
				}))
		}
		if c.Model != nil {
			out = append(out, subject(Subject{ID: c.ID + cases.ModelSuffix, Golden: c.Golden + cases.ModelSuffix, ActualName: "model-side trace of " + c.ID},
				func(r *cases.Result) Actual {
					return Actual{Bytes: r.ModelTrace, Events: r.ModelEvents, Invalid: invalid(r, r.ModelProblems)}
				}))
		}
	}
	return out
}

// invalid lists why a trace of run r cannot be judged: the command's
// problems, the trace's own, and then the tail of standard error.
func invalid(r *cases.Result, own []string) []string {
	out := append(append([]string(nil), r.Problems...), own...)
	if len(out) > 0 && r.Stderr != "" {
		out = append(out, "standard error (the last lines):\n"+r.Stderr)
	}
	return out
}

// ScenarioLookup finds a case's model scenario by id among the scenarios
// of src (read once, when a case first asks).
func ScenarioLookup(src scenarios.Source) cases.Lookup {
	load := sync.OnceValues(src.Load)
	return func(id string) (*scenarios.Scenario, error) {
		all, err := load()
		if err != nil {
			return nil, err
		}
		return LoadedLookup(all)(id)
	}
}

// LoadedLookup finds a case's model scenario by id among all, the
// scenarios a run has read already.
func LoadedLookup(all []*scenarios.Scenario) cases.Lookup {
	return func(id string) (*scenarios.Scenario, error) {
		sel, err := scenarios.Select(all, []string{id})
		if err != nil {
			return nil, err
		}
		return sel[0], nil
	}
}
