package agentrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/internal/placeholder"
	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/reducer"
	"github.com/tracecheck/tracecheck/scenarios"
)

// Files a run leaves in its output folder.
const (
	NativeLogFile   = "native.jsonl"       // the agent's own session log, copied
	NativeTraceFile = "native.trace.jsonl" // its import to Trace 0.1.0
	ServerTraceFile = "server.trace.jsonl" // the model server's trace
	AgentLogFile    = "agent.log"          // the agent's standard output and error
	WorkspaceDir    = "workspace"          // the agent's working directory, as it left it
	HomeDir         = "home"               // the throwaway HOME
	TempDir         = "tmp"                // TMPDIR
)

// DefaultTimeout bounds a run unless Options.Timeout says otherwise.
const DefaultTimeout = 5 * time.Minute

// Options say what to run.
type Options struct {
	Agent    *Agent
	Scenario *scenarios.Scenario
	// Bin is the agent's program; "" looks the preset's Program up on the
	// caller's PATH.
	Bin string
	// Out is the output folder: made when missing, refused when it holds
	// anything; "" makes a new temporary folder.
	Out string
	// Extra arguments for the agent, after the preset's own.
	Extra   []string
	Timeout time.Duration // 0 is DefaultTimeout
	// Exhausted is what a request past the end of the script gets.
	Exhausted modelserver.ExhaustedPolicy
}

// NotInstalledError is Run's error when the agent's program cannot be
// found: a usage error that names the npm package to install.
type NotInstalledError struct {
	Agent *Agent
	Bin   string // what was looked for
	Err   error
}

func (e *NotInstalledError) Error() string {
	return fmt.Sprintf("%s is not installed (%s: %v): install it with `npm install -g %s@%s` (the version tracecheck is tested with), or name its program with --bin",
		e.Agent.DisplayName, e.Bin, e.Err, e.Agent.Package, e.Agent.Tested)
}

func (e *NotInstalledError) Unwrap() error { return e.Err }

// OutError is Run's error when the output folder cannot be used (it holds
// files, or cannot be made): nothing in it is touched.
type OutError struct {
	Dir string
	Msg string
}

func (e *OutError) Error() string { return fmt.Sprintf("--out %s: %s", e.Dir, e.Msg) }

// Result is what a run observed.
type Result struct {
	Out       string // the output folder
	Workspace string
	Home      string
	Bin       string // the agent's program, as run

	ExitCode int    // the agent's exit status; -1 when a signal ended it
	Signal   string // the signal that ended it, or ""
	TimedOut bool
	Duration time.Duration // the agent's wall time

	Report modelserver.Report
	// OffLoopback lists the hosts the agent asked the refusing proxy for.
	OffLoopback []string
	// NativeLog is the agent's session log as it wrote it ("" when none
	// was found); Native its report.
	NativeLog string
	Native    NativeReport
	// ServerTrace is the model server's trace (placeholders applied).
	ServerTrace []byte
	// Placeholders are the run's own values (paths of the run, today's
	// date) and the names that stand for them.
	Placeholders *placeholder.Set
	// Steps are the agent's runs: the first, then one per resume of the
	// scenario. ExitCode, Signal, TimedOut and Duration are the last
	// step's; Report adds up the steps'.
	Steps []StepResult
	// Conformance is the step-by-step report of a run with resumes, a
	// kill or scripted faults (NeedsReport); nil otherwise.
	Conformance *Report
	// AgentVersion is the version in the agent's package.json, when its
	// program is inside its npm package.
	AgentVersion string
}

// Problems lists what makes the run fail, in this order: the agent's own
// (AgentProblems), the model server's (ServerProblems) and the session
// log's (Native.Problems). None means the run is ok.
//
// A run with a conformance report (resumes, a kill or scripted faults)
// fails only when the agent tried to leave loopback or the server trace
// could not be written: what the agent did with the faults is the report's
// to say, step by step.
func (r *Result) Problems() []string {
	if r.Conformance != nil {
		var out []string
		if len(r.OffLoopback) > 0 {
			out = append(out, offLoopback(r.OffLoopback))
		}
		if r.Report.TraceErr != nil {
			out = append(out, r.Report.TraceErr.Error())
		}
		return out
	}
	out := r.AgentProblems()
	out = append(out, r.ServerProblems()...)
	return append(out, r.Native.Problems()...)
}

