package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/tracecheck/tracecheck/exercise"
	"github.com/tracecheck/tracecheck/exercise/reference"
	"github.com/tracecheck/tracecheck/exercise/subject"
	"github.com/tracecheck/tracecheck/internal/cireport"
	"github.com/tracecheck/tracecheck/internal/jsonout"
	"github.com/tracecheck/tracecheck/internal/term"
	"github.com/tracecheck/tracecheck/internal/textsafe"
)

// exitProtocol: the subject broke the protocol (exercise run, conform).
const exitProtocol = 3

func exerciseCommands() []command {
	return []command{
		{"list", "the exercises and your progress", runExerciseList},
		{"show", "an exercise's statement, criteria and (--hint) hints", runExerciseShow},
		{"run", "check your subject on an exercise: -- CMD ARGS...", runExerciseRun},
		{"watch", "check the next exercise again each time you save: -- CMD ARGS...", runExerciseWatch},
		{"reset", "forget an exercise's progress", runExerciseReset},
		{"serve", "answer the protocol with tracecheck's own implementation", runExerciseServe},
	}
}

var exerciseUsage = groupUsage("exercise", "SUBCOMMAND [flags]",
	"Exercises A-F of the curriculum's lesson s07 and R (resume, chapter 20 of the\n"+
		"TypeScript harness), checked on your own program, in any language, through the\n"+
		"subject protocol (docs/protocol.md). Subcommands:",
	exerciseCommands,
	"Start: "+programName+" exercise list; "+programName+" exercise show A;\n"+
		"       "+programName+" exercise run A -- python3 subject.py\n"+
		"       "+programName+" exercise watch -- python3 subject.py   (again on every save)\n"+
		"Starter kits: exercises/python/starter, exercises/go/starter.",
	"Exit status: 0 ok, 1 a criterion failed, 2 usage error, 3 the subject broke the protocol.")

func runExercise(e *env, args []string) int {
	return dispatch(e, args, exerciseCommands(), "exercise", exerciseUsage)
}

// progressFlag adds --state.
func progressFlag(fs *pflag.FlagSet) *string {
	return fs.String("state", exercise.DefaultProgressFile, "keep your progress in `FILE`")
}

func loadProgress(e *env, cmd, path string) (*exercise.Progress, bool) {
	p, err := exercise.LoadProgress(path)
	if err != nil {
		errorLine(e, cmd, err)
		return nil, false
	}
	return p, true
}

func findExercise(e *env, cmd, id string) (*exercise.Exercise, bool) {
	ex, err := exercise.Find(id)
	if err != nil {
		usageError(e, cmd, "%v", err)
		return nil, false
	}
	return ex, true
}

func runExerciseList(e *env, args []string) int {
	const cmd = "exercise list"
	fs := newFlags(e, cmd, "exercise list [--state FILE] [--format text|json]",
		"List the exercises: id, title, the ops your subject must answer for it, and your\n"+
			"progress (criteria passed, from the progress file that 'exercise run' keeps).")
	state := progressFlag(fs)
	format := formatFlag(fs, "text", "json")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(e, cmd, "unexpected argument %q", fs.Arg(0))
	}
	p, ok := loadProgress(e, cmd, *state)
	if !ok {
		return exitUsage
	}
	if *format == "json" {
		if err := jsonout.Write(e.stdout, struct {
			State     string               `json:"state"`
			Exercises []exercise.ListEntry `json:"exercises"`
		}{*state, exercise.List(p)}); err != nil {
			return exitFailed
		}
		return exitOK
	}
	exercise.WriteListText(e.stdout, p, programName)
	fmt.Fprintf(e.stdout, "progress: %s\n", textsafe.Quote(*state))
	return exitOK
}

