package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/pflag"
	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
	"github.com/tracecheck/tracecheck/reducer"
)

func sessionCommands() []command {
	return []command{
		{"append", "append events from stdin to a session, acknowledging each once durable", runSessionAppend},
		{"resume", "start a new run of a session: repair interrupted tool calls, add a user turn", runSessionResume},
		{"check", "validate the sessions of a store; repair a torn tail with --repair", runSessionCheck},
		{"checkpoint", "write a session's checkpoint, so that opening and resuming read only what follows", runSessionCheckpoint},
	}
}

var sessionUsage = groupUsage("session", "SUBCOMMAND --dir DIR [flags]",
	"A session store is a directory holding one append-only JSONL file per session\n"+
		"(docs/session-store.md). Subcommands:",
	sessionCommands, "",
	"Exit status: 0 ok, 1 an event or a session was rejected (or the session is\n"+
		"locked), 2 usage error or unknown session.")

func runSession(e *env, args []string) int {
	e.pace(sessionPacing)
	return dispatch(e, args, sessionCommands(), "session", sessionUsage)
}

// storeFlags adds --dir and --session.
func storeFlags(fs *pflag.FlagSet) (dir, session *string) {
	dir = fs.String("dir", "", "the store `DIR`ectory (required)")
	session = fs.String("session", "", "the session `ID`")
	return dir, session
}

// q quotes a string that came from input for text output.
func q(s string) string { return textsafe.Quote(s) }

// rangedInt is an integer flag with an allowed range; a value outside it
// (or not an integer) is a usage error that says the range.
type rangedInt struct {
	v        *int
	min, max int
}

func newRangedInt(fs *pflag.FlagSet, name string, value, min, max int, usage string) *int {
	v := value
	fs.Var(&rangedInt{v: &v, min: min, max: max}, name, fmt.Sprintf("%s (%d to %d)", usage, min, max))
	return &v
}

func (r *rangedInt) String() string { return strconv.Itoa(*r.v) }
func (r *rangedInt) Type() string   { return "int" }
func (r *rangedInt) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < int64(r.min) || n > int64(r.max) {
		return fmt.Errorf("must be an integer from %d to %d", r.min, r.max)
	}
	*r.v = int(n)
	return nil
}

// sessionExit maps a store error to an exit code.
func sessionExit(err error) int {
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalidSessionID):
		return exitUsage
	}
	return exitFailed
}

// hint adds what to do about an error, when there is something to do.
func hint(err error) string {
	switch {
	case errors.Is(err, store.ErrTornTail):
		return " (rerun with --repair)"
	case errors.Is(err, store.ErrLocked):
		return " (one writer per session: wait for it to finish)"
	case errors.Is(err, reducer.ErrNoSystemPrompt):
		return " (pass it with --system-prompt)"
	case errors.Is(err, reducer.ErrNoCompactor):
		return " (pass them with --compact-trigger, --compact-keep and --compact-summary)"
	case errors.Is(err, reducer.ErrEmptySession):
		return " (a resume continues a session's runs: append the first run with 'tracecheck session append')"
	}
	return ""
}

// noteCheckpoint says on stderr that an existing checkpoint was ignored,
// and why (the whole file was read instead).
func noteCheckpoint(e *env, cmd string, use store.CheckpointUse) {
	if use.Ignored != "" {
		fmt.Fprintf(e.stderr, "%s %s: checkpoint %s ignored, the whole session file was read: %s\n", programName, cmd, q(use.Path), use.Ignored)
	}
}

