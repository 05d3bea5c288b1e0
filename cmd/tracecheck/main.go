// Command tracecheck validates, replays, fingerprints and branches Trace
// 0.1.0 session journals; verifies scripted scenarios against committed
// golden traces; checks learners' programs on the curriculum's exercises;
// and lints, imports and repairs real coding agents' session logs.
//
// Exit codes are the same for every command: 0 success, 1 the input was
// checked and found wanting (invalid trace, drift, rejected event), 2 the
// command line itself was wrong (unknown flag, scenario or session, missing
// file). exercise and conform add 3: the program under test broke the
// subject protocol, which is never counted as a learner's failure.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tracecheck/tracecheck/internal/procgroup"
	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal"
)

// Exit codes shared by every command.
const (
	exitOK      = 0
	exitFailed  = 1
	exitUsage   = 2
	programName = "tracecheck"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// env is what a command may touch; tests pass buffers.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// cmd is the command being run ("validate", "session append"), set by
	// dispatch; run names it when standard output fails.
	cmd string
	// setPacing paces the collector for the command (pace); main sets
	// applyPacing, tests leave it nil.
	setPacing func(pacing)
}

type command struct {
	name    string
	summary string
	run     func(e *env, args []string) int
}

func commands() []command {
	return []command{
		{"validate", "check Trace JSONL files against the schema and journal invariants", runValidate},
		{"replay", "rebuild the replay view of a journal", runReplay},
		{"fingerprint", "print the SHA-256 fingerprint of a journal prefix", runFingerprint},
		{"branch", "print the branch record for a fork point", runBranch},
		{"verify", "render scenarios and compare them with the golden traces", runVerify},
		{"diff", "compare two traces: every differing event, field pointers, a unified diff", runDiff},
		{"normalize", "print a trace's tolerant form, to capture a golden from a real run", runNormalize},
		{"list", "list the built-in scenarios", runList},
		{"render", "print the trace a scenario renders and the expectations it would need", runRender},
		{"review", "accept or reject the pending goldens verify wrote", runReview},
		{"merge", "put the --result files of a run's shards together: the whole run's report and status", runMerge},
		{"session", "append to, resume, check and checkpoint durable session stores", runSession},
		{"view", "write a self-contained HTML page of traces, or of a golden and its drift", runView},
		{"exercise", "the learners' exercises A-F and R, checked on a program in any language", runExercise},
		{"conform", "check a subject program on every exercise it supports: -- CMD ARGS...", runConform},
		{"lint", "check (and repair) coding agents' session logs: Codex, Claude Code, pi, TS harness", runLint},
		{"import", "convert a coding agent's session log to Trace 0.1.0", runImport},
		{"model", "serve a scenario's scripted model over HTTP, run agents against it, record and replay", runModel},
		{"agent", "run a real coding agent (pi, Claude Code, Codex) on a scenario and check its own log", runAgent},
		{"version", "print the tracecheck version", runVersion},
	}
}

func main() {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, setPacing: applyPacing}
	// What the programs tracecheck runs leave behind when their parent
	// exits becomes tracecheck's child (Linux), so that the end of each
	// run reaps what it kills; in-process tests do without, and what they
	// kill is init's to reap. Failing leaves only that: the kill itself
	// does not depend on it, so the error is not worth a warning on every
	// command.
	_ = procgroup.Contain()
	os.Exit(run(e, os.Args[1:]))
}

// run dispatches args and then checks that everything the command wrote on
// standard output got there: output that could not be written (a full disk,
// a closed pipe) fails the command with exit 1 whatever it returned, so a
// script never takes a truncated answer for a whole one.
//
// The failure is said once, in one way: a line a command wrote on stderr
// about the same write error is left out for run's own.
func run(e *env, args []string) int {
	out := &checkedWriter{w: e.stdout}
	ce := *e
	ce.stdout, ce.stderr = out, &writeErrFilter{w: e.stderr, out: out}
	code := dispatchTop(&ce, args)
	if out.err != nil {
		name := programName
		if ce.cmd != "" {
			name += " " + ce.cmd
		}
		fmt.Fprintf(e.stderr, "%s: writing standard output: %v\n", name, out.err)
		return exitFailed
	}
	return code
}

// writeErrFilter passes stderr through, except the lines that report the
// standard output's write error: run reports it.
type writeErrFilter struct {
	w   io.Writer
	out *checkedWriter
}