func runExerciseShow(e *env, args []string) int {
	const cmd = "exercise show"
	fs := newFlags(e, cmd, "exercise show ID [--hint] [--state FILE] [--format text|json]",
		"Show exercise ID (A-F, R): where it comes from, the ops it needs, what to build, and\n"+
			"its acceptance criteria in order, each marked when it passed. --hint adds the hint of\n"+
			"every criterion.")
	withHint := fs.Bool("hint", false, "show the hint of each criterion")
	state := progressFlag(fs)
	format := formatFlag(fs, "text", "json")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(e, cmd, "want one exercise id, got %d", fs.NArg())
	}
	ex, ok := findExercise(e, cmd, fs.Arg(0))
	if !ok {
		return exitUsage
	}
	p, ok := loadProgress(e, cmd, *state)
	if !ok {
		return exitUsage
	}
	if *format == "json" {
		if err := ex.WriteStatementJSON(e.stdout, p); err != nil {
			return exitFailed
		}
		return exitOK
	}
	ex.WriteStatement(e.stdout, p, *withHint, programName)
	return exitOK
}

// subjectFlags adds the flags of a run against a subject.
type subjectFlags struct {
	seed           *int64
	timeout        *time.Duration
	startupTimeout *time.Duration
	maxResponse    *int
	reference      *string
}

func addSubjectFlags(fs *pflag.FlagSet) *subjectFlags {
	return &subjectFlags{
		seed:           fs.Int64("seed", 0, "generate the cases from `N` (default: a new seed each run, printed so that it can be repeated)"),
		timeout:        fs.Duration("timeout", subject.DefaultTimeout, "how long to wait for each response (a `DURATION` such as 10s)"),
		startupTimeout: fs.Duration("startup-timeout", subject.DefaultStartupTimeout, "how long to wait for the answer to hello (interpreters and 'go run' start slowly; a `DURATION`)"),
		maxResponse:    fs.Int("max-response", subject.DefaultMaxResponseBytes, "the longest response line, in `BYTES`"),
		reference:      fs.String("reference", "", "also draw cases from the *.trace.jsonl files under `DIR` (default: ../shared/reference beside the tracecheck module, when it exists; --reference= for none)"),
	}
}

// config checks the flags and the command line after "--" and builds the
// run's configuration; ok is false after a usage error.
func (sf *subjectFlags) config(e *env, fs *pflag.FlagSet, cmd string) (exercise.Config, bool) {
	var cfg exercise.Config
	dash := fs.ArgsLenAtDash()
	if dash < 0 || dash == fs.NArg() {
		usageError(e, cmd, "no subject: give its command line after --, e.g. -- python3 subject.py")
		return cfg, false
	}
	cfg.Argv = fs.Args()[dash:]
	if *sf.timeout <= 0 || *sf.startupTimeout <= 0 || *sf.maxResponse <= 0 {
		usageError(e, cmd, "--timeout, --startup-timeout and --max-response must be positive")
		return cfg, false
	}
	cfg.Subject = subject.Options{Timeout: *sf.timeout, StartupTimeout: *sf.startupTimeout, MaxResponseBytes: *sf.maxResponse}
	cfg.Seed = *sf.seed
	if !fs.Changed("seed") {
		cfg.Seed = 1 + rand.Int64N(999_999)
	}
	dir := *sf.reference
	if !fs.Changed("reference") {
		wd, _ := os.Getwd()
		dir = exercise.DefaultReferenceDir(wd)
	} else if dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			usageError(e, cmd, "--reference %s is not a directory", textsafe.Quote(dir))
			return cfg, false
		}
	}
	fx, err := exercise.LoadFixtures(dir)
	if err != nil {
		usageError(e, cmd, "%v", err)
		return cfg, false
	}
	cfg.Fixtures = fx
	return cfg, true
}

// startFailed reports a subject that could not be started (exit 2).
func startFailed(e *env, cmd string, err error) int {
	var se *subject.StartError
	if errors.As(err, &se) {
		return usageError(e, cmd, "%v", err)
	}
	errorLine(e, cmd, err)
	return exitFailed
}

// finish writes the report in its format and returns the exit status. A
// protocol error is also one line on stderr, followed by the subject's
// stderr tail, whatever the format.
func finish(e *env, cmd, format string, r *exercise.Report, rerun string) int {
	return finishWith(e, cmd, format, r, rerun, exercise.TextOptions{})
}

