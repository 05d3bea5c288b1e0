package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/modelserver/cassette"
	"github.com/tracecheck/tracecheck/scenarios"
)

func modelCommands() []command {
	return []command{
		{"serve", "serve a scenario's scripted model (or a cassette) over HTTP", runModelServe},
		{"run", "run an agent command against a scripted model server and check how it went", runModelRun},
		{"record", "proxy to a real model endpoint and record every exchange in a cassette", runModelRecord},
	}
}

var modelUsage = groupUsage("model", "SUBCOMMAND [flags]",
	"The scripted model over HTTP, in the OpenAI Chat Completions and Responses\n"+
		"and Anthropic Messages wire formats (docs/model-server.md). Subcommands:",
	modelCommands, "",
	"Exit status: 0 ok, 1 a request was rejected, the agent failed or the script\n"+
		"was not fully used, 2 usage error or unknown scenario.")

func runModel(e *env, args []string) int {
	return dispatch(e, args, modelCommands(), "model", modelUsage)
}

// sourceFlags are the flags that say what a model server serves.
type sourceFlags struct {
	scenario    *string
	scenarioDir *string
	cassette    *string
	mode        *string
	upstream    *string
	exhausted   *string
	trace       *string
	limits      *limitFlags
}

// limitFlags bound what clients can make a model server hold.
type limitFlags struct {
	maxBody     *int64
	bodyTimeout *time.Duration
	maxConns    *int
	keepRejects *int
}

func addLimitFlags(fs *pflag.FlagSet) *limitFlags {
	return &limitFlags{
		maxBody:     fs.Int64("max-body", modelserver.DefaultMaxBodyBytes, "refuse a request body larger than `BYTES` (413)"),
		bodyTimeout: fs.Duration("body-timeout", modelserver.DefaultBodyTimeout, "refuse a request body not read within `DURATION` of its turn to be read (408; bodies are read one at a time)"),
		maxConns:    fs.Int("max-connections", modelserver.DefaultMaxConnections, "keep at most `N` connections open at once (more wait to be accepted)"),
		keepRejects: fs.Int("keep-rejections", modelserver.DefaultKeepRejections, "keep and write to --trace and standard error the first `N` rejected requests; count the others"),
	}
}

// defaultLimits are the limits of a command without limit flags.
func defaultLimits() *limitFlags {
	body, timeout, conns, keep := int64(modelserver.DefaultMaxBodyBytes), modelserver.DefaultBodyTimeout, modelserver.DefaultMaxConnections, modelserver.DefaultKeepRejections
	return &limitFlags{maxBody: &body, bodyTimeout: &timeout, maxConns: &conns, keepRejects: &keep}
}

// check is the usage error of a limit out of range, "" when all are fine.
func (l *limitFlags) check() string {
	switch {
	case *l.maxBody < 1:
		return fmt.Sprintf("--max-body must be at least 1 byte, not %d", *l.maxBody)
	case *l.bodyTimeout <= 0:
		return fmt.Sprintf("--body-timeout must be positive, not %s", *l.bodyTimeout)
	case *l.maxConns < 1:
		return fmt.Sprintf("--max-connections must be at least 1, not %d", *l.maxConns)
	case *l.keepRejects < 1:
		return fmt.Sprintf("--keep-rejections must be at least 1, not %d", *l.keepRejects)
	}
	return ""
}

// heapLimit is the heap a scripted model server asks its collector to
// stay under: what clients can make it hold is bounded (the limits above)
// to well below it, so the limit costs collections, not failures, and the
// garbage of one request after another (bodies of 32 MiB) is collected
// before the heap doubles.
const heapLimit = 128 << 20

// modelPacing paces the collector of a scripted model server: heapLimit
// as its soft memory limit (unless GOMEMLIMIT says otherwise).
var modelPacing = pacing{limit: heapLimit}

// limitedEndpoint is an endpoint (a cassette player) with the connection
// bound of --max-connections.
type limitedEndpoint struct {
	modelserver.Endpoint
	conns int
}

func (l limitedEndpoint) MaxConnections() int { return l.conns }

func addSourceFlags(fs *pflag.FlagSet, withCassette bool) *sourceFlags {
	f := &sourceFlags{
		scenario:    fs.String("scenario", "", "serve the scripted turns of the scenario `ID|FILE` (a built-in id, or a scenario file)"),
		scenarioDir: addScenarioDir(fs),
		exhausted:   fs.String("on-exhausted", "answer", "`WHAT` to do when the script is used up: answer (the scripted model's \""+exhaustedHint+"\") or error (400, code script_exhausted)"),
		trace:       fs.String("trace", "", "write the Trace 0.1.0 of what the server saw to `FILE` (must not exist), one exchange at a time"),
	}
	f.limits = addLimitFlags(fs)
	if withCassette {
		f.cassette = fs.String("cassette", "", "serve the recordings of the cassette `FILE` instead of a scenario")
		f.mode = fs.String("mode", "replay", "with --cassette, the `MODE`: replay (a miss is an error), record (a miss is forwarded to --upstream and recorded) or live (everything forwarded, the cassette untouched)")
		f.upstream = fs.String("upstream", "", "the real endpoint's base `URL` (record and live modes), e.g. https://api.openai.com")
	}
	return f
}

