package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"

	"github.com/tracecheck/tracecheck/agentlog"
	"github.com/tracecheck/tracecheck/internal/atomicfile"
	"github.com/tracecheck/tracecheck/internal/regularfile"
	"github.com/tracecheck/tracecheck/internal/term"
	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/view"
)

// maxDiffBytes bounds each file of view --diff, which holds both in memory.
const maxDiffBytes = 256 << 20

// viewMemoryLimit is the Go heap size from which the collector works harder
// rather than let garbage pile up while view builds the page of traces.
// What the page keeps is bounded (its live heap stays under 64 MiB at a
// million events, BENCHMARKS.md), but a 16 MiB line costs several times
// its length while it is validated and read (journal.MemoryPerLineByte),
// and the default pacing lets as much garbage again pile up: 4 such lines
// (of 8 MiB ids) took 236-270 MiB of RSS without the limit, 169 MiB with
// it, and a million-event trace the same time either way. Not for --diff,
// which holds both files whole and would collect all the time.
const viewMemoryLimit = 160 << 20

// viewLimit counts the view commands under way in this process (tests run
// several at once): the first sets viewMemoryLimit, the last puts the
// previous limit back, so that the process outside them, in-process tests
// among them, keeps its own.
var viewLimit struct {
	sync.Mutex
	n    int
	prev int64
}

// setViewMemoryLimit sets viewMemoryLimit, unless the user chose a limit
// with GOMEMLIMIT, and returns what puts it back.
func setViewMemoryLimit() func() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	viewLimit.Lock()
	defer viewLimit.Unlock()
	if viewLimit.n == 0 {
		viewLimit.prev = debug.SetMemoryLimit(viewMemoryLimit)
	}
	viewLimit.n++
	return func() {
		viewLimit.Lock()
		defer viewLimit.Unlock()
		if viewLimit.n--; viewLimit.n == 0 {
			debug.SetMemoryLimit(viewLimit.prev)
		}
	}
}