// finishWith is finish with the text report's options.
func finishWith(e *env, cmd, format string, r *exercise.Report, rerun string, opts exercise.TextOptions) int {
	var err error
	switch format {
	case "json":
		err = r.WriteJSON(e.stdout)
	case "exercism":
		err = r.WriteExercism(e.stdout)
	case "junit":
		err = cireport.WriteJUnit(e.stdout, "tracecheck "+r.Command, r.JUnitSuites()...)
	default:
		if r.Status != exercise.Broken {
			r.WriteTextOptions(e.stdout, rerun, opts)
		}
	}
	if err != nil {
		errorLine(e, cmd, err)
		return exitFailed
	}
	if r.Status == exercise.Broken {
		writeBroken(e.stderr, programName+" "+cmd, r)
		return exitProtocol
	}
	return r.ExitCode()
}

// writeBroken says that the subject broke the protocol, after prefix, with
// the tail of its stderr.
func writeBroken(w io.Writer, prefix string, r *exercise.Report) {
	fmt.Fprintf(w, "%s: the subject broke the protocol: %s\n", prefix, textsafe.Escape(r.Protocol))
	for _, l := range r.Stderr {
		fmt.Fprintf(w, "  subject stderr | %s\n", textsafe.Escape(l))
	}
}

// showRequestFlag adds --show-request.
func showRequestFlag(fs *pflag.FlagSet) *bool {
	return fs.Bool("show-request", false, "show a failed criterion's whole request (the JSON line sent) instead of a summary with its event lists shortened")
}

// textOptions are the text report's options for --show-request.
func textOptions(showRequest bool) exercise.TextOptions {
	return exercise.TextOptions{WholeRequests: showRequest, WholeRequestFlag: "--show-request"}
}

// allDone is what run and watch say once every exercise passes.
func allDone(argv []string) string {
	return fmt.Sprintf("Every exercise is done: %s conform -- %s checks them all.", programName, exercise.ShellJoin(argv))
}

// rerunLine is the command line that repeats a run with the same cases.
func rerunLine(cmd string, seed int64, argv []string) string {
	return fmt.Sprintf("%s %s --seed %d -- %s", programName, cmd, seed, exercise.ShellJoin(argv))
}

var runFormats = []string{"text", "json", "exercism", "junit"}

func runExerciseRun(e *env, args []string) int {
	const cmd = "exercise run"
	fs := newFlags(e, cmd, "exercise run ID [flags] -- CMD ARGS...",
		"Start CMD ARGS (your subject) once, shake hands, and check exercise ID: the current\n"+
			"criterion (the first not passed yet) first, then the earlier ones again, then the\n"+
			"later ones, stopping at the first failure. A failure shows the request, the first\n"+
			"field of the response that differs from tracecheck's answer (a JSON pointer, with\n"+
			"both values), the criterion's hint and the tail of the subject's stderr. Progress\n"+
			"is kept in the --state file. Cases come from the goldens, the reference traces and\n"+
			"a seed; --seed N repeats a run's cases. The request is shown with its event lists\n"+
			"shortened (<12 events: evt-000 .. evt-011>); --show-request shows it whole, as the\n"+
			"one line of JSON tracecheck sent (--format json always holds it whole).\n\n"+
			"Exit 0 every criterion passes, 1 one failed (or the subject lacks an op the exercise\n"+
			"needs), 2 usage error (unknown exercise, no command, a command that cannot start),\n"+
			"3 the subject broke the protocol (crashed, timed out, wrote a stdout line that is not\n"+
			"a valid response): one line on stderr names the stdout line and why.")
	state := progressFlag(fs)
	sf := addSubjectFlags(fs)
	showRequest := showRequestFlag(fs)
	format := formatFlag(fs, runFormats...)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.ArgsLenAtDash() != 1 && !(fs.ArgsLenAtDash() < 0 && fs.NArg() == 1) {
		if fs.NArg() == 0 || fs.ArgsLenAtDash() == 0 {
			return usageError(e, cmd, "no exercise id: exercise run ID -- CMD ARGS...")
		}
		if fs.ArgsLenAtDash() < 0 {
			return usageError(e, cmd, "put -- before the subject's command line: exercise run %s -- %s", fs.Arg(0), strings.Join(fs.Args()[1:], " "))
		}
		return usageError(e, cmd, "want one exercise id before --, got %q", fs.Args()[:fs.ArgsLenAtDash()])
	}
	ex, ok := findExercise(e, cmd, fs.Arg(0))
	if !ok {
		return exitUsage
	}
	cfg, ok := sf.config(e, fs, cmd)
	if !ok {
		return exitUsage
	}
	p, ok := loadProgress(e, cmd, *state)
	if !ok {
		return exitUsage
	}
	r, err := exercise.RunExercise(cfg, ex, p.PassedSet(ex))
	if err != nil {
		return startFailed(e, cmd, err)
	}
	recordResult(e, cmd, p, ex, r, *state)
	code := finishWith(e, cmd, *format, r, rerunLine("exercise run "+ex.ID, cfg.Seed, cfg.Argv), textOptions(*showRequest))
	if *format == "text" && r.Status == exercise.Pass {
		fmt.Fprintf(e.stdout, "exercise %s passes.", ex.ID)
		if next := p.Next(); next != nil {
			fmt.Fprintf(e.stdout, " next: %s exercise show %s\n", programName, next.ID)
		} else {
			fmt.Fprintf(e.stdout, " %s\n", allDone(cfg.Argv))
		}
	} else if *format == "text" && r.Status == exercise.Fail && len(r.Exercises) == 1 && r.Exercises[0].Status == exercise.Fail {
		fmt.Fprintf(e.stdout, "more help: %s exercise show %s --hint\n", programName, ex.ID)
	}
	return code
}

