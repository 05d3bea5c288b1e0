package main

import (
	"fmt"
	"io"
	"os"

	"github.com/tracecheck/tracecheck/internal/atomicfile"
	"github.com/tracecheck/tracecheck/internal/cireport"
	"github.com/tracecheck/tracecheck/internal/jsonout"
	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/tracediff"
	"github.com/tracecheck/tracecheck/tracediff/trajectory"
)

func runDiff(e *env, args []string) int {
	fs := newFlags(e, "diff", "diff EXPECTED ACTUAL [--normalize] [--match MODE] [--match-config FILE] [--format text|json|junit|github]",
		"Compare two Trace files (either may be '-', standard input) and report every difference:\n"+
			"each differing event (run, sequence, event_id, type, line in each file), the JSON\n"+
			"pointer of each differing field with the expected and actual values, the counts, and\n"+
			"a unified diff of the differing lines. Events are aligned by sequence within a run;\n"+
			"runs are taken in file order. Events are equal when their JSON values are (member\n"+
			"order aside; --bytes makes any byte count). ACTUAL must be a valid trace; so must\n"+
			"EXPECTED, unless --normalize.\n\n"+
			"--normalize reads EXPECTED as a tolerant golden, as 'tracecheck normalize' writes it:\n"+
			"\"[NAME]\" binds any value (the same at every occurrence, distinct names distinct\n"+
			"values), \"[TIMESTAMP]\" (never decreasing along a run at /timestamp), \"[UUID]\",\n"+
			"\"[DURATION]\", \"{...}\" any value, a member \"...\": \"{...}\" any further members, an\n"+
			"array element \"...\" any run of elements, [..] inside a string any characters, and a\n"+
			"leading backslash makes a string literal.\n\n"+
			"--match compares the tool calls only (tool.request with its tool.result): exact,\n"+
			"contains-in-order, same-multiset, subset or superset; --match-config FILE adds\n"+
			"per-tool argument matching and policy checks (see schema/match-config.schema.json).\n\n"+
			"Exit 0 same, 1 different or an invalid trace, 2 usage error (bad flag, a missing or\n"+
			"unreadable file, a bad match config).")
	tolerantFlag := fs.Bool("normalize", false, "read EXPECTED as a tolerant golden (placeholders match what varies between runs)")
	match := fs.String("match", "", "compare the tool-call trajectory: `MODE` exact, contains-in-order, same-multiset, subset or superset")
	matchConfig := fs.String("match-config", "", "JSON `FILE` with the match mode, per-tool argument matching and policy checks")
	format := formatFlag(fs, "text", "json", "junit", "github")
	bytesFlag := fs.Bool("bytes", false, "count events written with other bytes (member order, spacing, escapes) as changed")
	maxEvents := fs.Int("max-events", tracediff.DefaultMaxEvents, "report at most `N` differing events in full; count the rest")
	context := fs.Int("context", tracediff.DefaultContext, "`N` lines of context around each hunk of the unified diff")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() != 2 {
		return usageError(e, "diff", "want EXPECTED and ACTUAL, got %d", fs.NArg())
	}
	expPath, actPath := fs.Arg(0), fs.Arg(1)
	if expPath == "-" && actPath == "-" {
		return usageError(e, "diff", "only one of EXPECTED and ACTUAL can be '-'")
	}
	if *maxEvents < 1 {
		return usageError(e, "diff", "--max-events must be at least 1")
	}
	cfg, code := loadMatch(e, *match, *matchConfig)
	if code != exitOK {
		return code
	}
	if cfg == nil && *bytesFlag && *tolerantFlag {
		return usageError(e, "diff", "--bytes compares exactly; it does not go with --normalize")
	}
	exp, expName, ok := openFile(e, "diff", expPath)
	if !ok {
		return exitUsage
	}
	defer exp.Close()
	act, actName, ok := openFile(e, "diff", actPath)
	if !ok {
		return exitUsage
	}
	defer act.Close()

	ctx := *context
	if ctx == 0 {
		ctx = -1 // the flag's 0 means none; Options' 0 means the default
	}
	opt := tracediff.Options{Tolerant: *tolerantFlag, Bytes: *bytesFlag, MaxEvents: *maxEvents, Context: ctx}
	var r *tracediff.Report
	if cfg != nil {
		r = trajectory.Diff(tracediff.Input{Name: expName, R: exp}, tracediff.Input{Name: actName, R: act}, cfg, opt)
	} else {
		r = tracediff.Diff(tracediff.Input{Name: expName, R: exp}, tracediff.Input{Name: actName, R: act}, opt)
	}
	if err := writeDiffReport(e.stdout, r, *format, expPath); err != nil {
		errorLine(e, "diff", err)
		return exitFailed
	}
	if !r.Equal {
		return exitFailed
	}
	return exitOK
}

// loadMatch reads --match and --match-config; nil when neither is given
// (an event-by-event diff).
func loadMatch(e *env, mode, path string) (*trajectory.Config, int) {
	if mode == "" && path == "" {
		return nil, exitOK
	}
	cfg := &trajectory.Config{}
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(e.stderr, "%s diff: --match-config %v\n", programName, inputError(path, err))
			return nil, exitUsage
		}
		if cfg, err = trajectory.ParseConfig(data, path); err != nil {
			errorLine(e, "diff", fmt.Errorf("--match-config: %w", err))
			return nil, exitUsage
		}
	}
	if mode != "" {
		m, err := trajectory.ParseMode(mode)
		if err != nil {
			return nil, usageError(e, "diff", "--match: %v", err)
		}
		cfg.Match = m
	}
	return cfg, exitOK
}

