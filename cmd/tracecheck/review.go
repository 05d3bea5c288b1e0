package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tracecheck/tracecheck/internal/term"
	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/verify"
)

func runReview(e *env, args []string) int {
	fs := newFlags(e, "review", "review [ID...] [--golden-dir DIR] [--accept | --reject]",
		"Review the pending goldens (<id>.trace.jsonl.new, written by verify --update=auto\n"+
			"or new): each is shown against its golden (the drift report, or the first lines\n"+
			"of a new golden) and accepted (renamed over the golden, atomically) or rejected\n"+
			"(removed; the golden stays). All pending goldens when no ID is given.\n\n"+
			"On a terminal one key decides each: a accept, r reject, s skip (keep both for\n"+
			"now), q quit. --accept or --reject decides every one without asking, for\n"+
			"scripts; without them standard input must be a terminal.\n\n"+
			"The golden directory is --golden-dir, else the module's golden/ (the embedded\n"+
			"goldens have nothing pending). Exit 0 when done (skipped ones stay pending),\n"+
			"1 when a file could not be renamed or removed, 2 usage error or an ID with\n"+
			"nothing pending.")
	goldenDir := addGoldenDir(fs)
	accept := fs.Bool("accept", false, "accept every pending golden without asking")
	reject := fs.Bool("reject", false, "reject every pending golden without asking")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if *accept && *reject {
		return usageError(e, "review", "--accept and --reject exclude each other")
	}
	store, _, err := verify.LocateGoldens(workDir(), *goldenDir)
	if err != nil {
		return usageError(e, "review", "%v", err)
	}
	if store.Embedded() {
		return usageError(e, "review", "no golden directory here (the embedded goldens are read-only and have nothing pending): run inside the tracecheck module or pass --golden-dir")
	}
	items, err := verify.LoadPending(store, fs.Args())
	var np *verify.NoPendingError
	switch {
	case errors.As(err, &np):
		return usageError(e, "review", "%v", err)
	case err != nil:
		fmt.Fprintf(e.stderr, "%s review: %s\n", programName, verify.SafeLines(err.Error()))
		return exitFailed
	case len(items) == 0:
		fmt.Fprintf(e.stdout, "no pending goldens in %s\n", textsafe.Quote(store.Dir()))
		return exitOK
	}

	decide, show := verify.Always(verify.Accept), false
	switch {
	case *accept:
	case *reject:
		decide = verify.Always(verify.Reject)
	case !isTerminal(e.stdin):
		return usageError(e, "review", "standard input is not a terminal: pass --accept or --reject to decide every pending golden (%d)", len(items))
	default:
		if f, ok := e.stdin.(*os.File); ok {
			restore, err := term.KeyMode(f)
			if err != nil {
				errorLine(e, "review", err)
				return exitFailed
			}
			defer restore()
		}
		decide, show = verify.Keys(e.stdin, e.stdout), true
	}
	sum, err := verify.Review(store, items, show, decide, e.stdout)
	fmt.Fprintf(e.stdout, "accepted %d, rejected %d, skipped %d\n", len(sum.Accepted), len(sum.Rejected), len(sum.Skipped))
	if err != nil {
		fmt.Fprintf(e.stderr, "%s review: %s\n", programName, verify.SafeLines(err.Error()))
		return exitFailed
	}
	return exitOK
}

// terminalReader is a standard input that says whether it is a terminal;
// tests script one.
type terminalReader interface {
	io.Reader
	Terminal() bool
}

func isTerminal(r io.Reader) bool {
	switch v := r.(type) {
	case terminalReader:
		return v.Terminal()
	case *os.File:
		return term.IsTerminal(v)
	}
	return false
}