func (f *writeErrFilter) Write(p []byte) (int, error) {
	if f.out.err != nil && strings.Contains(string(p), f.out.err.Error()) {
		return len(p), nil
	}
	return f.w.Write(p)
}

func dispatchTop(e *env, args []string) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		return runVersion(e, nil)
	}
	return dispatch(e, args, commands(), "", usage)
}

// checkedWriter remembers the first write error; later writes are dropped.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}

// dispatch runs the command named by args[0]. With no name it prints
// usage on stderr (the list of what there is to run) and returns
// exitUsage; an unknown name is a one-line usage error. prefix is the
// parent command ("session") for nested command sets.
func dispatch(e *env, args []string, cmds []command, prefix string, usage func(io.Writer)) int {
	if len(args) == 0 {
		usage(e.stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help":
		usage(e.stdout)
		return exitOK
	case "help":
		// "help CMD [SUB]" is "CMD [SUB] --help"; "help" alone the
		// command list.
		if len(args) == 1 {
			usage(e.stdout)
			return exitOK
		}
		return dispatch(e, append(slices.Clip(args[1:]), "--help"), cmds, prefix, usage)
	}
	for _, c := range cmds {
		if c.name == args[0] {
			e.cmd = strings.TrimSpace(prefix + " " + c.name)
			return c.run(e, args[1:])
		}
	}
	noun := "command"
	if prefix != "" {
		noun = "subcommand"
	}
	if strings.HasPrefix(args[0], "-") {
		return usageError(e, prefix, "unknown flag %s: a %s's flags go after its name", textsafe.Quote(args[0]), noun)
	}
	return usageError(e, prefix, "unknown %s %s", noun, textsafe.Quote(args[0]))
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s COMMAND [flags] [args]\n\nCommands:\n", programName)
	cs := commands()
	for _, c := range cs {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun '%s COMMAND --help' for a command's flags.\n", programName)
	fmt.Fprintf(w, "Exit status: 0 ok, 1 checked and failed, 2 usage error; 3 (exercise, conform) the\nprogram under test broke the subject protocol.\n")
}

// groupUsage returns the help of a command group (session, exercise,
// model): its usage line, what it is (about, ending where the list of
// subcommands follows), each subcommand with its summary, any more lines
// (after), where the subcommands' flags are, and its exit status.
func groupUsage(group, args, about string, subs func() []command, after, exit string) func(io.Writer) {
	return func(w io.Writer) {
		cs := subs()
		width := 0
		for _, c := range cs {
			width = max(width, len(c.name)+1)
		}
		fmt.Fprintf(w, "Usage: %s %s %s\n\n%s\n", programName, group, args, about)
		for _, c := range cs {
			fmt.Fprintf(w, "  %-*s %s\n", width, c.name, c.summary)
		}
		fmt.Fprintln(w)
		if after != "" {
			fmt.Fprintln(w, after)
		}
		fmt.Fprintf(w, "Run '%s %s SUBCOMMAND --help' for its flags.\n%s\n", programName, group, exit)
	}
}

// newFlags returns a flag set whose --help prints usageLine and the flags,
// and whose errors are the caller's to report.
func newFlags(e *env, name, usageLine, description string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s %s\n\n%s\n", programName, usageLine, description)
		if fs.HasFlags() {
			fmt.Fprintf(fs.Output(), "\nFlags:\n%s", plainBools(fs.FlagUsages()))
		}
	}
	return fs
}

// plainBools drops pflag's "[=true|false]" after boolean flags (spaces
// keep the columns): --accept is shown as users type it (--accept=false
// still parses).
func plainBools(usages string) string {
	return strings.ReplaceAll(usages, "[=true|false]", "             ")
}

// parseFlags parses args; it returns (exit code, false) when the command
// should stop: --help (0, usage on stdout) or a bad flag (2).
//
// One rule for spelling long flags everywhere: --name and, as go test
// writes them, -name (so -update, -format json and -through=3 all work).
// Single-letter shorthands and their bundles (-q, -h) are unchanged.
func parseFlags(e *env, fs *pflag.FlagSet, args []string) (int, bool) {
	fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(singleDashLong(fs, args)); err != nil {
		if err == pflag.ErrHelp {
			return exitOK, false
		}
		var bad *pflag.InvalidValueError
		if errors.As(err, &bad) {
			// "--batch must be an integer from 1 to 1000000, not "0"":
			// the flag, the rule, the value, in that order everywhere.
			rule := errors.Unwrap(err).Error()
			if bits, ok := intFlagBits[bad.GetFlag().Value.Type()]; ok && rule == "must be an integer" && isIntegerSpelling(bad.GetValue()) {
				// pflag says the same of 1e3 and of a number past the
				// type's range.
				rule = fmt.Sprintf("must be an integer from %d to %d", -1<<(bits-1), 1<<(bits-1)-1)
			}
			return usageError(e, fs.Name(), "--%s %s, not %q", bad.GetFlag().Name, rule, bad.GetValue()), false
		}
		return usageError(e, fs.Name(), "%v", err), false
	}
	if h, _ := fs.GetBool("help"); h {
		fs.SetOutput(e.stdout)
		fs.Usage()
		return exitOK, false
	}
	return 0, true
}

// intFlagBits is the width of pflag's signed integer flag types.
var intFlagBits = map[string]uint{"int": strconv.IntSize, "int64": 64, "int32": 32, "int16": 16, "int8": 8}

// isIntegerSpelling reports whether s is an integer written in decimal,
// with an optional sign.
func isIntegerSpelling(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// singleDashLong rewrites -name and -name=value to their -- spelling when
// name is a long flag of fs, up to a "--" argument.
func singleDashLong(fs *pflag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			name, _, _ := strings.Cut(a[1:], "=")
			if len(name) > 1 && fs.Lookup(name) != nil {
				a = "-" + a
			}
		}
		out = append(out, a)
	}
	return out
}