// ServerProblems are the model server's: rejected requests, scripted
// turns left unused, a trace that could not be written.
func (r *Result) ServerProblems() []string {
	rr := modelserver.RunResult{Report: r.Report}
	return rr.Problems()
}

// AgentProblems are the agent's: it failed, timed out or was killed, or
// it tried to reach beyond loopback.
func (r *Result) AgentProblems() []string {
	var out []string
	switch {
	case r.TimedOut:
		out = append(out, "the agent did not finish in time: its process group was killed")
	case r.Signal != "":
		out = append(out, "the agent was ended by signal "+r.Signal)
	case r.ExitCode != 0:
		out = append(out, fmt.Sprintf("the agent exited with status %d (its output is in %s)", r.ExitCode, AgentLogFile))
	}
	if len(r.OffLoopback) > 0 {
		out = append(out, offLoopback(r.OffLoopback))
	}
	return out
}

// OK reports whether the run has no problem.
func (r *Result) OK() bool { return len(r.Problems()) == 0 }

// Run runs opt.Agent on opt.Scenario. The error is a *NotInstalledError or
// an *OutError (the command line is wrong), or a failure to set the run
// up; everything the agent did, well or badly, is in the Result.
func Run(ctx context.Context, opt Options) (*Result, error) {
	a := opt.Agent
	bin, err := findBin(a, opt.Bin)
	if err != nil {
		return nil, err
	}
	out, err := makeOut(opt.Out)
	if err != nil {
		return nil, err
	}
	s := &Setup{
		Home:      filepath.Join(out, HomeDir),
		Workspace: filepath.Join(out, WorkspaceDir),
		Out:       out,
		Temp:      filepath.Join(out, TempDir),
		Prompt:    opt.Scenario.Prompt,
		Extra:     opt.Extra,
	}
	for _, d := range []string{s.Home, s.Workspace, s.Temp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	if err := writeWorkspace(s.Workspace, opt.Scenario.Workspace); err != nil {
		return nil, err
	}
	res := &Result{Out: out, Workspace: s.Workspace, Home: s.Home, Bin: bin}
	pkgDir := packageDir(bin, a.Package)
	res.Placeholders = placeholder.New(
		placeholder.Pair{Name: placeholder.Workspace, Value: s.Workspace},
		placeholder.Pair{Name: placeholder.Home, Value: s.Home},
		placeholder.Pair{Name: placeholder.Out, Value: out},
		placeholder.Pair{Name: placeholder.AgentDir, Value: pkgDir},
		placeholder.Pair{Name: placeholder.OSRelease, Value: osRelease()},
	)
	res.AgentVersion = packageVersion(pkgDir)
	if a.pairs != nil {
		res.Placeholders = res.Placeholders.With(a.pairs(s)...)
	}
	res.Placeholders = res.Placeholders.WithRules(placeholder.DateRule(time.Now().UTC().Format("2006-01-02"))).WithRules(a.volatile...)

	trace, err := os.OpenFile(filepath.Join(out, ServerTraceFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	defer trace.Close()
	logf, err := os.OpenFile(filepath.Join(out, AgentLogFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()

	sw := &switchHandler{}
	ln, err := modelserver.Listen(modelserver.DefaultAddr, false)
	if err != nil {
		return nil, err
	}
	served := modelserver.Serve(ln, sw)
	s.ServerURL = served.URL
	proxy, proxyServed, err := startProxy()
	if err != nil {
		served.Shutdown(context.Background())
		return nil, err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), modelserver.ShutdownGrace)
		defer cancel()
		served.Shutdown(sctx)
		proxyServed.Shutdown(sctx)
	}()

	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	r := &stepRunner{
		agent: a, setup: s, bin: bin, sc: opt.Scenario, opt: opt, timeout: timeout,
		switcher: sw, proxyURL: proxyServed.URL, placeholders: res.Placeholders,
		trace: trace, log: logf,
	}
	for i, st := range stepsOf(opt.Scenario) {
		sr, err := r.run(ctx, i, st)
		if err != nil {
			return nil, err
		}
		res.Steps = append(res.Steps, *sr)
		if ctx.Err() != nil {
			break
		}
	}
	res.OffLoopback = proxy.Hosts()
	res.ServerTrace = r.traceBuf.Bytes()
	last := res.Steps[len(res.Steps)-1]
	res.ExitCode, res.Signal, res.TimedOut, res.Duration = last.ExitCode, last.Signal, last.TimedOut, last.Duration
	for _, st := range res.Steps {
		res.Report.Turns += st.Report.Turns
		res.Report.Used += st.Report.Used
		res.Report.Answered += st.Report.Answered
		res.Report.Exhausted += st.Report.Exhausted
		res.Report.Rejected = append(res.Report.Rejected, st.Report.Rejected...)
		res.Report.MoreRejected += st.Report.MoreRejected
		if res.Report.TraceErr == nil {
			res.Report.TraceErr = st.Report.TraceErr
		}
	}

	if logPath, lerr := a.findLog(s); lerr != nil {
		res.Native.FindErr = lerr
	} else {
		res.NativeLog = logPath
		res.Native = checkNative(logPath, out, res.Placeholders)
	}
	if NeedsReport(opt.Scenario) {
		res.Conformance = BuildReport(res, a, opt.Scenario.ID)
		if err := writeReports(out, res.Conformance); err != nil {
			return res, err
		}
	}
	return res, nil
}

// Files of a run with a conformance report.
const (
	ReportFile     = "report.json"
	ReportTextFile = "report.txt"
)

func writeReports(out string, r *Report) error {
	var js, txt bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		return err
	}
	if err := r.WriteText(&txt); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, ReportFile), js.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, ReportTextFile), txt.Bytes(), 0o644)
}

