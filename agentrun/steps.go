package agentrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/internal/placeholder"
	"github.com/tracecheck/tracecheck/internal/procgroup"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/reducer"
	"github.com/tracecheck/tracecheck/scenarios"
)

// DefaultResumeMessage is the prompt a resume step sends when the
// scenario's resume gives none: the agents take a prompt in their
// non-interactive modes.
const DefaultResumeMessage = "Continue."

// step is one run of the agent: the scenario's first, or a resume.
type step struct {
	Resume  bool
	Message string
	Turns   []fakemodel.Turn
	Kill    *scenarios.Kill
	RunID   string // the server trace's run id for the step
}

// stepsOf lists a scenario's steps.
func stepsOf(sc *scenarios.Scenario) []step {
	base := modelserver.ScriptOf(sc).Provenance.RunID
	out := []step{{Message: sc.Prompt, Turns: sc.Turns, Kill: sc.Kill, RunID: base}}
	for i, r := range sc.Resumes {
		msg := r.Message
		if msg == "" {
			msg = DefaultResumeMessage
		}
		out = append(out, step{Resume: true, Message: msg, Turns: r.Turns, Kill: r.Kill, RunID: fmt.Sprintf("%s-resume-%d", base, i+1)})
	}
	return out
}

// StepResult is how one step went.
type StepResult struct {
	Index    int
	Resume   bool
	ExitCode int
	Signal   string
	TimedOut bool
	// Killed says tracecheck killed the agent as the scenario asked
	// (KilledAt names when).
	Killed   bool
	KilledAt string
	Duration time.Duration
	Report   modelserver.Report
	// Trace is the step's part of the server trace (one run of it).
	Trace []byte
	// LogCodes are the lint codes (warnings and errors) of the agent's
	// session log after the step, sorted; LogErrors counts its errors.
	LogCodes  []string
	LogErrors int
	LogFound  bool
}

// switchHandler routes every request to the current step's server and,
// after a model exchange, lets the step's kill rule look at its report.
type switchHandler struct {
	cur   atomic.Pointer[modelserver.Server]
	after atomic.Pointer[func()]
}

func (h *switchHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	srv := h.cur.Load()
	if srv == nil {
		http.Error(w, "no step is running", http.StatusServiceUnavailable)
		return
	}
	srv.ServeHTTP(w, r)
	if f := h.after.Load(); f != nil {
		(*f)()
	}
}

// stepRunner runs a scenario's steps in one HOME and workspace.
type stepRunner struct {
	agent        *Agent
	setup        *Setup
	bin          string
	sc           *scenarios.Scenario
	opt          Options
	timeout      time.Duration
	switcher     *switchHandler
	proxyURL     string
	placeholders *placeholder.Set
	trace        io.Writer // the server trace file
	traceBuf     bytes.Buffer
	log          *os.File // agent.log
}

// fifoName is the FIFO a during_tool kill listens on, in the run's TMPDIR.
const fifoName = "tracecheck-tool-started.fifo"