// recordResult keeps the result of a run of ex in the progress file path
// (a run that checked nothing, the subject lacking the ops, is not kept).
func recordResult(e *env, cmd string, p *exercise.Progress, ex *exercise.Exercise, r *exercise.Report, path string) {
	if len(r.Exercises) == 1 && r.Exercises[0].Status != exercise.Skipped {
		p.Record(ex, r.Exercises[0])
		if err := p.Save(path); err != nil {
			errorLine(e, cmd, err)
		}
	}
}

func runExerciseReset(e *env, args []string) int {
	const cmd = "exercise reset"
	fs := newFlags(e, cmd, "exercise reset ID... | --all [--state FILE]",
		"Forget the progress of the exercises named (or of every one with --all), so that\n"+
			"'exercise run' starts them again from their first criterion.")
	all := fs.Bool("all", false, "forget every exercise's progress")
	state := progressFlag(fs)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if *all == (fs.NArg() > 0) {
		return usageError(e, cmd, "name the exercises to reset, or give --all")
	}
	p, ok := loadProgress(e, cmd, *state)
	if !ok {
		return exitUsage
	}
	targets := exercise.Catalog()
	if !*all {
		targets = nil
		for _, id := range fs.Args() {
			ex, ok := findExercise(e, cmd, id)
			if !ok {
				return exitUsage
			}
			targets = append(targets, ex)
		}
	}
	for _, ex := range targets {
		p.Reset(ex)
		fmt.Fprintf(e.stdout, "reset %s\n", ex.ID)
	}
	if err := p.Save(*state); err != nil {
		errorLine(e, cmd, err)
		return exitFailed
	}
	return exitOK
}

func runExerciseServe(e *env, args []string) int {
	const cmd = "exercise serve"
	fs := newFlags(e, cmd, "exercise serve",
		"Answer the subject protocol on standard input and output with tracecheck's own\n"+
			"implementation (journal, reducer, the session store): a subject that passes every\n"+
			"exercise. Try: "+programName+" conform -- "+programName+" exercise serve")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(e, cmd, "unexpected argument %q", fs.Arg(0))
	}
	if err := reference.Serve(e.stdin, e.stdout); err != nil {
		errorLine(e, cmd, err)
		return exitFailed
	}
	return exitOK
}