func runView(e *env, args []string) int {
	fs := newFlags(e, "view", "view FILE... [-o OUT.html] [--through N]\n       tracecheck view --diff GOLDEN ACTUAL [--normalize|--exact] [-o OUT.html]",
		"Write one self-contained HTML page (no network, works from file://) showing the\n"+
			"traces: a timeline of events by actor lane in sequence order, each one opening to\n"+
			"its payload and envelope; search and filters by type, actor, tool and text;\n"+
			"parent links; each tool.request joined to its tool.result (calls without one, and\n"+
			"the results session resume synthesized, stand out); runs one after another with\n"+
			"their resume markers; branch lineage and context compaction; the replay view\n"+
			"(messages, stop reason, fingerprint) of each run, whole or --through N; and the\n"+
			"problems 'tracecheck validate' finds, pinned to their lines. An invalid trace is\n"+
			"shown as far as it can be read. A coding agent's session log (Codex, Claude\n"+
			"Code, pi, the TypeScript harness) is shown as 'tracecheck import' converts it,\n"+
			"with the findings of 'tracecheck lint'. Large traces are drawn lazily.\n\n"+
			"What a page holds is bounded, so that a browser opens the page of any trace and\n"+
			"view's memory does not grow with it (under 256 MiB); each bound counts bytes as\n"+
			"the page writes them, escapes included ('<' is 6 bytes), and the page says what\n"+
			"it cut or left out:\n"+
			"  a payload over 64 KiB is cut, and so is a line that is not an event over 2 KiB;\n"+
			"  each envelope field (event, session, run, parent and actor ids, type,\n"+
			"  timestamp, duration, tool name) over 1 KiB is cut, the rest of an envelope\n"+
			"  over 4 KiB, and so is each id or fingerprint the overview shows;\n"+
			"  past 96 MiB of payloads, later events keep their envelope but not their payload;\n"+
			"  past 64 MiB of envelopes, 500,000 lines or 1,000 runs, later lines are left out;\n"+
			"  the replay view lists 200 messages of a run (600 bytes of each), 10,000 in all.\n"+
			"No flag changes these (view.DefaultLimits); read the trace's own lines for what\n"+
			"a page cut. Invisible and bidirectional formatting characters (U+202E, U+200B,\n"+
			"U+FEFF...) are shown escaped, as \\u202e. Each FILE must be a regular file: the\n"+
			"page reads it more than once ('-', a FIFO or <(...) is refused, exit 2).\n\n"+
			"--diff GOLDEN ACTUAL shows two traces side by side, aligned by run and sequence,\n"+
			"differing fields highlighted and unchanged events folded. It reads both files\n"+
			"whole (each up to 256 MiB), so its memory follows their size; its page takes the\n"+
			"same bounds (a line as a payload, each differing field's pointer as a field and\n"+
			"its values as four).\n"+
			"A tolerant GOLDEN (one that holds placeholders such as \"[TIMESTAMP]\" and \"[ID-1]\"\n"+
			"and so is no valid trace as written, as 'tracecheck normalize' writes it) is\n"+
			"compared as 'tracecheck diff --normalize' compares it: an event whose placeholders\n"+
			"all matched is unchanged, only real differences are highlighted, the placeholders\n"+
			"that matched are underlined, and the golden's problems are those where it is\n"+
			"literal. A GOLDEN that holds placeholders but is a valid trace is compared\n"+
			"literally (the page says so): --normalize reads any GOLDEN as a tolerant golden,\n"+
			"--exact any GOLDEN literally.\n\n"+
			"The page goes to -o (replaced atomically) or standard output. The same input\n"+
			"gives the same bytes. Exit 0 when every file is valid and no imported log has a\n"+
			"lint error or warning (with --diff: the traces are identical, or ACTUAL is a\n"+
			"valid trace that matches a tolerant GOLDEN), 1 when the page shows problems or\n"+
			"such findings (or differences), 2 usage error.")
	out := fs.StringP("output", "o", "", "write the page to `OUT.html` instead of standard output")
	through := fs.Int64("through", 0, "replay each run through sequence `N` only (inclusive)")
	diff := fs.Bool("diff", false, "compare two traces: GOLDEN ACTUAL")
	normalize := fs.Bool("normalize", false, "with --diff: read GOLDEN as a tolerant golden, whatever it holds")
	exact := fs.Bool("exact", false, "with --diff: compare GOLDEN literally, even when it looks like a tolerant golden")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	files := fs.Args()
	switch {
	case len(files) == 0:
		return usageError(e, "view", "no FILE given")
	case *diff && len(files) != 2:
		return usageError(e, "view", "--diff wants GOLDEN and ACTUAL, got %d files", len(files))
	case *diff && fs.Changed("through"):
		return usageError(e, "view", "--through does not go with --diff")
	case !*diff && (*normalize || *exact):
		return usageError(e, "view", "--normalize and --exact say how --diff reads GOLDEN; they need --diff")
	case *normalize && *exact:
		return usageError(e, "view", "--normalize and --exact do not go together")
	case fs.Changed("through") && *through < 0:
		return usageError(e, "view", "--through must be a sequence (0 or more), not %d", *through)
	}
	for _, f := range files {
		if f == "-" {
			return usageError(e, "view", "FILE must be a file: the page reads it more than once ('-' is not supported)")
		}
		st, err := os.Stat(f) // never opened here: a FIFO would block the open
		switch {
		case err != nil:
			return usageError(e, "view", "%v", inputError(f, err))
		case st.IsDir():
			return usageError(e, "view", "%v", inputError(f, errIsDir))
		case !st.Mode().IsRegular():
			return usageError(e, "view", "%v (a FIFO, pipe or device: the page reads each FILE more than once, so it must be a file)", inputError(f, regularfile.ErrNotRegular))
		}
		if *out != "" && sameFile(f, *out) {
			return usageError(e, "view", "-o %s is one of the input files; it would be overwritten", textsafe.Quote(*out))
		}
	}
	if *out != "" {
		if p := outputProblem("-o", *out); p != "" {
			return usageError(e, "view", "%s", p)
		}
	}
	if *out == "" && writesToTerminal(e.stdout) {
		return usageError(e, "view", "the page is HTML: give -o OUT.html, or redirect standard output")
	}

	var write func(io.Writer) error
	var status int
	var summary string
	if *diff {
		var data [2][]byte
		for i, f := range files {
			b, err := readLimited(f, maxDiffBytes)
			if err != nil {
				errorLine(e, "view", err)
				return exitFailed
			}
			data[i] = b
		}
		opt := view.DiffOptions{ExpectedName: files[0], ActualName: files[1], Tolerant: *normalize}
		if !*normalize && !*exact {
			// A tolerant golden is no valid trace as written: that and its
			// placeholders tell it from an exact one that holds such text.
			g := view.DetectGolden(data[0])
			opt.Tolerant = g.Tolerant
			if g.Placeholder != "" && !g.Tolerant {
				opt.Notes = append(opt.Notes, "The golden holds placeholders ("+g.Placeholder+") but is a valid trace, so it is compared literally; tracecheck view --diff --normalize compares it as a tolerant golden.")
			}
		}
		d := view.BuildDiff(data[0], data[1], opt)
		write = d.WriteHTML
		switch {
		case d.Equal():
			summary = "identical"
		case d.Differences() == 0 && d.Tolerant() && d.Problems() > 0:
			// As diff --normalize: a match of an invalid trace is no pass.
			summary, status = "matches the tolerant golden, with "+plural(d.Problems(), "problem"), exitFailed
		case d.Differences() == 0 && d.Tolerant():
			summary = "matches the tolerant golden"
		case d.Differences() == 0:
			summary, status = "the same events written with other bytes", exitFailed
		default:
			summary, status = plural(d.Differences(), "differing event"), exitFailed
		}
	} else {
		defer setViewMemoryLimit()()
		srcs := make([]view.Source, len(files))
		for i, f := range files {
			src, cleanup, err := viewSource(f)
			if err != nil {
				errorLine(e, "view", err)
				return exitFailed
			}
			defer cleanup()
			srcs[i] = src
		}
		p, err := view.Build(srcs, view.Options{Through: *through, HasThrough: fs.Changed("through")})
		var te *view.ThroughError
		if errors.As(err, &te) {
			return usageError(e, "view", "%s", te.Error())
		}
		if err != nil {
			errorLine(e, "view", err)
			return exitFailed
		}
		defer p.Close()
		write = p.WriteHTML
		summary = viewSummary(p)
		if p.Problems() > 0 {
			status = exitFailed
		}
	}

	if *out == "" {
		if err := write(e.stdout); err != nil {
			errorLine(e, "view", err)
			return exitFailed
		}
		fmt.Fprintf(e.stderr, "%s view: %s\n", programName, summary)
		return status
	}
	if err := atomicfile.WriteOutput(*out, 0o644, write); err != nil {
		fmt.Fprintf(e.stderr, "%s view: writing %s: %v\n", programName, textsafe.Quote(*out), err)
		return exitFailed
	}
	fmt.Fprintf(e.stderr, "%s view: wrote %s (%s)\n", programName, textsafe.Quote(*out), summary)
	return status
}