// packageVersion is the version of the npm package in dir ("" when dir is
// "" or its package.json says none).
func packageVersion(dir string) string {
	if dir == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return ""
	}
	return pkg.Version
}

// findBin resolves the agent's program.
func findBin(a *Agent, bin string) (string, error) {
	name := bin
	if name == "" {
		name = a.Program
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", &NotInstalledError{Agent: a, Bin: name, Err: err}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return abs, nil
}

// makeOut makes the output folder, or checks that an existing one is
// empty; it returns its absolute path.
func makeOut(dir string) (string, error) {
	if dir == "" {
		d, err := os.MkdirTemp("", "tracecheck-agent-")
		if err != nil {
			return "", err
		}
		return d, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", &OutError{Dir: dir, Msg: err.Error()}
	}
	if err := os.Mkdir(abs, 0o755); err == nil {
		return abs, nil
	} else if !errors.Is(err, os.ErrExist) {
		return "", &OutError{Dir: dir, Msg: err.Error()}
	}
	st, err := os.Lstat(abs)
	if err != nil || !st.IsDir() {
		return "", &OutError{Dir: dir, Msg: "exists and is not a folder"}
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return "", &OutError{Dir: dir, Msg: err.Error()}
	}
	if len(entries) > 0 {
		return "", &OutError{Dir: dir, Msg: fmt.Sprintf("holds %d entries: a run never writes into a folder that has anything in it (name a new or empty one)", len(entries))}
	}
	return abs, nil
}

// writeWorkspace writes a scenario's workspace files (paths relative to
// the workspace, checked by the scenario loader to stay inside it).
func writeWorkspace(dir string, files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("workspace file %q is outside the workspace", name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// translate turns a scenario's portable tool calls into the agent's own.
func translate(a *Agent, s *Setup, turns []fakemodel.Turn) []fakemodel.Turn {
	out := make([]fakemodel.Turn, len(turns))
	for i, t := range turns {
		out[i] = t
		if len(t.ToolCalls) == 0 {
			continue
		}
		out[i].ToolCalls = make([]reducer.ToolCall, len(t.ToolCalls))
		for k, c := range t.ToolCalls {
			out[i].ToolCalls[k] = a.tool(c, s)
		}
	}
	return out
}

// packageDir is the folder of the npm package name that holds bin (its
// symbolic links resolved), or "" when bin is not inside it.
func packageDir(bin, name string) string {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return ""
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		if strings.HasSuffix(filepath.ToSlash(dir), "/node_modules/"+name) {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

func offLoopback(hosts []string) string {
	return "the agent tried to reach beyond loopback (refused): " + strings.Join(hosts, ", ")
}

// osRelease is the kernel's release, as uname -r prints it, where the
// system says it (Linux's /proc); "" elsewhere, which replaces nothing.
func osRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil || len(b) > 256 {
		return ""
	}
	return strings.TrimSpace(string(b))
}