func runExerciseWatch(e *env, args []string) int {
	const cmd = "exercise watch"
	fs := newFlags(e, cmd, "exercise watch [--dir DIR] [--through ID] [--show-request] [flags] -- CMD ARGS...",
		"Work through the exercises the way rustlings watch does: start CMD ARGS (your\n"+
			"subject) and check the first exercise not done yet; when it passes, go on to the\n"+
			"next; when it fails, show why and wait until a file under --dir changes (you saved\n"+
			"your code), then check again. Files under hidden folders, node_modules and\n"+
			"__pycache__ are not watched. Progress is kept in the --state file, as exercise run\n"+
			"keeps it. One seed (--seed, or one picked at the start) serves every check.\n\n"+
			"Keys, while it waits: r (or Enter) checks again now, h shows the exercise with its\n"+
			"hints, q (or Ctrl-D) quits. On a terminal a key works without Enter and is not\n"+
			"echoed: the terminal is in key mode while watch runs, and given back as it was when\n"+
			"watch ends, on q, on Ctrl-C and on SIGINT or SIGTERM. When standard input is not a\n"+
			"terminal, each line is a key (an empty line is Enter).\n\n"+
			"It stops when every exercise is done, or with --through ID once ID and the exercises\n"+
			"before it are done (--through F: lesson s07's A-F, without R). A failed criterion\n"+
			"shows its request with the event lists shortened (<12 events: evt-000 .. evt-011>);\n"+
			"--show-request shows it whole, as the one line of JSON tracecheck sent.\n\n"+
			"Exit 0 done, quit, or at the end of standard input; 2 usage error (an unknown flag,\n"+
			"no command, --through not an exercise, --dir not a directory or holding more than\n"+
			"10,000 files). Ctrl-C, SIGINT or SIGTERM ends it by that signal.")
	state := progressFlag(fs)
	dir := fs.String("dir", ".", "watch the files under `DIR` (your subject's folder)")
	every := fs.Duration("interval", 500*time.Millisecond, "look at the files every `DURATION`")
	through := fs.String("through", "", "stop once exercise `ID` and those before it are done (F: lesson s07's exercises, without R)")
	showRequest := showRequestFlag(fs)
	sf := addSubjectFlags(fs)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.ArgsLenAtDash() > 0 || (fs.ArgsLenAtDash() < 0 && fs.NArg() > 0) {
		return usageError(e, cmd, "no exercise id: watch checks the first exercise not done yet; give only -- CMD ARGS...")
	}
	var last *exercise.Exercise // --through
	if fs.Changed("through") {
		ex, err := exercise.Find(*through)
		if err != nil {
			return usageError(e, cmd, "--through: %v", err)
		}
		last = ex
	}
	if *every <= 0 {
		return usageError(e, cmd, "--interval must be positive")
	}
	if fi, err := os.Stat(*dir); err != nil || !fi.IsDir() {
		return usageError(e, cmd, "--dir %s is not a directory", textsafe.Quote(*dir))
	}
	cfg, ok := sf.config(e, fs, cmd)
	if !ok {
		return exitUsage
	}
	p, ok := loadProgress(e, cmd, *state)
	if !ok {
		return exitUsage
	}
	if _, err := exercise.SnapshotDir(*dir); err != nil {
		return usageError(e, cmd, "%v", err)
	}
	stopped := make(chan struct{})
	defer close(stopped)
	keys, restore, err := watchKeys(e, stopped)
	if err != nil {
		errorLine(e, cmd, err)
		return exitFailed
	}
	defer restore()

	opts := textOptions(*showRequest)
	for {
		ex := p.NextThrough(last)
		if ex == nil {
			fmt.Fprintln(e.stdout, watchDone(p, last, cfg.Argv))
			return exitOK
		}
		r, err := exercise.RunExercise(cfg, ex, p.PassedSet(ex))
		switch {
		case err != nil:
			fmt.Fprintf(e.stdout, "exercise %s: the subject did not start: %s\n", ex.ID, textsafe.Escape(err.Error()))
		case r.Status == exercise.Broken:
			recordResult(e, cmd, p, ex, r, *state)
			writeBroken(e.stdout, "exercise "+ex.ID, r)
		default:
			recordResult(e, cmd, p, ex, r, *state)
			r.WriteTextOptions(e.stdout, rerunLine("exercise run "+ex.ID, cfg.Seed, cfg.Argv), opts)
			// Going on needs the progress to have moved: an exercise that
			// passes without being recorded as done would be checked again
			// at once, for ever.
			if r.Status == exercise.Pass && p.NextThrough(last) != ex {
				fmt.Fprintf(e.stdout, "exercise %s passes.\n\n", ex.ID)
				continue
			}
		}
		if quit := waitForChange(e, *dir, *every, keys, ex, p); quit {
			return exitOK
		}
	}
}

