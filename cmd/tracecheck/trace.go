package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tracecheck/tracecheck/internal/cireport"
	"github.com/tracecheck/tracecheck/internal/jsonout"
	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
	"github.com/tracecheck/tracecheck/schema"
)

// openInput opens FILE, or standard input for "-". The name is what error
// messages call it. Its errors read "FILE: why" (inputError); every one is
// a usage error (exit 2) for the caller.
func openInput(e *env, path string) (io.ReadCloser, string, error) {
	if path == "-" {
		return io.NopCloser(e.stdin), "<stdin>", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, path, inputError(path, err)
	}
	// A directory opens fine and fails on the first read; say so up front,
	// as the usage error it is.
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, path, inputError(path, errIsDir)
	}
	return f, path, nil
}

// openFile is openInput for a command that stops at the first file it
// cannot read: the error is one line on stderr, "tracecheck CMD: FILE:
// why", and ok is false (exit 2).
func openFile(e *env, cmd, path string) (io.ReadCloser, string, bool) {
	r, name, err := openInput(e, path)
	if err != nil {
		errorLine(e, cmd, err)
		return nil, name, false
	}
	return r, name, true
}

// errIsDir is why a directory given as FILE cannot be read.
var errIsDir = errors.New("is a directory, not a JSONL file")

// inputError says why FILE cannot be read as every command says it:
// "FILE: why", the name quoted when it needs to be (textsafe), without
// the system call ("open", "stat") that found out.
func inputError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %w", textsafe.Quote(path), err)
}

func runValidate(e *env, args []string) int {
	fs := newFlags(e, "validate", "validate FILE... [--format text|json|junit|github] [-q] [--strict-payloads]",
		"Check each Trace JSONL file: every line against the Trace 0.1.0 schema, then the\n"+
			"journal invariants of each run (session_id + provenance.run_id) in it. A file\n"+
			"may hold several runs: each is checked on its own, so a second session or run\n"+
			"is not an error here (replay, fingerprint and branch take one run).\n\n"+
			"--format text (the default) prints problems on stderr as\n"+
			"FILE:LINE: CODE event ID at POINTER: message and 'ok FILE' on stdout; json\n"+
			"prints {\"ok\", \"files\": [{\"file\", \"ok\", \"problems\": [{\"code\", \"line\",\n"+
			"\"event_id\", \"pointer\", \"message\"}]}]} on stdout; junit prints JUnit XML, one\n"+
			"testcase per file, each problem in its failure text; github prints a GitHub\n"+
			"Actions annotation (::error file=FILE,line=LINE::...) per problem. '-' reads\n"+
			"standard input, once. Exit 0 when every file is valid, 1 when any is not, 2 on\n"+
			"usage errors (a missing file included).\n\n"+
			"--strict-payloads also checks each event whose type has a payload schema\n"+
			"(schema/payloads.schema.json, documented in docs/payloads.md) against it: a\n"+
			"payload that does not match is a PAYLOAD_SCHEMA problem at the pointer of the\n"+
			"failing member under /payload (a missing member's own pointer). Without it a\n"+
			"payload need only be an object.")
	quiet := fs.BoolP("quiet", "q", false, "text format: print nothing for valid files")
	strict := fs.Bool("strict-payloads", false, "also check each payload against its event type's payload schema")
	format := formatFlag(fs, "text", "json", "junit", "github")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return usageError(e, "validate", "no FILE given")
	}
	if stdinTwice(fs.Args()) {
		return usageError(e, "validate", "'-' (standard input) given more than once")
	}
	status := exitOK
	var results []fileResult
	for _, path := range fs.Args() {
		r, name, err := openInput(e, path)
		if err != nil {
			msg := journal.SafeText(err.Error())
			fmt.Fprintf(e.stderr, "tracecheck validate: %s\n", msg)
			status = exitUsage
			results = append(results, fileResult{File: name, Error: msg, Problems: []problem{}})
			continue
		}
		var opt journal.ValidateOptions
		if *strict {
			opt.Payload = schema.CheckPayload
		}
		errs := journal.ValidateWith(r, name, opt)
		r.Close()
		res := fileResult{File: name, OK: len(errs) == 0, Problems: make([]problem, 0, len(errs)), errs: errs}
		for _, verr := range errs {
			res.Problems = append(res.Problems, problem{Code: string(verr.Code), Line: verr.Line, EventID: verr.EventID, Pointer: verr.Pointer, Message: verr.Msg})
		}
		results = append(results, res)
		if len(errs) > 0 && status == exitOK {
			status = exitFailed
		}
		if *format == "text" {
			for _, verr := range errs {
				fmt.Fprintln(e.stderr, verr.Error())
			}
			if len(errs) == 0 && !*quiet {
				fmt.Fprintf(e.stdout, "ok %s\n", textsafe.Quote(name))
			}
		}
	}
	var err error
	switch *format {
	case "json":
		err = writeValidateJSON(e.stdout, status == exitOK, results)
	case "junit":
		err = cireport.WriteJUnit(e.stdout, "tracecheck validate", validateSuite(results))
	case "github":
		err = cireport.WriteGitHub(e.stdout, validateAnnotations(results))
	}
	if err != nil {
		errorLine(e, "validate", err)
		return exitFailed
	}
	return status
}