const exhaustedHint = "The scripted model has no remaining turns."

// endpoint builds what the flags ask to serve. The returned close flushes
// and closes the files it opened; abandon, for a server that never served
// (it could not listen, the agent could not start), also removes the
// --trace file it created, so that a corrected command can name it again.
// The int is an exit code when ok is false; then nothing is left behind.
func (f *sourceFlags) endpoint(e *env, cmd string) (ep modelserver.Endpoint, closeFn, abandon func() error, code int, ok bool) {
	useCassette := f.cassette != nil && *f.cassette != ""
	switch {
	case useCassette && *f.scenario != "":
		return nil, nil, nil, usageError(e, cmd, "give --scenario or --cassette, not both"), false
	case !useCassette && *f.scenario == "":
		if f.cassette != nil {
			return nil, nil, nil, usageError(e, cmd, "--scenario or --cassette is required"), false
		}
		return nil, nil, nil, usageError(e, cmd, "--scenario is required"), false
	case !useCassette && f.mode != nil && (*f.mode != "replay" || *f.upstream != ""):
		return nil, nil, nil, usageError(e, cmd, "--mode and --upstream go with --cassette"), false
	}
	if msg := f.limits.check(); msg != "" {
		return nil, nil, nil, usageError(e, cmd, "%s", msg), false
	}
	var exhausted modelserver.ExhaustedPolicy
	switch *f.exhausted {
	case "answer":
	case "error":
		exhausted = modelserver.ExhaustedError
	default:
		return nil, nil, nil, usageError(e, cmd, "--on-exhausted must be answer or error, not %q", *f.exhausted), false
	}
	// What to serve is read before --trace is created: a usage error leaves
	// no empty trace file behind.
	var sc *scenarios.Scenario
	if useCassette {
		if st, err := os.Stat(*f.cassette); err == nil && st.IsDir() {
			return nil, nil, nil, usageError(e, cmd, "--cassette %v", inputError(*f.cassette, errors.New("is a directory, not a cassette file"))), false
		}
	} else {
		var code int
		var ok bool
		if sc, code, ok = loadScenarioRef(e, cmd, *f.scenario, *f.scenarioDir); !ok {
			return nil, nil, nil, code, false
		}
	}
	closeTrace, removeTrace := func() error { return nil }, func() error { return nil }
	var traceW io.Writer
	if *f.trace != "" {
		trace, err := os.OpenFile(*f.trace, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
		if err != nil {
			if errors.Is(err, os.ErrExist) {
				return nil, nil, nil, usageError(e, cmd, "--trace %s already exists: it is never overwritten; remove it or name another file", textsafe.Quote(*f.trace)), false
			}
			fmt.Fprintf(e.stderr, "%s %s: --trace %v\n", programName, cmd, inputError(*f.trace, err))
			return nil, nil, nil, exitUsage, false
		}
		traceW, closeTrace = trace, trace.Close
		removeTrace = func() error {
			trace.Close()
			return os.Remove(trace.Name()) // ours: created above with O_EXCL
		}
	}
	e.pace(modelPacing)
	if useCassette {
		p, err := cassette.Open(*f.cassette, cassette.Options{
			Mode: cassette.Mode(*f.mode), Upstream: *f.upstream, Trace: traceW, Log: notes(e.stderr, cmd),
			MaxBodyBytes: *f.limits.maxBody, BodyTimeout: *f.limits.bodyTimeout, KeepRejections: *f.limits.keepRejects,
		})
		if err != nil {
			removeTrace()
			errorLine(e, cmd, err)
			return nil, nil, nil, exitUsage, false
		}
		closeAll := func() error {
			err := p.Close()
			if cerr := closeTrace(); err == nil {
				err = cerr
			}
			return err
		}
		return limitedEndpoint{p, *f.limits.maxConns}, closeAll, func() error { p.Close(); return removeTrace() }, 0, true
	}
	srv := modelserver.New(modelserver.ScriptOf(sc), modelserver.Options{Exhausted: exhausted, Trace: traceW, Log: notes(e.stderr, cmd),
		MaxBodyBytes: *f.limits.maxBody, BodyTimeout: *f.limits.bodyTimeout, MaxConnections: *f.limits.maxConns, KeepRejections: *f.limits.keepRejects})
	return srv, closeTrace, removeTrace, 0, true
}

// limitsHelp is the paragraph of serve's and run's help on what bounds
// the server, whatever its clients send.
const limitsHelp = "Limits, whatever a client sends: at most --max-connections connections at\n" +
	"once (64; more wait to be accepted); request headers of at most 64 KiB (431);\n" +
	"a body of at most --max-body bytes (32 MiB; 413), read only when its turn\n" +
	"comes, one at a time, within --body-timeout (30s; 408, and the connection is\n" +
	"closed); at most 100,000 messages, content parts, tool calls and tools in a\n" +
	"request (413); 10,000 requests answered (400). Every rejected request is\n" +
	"counted; the first --keep-rejections (100) are written to --trace and\n" +
	"standard error, quoting the request cut short, the others only counted.\n" +
	"With --cassette the bounds on connections, body size and time and kept\n" +
	"rejections apply; in place of the item bound, at most 500,000 JSON values in a\n" +
	"body (413)."

const serveDescription = "Serve the scripted turns of a scenario (or the recordings of a cassette) where\n" +
	"agents look for a model: POST /v1/chat/completions (OpenAI Chat Completions,\n" +
	"whole and stream: true), POST /v1/responses (OpenAI Responses, whole and\n" +
	"streamed), POST /v1/messages (Anthropic Messages, whole and streamed), POST\n" +
	"/v1/messages/count_tokens, GET /v1/models and HEAD /. Point an agent at it\n" +
	"with OPENAI_BASE_URL=<URL>/v1 or ANTHROPIC_BASE_URL=<URL>.\n\n" +
	"The first line of standard output is the server's URL (with --addr\n" +
	"127.0.0.1:0, the default, a free port). The server listens on loopback only:\n" +
	"another address needs --allow-remote. Requests are answered one at a time\n" +
	"in arrival order; a request the real API would reject (malformed, or a\n" +
	"tool call left without its tool result) gets the API's 400 error body and\n" +
	"a line on standard error. SIGINT or SIGTERM stops the server once the\n" +
	"requests in flight are answered and their exchanges written to --trace.\n\n" +
	limitsHelp + "\n\n" +
	"Exit 0 after a clean stop, 1 when a request was rejected (or the trace\n" +
	"could not be written), 2 usage error or unknown scenario."

func runModelServe(e *env, args []string) int {
	fs := newFlags(e, "model serve", "model serve (--scenario ID|FILE | --cassette FILE) [--addr HOST:PORT] [--trace FILE] [flags]", serveDescription)
	src := addSourceFlags(fs, true)
	addr := fs.String("addr", modelserver.DefaultAddr, "listen on `HOST:PORT` (port 0: a free port)")
	remote := fs.Bool("allow-remote", false, "allow an --addr that is not loopback (the server has no authentication)")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(e, "model serve", "unexpected argument %s", textsafe.Quote(fs.Arg(0)))
	}
	return serve(e, "model serve", src, *addr, *remote)
}

