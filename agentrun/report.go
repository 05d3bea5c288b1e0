package agentrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/scenarios"
)

// Outcomes of a step, from the worst to the best.
const (
	// OutcomeKilled: tracecheck killed the agent as the scenario asked;
	// LogCodes say what the crash left in its log.
	OutcomeKilled = "killed"
	// OutcomeRejected: the model server refused a request of the step as
	// the provider would (an unanswered call, a result without its call).
	OutcomeRejected = "rejected-by-provider"
	// OutcomeAgentFailed: the agent exited non-zero, timed out or left
	// scripted turns unused, with no request refused.
	OutcomeAgentFailed = "agent-failed"
	// OutcomeRepaired: a resume whose first request answered the call the
	// step before left open, and the session completed.
	OutcomeRepaired = "repaired-on-resume"
	// OutcomeLogBroken: the session completed but its log has lint errors
	// (or none could be found).
	OutcomeLogBroken = "log-broken"
	// OutcomeSurvived: log clean, every request accepted, session
	// completed.
	OutcomeSurvived = "survived"
)

// Report is what a run with faults or resumes found, step by step: the
// conformance report of `tracecheck agent run` (report.json), written
// without anything that varies from run to run, so that it can be a
// golden.
type Report struct {
	Agent    string       `json:"agent"`
	Version  string       `json:"version,omitempty"` // the agent's npm package version, when found
	Scenario string       `json:"scenario"`
	Steps    []StepReport `json:"steps"`
}

// StepReport is one step of a Report.
type StepReport struct {
	Step   int    `json:"step"`
	Kind   string `json:"kind"`             // run or resume
	Resume string `json:"resume,omitempty"` // the agent's resume flag
	// Faults are what the step did to the agent: tracecheck's kill and the
	// model server's scripted faults, in order.
	Faults []string `json:"faults"`
	// Exit is how the agent ended: "0", "exit 1", "killed (during the tool
	// call)", "signal terminated", "timed out".
	Exit      string   `json:"exit"`
	Requests  int      `json:"requests"`
	Rejected  []string `json:"rejected"`
	LogCodes  []string `json:"log_codes"`
	LogErrors int      `json:"log_errors"`
	// Interrupted is, for a resume, the call the step before left without
	// its result, and what the resumed request carried for it.
	Interrupted *InterruptedCall `json:"interrupted_call,omitempty"`
	Provider    string           `json:"provider"` // accepted, or rejected
	Completed   bool             `json:"completed"`
	Outcome     string           `json:"outcome"`
}

// InterruptedCall is what a resumed request carried for a call left open.
type InterruptedCall struct {
	CallID string `json:"call_id"`
	// Carried: "answered" (a tool result for it: Answer is its preview),
	// "unanswered" (the call without a result: the provider refuses it),
	// "absent" (the agent left the call out of its history).
	Carried string `json:"carried"`
	Answer  string `json:"answer,omitempty"`
}

// NeedsReport reports whether a run of sc gets a Report: it has resumes,
// a kill, or a scripted fault.
func NeedsReport(sc *scenarios.Scenario) bool {
	steps := stepsOf(sc)
	if len(steps) > 1 {
		return true
	}
	for _, st := range steps {
		if st.Kill != nil {
			return true
		}
		for _, t := range st.Turns {
			if t.Fault != nil {
				return true
			}
		}
	}
	return false
}

// BuildReport makes the report of a run.
func BuildReport(res *Result, agent *Agent, scenario string) *Report {
	rep := &Report{Agent: agent.Name, Version: res.AgentVersion, Scenario: scenario}
	var open []string // calls the step before left without a result
	for _, st := range res.Steps {
		sr := StepReport{Step: st.Index, Kind: "run", Faults: []string{}, Rejected: []string{}, LogCodes: st.LogCodes, LogErrors: st.LogErrors}
		if sr.LogCodes == nil {
			sr.LogCodes = []string{}
		}
		if st.Resume {
			sr.Kind, sr.Resume = "resume", agent.ResumeFlag
		}
		tr := readStepTrace(st.Trace)
		if st.Killed {
			sr.Faults = append(sr.Faults, "kill "+st.KilledAt)
		}
		sr.Faults = append(sr.Faults, tr.faults...)
		switch {
		case st.Killed:
			sr.Exit = "killed (" + st.KilledAt + ")"
		case st.TimedOut:
			sr.Exit = "timed out"
		case st.Signal != "":
			sr.Exit = "signal " + st.Signal
		case st.ExitCode == 0:
			sr.Exit = "0"
		default:
			sr.Exit = fmt.Sprintf("exit %d", st.ExitCode)
		}
		sr.Requests = st.Report.Answered + st.Report.Rejections()
		for _, r := range st.Report.Rejected {
			sr.Rejected = append(sr.Rejected, fmt.Sprintf("turn %d: %d %s", r.Turn, r.Status, firstSentence(r.Message)))
		}
		if st.Report.MoreRejected > 0 {
			sr.Rejected = append(sr.Rejected, fmt.Sprintf("and %d more", st.Report.MoreRejected))
		}
		sr.Provider = "accepted"
		if st.Report.Rejections() > 0 {
			sr.Provider = "rejected"
		}
		if st.Resume && len(open) > 0 {
			sr.Interrupted = tr.carried(open[0])
		}
		sr.Completed = !st.Killed && !st.TimedOut && st.ExitCode == 0 && st.Signal == "" && st.Report.Unused() == 0 && st.Report.Rejections() == 0
		switch {
		case st.Killed:
			sr.Outcome = OutcomeKilled
		case st.Report.Rejections() > 0:
			sr.Outcome = OutcomeRejected
		case !sr.Completed:
			sr.Outcome = OutcomeAgentFailed
		case sr.Interrupted != nil && sr.Interrupted.Carried == "answered":
			sr.Outcome = OutcomeRepaired
		case st.LogErrors > 0 || !st.LogFound:
			sr.Outcome = OutcomeLogBroken
		default:
			sr.Outcome = OutcomeSurvived
		}
		rep.Steps = append(rep.Steps, sr)
		open = tr.open
	}
	return rep
}