// fileResult is what validate found in one file, for the machine formats.
type fileResult struct {
	File     string    `json:"file"`
	OK       bool      `json:"ok"`
	Error    string    `json:"error,omitempty"` // the file could not be read
	Problems []problem `json:"problems"`

	errs []*journal.Error
}

// problem is one journal.Error, with the JSON names of --format json.
type problem struct {
	Code    string `json:"code"`
	Line    int    `json:"line"`
	EventID string `json:"event_id"`
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

func writeValidateJSON(w io.Writer, ok bool, results []fileResult) error {
	return jsonout.Write(w, struct {
		OK    bool         `json:"ok"`
		Files []fileResult `json:"files"`
	}{ok, results})
}

// validateSuite is the JUnit suite of a validate run: one testcase per
// file, failed with every problem in its text.
func validateSuite(results []fileResult) cireport.Suite {
	s := cireport.Suite{Name: "tracecheck validate"}
	for _, r := range results {
		c := cireport.Case{Name: r.File, File: r.File}
		switch {
		case r.Error != "":
			c.Error = &cireport.Failure{Message: r.Error, Type: "USAGE", Text: r.Error}
		case !r.OK:
			lines := make([]string, len(r.errs))
			for i, verr := range r.errs {
				lines[i] = verr.Error()
			}
			c.Line = r.errs[0].Line
			c.Failure = &cireport.Failure{
				Message: fmt.Sprintf("%d problem(s), the first: %s", len(r.errs), r.errs[0].Error()),
				Type:    string(r.errs[0].Code),
				Text:    strings.Join(lines, "\n"),
			}
		}
		s.Cases = append(s.Cases, c)
	}
	return s
}

// validateAnnotations is one GitHub annotation per problem, on its line.
func validateAnnotations(results []fileResult) []cireport.Annotation {
	var anns []cireport.Annotation
	for _, r := range results {
		if r.Error != "" {
			anns = append(anns, cireport.Annotation{Level: cireport.LevelError, File: r.File, Title: "tracecheck validate", Message: r.Error})
		}
		for _, verr := range r.errs {
			anns = append(anns, cireport.Annotation{Level: cireport.LevelError, File: r.File, Line: verr.Line,
				Title: string(verr.Code), Message: verr.Error()})
		}
	}
	return anns
}

// runHelp explains --run in the help of replay, fingerprint and branch.
const runHelp = "A session store file holds one run per resume, one after another. --run RUN_ID\n" +
	"reads one of them: the events whose provenance.run_id is RUN_ID, wherever they\n" +
	"are in the file (runs that interleave are read the same way). Every line is still\n" +
	"checked against the schema; the selected events must form a single-run journal.\n" +
	"A RUN_ID no event carries is a usage error."

// runFlag defines --run.
func runFlag(fs *pflag.FlagSet) *string {
	return fs.String("run", "", "read only the run `RUN_ID` (provenance.run_id) of a multi-run file")
}

// stdinTwice reports whether "-" appears more than once in args: standard
// input can be read only once.
func stdinTwice(args []string) bool {
	n := 0
	for _, a := range args {
		if a == "-" {
			n++
		}
	}
	return n > 1
}

// oneFile checks that exactly one FILE was given.
func oneFile(e *env, fs *pflag.FlagSet, cmd string) (string, bool) {
	if fs.NArg() != 1 {
		usageError(e, cmd, "want exactly one FILE, got %d", fs.NArg())
		return "", false
	}
	return fs.Arg(0), true
}

func runReplay(e *env, args []string) int {
	fs := newFlags(e, "replay", "replay FILE [--run RUN_ID] [--through N] [--format text|json] [--checkpoint PATH [--verify-prefix]]",
		"Replay a single-run journal and print the view it rebuilds: user messages,\n"+
			"assistant messages (a streamed response counts once, by its final delta), tool\n"+
			"results, stop reason, and the fingerprint of the replayed prefix. The file is\n"+
			"read in one streaming pass; it is never held in memory.\n\n"+
			"With --checkpoint PATH, a checkpoint in PATH (written by an earlier replay of the\n"+
			"same file) is checked against the file and, when it matches, only the events\n"+
			"after it are read; afterwards PATH is refreshed to cover the whole file. A\n"+
			"missing, stale, damaged or unreadable checkpoint is ignored (a note on stderr\n"+
			"says why) and the replay starts from event zero. PATH must be a checkpoint or\n"+
			"missing: the journal itself, a directory or any other file is refused (exit 2).\n"+
			"--checkpoint cannot be combined with --run. The journal itself is never changed.\n\n"+
			runHelp)
	through := fs.Int64("through", 0, "replay events 0..`N` only (inclusive)")
	format := formatFlag(fs, "text", "json")
	asJSON := fs.Bool("json", false, "print the ReplayState as one JSON object (the same as --format json)")
	cpPath := fs.String("checkpoint", "", "read and refresh a replay checkpoint in `PATH`")
	verifyPrefix := fs.Bool("verify-prefix", false, "with --checkpoint: also rehash the whole checkpointed prefix before trusting it")
	run := runFlag(fs)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	path, ok := oneFile(e, fs, "replay")
	if !ok {
		return exitUsage
	}
	if !jsonAlias(e, fs, "replay", asJSON, format) {
		return exitUsage
	}
	if *verifyPrefix && *cpPath == "" {
		return usageError(e, "replay", "--verify-prefix checks a checkpoint: it needs --checkpoint PATH")
	}
	if *run != "" && *cpPath != "" {
		return usageError(e, "replay", "--run and --checkpoint cannot be combined: a checkpoint covers the whole file")
	}
	opt := reducer.StreamOptions{Through: *through, HasThrough: fs.Changed("through"), RunID: *run}
	var p *reducer.Progress
	if *cpPath != "" {
		if path == "-" {
			return usageError(e, "replay", "--checkpoint needs a FILE, not standard input")
		}
		var note string
		var err error
		p, note, err = reducer.ReplayFile(path, *cpPath, opt, *verifyPrefix)
		if note != "" {
			fmt.Fprintf(e.stderr, "tracecheck replay: %s\n", journal.SafeText(note))
		}
		if code := streamError(e, "replay", "--through", err); code != exitOK {
			return code
		}
	} else {
		r, name, ok := openFile(e, "replay", path)
		if !ok {
			return exitUsage
		}
		var err error
		p, err = reducer.StreamReplay(r, name, opt)
		r.Close()
		if code := streamError(e, "replay", "--through", err); code != exitOK {
			return code
		}
	}
	defer p.Close()
	// The view is streamed from where the replay left it (memory, a spill
	// file, the checkpoint), never built whole.
	var err error
	if *asJSON {
		err = p.WriteJSON(e.stdout)
	} else {
		err = p.WriteText(e.stdout)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "tracecheck replay: %s\n", journal.SafeText(err.Error()))
		return exitFailed
	}
	return exitOK
}

