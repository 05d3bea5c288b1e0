package cases

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/tracecheck/tracecheck/agentrun"
	"github.com/tracecheck/tracecheck/internal/regularfile"
	"github.com/tracecheck/tracecheck/tracediff"
)

// runAgent runs an agent case: the preset in a fresh folder (removed
// after), its portable native trace as the case's trace, the server's as
// the model-side trace.
func (c *Case) runAgent(ctx context.Context) *Result {
	res := &Result{}
	out, err := os.MkdirTemp("", "tracecheck-case-agent-")
	if err != nil {
		res.Problems = append(res.Problems, "making the run's output directory: "+err.Error())
		return res
	}
	defer os.RemoveAll(out)
	ar, err := agentrun.Run(ctx, agentrun.Options{
		Agent: c.Agent.Preset, Scenario: c.Model.Scenario, Bin: c.Agent.Bin,
		Out: out, Extra: c.Agent.Args, Timeout: c.Agent.Timeout, Exhausted: c.Model.Exhausted,
	})
	if ar == nil {
		res.Problems = append(res.Problems, err.Error())
		return res
	}
	res.ExitCode, res.TimedOut = ar.ExitCode, ar.TimedOut
	res.Stderr = logTail(filepath.Join(out, agentrun.AgentLogFile))
	if c.Agent.Report {
		res.Problems = append(res.Problems, ar.Problems()...) // the report says the rest
	} else {
		res.Problems = append(res.Problems, ar.AgentProblems()...)
	}
	if err != nil {
		res.Problems = append(res.Problems, err.Error())
	}
	res.ModelProblems = ar.ServerProblems()
	res.ModelTrace = ar.ServerTrace
	res.ModelEvents = bytes.Count(res.ModelTrace, []byte("\n"))
	if len(res.ModelTrace) == 0 {
		res.ModelProblems = append(res.ModelProblems, "the agent sent the model server no request")
	}
	if ar.Conformance != nil {
		res.Report = ar.Conformance.AppendLines(nil)
	}
	if len(res.Problems) > 0 || c.Agent.Report {
		return res
	}
	if ps := ar.Native.Problems(); len(ps) > 0 {
		res.TraceProblems = ps
		return res
	}
	res.Trace = ar.Native.Portable
	res.Events = bytes.Count(res.Trace, []byte("\n"))
	var buf bytes.Buffer
	name := c.traceName()
	problems, err := tracediff.Normalize(tracediff.Input{Name: name, R: bytes.NewReader(res.Trace)}, &buf)
	if err != nil || len(problems) > 0 {
		res.TraceProblems = append(res.TraceProblems, "writing its tolerant form: "+joinProblems(err, problems))
		return res
	}
	res.Capture = buf.Bytes()
	return res
}

// logTail is the last StderrLines lines of the agent's log.
func logTail(path string) string {
	b, err := regularfile.Read(path, MaxTraceBytes)
	if err != nil {
		return ""
	}
	t := &tailBuffer{max: stderrKeep}
	t.Write(b)
	return t.tail(StderrLines)
}

// joinProblems says why a tolerant form could not be written.
func joinProblems(err error, problems []tracediff.Problem) string {
	var parts []string
	if err != nil {
		parts = append(parts, err.Error())
	}
	for _, p := range problems {
		parts = append(parts, p.String())
	}
	return strings.Join(parts, "; ")
}
