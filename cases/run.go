package cases

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tracecheck/tracecheck/internal/procgroup"
	"github.com/tracecheck/tracecheck/internal/regularfile"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/tracediff"
	"github.com/tracecheck/tracecheck/tracediff/trajectory"
)

// Result is what one run of a case produced.
type Result struct {
	// Trace is the command's trace as it was read (nil when the case has
	// no trace source or none could be read), Events its lines; Capture
	// is what an update writes as its golden: Trace, or for a tolerant
	// case its tolerant form (tracediff.Normalize).
	Trace   []byte
	Events  int
	Capture []byte
	// ModelTrace is the trace the model server wrote (nil without a
	// model), ModelEvents its lines.
	ModelTrace  []byte
	ModelEvents int
	// Problems make every trace of the run INVALID: the command could not
	// start, failed or timed out. TraceProblems concern only the command's
	// trace (missing, not valid, a policy broken), ModelProblems only the
	// model-side trace (requests the server rejected, scripted turns left
	// unused).
	Problems, TraceProblems, ModelProblems []string
	// Report is an agent case's conformance report as its golden holds
	// it (agentrun.Report.AppendLines), nil without one.
	Report []byte
	// Stderr is the tail of the command's standard error (at most
	// StderrLines lines).
	Stderr   string
	ExitCode int
	TimedOut bool
}

// Limits of a run.
const (
	// MaxTraceBytes bounds standard output and a trace file read.
	MaxTraceBytes = 256 << 20
	// StderrLines is how many of the last lines of standard error a
	// result keeps.
	StderrLines = 20
	stderrKeep  = 8 << 10
	// WaitDelay is how long a run waits, after the command exits (or is
	// killed), for what it started to close standard output and error.
	WaitDelay = 5 * time.Second
	// maxProblems bounds the problems of a trace listed.
	maxProblems = 10
)

// Run runs the case's command once and reads its trace (and, with a
// model, the model server's): see Result. ctx cancels the run as a timeout
// does.
func (c *Case) Run(ctx context.Context) *Result {
	if c.Agent != nil {
		return c.runAgent(ctx)
	}
	res := &Result{}
	out, err := os.MkdirTemp("", "tracecheck-case-")
	if err != nil {
		res.Problems = append(res.Problems, "making the run's output directory: "+err.Error())
		return res
	}
	defer os.RemoveAll(out)

	env := os.Environ()
	env = append(env, OutDirVar+"="+out)
	for _, kv := range c.Command.Env {
		env = append(env, expand(kv, out))
	}
	argv := make([]string, len(c.Command.Argv))
	for i, a := range c.Command.Argv {
		argv[i] = expand(a, out)
	}
	var before fileState
	if c.Trace != nil && c.Trace.From == FromFile {
		before = stateOf(c.tracePath(out))
	}

	var srv *modelserver.Served
	var ep *modelserver.Server
	var modelTrace bytes.Buffer
	if c.Model != nil && c.Model.Scenario != nil {
		ln, err := modelserver.Listen(modelserver.DefaultAddr, false)
		if err != nil {
			res.Problems = append(res.Problems, "starting the model server: "+err.Error())
			return res
		}
		ep = modelserver.New(modelserver.ScriptOf(c.Model.Scenario), modelserver.Options{Trace: &modelTrace, Exhausted: c.Model.Exhausted})
		srv = modelserver.Serve(ln, ep)
		env = modelserver.AgentEnv(env, srv.URL)
	}

	p := run(ctx, argv, c.Command.Dir, env, c.Command.Stdin, c.Command.Timeout)
	res.ExitCode, res.TimedOut, res.Stderr = p.exitCode, p.timedOut, p.stderr
	res.Problems = append(res.Problems, p.problems(c)...)

	if srv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), modelserver.ShutdownGrace)
		serr := srv.Shutdown(sctx)
		cancel()
		// The agent's own failure is in Problems; the server's view only.
		rr := modelserver.RunResult{Report: ep.Report()}
		res.ModelProblems = rr.Problems()
		if serr != nil {
			res.ModelProblems = append(res.ModelProblems, "stopping the model server: "+serr.Error())
		}
		res.ModelTrace = modelTrace.Bytes()
		res.ModelEvents = bytes.Count(res.ModelTrace, []byte("\n"))
		if len(res.ModelTrace) == 0 {
			res.ModelProblems = append(res.ModelProblems, "the command sent the model server no request")
		}
	}
	if c.Trace != nil && len(res.Problems) == 0 {
		c.readTrace(res, p.stdout, p.stdoutCut, out, before)
	}
	return res
}

// expand replaces ${TRACECHECK_OUT_DIR} in s by dir.
func expand(s, dir string) string { return strings.ReplaceAll(s, "${"+OutDirVar+"}", dir) }

// tracePath is where a file trace is read.
func (c *Case) tracePath(outDir string) string {
	switch c.Trace.From {
	case FromOutDir:
		return filepath.Join(outDir, filepath.FromSlash(c.Trace.Path))
	case FromFile:
		return relTo(c.Command.Dir, c.Trace.Path)
	}
	return ""
}