// errorLine prints err as one line on stderr: "tracecheck CMD: message".
// Errors quote paths and input as they are, so the message is escaped
// (textsafe.Escape): no control character or escape sequence in a file
// name or an id reaches the terminal, and the line stays one line.
func errorLine(e *env, cmd string, err error) {
	fmt.Fprintf(e.stderr, "%s: %s\n", strings.TrimSpace(programName+" "+cmd), textsafe.Escape(err.Error()))
}

// usageError prints one line naming the command and the mistake, and
// where to read more; it returns exitUsage. cmd "" is tracecheck itself.
func usageError(e *env, cmd, format string, a ...any) int {
	name := strings.TrimSpace(programName + " " + cmd)
	fmt.Fprintf(e.stderr, "%s: %s (see '%s --help')\n", name, fmt.Sprintf(format, a...), name)
	return exitUsage
}

func runVersion(e *env, args []string) int {
	fs := newFlags(e, "version", "version", "Print the tracecheck version and the Trace format version it reads.")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(e, "version", "unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprintf(e.stdout, "tracecheck %s (trace %s)\n", version, journal.TraceVersion)
	return exitOK
}

// formatValue is the value of --format, one of the formats a command
// offers; any other value is a usage error when the flag is parsed.
type formatValue struct {
	value   string
	allowed []string
}

// formatFlag adds --format to fs: the output format, one of allowed, the
// first being the default. Every command spells and checks it the same way.
func formatFlag(fs *pflag.FlagSet, allowed ...string) *string {
	f := &formatValue{value: allowed[0], allowed: allowed}
	fs.Var(f, "format", "output `FORMAT`: "+orList(allowed))
	return &f.value
}

func (f *formatValue) String() string { return f.value }
func (f *formatValue) Type() string   { return "string" }
func (f *formatValue) Set(s string) error {
	if !slices.Contains(f.allowed, s) {
		return fmt.Errorf("must be %s", orList(f.allowed))
	}
	f.value = s
	return nil
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// notes returns a writer for notes on stderr: each line written to it gets
// "tracecheck CMD: " in front, except indented continuation lines.
func notes(w io.Writer, cmd string) io.Writer {
	return &noteWriter{w: w, prefix: programName + " " + cmd + ": "}
}

type noteWriter struct {
	w      io.Writer
	prefix string
}

func (n *noteWriter) Write(b []byte) (int, error) {
	var out strings.Builder
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "  ") {
			out.WriteString(n.prefix)
		}
		out.WriteString(line)
	}
	if _, err := io.WriteString(n.w, out.String()); err != nil {
		return 0, err
	}
	return len(b), nil
}
