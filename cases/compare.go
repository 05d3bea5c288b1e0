package cases

import (
	"bytes"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/tracediff"
	"github.com/tracecheck/tracecheck/tracediff/trajectory"
)

// Compare compares the case's golden (expected) with a run's trace
// (actual) as the case says and returns nil when they match: with a match
// mode, the tool-call trajectories (trajectory.Diff), then, with Events,
// the events as below too; else event by event,
// the golden read as a tolerant golden when the case is tolerant, byte for
// byte otherwise (golden.Compare). The policy is not checked here: a run
// that breaks it is refused by Run, whatever its golden.
func (c *Case) Compare(expected, actual []byte, expName, actName string) *golden.Drift {
	in := func(name string, b []byte) tracediff.Input { return tracediff.Input{Name: name, R: bytes.NewReader(b)} }
	opt := tracediff.Options{Tolerant: c.Tolerant}
	switch {
	case c.Match != nil && c.Match.Match != "":
		cfg := *c.Match
		cfg.Policy = nil
		if d := golden.FromReport(trajectory.Diff(in(expName, expected), in(actName, actual), &cfg, opt)); d != nil || !c.Events {
			return d
		}
		if c.Tolerant {
			return golden.FromReport(tracediff.Diff(in(expName, expected), in(actName, actual), opt))
		}
		return golden.Compare(expected, actual, expName, actName)
	case c.Tolerant:
		return golden.FromReport(tracediff.Diff(in(expName, expected), in(actName, actual), opt))
	}
	return golden.Compare(expected, actual, expName, actName)
}
