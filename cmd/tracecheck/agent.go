package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tracecheck/tracecheck/agentrun"
	"github.com/tracecheck/tracecheck/internal/textsafe"
)

func agentCommands() []command {
	return []command{
		{"run", "run a real coding agent (pi, claude-code, codex) on a scenario against the scripted model", runAgentRun},
	}
}

var agentUsage = groupUsage("agent", "SUBCOMMAND [flags]",
	"Real coding agents run deterministically against the scripted model, their\n"+
		"own session logs checked (docs/real-agents.md). Subcommands:",
	agentCommands, "",
	"Exit status: 0 ok, 1 the run failed, 2 usage error, unknown agent or scenario,\n"+
		"or an agent that is not installed.")

func runAgent(e *env, args []string) int {
	return dispatch(e, args, agentCommands(), "agent", agentUsage)
}

func agentRunDescription() string {
	var b strings.Builder
	b.WriteString("Run AGENT, one of " + strings.Join(agentrun.Names(), ", ") + ", non-interactively on the scenario's\n" +
		"prompt with its own real tools, against a scripted model server on a free\n" +
		"loopback port that serves the scenario's turns. The agent gets a fresh HOME\n" +
		"and workspace inside --out (the scenario's workspace files written into it),\n" +
		"a curated environment (nothing of yours is read), its provider configured\n" +
		"there, and a proxy that refuses every host beyond loopback. A scenario's\n" +
		"portable tool calls (shell {command}, read_file {path}) become the agent's\n" +
		"own tools; any other call is sent as written.\n\n" +
		"--out (default: a new temporary folder, printed) receives native.jsonl (the\n" +
		"agent's own session log), native.trace.jsonl (its import), server.trace.jsonl\n" +
		"(the model side, placeholders for what varies per run), workspace/, home/ and\n" +
		"agent.log (its standard output and error). An existing --out must be empty.\n\n" +
		"The presets:\n")
	for _, n := range agentrun.Names() {
		a, _ := agentrun.Lookup(n)
		fmt.Fprintf(&b, "  %-12s npm %s, program %s, %s; log %s\n", a.Name, a.Package, a.Program, a.API, a.LogPlace)
	}
	b.WriteString("\nA scenario with resumes, a kill (kill: during_tool or after_request) or\n" +
		"scripted faults runs step by step: the first run, then each resume with the\n" +
		"agent's own resume flag in the same HOME and workspace. Its conformance\n" +
		"report (report.json, report.txt in --out, and on standard output as\n" +
		"--format says) gives per step the faults, the agent's exit, the lint codes\n" +
		"of its log, what a resumed request carried for the call left open, whether\n" +
		"the provider rules accepted it, and the outcome: killed, rejected-by-provider,\n" +
		"agent-failed, repaired-on-resume, log-broken or survived.\n\n" +
		"Exit 0 when the agent exited 0, every scripted turn was used, no request was\n" +
		"rejected, nothing tried to leave loopback, the session log lints with no error\n" +
		"and its import validates (with a conformance report: when the report was\n" +
		"written and nothing tried to leave loopback); 1 otherwise, each reason on\n" +
		"standard error; 2 usage error, unknown agent or scenario, or an agent that\n" +
		"is not installed.")
	return b.String()
}

func runAgentRun(e *env, args []string) int {
	const cmd = "agent run"
	fs := newFlags(e, cmd, "agent run AGENT --scenario ID|FILE [--bin PATH] [--out DIR] [--timeout D] [--format text|json] [-- EXTRA_ARGS...]", agentRunDescription())
	scenario := fs.String("scenario", "", "run the scenario `ID|FILE` (a built-in id, or a scenario file)")
	scenarioDir := addScenarioDir(fs)
	bin := fs.String("bin", "", "the agent's program `PATH` (default: the preset's program on PATH)")
	out := fs.String("out", "", "leave the run's files in `DIR` (made when missing; must be empty)")
	timeout := fs.Duration("timeout", agentrun.DefaultTimeout, "kill the agent's process group after `D` (each step)")
	format := formatFlag(fs, "text", "json")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return usageError(e, cmd, "no agent: give one of %s", strings.Join(agentrun.Names(), ", "))
	}
	a, err := agentrun.Lookup(rest[0])
	if err != nil {
		return usageError(e, cmd, "%v", err)
	}
	if *scenario == "" {
		return usageError(e, cmd, "--scenario is required")
	}
	if *timeout <= 0 {
		return usageError(e, cmd, "--timeout must be more than 0, not %s", *timeout)
	}
	sc, code, ok := loadScenarioRef(e, cmd, *scenario, *scenarioDir)
	if !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := agentrun.Run(ctx, agentrun.Options{Agent: a, Scenario: sc, Bin: *bin, Out: *out, Extra: rest[1:], Timeout: *timeout})
	var ni *agentrun.NotInstalledError
	var oe *agentrun.OutError
	switch {
	case errors.As(err, &ni), errors.As(err, &oe):
		errorLine(e, cmd, err)
		return exitUsage
	case err != nil && res == nil:
		errorLine(e, cmd, err)
		return exitFailed
	}
	writeAgentReport(e, a, res)
	if c := res.Conformance; c != nil {
		if *format == "json" {
			c.WriteJSON(e.stdout)
		} else {
			c.WriteText(e.stdout)
		}
	}
	problems := res.Problems()
	if err != nil {
		problems = append(problems, err.Error())
	}
	for _, p := range problems {
		fmt.Fprintf(e.stderr, "%s %s: FAIL %s\n", programName, cmd, textsafe.Escape(p))
	}
	if len(problems) > 0 {
		return exitFailed
	}
	fmt.Fprintf(e.stdout, "ok %s %s\n", a.Name, textsafe.Quote(sc.ID))
	return exitOK
}

// writeAgentReport prints where the run's files are and how it went.
func writeAgentReport(e *env, a *agentrun.Agent, res *agentrun.Result) {
	fmt.Fprintf(e.stdout, "out: %s\n", textsafe.Quote(res.Out))
	status := fmt.Sprintf("exited %d", res.ExitCode)
	switch {
	case res.TimedOut:
		status = "timed out"
	case res.Signal != "":
		status = "was ended by " + res.Signal
	}
	r := res.Report
	fmt.Fprintf(e.stdout, "%s %s after %s: %d request(s) answered, %d of %d scripted turn(s) used, %d rejected\n",
		a.DisplayName, status, res.Duration.Round(10*time.Millisecond), r.Answered, r.Used, r.Turns, r.Rejections())
	if res.NativeLog != "" {
		rel, err := filepath.Rel(res.Out, res.NativeLog)
		if err != nil {
			rel = res.NativeLog
		}
		if l := res.Native.Lint; l != nil {
			fmt.Fprintf(e.stdout, "session log: %s (%s, %d records): %d errors, %d warnings, %d info\n",
				textsafe.Quote(rel), l.Format, l.Records, l.Errors, l.Warnings, l.Infos)
		}
	}
}