// serve serves what src names on addr until SIGINT or SIGTERM.
func serve(e *env, cmd string, src *sourceFlags, addr string, remote bool) int {
	ep, closeFn, abandon, code, ok := src.endpoint(e, cmd)
	if !ok {
		return code
	}
	ln, err := modelserver.Listen(addr, remote)
	if err != nil {
		abandon()
		var re *modelserver.RemoteError
		if errors.As(err, &re) {
			return usageError(e, cmd, "--addr %s is not a loopback address: pass --allow-remote to listen beyond this machine (the server has no authentication)", textsafe.Quote(re.Addr))
		}
		errorLine(e, cmd, fmt.Errorf("--addr: %w", err))
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := modelserver.Serve(ln, ep)
	fmt.Fprintln(e.stdout, srv.URL)
	<-ctx.Done()
	stop()
	sctx, cancel := context.WithTimeout(context.Background(), modelserver.ShutdownGrace)
	defer cancel()
	serr := srv.Shutdown(sctx)
	cerr := closeFn()
	rep := ep.Report()
	writeReport(e.stderr, cmd, rep)
	switch {
	case serr != nil:
		fmt.Fprintf(e.stderr, "%s %s: stopping: %v\n", programName, cmd, serr)
		return exitFailed
	case cerr != nil:
		fmt.Fprintf(e.stderr, "%s %s: %v\n", programName, cmd, cerr)
		return exitFailed
	case rep.Rejections() > 0 || rep.TraceErr != nil:
		return exitFailed
	}
	return exitOK
}

// writeReport prints the one-line summary of a conversation.
func writeReport(w io.Writer, cmd string, r modelserver.Report) {
	fmt.Fprintf(w, "%s %s: answered %d request(s): %d of %d turns used, %d past the script, %d rejected\n",
		programName, cmd, r.Answered, r.Used, r.Turns, r.Exhausted, r.Rejections())
	if r.TraceErr != nil {
		fmt.Fprintf(w, "%s %s: %v\n", programName, cmd, r.TraceErr)
	}
}

const runDescription = "Start a model server for the scenario (or cassette) on a free loopback port,\n" +
	"run CMD with OPENAI_BASE_URL=<URL>/v1, ANTHROPIC_BASE_URL=<URL> and\n" +
	"TRACECHECK_MODEL_URL=<URL> (and OPENAI_API_KEY / ANTHROPIC_API_KEY set to a\n" +
	"dummy when unset), wait for it, and stop the server.\n\n" +
	"The run fails (exit 1), each reason on standard error, when the agent exits\n" +
	"non-zero or is killed, when the server rejected a request, or when scripted\n" +
	"turns (or cassette recordings) were left unused. Answers past the end of the\n" +
	"script are reported, not failed. --trace keeps the Trace of what the server\n" +
	"saw, to check with 'tracecheck validate' or against a golden. SIGINT or\n" +
	"SIGTERM is passed on to the agent as SIGINT.\n\n" +
	limitsHelp + "\n\n" +
	"Exit 0 ok, 1 the run failed, 2 usage error, unknown scenario or a command that\n" +
	"cannot be started."

func runModelRun(e *env, args []string) int {
	fs := newFlags(e, "model run", "model run (--scenario ID|FILE | --cassette FILE) [--trace FILE] [flags] -- CMD [ARGS...]", runDescription)
	src := addSourceFlags(fs, true)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return usageError(e, "model run", "no agent command: give it after --")
	}
	ep, closeFn, abandon, code, ok := src.endpoint(e, "model run")
	if !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := modelserver.Run(ctx, ep, modelserver.Command{Args: argv, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr})
	var se *modelserver.StartError
	if errors.As(err, &se) {
		abandon() // nothing was served: no trace to keep
		errorLine(e, "model run", err)
		return exitUsage
	}
	cerr := closeFn()
	if err != nil {
		errorLine(e, "model run", err)
		return exitFailed
	}
	writeReport(e.stderr, "model run", res.Report)
	problems := res.Problems()
	if cerr != nil {
		problems = append(problems, cerr.Error())
	}
	for _, p := range problems {
		fmt.Fprintf(e.stderr, "%s model run: FAIL %s\n", programName, p)
	}
	if len(problems) > 0 {
		return exitFailed
	}
	return exitOK
}