// firstSentence is a rejection's message cut to 120 bytes (and to valid
// UTF-8): enough to say which rule, short enough for a table.
func firstSentence(s string) string {
	if len(s) > 120 {
		s = s[:120]
	}
	return strings.ToValidUTF8(s, "")
}

// stepTrace is what a step's server trace says.
type stepTrace struct {
	faults   []string
	open     []string      // calls served and never answered within the step
	requests []jsonv.Value // model.request payloads, in order
}

func readStepTrace(b []byte) stepTrace {
	var st stepTrace
	j, err := journal.Read(bytes.NewReader(b), "step")
	if err != nil {
		return st
	}
	served := map[string]bool{}
	var order []string
	answered := map[string]bool{}
	for _, e := range j.Events() {
		switch e.Type {
		case "model.request":
			st.requests = append(st.requests, e.Payload)
			msgs, _ := e.Payload.Get("messages")
			for _, m := range msgs.Elems() {
				if a, ok := m.Get("answers"); ok {
					answered[a.Text()] = true
				}
			}
		case "model.response":
			calls, _ := e.Payload.Get("tool_calls")
			for _, c := range calls.Elems() {
				id, _ := c.Get("id")
				if !served[id.Text()] {
					served[id.Text()] = true
					order = append(order, id.Text())
				}
			}
		case "error":
			if k, _ := e.Payload.Get("kind"); k.Text() == "fault" {
				st.faults = append(st.faults, describeFault(e.Payload))
			}
		}
	}
	for _, id := range order {
		if !answered[id] {
			st.open = append(st.open, id)
		}
	}
	return st
}

// describeFault is a served fault as a report names it.
func describeFault(p jsonv.Value) string {
	turn, _ := p.Get("turn")
	f, _ := p.Get("fault")
	s := fmt.Sprintf("turn %s: %s", string(turn.AppendJSON(nil)), f.Text())
	for _, k := range []string{"status", "after_chunks", "for"} {
		if v, ok := p.Get(k); ok {
			s += fmt.Sprintf(" %s=%s", k, strings.Trim(string(v.AppendJSON(nil)), `"`))
		}
	}
	return s
}

// carried says what the step's first request carried for call id.
func (st stepTrace) carried(id string) *InterruptedCall {
	ic := &InterruptedCall{CallID: id, Carried: "absent"}
	if len(st.requests) == 0 {
		return ic
	}
	msgs, _ := st.requests[0].Get("messages")
	for _, m := range msgs.Elems() {
		if calls, ok := m.Get("calls"); ok {
			for _, c := range calls.Elems() {
				if c.Text() == id && ic.Carried == "absent" {
					ic.Carried = "unanswered"
				}
			}
		}
		if a, _ := m.Get("answers"); a.Text() == id {
			p, _ := m.Get("preview")
			ic.Carried, ic.Answer = "answered", p.Text()
		}
	}
	return ic
}

// AppendLines appends the report as a golden holds it: a first line
// {agent, version, scenario}, then one compact JSON line per step.
func (r *Report) AppendLines(dst []byte) []byte {
	head, _ := json.Marshal(struct {
		Agent    string `json:"agent"`
		Version  string `json:"version,omitempty"`
		Scenario string `json:"scenario"`
	}{r.Agent, r.Version, r.Scenario})
	dst = append(append(dst, head...), '\n')
	for _, s := range r.Steps {
		b, _ := json.Marshal(s)
		dst = append(append(dst, b...), '\n')
	}
	return dst
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteText writes the report as a table, a row per step.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	v := ""
	if r.Version != "" {
		v = " " + r.Version
	}
	fmt.Fprintf(&b, "%s%s on %s\n", r.Agent, v, r.Scenario)
	rows := [][]string{{"step", "faults", "exit", "log codes", "interrupted call", "provider", "outcome"}}
	for _, s := range r.Steps {
		kind := s.Kind
		if s.Resume != "" {
			kind += " (" + s.Resume + ")"
		}
		ic := "-"
		if s.Interrupted != nil {
			ic = s.Interrupted.CallID + ": " + s.Interrupted.Carried
			if s.Interrupted.Answer != "" {
				ic += fmt.Sprintf(" %q", s.Interrupted.Answer)
			}
		}
		rows = append(rows, []string{fmt.Sprintf("%d %s", s.Step, kind), orDash(strings.Join(s.Faults, "; ")), s.Exit,
			orDash(strings.Join(s.LogCodes, ", ")), ic, s.Provider, s.Outcome})
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, row := range rows {
		for i, c := range row {
			if i == len(row)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c + strings.Repeat(" ", widths[i]-len([]rune(c))+2))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