func (r *stepRunner) run(ctx context.Context, i int, st step) (*StepResult, error) {
	s := r.setup
	res := &StepResult{Index: i, Resume: st.Resume}
	turns := st.Turns
	var fifo, killCall string
	if st.Kill != nil && st.Kill.DuringTool {
		fifo = filepath.Join(s.Temp, fmt.Sprintf("step-%d-%s", i, fifoName))
		var ok bool
		if turns, killCall, ok = signalToolStart(turns, fifo); !ok {
			return nil, fmt.Errorf("step %d: kill during_tool needs a portable shell call in the step's turns", i)
		}
		if err := makeFIFO(fifo); err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
	}
	script := modelserver.ScriptOf(r.sc)
	script.Provenance.RunID = st.RunID
	script.Turns = translate(r.agent, s, turns)
	var stepTrace bytes.Buffer
	srv := modelserver.New(script, modelserver.Options{
		Trace:        io.MultiWriter(r.trace, &r.traceBuf, &stepTrace),
		Placeholders: r.placeholders, Exhausted: r.opt.Exhausted,
	})

	var inv Invocation
	var err error
	s.Prompt = st.Message
	if st.Resume {
		inv, err = r.agent.resume(s)
	} else {
		inv, err = r.agent.configure(s)
	}
	if err != nil {
		return nil, fmt.Errorf("configuring %s: %w", r.agent.DisplayName, err)
	}
	what := "run"
	if st.Resume {
		what = "resume: " + strings.Join(inv.Args, " ")
	}
	fmt.Fprintf(r.log, "--- tracecheck agent run: step %d (%s) ---\n", i, placeholderText(r.placeholders, what))

	cmd := exec.Command(r.bin, inv.Args...)
	cmd.Dir = s.Workspace
	cmd.Env = curatedEnv(s, r.bin, r.proxyURL, inv.Env)
	cmd.Stdin = strings.NewReader(inv.Stdin)
	cmd.Stdout, cmd.Stderr = r.log, r.log
	procgroup.Set(cmd)

	// kill kills the agent's tree once, and only before it was waited for
	// (KillTree's rule); waited is set under the same lock.
	var mu sync.Mutex
	waited := false
	kill := func(at string) {
		mu.Lock()
		defer mu.Unlock()
		if waited || res.Killed {
			return
		}
		res.Killed, res.KilledAt = true, at
		procgroup.KillTree(cmd)
	}
	r.switcher.cur.Store(srv)
	if st.Kill != nil && st.Kill.AfterRequest > 0 {
		n := st.Kill.AfterRequest
		f := func() {
			if srv.Report().Answered >= n {
				kill(fmt.Sprintf("after request %d", n))
			}
		}
		r.switcher.after.Store(&f)
	} else {
		r.switcher.after.Store(nil)
	}

	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", r.bin, err)
	}
	exited := make(chan struct{})
	var watch sync.WaitGroup
	if fifo != "" {
		watch.Add(1)
		go func() {
			defer watch.Done()
			if waitFIFO(fifo, exited) && r.waitLogged(killCall, exited) {
				kill("during the tool call")
			}
		}()
	}
	tctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	// Wait only reaps the agent; the timeout, ctx and the kill rules kill
	// it through kill, under the lock that marks it waited for (a few
	// instructions after the reap: the window in which its pid could be
	// reused is that short).
	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-waitErr:
	case <-tctx.Done():
		mu.Lock()
		if !res.Killed && !waited {
			procgroup.KillTree(cmd)
		}
		mu.Unlock()
		werr = <-waitErr
		res.TimedOut = errors.Is(tctx.Err(), context.DeadlineExceeded)
	}
	mu.Lock()
	waited = true
	mu.Unlock()
	res.Duration = time.Since(start)
	close(exited)
	watch.Wait()
	procgroup.Kill(cmd) // what the agent left running goes with it: its group, and on Linux whatever carries its run token
	r.switcher.after.Store(nil)
	r.switcher.cur.Store(nil)

	code, signal, ok := procgroup.Exit(werr)
	if !ok {
		return nil, fmt.Errorf("running %s: %w", r.bin, werr)
	}
	res.ExitCode, res.Signal = code, signal
	res.Report = srv.Report()
	res.Trace = stepTrace.Bytes()
	if path, err := r.agent.findLog(s); err == nil {
		res.LogFound = true
		res.LogCodes, res.LogErrors = lintCodes(path)
	}
	return res, nil
}

// signalToolStart returns turns with the first portable shell call's
// command prefixed by a write to fifo, so that the tool itself says it has
// started; false when the turns have no such call.
func signalToolStart(turns []fakemodel.Turn, fifo string) ([]fakemodel.Turn, string, bool) {
	out := append([]fakemodel.Turn(nil), turns...)
	for i, t := range out {
		for k, c := range t.ToolCalls {
			if c.Name != ToolShell {
				continue
			}
			calls := append([]reducer.ToolCall(nil), t.ToolCalls...)
			cmd := "printf started > " + shellQuote(fifo) + "; " + argString(c, "command")
			calls[k] = reducer.ToolCall{ID: c.ID, Name: c.Name, Arguments: jsonv.Obj(jsonv.M("command", jsonv.Str(cmd)))}
			out[i].ToolCalls = calls
			return out, c.ID, true
		}
	}
	return turns, "", false
}

// LogWait bounds how long a during_tool kill waits, once the tool has
// started, for the agent's session log to hold the call: agents write
// their logs asynchronously, and the crash the scenario asks for is one
// that leaves the call recorded without its result.
const LogWait = 10 * time.Second

// waitLogged waits until the agent's session log names call (its id, as
// scripted), the agent exits, or LogWait passes; false only when the agent
// exited first. The tool is still running meanwhile (its command goes on
// after signalling), so the kill that follows lands inside it.
func (r *stepRunner) waitLogged(call string, exited <-chan struct{}) bool {
	deadline := time.NewTimer(LogWait)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if path, err := r.agent.findLog(r.setup); err == nil {
			if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(call)) {
				return true
			}
		}
		select {
		case <-exited:
			return false
		case <-deadline.C:
			return true
		case <-tick.C:
		}
	}
}

// placeholderText is s with the run's values replaced.
func placeholderText(ph *placeholder.Set, s string) string { return ph.Text(s) }
