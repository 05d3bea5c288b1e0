package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/tracecheck/tracecheck/exercise"
	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/shard"
	"github.com/tracecheck/tracecheck/verify"
)

const mergeHelp = `Put the results of a run's shards together: the --result files that verify, lint
and conform --shard K/N wrote, one per shard (in any order, on the machine where
the checkout they ran in is). merge refuses, with exit 2 and a line for each
problem, results written by different tracecheck versions, of different
commands, suites (the inputs' digest: the ids and definition files of every
item) or settings, and a set that is not whole: a shard missing (named, with the
items it holds), a shard given twice, an item in a shard it does not belong to.

It then prints the report the run without --shard gives, in the same order,
and exits with its status: 0 ok, 1 a drift, missing, invalid or (with
--unreferenced=reject) unreferenced golden; lint: 1 a file with an error or a
warning; conform: 1 a criterion failed, 3 a shard's subject broke the protocol.

For verify it decides on unreferenced goldens across every shard, which no shard
can do alone: a golden some shard saw in the golden directory that no item of
the run renders. --unreferenced=warn (the default outside CI) lists them,
reject (the default in CI) fails the run, delete prints what it will delete,
then deletes it from the golden directory the results name (relative to the
working directory: run merge in the checkout). It runs under the rules verify
keeps (no ids named, no item INVALID, subjects and goldens from one place), and
only ever on a complete set of shards.

--format text|json|junit|github writes the merged report as the command would
(lint and verify: all four; conform: text, json, exercism or junit).`

func runMerge(e *env, args []string) int {
	const cmd = "merge"
	fs := newFlags(e, cmd, "merge RESULT... [--unreferenced=warn|reject|delete] [--format text|json|junit|github|exercism] [-q]", mergeHelp)
	unref := fs.String("unreferenced", "", "verify: what to do with a golden no item of the run renders: `MODE` warn, reject or delete (default: reject in CI, else warn)")
	format := formatFlag(fs, "text", "json", "junit", "github", "exercism")
	quiet := fs.BoolP("quiet", "q", false, "lint, text: print nothing for a file without findings")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return usageError(e, cmd, "no RESULT file given: name the --result file of every shard")
	}
	results := make([]*shard.Result, fs.NArg())
	for i, f := range fs.Args() {
		r, err := shard.Read(f)
		var rerr *shard.ReadError
		switch {
		case errors.As(err, &rerr):
			return usageError(e, cmd, "%s: %s", textsafe.Quote(f), textsafe.Escape(rerr.Msg))
		case err != nil:
			return usageError(e, cmd, "%s", textsafe.Escape(inputError(f, err).Error()))
		}
		results[i] = r
	}
	m, err := shard.Merge(fs.Args(), results)
	var re *shard.RefusedError
	if errors.As(err, &re) {
		for _, p := range re.Problems {
			fmt.Fprintf(e.stderr, "%s %s: refused: %s\n", programName, cmd, textsafe.Escape(p))
		}
		return exitUsage
	}
	if err != nil {
		errorLine(e, cmd, err)
		return exitUsage
	}
	formats := map[string][]string{
		shard.Verify:  verify.Formats(),
		shard.Lint:    {"text", "json", "github", "junit"},
		shard.Conform: runFormats,
	}[m.Command]
	if !slices.Contains(formats, *format) {
		return usageError(e, cmd, "--format %s: results of %s are written as %s", *format, m.Command, orList(formats))
	}
	if m.Command != shard.Verify && fs.Changed("unreferenced") {
		return usageError(e, cmd, "--unreferenced is about verify's goldens, not the results of %s", m.Command)
	}
	fmt.Fprintf(e.stderr, "%s %s: %d shard(s) of %s, %d item(s)\n", programName, cmd, m.Total, m.Command, len(m.Plan))
	switch m.Command {
	case shard.Verify:
		return mergeVerify(e, m, fs.Args(), *unref, fs.Changed("unreferenced"), *format)
	case shard.Lint:
		return mergeLint(e, m, *format, *quiet)
	case shard.Conform:
		return mergeConform(e, m, *format)
	}
	return usageError(e, cmd, "results of %s cannot be merged", m.Command)
}

func mergeVerify(e *env, m *shard.Merged, files []string, unref string, unrefExplicit bool, format string) int {
	const cmd = "merge"
	ci, _ := verify.DetectCI(os.LookupEnv)
	mode, err := verify.ParseUnreferencedMode(unref, ci)
	if err != nil {
		return usageError(e, cmd, "%v", err)
	}
	if mode == verify.UnreferencedDelete && m.Goldens != nil {
		switch {
		case m.Goldens.Embedded:
			return usageError(e, cmd, "--unreferenced=delete: %v", golden.ErrReadOnly)
		default:
			if st, err := os.Stat(m.Goldens.Dir); err != nil || !st.IsDir() {
				return usageError(e, cmd, "--unreferenced=delete: the shards' golden directory %s is not a directory here: run merge in the checkout the shards ran in", textsafe.Quote(m.Goldens.Dir))
			}
		}
	}
	rep, set, err := verify.Merge(m, verify.MergeOptions{Unreferenced: mode, Notes: notes(e.stderr, cmd)})
	if err != nil {
		errorLine(e, cmd, err)
		return exitUsage
	}
	if step, ok := rep.NextStep(set.Invocation); ok {
		if strings.HasSuffix(step.Command, " --unreferenced=delete") {
			// The merge deletes them itself, without running the suite again.
			step.Command = exercise.ShellJoin(append(append([]string{programName, "merge"}, files...), "--unreferenced=delete"))
		}
		rep.Next = &step
	}
	root := os.Getenv("GITHUB_WORKSPACE")
	if root == "" {
		if r, ok := golden.ModuleRoot(workDir()); ok {
			root = r
		}
	}
	if err := rep.Write(e.stdout, format, root); err != nil {
		errorLine(e, cmd, err)
		return exitFailed
	}
	verifyNotes(e, cmd, rep, unrefExplicit, set.Artifacts)
	if !rep.OK {
		return exitFailed
	}
	return exitOK
}