func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// writesToTerminal reports whether w is a terminal (HTML there is noise).
func writesToTerminal(w io.Writer) bool {
	if c, ok := w.(*checkedWriter); ok {
		w = c.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f)
}

// readLimited reads a whole file of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", textsafe.Quote(path), err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: over %d MiB: too large for a diff page (use tracecheck validate and verify's report)", textsafe.Quote(path), limit>>20)
	}
	return b, nil
}

// viewSource is the page's source for FILE: the file itself when it is a
// Trace file, or, for a coding agent's session log (Codex, Claude Code,
// pi, the TypeScript harness), the trace tracecheck import makes of it, in
// a temporary file that cleanup removes, with tracecheck lint's findings
// on the log.
func viewSource(path string) (view.Source, func(), error) {
	none := func() {}
	f, err := agentlog.DetectFile(path)
	if err != nil || f == agentlog.Unknown || f == agentlog.Trace {
		return view.FileSource(path), none, nil
	}
	in, err := os.Open(path)
	if err != nil {
		return view.Source{}, none, err
	}
	defer in.Close()
	tmp, err := os.CreateTemp("", "tracecheck-view-*.jsonl")
	if err != nil {
		return view.Source{}, none, err
	}
	cleanup := func() { os.Remove(tmp.Name()) }
	if _, err := agentlog.Import(in, path, f, tmp); err != nil {
		tmp.Close()
		cleanup()
		return view.Source{}, none, fmt.Errorf("importing %s: %w", textsafe.Quote(path), err)
	}
	if err := tmp.Close(); err != nil {
		cleanup()
		return view.Source{}, none, err
	}
	src := view.FileSource(tmp.Name())
	src.Name = path
	src.Origin = "a " + f.String() + " session log, imported as tracecheck import does; line numbers are the trace's"
	for _, x := range agentlog.LintFile(path, agentlog.Options{Format: f}).Findings {
		src.Findings = append(src.Findings, view.Finding{Line: x.Line, Code: string(x.Code), Severity: x.Severity.String(), Message: x.Message})
	}
	return src, cleanup, nil
}

// viewSummary is what view says of a page it wrote: its events and
// unreadable lines, the problems (at least so many when validation stopped
// at its bound), and whether a limit left lines out.
func viewSummary(p *view.Page) string {
	events, unread := p.Events()-p.Unreadable(), p.Unreadable()
	s := plural(events, "event")
	if unread > 0 {
		s += ", " + plural(unread, "unreadable line")
	}
	if stopped := p.Stopped(); stopped > 0 {
		s += ", at least " + plural(p.Problems()-stopped, "problem")
	} else {
		s += ", " + plural(p.Problems(), "problem")
	}
	if p.Lines() > p.Events() {
		s += fmt.Sprintf("; the page holds the first %d lines, a limit left the rest out (the page says which)", p.Events())
	}
	return s
}