// traceName names the trace in problems.
func (c *Case) traceName() string {
	switch {
	case c.Trace.From == FromAgent:
		return "the native trace of " + c.Agent.Preset.Name
	case c.Trace.From == FromOutDir:
		return "$" + OutDirVar + "/" + c.Trace.Path
	case c.Trace.From == FromFile:
		return c.tracePath("")
	case c.Trace.After != "":
		return fmt.Sprintf("stdout after %q", c.Trace.After)
	}
	return "stdout"
}

// readTrace takes the command's trace from its source, validates it, and
// checks the case's policy on it.
func (c *Case) readTrace(res *Result, stdout []byte, stdoutCut bool, outDir string, before fileState) {
	name := c.traceName()
	var trace []byte
	switch c.Trace.From {
	case FromStdout:
		if stdoutCut {
			res.TraceProblems = append(res.TraceProblems, fmt.Sprintf("standard output exceeded %d bytes", MaxTraceBytes))
			return
		}
		trace = stdout
		if c.Trace.After != "" {
			var ok bool
			if trace, ok = after(stdout, c.Trace.After); !ok {
				res.TraceProblems = append(res.TraceProblems, fmt.Sprintf("standard output has no line %q, the marker the trace follows", c.Trace.After))
				return
			}
		}
	default:
		path := c.tracePath(outDir)
		if before.unchanged(stateOf(path)) {
			res.TraceProblems = append(res.TraceProblems, fmt.Sprintf("the command did not write %s: it is as it was before the run", name))
			return
		}
		b, err := readTraceFile(path)
		if err != nil {
			res.TraceProblems = append(res.TraceProblems, "the command wrote no trace: "+err.Error())
			return
		}
		trace = b
	}
	if len(trace) == 0 {
		res.TraceProblems = append(res.TraceProblems, "the command wrote no trace: "+name+" is empty")
		return
	}
	res.Trace, res.Events = trace, bytes.Count(trace, []byte("\n"))
	if errs := journal.Validate(bytes.NewReader(trace), name); len(errs) > 0 {
		res.TraceProblems = append(res.TraceProblems, notValid(name, errs))
		return
	}
	if c.Match != nil && c.Match.Policy != nil {
		act := trajectory.Read(tracediff.Input{Name: name, R: bytes.NewReader(trace)}, false)
		r := trajectory.CheckPolicy(act, c.Match.Policy, tracediff.Options{})
		for i := range r.Events {
			ed := &r.Events[i]
			res.TraceProblems = append(res.TraceProblems, "breaks the policy: "+ed.Title(r.Actual.Runs > 1)+"\n"+strings.TrimSuffix(ed.Text(), "\n"))
		}
		if r.Omitted > 0 {
			res.TraceProblems = append(res.TraceProblems, fmt.Sprintf("breaks the policy %d more times", r.Omitted))
		}
	}
	res.Capture = trace
	if c.Tolerant {
		var buf bytes.Buffer
		problems, err := tracediff.Normalize(tracediff.Input{Name: name, R: bytes.NewReader(trace)}, &buf)
		if err != nil || len(problems) > 0 {
			res.TraceProblems = append(res.TraceProblems, fmt.Sprintf("writing its tolerant form: %v %v", err, problems))
			return
		}
		res.Capture = buf.Bytes()
	}
}

// notValid lists a trace's first problems as validate prints them.
func notValid(name string, errs []*journal.Error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is not a valid trace:", name)
	for i, e := range errs {
		if i == maxProblems {
			fmt.Fprintf(&b, "\n... and %d more problems", len(errs)-i)
			break
		}
		b.WriteString("\n")
		b.WriteString(e.Error())
	}
	return b.String()
}

// after returns the lines of out after the first line equal to marker
// (trailing spaces and CR ignored), blank lines at the end dropped.
func after(out []byte, marker string) ([]byte, bool) {
	rest := out
	for len(rest) > 0 {
		line, next, _ := bytes.Cut(rest, []byte("\n"))
		rest = next
		if string(bytes.TrimRight(line, " \t\r")) != marker {
			continue
		}
		lines := bytes.SplitAfter(rest, []byte("\n"))
		n := len(lines)
		for n > 0 && len(bytes.TrimSpace(lines[n-1])) == 0 {
			n--
		}
		return bytes.Join(lines[:n], nil), true
	}
	return nil, false
}

// fileState is what a trace file looked like before a run, so that a file
// the command did not write is not taken for its trace.
type fileState struct {
	info os.FileInfo // nil when there was none
}

func stateOf(path string) fileState {
	info, err := os.Stat(path)
	if err != nil {
		return fileState{}
	}
	return fileState{info}
}

// unchanged reports whether the file is still the one seen before, with
// the same size and modification time.
func (before fileState) unchanged(now fileState) bool {
	return before.info != nil && now.info != nil && os.SameFile(before.info, now.info) &&
		before.info.Size() == now.info.Size() && before.info.ModTime().Equal(now.info.ModTime())
}