const recordDescription = "Proxy to a real model endpoint and record every exchange in a cassette, a\n" +
	"Trace 0.1.0 file: 'model serve --cassette FILE --mode record --upstream URL'.\n" +
	"Requests already recorded are replayed; the others are forwarded, their\n" +
	"answers (a stream chunk by chunk, verbatim) passed on and appended to FILE.\n" +
	"API keys and other secret headers are forwarded, never written. The first\n" +
	"line of standard output is the URL; SIGINT or SIGTERM stops it.\n\n" +
	"Exit 0 after a clean stop, 1 when a request failed, 2 usage error."

func runModelRecord(e *env, args []string) int {
	fs := newFlags(e, "model record", "model record --upstream URL --cassette FILE [--addr HOST:PORT] [--trace FILE]", recordDescription)
	cas := fs.String("cassette", "", "the cassette `FILE` (created when missing, appended to otherwise)")
	up := fs.String("upstream", "", "the real endpoint's base `URL`, e.g. https://api.openai.com")
	addr := fs.String("addr", modelserver.DefaultAddr, "listen on `HOST:PORT` (port 0: a free port)")
	remote := fs.Bool("allow-remote", false, "allow an --addr that is not loopback")
	trace := fs.String("trace", "", "also write the Trace of what the server saw to `FILE` (must not exist)")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	switch {
	case fs.NArg() > 0:
		return usageError(e, "model record", "unexpected argument %s", textsafe.Quote(fs.Arg(0)))
	case *cas == "":
		return usageError(e, "model record", "--cassette is required")
	case *up == "":
		return usageError(e, "model record", "--upstream is required")
	case *trace != "" && filepath.Clean(*trace) == filepath.Clean(*cas):
		return usageError(e, "model record", "--trace and --cassette name the same file %s: the trace and the cassette are two files", textsafe.Quote(*cas))
	}
	empty, mode, exhausted := "", string(cassette.Record), "answer"
	src := &sourceFlags{scenario: &empty, scenarioDir: &empty, cassette: cas, mode: &mode, upstream: up, exhausted: &exhausted, trace: trace, limits: defaultLimits()}
	return serve(e, "model record", src, *addr, *remote)
}