// jsonAlias folds --json into --format: --json is --format json, and
// asking for both json and text is a usage error. It leaves *asJSON true
// when the output is JSON.
func jsonAlias(e *env, fs *pflag.FlagSet, cmd string, asJSON *bool, format *string) bool {
	if *asJSON && fs.Changed("format") && *format != "json" {
		usageError(e, cmd, "--json is --format json; it does not go with --format %s", *format)
		return false
	}
	*asJSON = *asJSON || *format == "json"
	return true
}

// streamError reports the error of a streaming replay or branch: a
// sequence out of range (given by rangeFlag), a blank --id and a missing
// file are usage errors, a journal problem a failure.
func streamError(e *env, cmd, rangeFlag string, err error) int {
	if err == nil {
		return exitOK
	}
	var re *reducer.RangeError
	var je *journal.Error
	var pe *reducer.PathError
	var rn *journal.RunNotFoundError
	msg := journal.SafeText(err.Error()) // errors name files and ids as given
	switch {
	case errors.As(err, &rn):
		fmt.Fprintf(e.stderr, "tracecheck %s: --run: %s\n", cmd, msg)
		return exitUsage
	case errors.As(err, &pe):
		fmt.Fprintf(e.stderr, "tracecheck %s: --checkpoint: %s\n", cmd, msg)
		return exitUsage
	case errors.As(err, &re):
		fmt.Fprintf(e.stderr, "tracecheck %s: %s: %s\n", cmd, rangeFlag, msg)
		return exitUsage
	case errors.Is(err, reducer.ErrBlankBranchID):
		fmt.Fprintf(e.stderr, "tracecheck %s: --id: %s\n", cmd, msg)
		return exitUsage
	case errors.As(err, &je):
		fmt.Fprintln(e.stderr, msg)
		return exitFailed
	case errors.Is(err, os.ErrNotExist), errors.Is(err, os.ErrPermission):
		fmt.Fprintf(e.stderr, "tracecheck %s: %s\n", cmd, msg)
		return exitUsage
	}
	fmt.Fprintf(e.stderr, "tracecheck %s: %s\n", cmd, msg)
	return exitFailed
}