func runSessionAppend(e *env, args []string) int {
	fs := newFlags(e, "session append", "session append --dir DIR --session ID [--batch N] [--repair]",
		"Append events, one JSON object per line on standard input, to session ID in the\n"+
			"store DIR (both are created when missing). Each event is checked against the\n"+
			"Trace schema and the session rules, written in the golden layout and fsynced;\n"+
			"only then is \"ack <event_id>\" printed and flushed. A retry of a stored event\n"+
			"is acknowledged as \"ack <event_id> duplicate\" without writing anything. The\n"+
			"first rejected event stops the command with exit 1 and a message naming its\n"+
			"stdin line; every event before it stays stored.\n\n"+
			"--batch N is group commit: up to N lines already waiting on stdin are written\n"+
			"with one fsync and acknowledged after it (it never waits for more input).\n\n"+
			"The session file is created with the first accepted event: a call that\n"+
			"accepts none leaves no file. Session files, checkpoints and side files are\n"+
			"opened only as regular files, never through a symbolic link.")
	dir, session := storeFlags(fs)
	batch := newRangedInt(fs, "batch", 1, 1, maxBatch, "group commit: write and fsync up to `N` waiting events at a time")
	repair := fs.Bool("repair", false, "repair a torn tail before appending")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if code, ok := needStore(e, fs, *dir, *session, true); !ok {
		return code
	}
	st, err := store.Create(*dir)
	if err != nil {
		errorLine(e, "session append", err)
		return exitUsage
	}
	w, err := st.OpenWriter(*session, store.WriterOptions{Create: true, Repair: *repair})
	if err != nil {
		fmt.Fprintf(e.stderr, "%s session append: %v%s\n", programName, err, hint(err))
		return sessionExit(err)
	}
	defer w.Close()
	if r := w.Repaired(); r != nil {
		fmt.Fprintf(e.stderr, "%s session append: repaired %s\n", programName, describeRepair(r))
	}
	noteCheckpoint(e, "session append", w.OpenedFrom())

	out := bufio.NewWriter(e.stdout)
	acked := 0 // by this call
	in := newLineReader(e.stdin)
	var lines [][]byte
	var nums []int
	for {
		lines, nums = lines[:0], nums[:0]
		for len(lines) < *batch && (len(lines) == 0 || in.ready()) {
			l, num, err := in.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				out.Flush()
				fmt.Fprintf(e.stderr, "%s session append: stdin line %d: %v\n", programName, num, err)
				return exitFailed
			}
			lines, nums = append(lines, l), append(nums, num)
		}
		if len(lines) == 0 {
			return exitOK
		}
		acks, err := w.AppendBatch(lines)
		acked += len(acks)
		for _, a := range acks {
			if a.Duplicate {
				fmt.Fprintf(out, "ack %s duplicate\n", q(a.EventID))
			} else {
				fmt.Fprintf(out, "ack %s\n", q(a.EventID))
			}
		}
		if ferr := out.Flush(); ferr != nil {
			fmt.Fprintf(e.stderr, "%s session append: %v\n", programName, ferr)
			return exitFailed
		}
		if err != nil {
			where := ""
			if len(acks) < len(nums) {
				where = fmt.Sprintf("stdin line %d: ", nums[len(acks)])
			}
			fmt.Fprintf(e.stderr, "%s session append: %s%v\n", programName, where, err)
			if errors.Is(err, store.ErrRejected) || errors.Is(err, store.ErrConflict) {
				msg := "nothing from that line on was written"
				if acked > 0 {
					msg += fmt.Sprintf("; the %d event(s) this call acknowledged before it are stored", acked)
				}
				fmt.Fprintf(e.stderr, "%s session append: %s\n", programName, msg)
			}
			return exitFailed
		}
	}
}

// needStore checks the --dir and --session flags of fs and that no argument
// is left over.
func needStore(e *env, fs *pflag.FlagSet, dir, session string, needSession bool) (int, bool) {
	switch {
	case dir == "":
		return usageError(e, fs.Name(), "--dir is required"), false
	case needSession && session == "":
		return usageError(e, fs.Name(), "--session is required"), false
	case fs.NArg() > 0:
		return usageError(e, fs.Name(), "unexpected argument %s: everything is given as flags (append reads its events from standard input)", q(fs.Arg(0))), false
	}
	return 0, true
}

// lineReader reads stdin lines with their numbers, each at most
// journal.DefaultMaxLineBytes long, and can tell whether a whole line is
// already buffered (so a batch never waits for more input).
type lineReader struct {
	r   *bufio.Reader
	num int
	eof bool
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 1<<20)}
}