func readTraceFile(path string) ([]byte, error) {
	b, err := regularfile.Read(path, MaxTraceBytes)
	var tl *regularfile.TooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s does not exist", path)
	case errors.Is(err, regularfile.ErrNotRegular):
		return nil, fmt.Errorf("%s is not a regular file", path)
	case errors.As(err, &tl):
		return nil, fmt.Errorf("%s holds %d bytes, more than the %d a trace may", path, tl.Size, MaxTraceBytes)
	}
	return b, err
}

// proc is how the command ran.
type proc struct {
	stdout    []byte
	stdoutCut bool
	stderr    string
	exitCode  int
	signal    string
	timedOut  bool
	stopped   bool // ctx was done: the run was interrupted
	timeout   time.Duration
	startErr  error
	waitErr   error // an I/O copy cut short by WaitDelay, or another error
}

// run runs argv in dir with env and stdin; past timeout (or when ctx is
// done) its process group is killed.
func run(ctx context.Context, argv []string, dir string, env []string, stdin []byte, timeout time.Duration) proc {
	p := proc{timeout: timeout}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	if len(stdin) > 0 {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out := &limitBuffer{max: MaxTraceBytes}
	errTail := &tailBuffer{max: stderrKeep}
	// The command runs in a process group of its own (procgroup.Run): its
	// exit is what counts even while a child holds its output, what it
	// leaves is killed (its group and, on Linux, whatever carries its run
	// token), and a timeout kills its whole tree.
	cmd.WaitDelay = WaitDelay // bounds only the copy of stdin
	err := procgroup.Run(tctx, cmd, procgroup.Output{Stdout: out, Stderr: errTail, Drain: WaitDelay})
	if errors.Is(err, procgroup.ErrOutputHeld) {
		p.waitErr = procgroup.ErrOutputHeld
		err = exitOf(err)
	}
	p.stdout, p.stdoutCut, p.stderr = out.bytes(), out.cut, errTail.tail(StderrLines)
	p.timedOut = errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	p.stopped = ctx.Err() != nil
	code, signal, exited := procgroup.Exit(err)
	switch {
	case exited:
		p.exitCode, p.signal = code, signal
	case cmd.ProcessState == nil:
		p.startErr = err
	default:
		p.waitErr = err
	}
	return p
}

// exitOf is the command's own error in a procgroup.Run error joined with
// ErrOutputHeld (nil when it exited 0).
func exitOf(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee
	}
	return nil
}

// problems says what went wrong with the command itself.
func (p *proc) problems(c *Case) []string {
	var out []string
	switch {
	case p.stopped:
		out = append(out, fmt.Sprintf("the command %s was not run to its end: the run was interrupted (its process group was killed)", c.describeArgv()))
	case p.startErr != nil:
		out = append(out, fmt.Sprintf("the command %s could not be started: %v", c.describeArgv(), p.startErr))
	case p.timedOut:
		out = append(out, fmt.Sprintf("the command %s did not finish within %s: its process group was killed", c.describeArgv(), p.timeout))
	case p.signal != "":
		out = append(out, fmt.Sprintf("the command %s was ended by signal %s", c.describeArgv(), p.signal))
	case p.exitCode != 0:
		out = append(out, fmt.Sprintf("the command %s exited with status %d", c.describeArgv(), p.exitCode))
	}
	if p.waitErr != nil {
		out = append(out, fmt.Sprintf("the command %s left processes holding its output: %v", c.describeArgv(), p.waitErr))
	}
	return out
}

// limitBuffer keeps the first max bytes written and notes any more.
type limitBuffer struct {
	chunks [][]byte
	n      int
	max    int
	cut    bool
}

// limitChunk is the size of the chunks a limitBuffer holds.
const limitChunk = 1 << 20

// Write keeps what is written in chunks (nothing copied as it grows, no
// garbage left behind) until more than max bytes came; then it lets go
// of them all (a cut output is never used) and counts the rest as written.
// A command that floods its output costs max bytes at most.
func (l *limitBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if l.cut {
		return n, nil
	}
	if l.n+n > l.max {
		l.chunks, l.n, l.cut = nil, 0, true
		return n, nil
	}
	l.n += n
	for len(p) > 0 {
		if k := len(l.chunks); k == 0 || len(l.chunks[k-1]) == cap(l.chunks[k-1]) {
			l.chunks = append(l.chunks, make([]byte, 0, min(limitChunk, max(l.max-l.n+len(p), 1))))
		}
		last := &l.chunks[len(l.chunks)-1]
		m := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:m]...)
		p = p[m:]
	}
	return n, nil
}

// bytes is what was kept, in one slice (nil when it was cut).
func (l *limitBuffer) bytes() []byte {
	if l.cut {
		return nil
	}
	if len(l.chunks) == 1 {
		return l.chunks[0]
	}
	out := make([]byte, 0, l.n)
	for _, c := range l.chunks {
		out = append(out, c...)
	}
	l.chunks = nil
	return out
}

// tailBuffer keeps about the last max bytes written.
type tailBuffer struct {
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// tail is the last n lines kept, without a final newline.
func (t *tailBuffer) tail(n int) string {
	b := t.b
	if len(b) > t.max {
		b = b[len(b)-t.max:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	s := strings.TrimRight(string(b), "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

var _ io.Writer = (*tailBuffer)(nil)