func writeDiffReport(w io.Writer, r *tracediff.Report, format, expPath string) error {
	switch format {
	case "json":
		return jsonout.Write(w, r)
	case "junit":
		name := r.Expected.File + " vs " + r.Actual.File
		return cireport.WriteJUnit(w, programName, cireport.Suite{Name: programName + " diff", Cases: []cireport.Case{r.JUnitCase(name)}})
	case "github":
		file := expPath
		if file == "-" {
			file = ""
		}
		return cireport.WriteGitHub(w, r.Annotations(file))
	}
	return r.WriteText(w)
}

func runNormalize(e *env, args []string) int {
	fs := newFlags(e, "normalize", "normalize FILE [-o OUT]",
		"Print the tolerant form of a Trace file (or '-', standard input), to be committed as a\n"+
			"golden and compared with later runs by 'tracecheck diff --normalize GOLDEN ACTUAL'.\n"+
			"Identities (event_id, parent_event_id, session_id, provenance.run_id, and\n"+
			"tool_call_id, call_id, run_id, session_id, event_id, parent_* and tool_calls[].id in\n"+
			"payloads) and UUID-shaped strings become bindings [ID-1], [ID-2], ... in order of\n"+
			"first appearance (equal values share a name); timestamps and other RFC 3339\n"+
			"date-times become [TIMESTAMP]; every duration_ms becomes [DURATION]; a UUID inside a\n"+
			"longer string becomes [UUID]; data that would read as a placeholder is escaped with\n"+
			"a leading backslash. Everything else is kept. Edit the result to loosen it further.\n\n"+
			"The file must be a valid trace. With -o the output replaces OUT atomically (a\n"+
			"device or FIFO such as /dev/null or /dev/stdout is written into; a directory, a\n"+
			"missing directory or FILE itself is refused), and only when the trace is valid.\n"+
			"On standard output the tolerant form is held until the trace is known valid (up\n"+
			"to 64 MiB; past that it is written as it comes, and an invalid trace says so).\n"+
			"Exit 0 ok, 1 invalid trace, 2 usage error.")
	out := fs.StringP("output", "o", "", "write to `OUT` (atomically) instead of standard output")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	path, ok := oneFile(e, fs, "normalize")
	if !ok {
		return exitUsage
	}
	if *out != "" {
		if p := outputProblem("-o", *out); p != "" {
			return usageError(e, "normalize", "%s", p)
		}
		if path != "-" && sameFile(path, *out) {
			return usageError(e, "normalize", "-o %s is the input file; it would be overwritten", textsafe.Quote(*out))
		}
	}
	r, name, ok := openFile(e, "normalize", path)
	if !ok {
		return exitUsage
	}
	defer r.Close()
	var problems []tracediff.Problem
	var err error
	streamed := false
	if *out == "" {
		// Held until the trace is known valid, so that an invalid one
		// prints nothing to capture; a tolerant form past holdBytes is
		// written as it comes (-o is all or nothing at any size).
		h := &heldWriter{w: e.stdout, max: holdBytes}
		problems, err = tracediff.Normalize(tracediff.Input{Name: name, R: r}, h)
		if err == nil && len(problems) == 0 {
			err = h.flush()
		}
		streamed = h.streamed
	} else {
		err = atomicfile.WriteOutput(*out, 0o644, func(w io.Writer) error {
			var nerr error
			if problems, nerr = tracediff.Normalize(tracediff.Input{Name: name, R: r}, w); nerr == nil && len(problems) > 0 {
				nerr = errInvalidTrace
			}
			return nerr
		})
		if err == errInvalidTrace {
			err = nil
		}
	}
	for _, p := range problems {
		fmt.Fprintln(e.stderr, p)
	}
	if err != nil {
		errorLine(e, "normalize", err)
		return exitFailed
	}
	if len(problems) > 0 {
		if streamed {
			fmt.Fprintf(e.stderr, "%s normalize: %s is not a valid trace; nothing to capture (standard output has its first %d MiB: discard it)\n", programName, textsafe.Quote(name), holdBytes>>20)
		} else {
			fmt.Fprintf(e.stderr, "%s normalize: %s is not a valid trace; nothing to capture\n", programName, textsafe.Quote(name))
		}
		return exitFailed
	}
	return exitOK
}

var errInvalidTrace = fmt.Errorf("not a valid trace")

// holdBytes is how much of its output normalize holds back until the
// trace is known valid.
const holdBytes = 64 << 20

// heldWriter holds what is written, up to max bytes, until flush; past
// max it writes what it held and then everything as it comes.
type heldWriter struct {
	w        io.Writer
	max      int
	held     []byte
	streamed bool
}

func (h *heldWriter) Write(b []byte) (int, error) {
	if !h.streamed && len(h.held)+len(b) <= h.max {
		h.held = append(h.held, b...)
		return len(b), nil
	}
	if err := h.flush(); err != nil {
		return 0, err
	}
	h.streamed = true
	return h.w.Write(b)
}

// flush writes what is held.
func (h *heldWriter) flush() error {
	if len(h.held) == 0 {
		return nil
	}
	_, err := h.w.Write(h.held)
	h.held = nil
	return err
}