// ready reports whether a complete line is buffered.
func (l *lineReader) ready() bool {
	n := l.r.Buffered()
	if n == 0 {
		return false
	}
	b, _ := l.r.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

// next returns the next line without its newline (a last line without one
// counts too), or io.EOF.
func (l *lineReader) next() ([]byte, int, error) {
	if l.eof {
		return nil, l.num, io.EOF
	}
	var line []byte
	for {
		frag, err := l.r.ReadSlice('\n')
		if len(line)+len(frag) > journal.DefaultMaxLineBytes+1 {
			l.num++
			return nil, l.num, fmt.Errorf("line is longer than %d bytes", journal.DefaultMaxLineBytes)
		}
		line = append(line, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			l.eof = true
			if len(line) == 0 {
				return nil, l.num, io.EOF
			}
			l.num++
			return line, l.num, nil
		}
		if err != nil {
			return nil, l.num + 1, err
		}
		l.num++
		return line[:len(line)-1], l.num, nil
	}
}

// maxBatch bounds --batch: a batch takes only the lines already buffered,
// so a larger N would change nothing.
const maxBatch = 1_000_000

func describeRepair(r *store.Report) string {
	return fmt.Sprintf("%s: torn tail of %d bytes at line %d (offset %d) kept in %s; file truncated to %d complete events",
		q(r.SessionID), len(r.Torn.Bytes), r.Torn.Line, r.Torn.Offset, q(r.SideFile), r.Events)
}

func runSessionCheck(e *env, args []string) int {
	fs := newFlags(e, "session check", "session check --dir DIR [--session ID] [--repair]",
		"Validate every session of the store DIR (or only session ID): each line against\n"+
			"the Trace schema, each run against the journal invariants, event IDs unique\n"+
			"across the session, each resumed run starting with its resume marker. A torn\n"+
			"tail (a last line without its newline, left by a crash mid-write) is reported;\n"+
			"with --repair its bytes are kept in <file>.torn-<offset> and the file is\n"+
			"truncated to its last complete event. Any other bad line is an error naming\n"+
			"it, never repaired. An entry under a session's file name that is not a regular\n"+
			"file (a symbolic link, a FIFO, a directory) is reported, never followed.\n"+
			"Exit 0 when every session is valid (after repairs), 1 when any is not or is\n"+
			"locked by a writer, 2 on usage errors or an unknown session.")
	dir, session := storeFlags(fs)
	repair := fs.Bool("repair", false, "repair torn tails")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if code, ok := needStore(e, fs, *dir, *session, false); !ok {
		return code
	}
	st, err := store.Open(*dir)
	if err != nil {
		errorLine(e, "session check", err)
		return exitUsage
	}
	ids := []string{*session}
	if *session == "" {
		if ids, err = st.Sessions(); err != nil {
			errorLine(e, "session check", err)
			return exitFailed
		}
		if len(ids) == 0 {
			fmt.Fprintf(e.stdout, "no sessions in %s\n", q(*dir))
			return exitOK
		}
	}
	status := exitOK
	for _, id := range ids {
		rep, err := st.Check(id, *repair)
		if err != nil {
			fmt.Fprintf(e.stderr, "%s session check: %v%s\n", programName, err, hint(err))
			if code := sessionExit(err); code > status {
				status = code
			}
			continue
		}
		if rep.SideFile != "" {
			fmt.Fprintf(e.stdout, "repaired %s\n", describeRepair(rep))
		}
		fmt.Fprintf(e.stdout, "ok %s: %d events in %d run(s)%s\n", q(id), rep.Events, len(rep.Runs), describeRuns(rep.Runs))
	}
	return status
}

func describeRuns(runs []store.Run) string {
	if len(runs) == 0 {
		return ""
	}
	parts := make([]string, len(runs))
	for i, r := range runs {
		parts[i] = fmt.Sprintf("%s %d", q(r.RunID), r.Events)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func runSessionResume(e *env, args []string) int {
	fs := newFlags(e, "session resume", "session resume --dir DIR --session ID [--message TEXT] [--run-id ID] [--format text|json] [flags]",
		"Resume session ID in a new run (chapter 20 of the TypeScript harness). The\n"+
			"model-visible history is rebuilt from the file alone, replaying\n"+
			"context.compact; every tool call left without a result is answered by a\n"+
			"synthesized tool.result (ok false, the same tool_call_id, error_type\n"+
			"SessionResumeInterrupted, error \"Error [SESSION_RESUME_INTERRUPTED]: ...\").\n"+
			"Appended, as the new run's first events: session.start {..., \"resumed\": true,\n"+
			"\"resumes_run_id\": <previous run>}, the repairs, and user.message --message\n"+
			"when given, all or nothing: when the session would reject any of them, nothing\n"+
			"is written. Nothing already in the file is changed. Prints the new run_id, a\n"+
			"torn tail moved aside (--repair), what was repaired and appended, and the full\n"+
			"history the new run starts from.\n\n"+
			"The journal does not record the system prompt or the compaction summary:\n"+
			"pass the run's --system-prompt and, for a session that compacted, its\n"+
			"--compact-* settings. An unknown session is exit 2 and creates nothing.")
	dir, session := storeFlags(fs)
	message := fs.String("message", "", "the new user message `TEXT`; none when empty")
	runID := fs.String("run-id", "", "the new run's run_id `ID` (default: run-<12 random hex digits>)")
	repair := fs.Bool("repair", false, "repair a torn tail first")
	history := historyFlags(fs)
	clock := fs.String("clock", "", "timestamps `T0`+sequence seconds (RFC 3339, such as 2026-08-11T00:00:00Z) instead of the wall clock")
	format := formatFlag(fs, "text", "json")
	asJSON := fs.Bool("json", false, "print the outcome as one JSON object (the same as --format json)")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if code, ok := needStore(e, fs, *dir, *session, true); !ok {
		return code
	}
	if !jsonAlias(e, fs, "session resume", asJSON, format) {
		return exitUsage
	}
	// The history is printed as it is read back from the session file, one
	// message at a time: a resume needs the memory of its longest line, not
	// of its history.
	opts := reducer.ResumeOptions{RunID: *runID, Message: *message, Repair: *repair, History: history(), StreamHistory: true}
	if *clock != "" {
		t0, err := time.Parse(time.RFC3339, *clock)
		if err != nil {
			return usageError(e, "session resume", "--clock: %s is not an RFC 3339 time such as 2026-08-11T00:00:00Z", q(*clock))
		}
		opts.Timestamp = func(seq int64) string {
			return t0.Add(time.Duration(seq) * time.Second).UTC().Format(time.RFC3339)
		}
	}
	st, err := store.Open(*dir)
	if err != nil {
		errorLine(e, "session resume", err)
		return exitUsage
	}
	res, err := reducer.Resume(st, *session, opts)
	if err != nil {
		if res != nil && res.TornTail != nil {
			fmt.Fprintf(e.stderr, "%s session resume: repaired %s\n", programName, describeRepair(res.TornTail))
		}
		fmt.Fprintf(e.stderr, "%s session resume: %v%s\n", programName, err, hint(err))
		return sessionExit(err)
	}
	noteCheckpoint(e, "session resume", res.Checkpoint)
	defer res.Transcript.Close()
	if *asJSON {
		if err := writeResumed(e.stdout, res); err != nil {
			fmt.Fprintf(e.stderr, "%s session resume: %v\n", programName, err)
			return exitFailed
		}
		return exitOK
	}
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	defer w.Flush()
	if r := res.TornTail; r != nil {
		fmt.Fprintf(w, "repaired %s\n", describeRepair(r))
	}
	fmt.Fprintf(w, "run_id: %s\n", q(res.RunID))
	if res.PreviousRunID != "" {
		fmt.Fprintf(w, "resumes_run_id: %s\n", q(res.PreviousRunID))
	}
	for _, c := range res.Repaired {
		fmt.Fprintf(w, "repaired: %s (%s): answered with %s\n", q(c.ID), q(c.Name), reducer.InterruptedToolErrorType)
	}
	for _, ev := range res.Appended {
		fmt.Fprintf(w, "appended: %s %s (sequence %d)\n", q(ev.EventID), q(ev.Type), ev.Sequence)
	}
	fmt.Fprintf(w, "history: %d messages\n", res.Transcript.Len())
	var line []byte
	err = res.Transcript.Each(func(i int, m reducer.Message) error {
		line = appendMessage(fmt.Appendf(line[:0], "%3d ", i+1), m)
		_, err := w.Write(append(line, '\n'))
		return err
	})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		w.Flush()
		fmt.Fprintf(e.stderr, "%s session resume: the events were appended, but the history cannot be printed: %v\n", programName, err)
		return exitFailed
	}
	return exitOK
}

// historyFlags adds the flags of the history configuration the journal
// does not record, and returns a function that reads them.
func historyFlags(fs *pflag.FlagSet) func() reducer.HistoryConfig {
	system := fs.String("system-prompt", "", "the system prompt `TEXT` the session's runs used")
	trigger := newRangedInt(fs, "compact-trigger", 0, 0, math.MaxInt32, "the compactor's trigger_chars (`N`)")
	keep := newRangedInt(fs, "compact-keep", 0, 0, math.MaxInt32, "the compactor's keep_recent_messages (`N`)")
	summary := fs.String("compact-summary", "", "the compactor's (fixed) summary `TEXT`")
	return func() reducer.HistoryConfig {
		cfg := reducer.HistoryConfig{SystemPrompt: *system}
		if fs.Changed("compact-trigger") || fs.Changed("compact-summary") {
			cfg.Compactor = &reducer.Compactor{TriggerChars: *trigger, KeepRecentMessages: *keep, Summary: *summary}
		}
		return cfg
	}
}

func runSessionCheckpoint(e *env, args []string) int {
	fs := newFlags(e, "session checkpoint", "session checkpoint --dir DIR --session ID [--repair] [history flags]",
		"Write the checkpoint of session ID (<file>.checkpoint, atomically): the state a\n"+
			"writer rebuilds by reading the file (size, runs, the current run's invariant\n"+
			"state, the session's event IDs) and the resume history at its end, so that\n"+
			"the next open and resume read only the events appended after it. The history\n"+
			"is rebuilt from the previous checkpoint and the events after it; pass the\n"+
			"--system-prompt and --compact-* settings that resume will use. A checkpoint\n"+
			"is checked against the file before use and ignored when it does not match;\n"+
			"the session file itself is never changed (docs/session-store.md). Writers\n"+
			"also write one on close once a session holds 1,000 events, and resume leaves\n"+
			"its history for the next one.")
	dir, session := storeFlags(fs)
	repair := fs.Bool("repair", false, "repair a torn tail first")
	history := historyFlags(fs)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if code, ok := needStore(e, fs, *dir, *session, true); !ok {
		return code
	}
	st, err := store.Open(*dir)
	if err != nil {
		errorLine(e, "session checkpoint", err)
		return exitUsage
	}
	w, err := st.OpenWriter(*session, store.WriterOptions{Repair: *repair, CheckpointMinEvents: -1})
	if err != nil {
		fmt.Fprintf(e.stderr, "%s session checkpoint: %v%s\n", programName, err, hint(err))
		return sessionExit(err)
	}
	defer w.Close()
	if r := w.Repaired(); r != nil {
		fmt.Fprintf(e.stdout, "repaired %s\n", describeRepair(r))
	}
	use := w.OpenedFrom()
	switch {
	case use.Used:
		fmt.Fprintf(e.stdout, "opened from the previous checkpoint (%d events) and %d after it\n", use.Lines, use.TailLines)
	case use.Ignored != "":
		fmt.Fprintf(e.stdout, "previous checkpoint ignored: %s\n", use.Ignored)
	}
	if w.Position().Events == 0 {
		fmt.Fprintf(e.stdout, "session %s holds no event: no checkpoint written\n", q(*session))
		return exitOK
	}
	how, cw, err := reducer.CheckpointSession(w, history())
	if err != nil {
		fmt.Fprintf(e.stderr, "%s session checkpoint: %v%s\n", programName, err, hint(err))
		return exitFailed
	}
	switch {
	case how.TooLarge:
		fmt.Fprintf(e.stdout, "history not kept: larger than the %d bytes a checkpoint keeps (resume rebuilds it from the file)\n", reducer.MaxKeptHistoryBytes)
	case how.FromProjection:
		fmt.Fprintf(e.stdout, "history rebuilt from the previous checkpoint's history and the %d event(s) after it\n", how.Read)
	default:
		fmt.Fprintf(e.stdout, "history rebuilt from the file's %d event(s)\n", how.Read)
	}
	if cw.ProjectionDropped {
		fmt.Fprintf(e.stdout, "history left out: the checkpoint would have been larger than %d bytes with it\n", store.MaxCheckpointBytes)
	}
	fmt.Fprintf(e.stdout, "checkpoint %s: %d events, %d bytes, %d run(s)\n", q(cw.Path), cw.Events, cw.Size, cw.Runs)
	return exitOK
}

// appendMessage appends a history message as 'session resume' prints it:
// role (name and tool_call_id of a tool message), the content quoted, each
// tool call with its arguments.
func appendMessage(b []byte, m reducer.Message) []byte {
	b = append(b, q(m.Role)...)
	if m.Name != "" || m.ToolCallID != "" {
		b = fmt.Appendf(b, " %s %s", q(m.Name), q(m.ToolCallID))
	}
	b = strconv.AppendQuote(append(b, ": "...), m.Content) // as %q writes it
	for _, c := range m.ToolCalls {
		b = fmt.Appendf(b, " [call %s %s %s]", q(c.ID), q(c.Name), jsonText(c.AppendArguments(nil)))
	}
	return b
}

// jsonText returns compact JSON as it is when it displays as written (its
// encoding already escapes control characters), else quoted: a string in
// it may hold a bidirectional or other formatting character.
func jsonText(b []byte) string {
	s := string(b)
	for _, r := range s {
		if r == utf8.RuneError || unicode.Is(unicode.Cf, r) || (!unicode.IsPrint(r) && r != ' ') {
			return q(s)
		}
	}
	return s
}

// writeResumed writes the outcome of a resume as one JSON object and a
// newline: session_id, run_id, resumes_run_id, repaired_tool_call_ids,
// appended_event_ids, history (each message's wire form, with its
// tool_calls when it has any), repaired_torn_tail. The history is written
// a message at a time as the transcript reads it back.
func writeResumed(w io.Writer, r *reducer.Resumed) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	head, torn := resumedMembers(r)
	// The object's members in order, as jsonv.Obj(...).AppendJSON writes
	// them; the history's elements in between.
	b := jsonv.Obj(head...).AppendJSON(nil)
	b = append(b[:len(b)-1], `,"history":[`...)
	bw.Write(b)
	err := r.Transcript.Each(func(i int, m reducer.Message) error {
		b = b[:0]
		if i > 0 {
			b = append(b, ',')
		}
		b = appendWireMessage(b, m)
		_, err := bw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	b = append(append(b[:0], `],"repaired_torn_tail":`...), torn.AppendJSON(nil)...)
	bw.Write(append(b, '}', '\n'))
	return bw.Flush()
}

// resumedMembers returns the members of a resume's JSON object before its
// history, and its repaired_torn_tail.
func resumedMembers(r *reducer.Resumed) (head []jsonv.Member, torn jsonv.Value) {
	repaired := make([]string, len(r.Repaired))
	for i, c := range r.Repaired {
		repaired[i] = c.ID
	}
	appended := make([]string, len(r.Appended))
	for i, ev := range r.Appended {
		appended[i] = ev.EventID
	}
	prev := jsonv.NullValue()
	if r.PreviousRunID != "" {
		prev = jsonv.Str(r.PreviousRunID)
	}
	torn = jsonv.NullValue()
	if t := r.TornTail; t != nil {
		torn = jsonv.Obj(
			jsonv.M("line", jsonv.Int(int64(t.Torn.Line))),
			jsonv.M("offset", jsonv.Int(t.Torn.Offset)),
			jsonv.M("bytes", jsonv.Int(int64(len(t.Torn.Bytes)))),
			jsonv.M("side_file", jsonv.Str(t.SideFile)),
			jsonv.M("events_kept", jsonv.Int(int64(t.Events))),
		)
	}
	return []jsonv.Member{
		jsonv.M("session_id", jsonv.Str(r.SessionID)),
		jsonv.M("run_id", jsonv.Str(r.RunID)),
		jsonv.M("resumes_run_id", prev),
		jsonv.M("repaired_tool_call_ids", jsonv.StrArr(repaired)),
		jsonv.M("appended_event_ids", jsonv.StrArr(appended)),
	}, torn
}

// appendWireMessage appends m's wire form with its tool calls, as
// m.Wire().With("tool_calls", [c.Value()...]).AppendJSON writes it, without
// a tree of the calls' arguments.
func appendWireMessage(b []byte, m reducer.Message) []byte {
	b = m.Wire().AppendJSON(b)
	if len(m.ToolCalls) == 0 {
		return b
	}
	b = append(b[:len(b)-1], `,"tool_calls":[`...)
	for k, c := range m.ToolCalls {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = jsonv.AppendPyString(b, c.ID)
		b = append(b, `,"name":`...)
		b = jsonv.AppendPyString(b, c.Name)
		b = append(b, `,"arguments":`...)
		b = append(c.AppendArguments(b), '}')
	}
	return append(b, ']', '}')
}
