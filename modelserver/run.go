package modelserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/tracecheck/tracecheck/internal/procgroup"
	"github.com/tracecheck/tracecheck/scenarios"
)

// DefaultAddr is where a server listens unless told otherwise: loopback, a
// free port.
const DefaultAddr = "127.0.0.1:0"

// RemoteError is the error of Listen for an address beyond loopback.
type RemoteError struct{ Addr string }

func (e *RemoteError) Error() string {
	return fmt.Sprintf("%s is not a loopback address: the server listens beyond this machine only when told to (allow remote)", e.Addr)
}

// Listen listens on addr (host:port, port 0 for a free one). The host must
// be a loopback IP (127.0.0.0/8, ::1) or "localhost" unless allowRemote:
// an empty host (every interface), another IP or a host name is refused
// with a *RemoteError.
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("address %q: %w", addr, err)
	}
	if !allowRemote {
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, &RemoteError{Addr: addr}
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !allowRemote && !tcp.IP.IsLoopback() {
		ln.Close() // "localhost" resolved beyond loopback
		return nil, &RemoteError{Addr: addr}
	}
	return ln, nil
}

// Served is a running HTTP server.
type Served struct {
	// URL is the server's base URL, http://HOST:PORT (no trailing slash).
	URL  string
	srv  *http.Server
	done chan error
}

// What Serve allows one connection.
const (
	// MaxHeaderBytes bounds a request's line and headers (the HTTP layer
	// answers 431 beyond, before the handler sees the request).
	MaxHeaderBytes = 64 << 10
	// HeaderTimeout bounds the reading of a request's line and headers.
	HeaderTimeout = 30 * time.Second
	// IdleTimeout closes a kept-alive connection that sends no request
	// for that long.
	IdleTimeout = 2 * time.Minute
)

// ConnectionLimiter is an endpoint that says how many connections Serve
// keeps open to it at once (a *Server does, from Options.MaxConnections);
// other handlers get DefaultMaxConnections.
type ConnectionLimiter interface {
	MaxConnections() int
}

// Serve serves h on ln until Shutdown. It keeps at most
// DefaultMaxConnections connections open at once (h's own bound when h
// is a ConnectionLimiter): a connection past the bound waits to be
// accepted until another closes. Request headers are bounded by
// MaxHeaderBytes and HeaderTimeout, idle connections by IdleTimeout.
func Serve(ln net.Listener, h http.Handler) *Served {
	n := DefaultMaxConnections
	if l, ok := h.(ConnectionLimiter); ok && l.MaxConnections() > 0 {
		n = l.MaxConnections()
	}
	ln = limitListener(ln, n)
	s := &Served{
		URL: "http://" + ln.Addr().String(),
		srv: &http.Server{Handler: h, ReadHeaderTimeout: HeaderTimeout, IdleTimeout: IdleTimeout,
			MaxHeaderBytes: MaxHeaderBytes - 4096}, // net/http allows 4096 bytes more than it is told
		done: make(chan error, 1),
	}
	go func() {
		err := s.srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return s
}

// Shutdown stops accepting requests, waits for those in flight to be
// answered (their exchanges recorded) until ctx is done, then closes every
// connection.
func (s *Served) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		s.srv.Close()
	}
	if serr := <-s.done; err == nil {
		err = serr
	}
	return err
}

// limitListener is ln accepting at most n connections open at once: Accept
// waits for one to close (netutil.LimitListener's rule), so that what
// clients hold open is bounded, and a connection past the bound waits in
// the kernel's queue instead of being refused.
func limitListener(ln net.Listener, n int) net.Listener {
	return &limitedListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

type limitedListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitedListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.sem }}, nil
}