func runFingerprint(e *env, args []string) int {
	fs := newFlags(e, "fingerprint", "fingerprint FILE [--run RUN_ID] [--through N] [--normalized]",
		"Print the SHA-256 fingerprint of a single-run journal (or of events 0..N): the\n"+
			"digest of Python's json.dumps(events, ensure_ascii=False, sort_keys=True,\n"+
			"separators=(\",\", \":\")). --normalized first drops session_id, timestamp and\n"+
			"provenance.run_id so two real runs can be compared.\n\n"+
			runHelp)
	through := fs.Int64("through", 0, "fingerprint events 0..`N` only (inclusive)")
	normalized := fs.Bool("normalized", false, "ignore session_id, timestamp and provenance.run_id")
	run := runFlag(fs)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	path, ok := oneFile(e, fs, "fingerprint")
	if !ok {
		return exitUsage
	}
	r, name, ok := openFile(e, "fingerprint", path)
	if !ok {
		return exitUsage
	}
	defer r.Close()
	p, err := reducer.StreamReplay(r, name, reducer.StreamOptions{
		Through: *through, HasThrough: fs.Changed("through"), Normalized: *normalized, FingerprintOnly: true, RunID: *run})
	if code := streamError(e, "fingerprint", "--through", err); code != exitOK {
		return code
	}
	fmt.Fprintln(e.stdout, p.Fingerprint())
	p.Close()
	return exitOK
}

func runBranch(e *env, args []string) int {
	fs := newFlags(e, "branch", "branch FILE [--run RUN_ID] --at N --id ID",
		"Print, as JSON, the lineage record of a branch that inherits events 0..N of a\n"+
			"single-run journal. The journal itself is only read, never changed.\n\n"+
			runHelp)
	at := fs.Int64("at", 0, "fork sequence `N`: the last inherited event (required)")
	id := fs.String("id", "", "the new branch's branch_id `ID` (required, non-blank)")
	run := runFlag(fs)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	path, ok := oneFile(e, fs, "branch")
	if !ok {
		return exitUsage
	}
	if !fs.Changed("at") {
		return usageError(e, "branch", "--at is required")
	}
	r, name, ok := openFile(e, "branch", path)
	if !ok {
		return exitUsage
	}
	b, err := reducer.StreamBranchRun(r, name, *run, *at, *id)
	r.Close()
	if code := streamError(e, "branch", "--at", err); code != exitOK {
		return code
	}
	if err := writeBranchJSON(e.stdout, b); err != nil {
		fmt.Fprintf(e.stderr, "tracecheck branch: %s\n", journal.SafeText(err.Error()))
		return exitFailed
	}
	return exitOK
}

// writeBranchJSON writes b.Value().AppendJSON and a newline, streaming the
// inherited ids so that a long prefix is not built twice in memory.
func writeBranchJSON(w io.Writer, b reducer.BranchRecord) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	buf := append([]byte(nil), `{"branch_id":`...)
	buf = jsonv.AppendPyString(buf, b.BranchID)
	buf = append(buf, `,"parent_session_id":`...)
	buf = jsonv.AppendPyString(buf, b.ParentSessionID)
	buf = append(buf, `,"parent_run_id":`...)
	buf = jsonv.AppendPyString(buf, b.ParentRunID)
	buf = append(buf, `,"fork_sequence":`...)
	buf = strconv.AppendInt(buf, b.ForkSequence, 10)
	buf = append(buf, `,"inherited_event_ids":[`...)
	for i, id := range b.InheritedEventIDs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = jsonv.AppendPyString(buf, id)
		if len(buf) > 32<<10 {
			bw.Write(buf)
			buf = buf[:0]
		}
	}
	buf = append(buf, `],"parent_fingerprint":`...)
	buf = jsonv.AppendPyString(buf, b.ParentFingerprint)
	buf = append(buf, '}', '\n')
	bw.Write(buf)
	return bw.Flush()
}