// watchDone is what watch says when the exercises it checks (every one,
// or those through last) are done.
func watchDone(p *exercise.Progress, last *exercise.Exercise, argv []string) string {
	next := p.Next()
	if next == nil {
		return allDone(argv)
	}
	return fmt.Sprintf("Every exercise through %s is done (--through %s). Next: %s exercise watch -- %s goes on with exercise %s.",
		last.ID, last.ID, programName, exercise.ShellJoin(argv), next.ID)
}

// watchKeys reads watch's keys from standard input until stopped is
// closed. On a terminal a key is one key press, without Enter: the
// terminal is put in key mode (no echo, so typed keys never mix into the
// output; Ctrl-C still interrupts) until restore is called, or a signal
// comes (internal/term). Otherwise a key is one line, trimmed. The channel
// is closed at the end of input.
func watchKeys(e *env, stopped <-chan struct{}) (keys <-chan string, restore func(), err error) {
	ch := make(chan string)
	send := func(k string) bool {
		select {
		case ch <- k:
			return true
		case <-stopped:
			return false
		}
	}
	restore = func() {}
	onTerminal := isTerminal(e.stdin)
	if f, ok := e.stdin.(*os.File); ok && onTerminal {
		back, err := term.KeyModeWithSignals(f)
		if err != nil {
			return nil, nil, fmt.Errorf("standard input is a terminal that cannot be put in key mode: %w", err)
		}
		restore = func() { back() }
	}
	go func() {
		defer close(ch)
		if !onTerminal {
			sc := bufio.NewScanner(e.stdin)
			for sc.Scan() {
				if !send(strings.TrimSpace(sc.Text())) {
					return
				}
			}
			return
		}
		buf := make([]byte, 256)
		for {
			n, err := e.stdin.Read(buf)
			for _, k := range splitKeys(buf[:n]) {
				if !send(k) {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return ch, restore, nil
}

// splitKeys splits what one read of a terminal in key mode returned into
// keys, as watch's line keys spell them: Enter is "" (as an empty line),
// Ctrl-D and Ctrl-C (a byte only when signal keys are off) are "q", an
// escape sequence (an arrow key, a function key) is one key, any other
// character is itself.
func splitKeys(b []byte) []string {
	if len(b) > 0 && b[0] == 0x1b {
		return []string{string(b)}
	}
	var keys []string
	for _, r := range string(b) {
		switch r {
		case '\r', '\n':
			keys = append(keys, "")
		case 3, 4:
			keys = append(keys, "q")
		default:
			keys = append(keys, string(r))
		}
	}
	return keys
}

// waitForChange waits, after a check that failed, until a file under dir
// changes (looking every interval) or a key asks to check again (false),
// or q or the end of input asks to quit (true). The files are compared with
// their state when the wait begins, so that what the subject itself wrote
// while it ran does not count as the learner's change.
func waitForChange(e *env, dir string, every time.Duration, keys <-chan string, ex *exercise.Exercise, p *exercise.Progress) bool {
	base, err := exercise.SnapshotDir(dir)
	if err != nil {
		fmt.Fprintf(e.stdout, "cannot watch %s: %s\n", textsafe.Quote(dir), textsafe.Escape(err.Error()))
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	prompt := true
	for {
		if prompt {
			fmt.Fprintf(e.stdout, "watching %s: save a file to check again (r: again now, h: hints, q: quit)\n", textsafe.Quote(dir))
		}
		prompt = true
		select {
		case k, open := <-keys:
			switch {
			case !open || k == "q":
				return true
			case k == "h":
				ex.WriteStatement(e.stdout, p, true, programName)
			case k == "r" || k == "":
				return false
			default:
				fmt.Fprintf(e.stdout, "%s: not a key (r, h or q)\n", textsafe.Quote(k))
			}
		case <-tick.C:
			prompt = false
			if base == nil {
				continue // not readable when the wait began: keys only
			}
			if cur, err := exercise.SnapshotDir(dir); err == nil {
				if files := base.Changed(cur); len(files) > 0 {
					fmt.Fprintf(e.stdout, "changed: %s\n", textsafe.Quote(files[0]))
					return false
				}
			}
		}
	}
}