func (l *limitedListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitedConn gives its place back once closed (by the server, or by a
// handler that hijacked it).
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// Endpoint is what Run serves: a handler that can say how the conversation
// went (a *Server, or a cassette player).
type Endpoint interface {
	http.Handler
	Report() Report
}

// Command is the agent command Run starts.
type Command struct {
	Args   []string // the program and its arguments
	Dir    string   // "" is the current directory
	Env    []string // nil is os.Environ(); Run adds the model variables
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Environment variables Run sets for the agent.
const (
	EnvOpenAIBaseURL    = "OPENAI_BASE_URL"    // URL + "/v1", where the OpenAI SDKs look
	EnvAnthropicBaseURL = "ANTHROPIC_BASE_URL" // URL, where the Anthropic SDKs look
	EnvModelURL         = "TRACECHECK_MODEL_URL"
	EnvOpenAIKey        = "OPENAI_API_KEY"
	EnvAnthropicKey     = "ANTHROPIC_API_KEY"
	// DummyKey is the API key Run sets when the agent's environment has
	// none: the SDKs refuse to start without one, the server ignores it.
	DummyKey = "tracecheck-dummy-key"
)

// AgentEnv returns env with the model variables for a server at url: the
// base URLs replace any already set; the API keys are added only when
// missing or empty.
func AgentEnv(env []string, url string) []string {
	set := map[string]string{
		EnvOpenAIBaseURL:    url + "/v1",
		EnvAnthropicBaseURL: url,
		EnvModelURL:         url,
	}
	out := make([]string, 0, len(env)+5)
	have := map[string]bool{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, ours := set[k]; ours {
			continue
		}
		if k == EnvOpenAIKey || k == EnvAnthropicKey {
			if v == "" {
				continue // replaced by the dummy below
			}
			have[k] = true
		}
		out = append(out, kv)
	}
	for _, k := range []string{EnvOpenAIBaseURL, EnvAnthropicBaseURL, EnvModelURL} {
		out = append(out, k+"="+set[k])
	}
	for _, k := range []string{EnvOpenAIKey, EnvAnthropicKey} {
		if !have[k] {
			out = append(out, k+"="+DummyKey)
		}
	}
	return out
}

// StartError is Run's error when the agent command could not be started
// (no such program, say): the command line, not the agent, is wrong.
type StartError struct{ Err error }

func (e *StartError) Error() string { return "starting the agent: " + e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// RunResult is what Run observed.
type RunResult struct {
	URL      string
	ExitCode int    // the agent's exit status; -1 when a signal ended it
	Signal   string // the signal that ended it, or ""
	Report   Report
	// Trace is the trace the server wrote (RunScenario only).
	Trace []byte
	// OutputHeld: after the agent exited, something it left that escaped
	// the kill kept its output open (procgroup.ErrOutputHeld).
	OutputHeld bool
}

// Problems lists what makes the run fail, in this order: the agent's
// failure, requests the server rejected, scripted turns left unused, a
// trace that could not be written. None means the run is ok. Answers past
// the end of the script (ExhaustedText) are not a problem by themselves:
// a scenario may script them.
func (r *RunResult) Problems() []string {
	var out []string
	switch {
	case r.Signal != "":
		out = append(out, "the agent was ended by signal "+r.Signal)
	case r.ExitCode != 0:
		out = append(out, fmt.Sprintf("the agent exited with status %d", r.ExitCode))
	}
	switch n := r.Report.Rejections(); {
	case n > 0 && len(r.Report.Rejected) > 0:
		out = append(out, fmt.Sprintf("the server rejected %d request(s); the first: %s", n, r.Report.Rejected[0]))
	case n > 0:
		out = append(out, fmt.Sprintf("the server rejected %d request(s)", n))
	}
	if n := r.Report.Unused(); n > 0 {
		out = append(out, fmt.Sprintf("the script was not fully used: %d of %d turns unanswered (turn %d on)", n, r.Report.Turns, r.Report.Used+1))
	}
	if r.Report.TraceErr != nil {
		out = append(out, r.Report.TraceErr.Error())
	}
	return out
}

// ShutdownGrace bounds how long Run and the serve command wait for
// requests in flight when stopping a server.
const ShutdownGrace = 10 * time.Second

// Run serves ep on a free loopback port, runs cmd with the model variables
// of AgentEnv pointing at it, waits for the agent to exit, and stops the
// server once every request in flight is answered. When ctx is cancelled
// the agent gets SIGINT, then SIGKILL after ShutdownGrace. The error is a
// *StartError when the agent could not be started, or a server failure;
// an agent that fails is a RunResult with a non-zero ExitCode.
func Run(ctx context.Context, ep Endpoint, cmd Command) (*RunResult, error) {
	if len(cmd.Args) == 0 {
		return nil, &StartError{Err: errors.New("no command given")}
	}
	ln, err := Listen(DefaultAddr, false)
	if err != nil {
		return nil, err
	}
	srv := Serve(ln, ep)
	res := &RunResult{URL: srv.URL}

	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	c := exec.Command(cmd.Args[0], cmd.Args[1:]...)
	c.Dir, c.Env = cmd.Dir, AgentEnv(env, srv.URL)
	c.Stdin = cmd.Stdin
	c.WaitDelay = ShutdownGrace // bounds only the copy of Stdin
	// The agent runs in a process group of its own (procgroup.Run): its
	// exit is what counts, even while a child of its holds its output,
	// and what it leaves running is killed (its group and, on Linux,
	// whatever carries its run token). ctx's end is
	// passed on as SIGINT to the group, then the whole tree is killed
	// after ShutdownGrace.
	runCtx, stopRun := context.WithCancel(context.Background())
	defer stopRun()
	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			procgroup.Interrupt(c)
			select {
			case <-time.After(ShutdownGrace):
				stopRun()
			case <-finished:
			}
		case <-finished:
		}
	}()
	runErr := procgroup.Run(runCtx, c, procgroup.Output{Stdout: cmd.Stdout, Stderr: cmd.Stderr})
	close(finished)
	var held error
	if errors.Is(runErr, procgroup.ErrOutputHeld) {
		held, runErr = procgroup.ErrOutputHeld, unjoinHeld(runErr)
	}

	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	serr := srv.Shutdown(sctx)
	res.Report = ep.Report()

	code, signal, exited := procgroup.Exit(runErr)
	switch {
	case exited:
		res.ExitCode, res.Signal = code, signal
	case c.ProcessState == nil:
		return nil, &StartError{Err: runErr}
	default:
		return nil, fmt.Errorf("running the agent: %w", runErr)
	}
	res.OutputHeld = held != nil
	if serr != nil {
		return res, fmt.Errorf("stopping the model server: %w", serr)
	}
	return res, nil
}

// unjoinHeld is err without procgroup.ErrOutputHeld: Wait's own error
// (nil for an agent that exited 0).
func unjoinHeld(err error) error {
	var j interface{ Unwrap() []error }
	if !errors.As(err, &j) {
		return nil
	}
	for _, e := range j.Unwrap() {
		if !errors.Is(e, procgroup.ErrOutputHeld) {
			return e
		}
	}
	return nil
}

// RunScenario runs cmd against the script of sc (ScriptOf) with opt and
// returns the result with the trace the server wrote (also written to
// opt.Trace when set): one call for a caller that needs no more than the
// finished run and its trace. (A verify command case does not use it:
// package cases serves the script itself, around its own run of the
// command with a timeout and its output captured.)
func RunScenario(ctx context.Context, sc *scenarios.Scenario, opt Options, cmd Command) (*RunResult, error) {
	var buf bytes.Buffer
	if opt.Trace != nil {
		opt.Trace = io.MultiWriter(&buf, opt.Trace)
	} else {
		opt.Trace = &buf
	}
	res, err := Run(ctx, New(ScriptOf(sc), opt), cmd)
	if res != nil {
		res.Trace = buf.Bytes()
	}
	return res, err
}
