package main

import (
	"fmt"
	"io"
	"os"

	"github.com/tracecheck/tracecheck/agentlog"
	"github.com/tracecheck/tracecheck/internal/redact"
	"github.com/tracecheck/tracecheck/internal/regularfile"
	"github.com/tracecheck/tracecheck/internal/textsafe"
)

func runImport(e *env, args []string) int {
	fs := newFlags(e, "import", "import FILE [--from codex|claude-code|pi|ts-harness]",
		"Convert one native session log (a Codex CLI rollout, a Claude Code transcript, a\n"+
			"pi session or a TypeScript harness session store) to Trace 0.1.0 on standard\n"+
			"output: one run, events in file order, native ids kept. The result passes\n"+
			"tracecheck validate, so replay, fingerprint and branch work on it. The format\n"+
			"is detected from the content unless --from names it; '-' reads standard input\n"+
			"(detected the same way), and is the only stream it reads: a FIFO or <(...) is\n"+
			"refused as not a regular file (exit 2).\n"+
			"The mapping is in docs/agent-logs.md. Lines the agent itself would skip (not\n"+
			"JSON) are skipped and counted on stderr; tracecheck lint says what they are.\n"+
			"Secrets the log holds in the clear (a key, a token, a password; see\n"+
			"docs/agent-logs.md) are written \"[REDACTED]\", the event marked redacted.\n"+
			"Exit 0 on success; 1 when the format cannot be detected, the input is already\n"+
			"Trace, the file holds nothing to import, or reading it, writing the output or\n"+
			"keeping the ids seen (a temporary file under $TMPDIR) fails; 2 on usage errors.")
	from := fs.String("from", "", "the file's `FORMAT`: codex, claude-code, pi or ts-harness")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	path, ok := oneFile(e, fs, "import")
	if !ok {
		return exitUsage
	}
	var f agentlog.Format
	if *from != "" {
		var err error
		if f, err = agentlog.ParseFormat(*from); err != nil || f == agentlog.Trace {
			return usageError(e, "import", "--from must be codex, claude-code, pi or ts-harness, not %q", *from)
		}
	}
	// A FIFO (or <(...)) would block the open below until a writer comes,
	// perhaps forever: only '-' reads a stream.
	if path != "-" {
		if st, err := os.Stat(path); err == nil && !st.IsDir() && !st.Mode().IsRegular() {
			errorLine(e, "import", fmt.Errorf("%w (a FIFO, pipe or device: give a file, or '-' to read standard input)", inputError(path, regularfile.ErrNotRegular)))
			return exitUsage
		}
	}
	r, name, ok := openFile(e, "import", path)
	if !ok {
		return exitUsage
	}
	defer r.Close()
	e.pace(streamingPacing(1))
	var in io.Reader = r
	if f == agentlog.Unknown {
		det, rr := agentlog.DetectReader(r)
		switch det {
		case agentlog.Unknown:
			fmt.Fprintf(e.stderr, "tracecheck import: %s: not a session log import reads; name its format with --from\n", textsafe.Quote(name))
			return exitFailed
		case agentlog.Trace:
			fmt.Fprintf(e.stderr, "tracecheck import: %s is already a Trace file\n", textsafe.Quote(name))
			return exitFailed
		}
		f, in = det, rr
	}
	st, err := agentlog.Import(in, name, f, e.stdout)
	if st.Skipped > 0 {
		fmt.Fprintf(e.stderr, "tracecheck import: %s: %d line(s) skipped, as the agent skips them (see tracecheck lint)\n", textsafe.Quote(name), st.Skipped)
	}
	if st.Redacted > 0 {
		fmt.Fprintf(e.stderr, "tracecheck import: %s: %d secret(s) (keys, tokens, passwords) written as %q; each event's redaction.fields says where\n", textsafe.Quote(name), st.Redacted, redact.Placeholder)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "tracecheck import: %s\n", textsafe.Escape(err.Error()))
		return exitFailed
	}
	return exitOK
}
