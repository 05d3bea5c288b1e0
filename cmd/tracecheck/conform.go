package main

import (
	"strings"

	"github.com/tracecheck/tracecheck/exercise"
)

func runConform(e *env, args []string) int {
	const cmd = "conform"
	fs := newFlags(e, cmd, "conform [flags] -- CMD ARGS...",
		"Start CMD ARGS (a subject: docs/protocol.md) once and check every exercise whose ops\n"+
			"its hello lists, every criterion of each; print a summary table and the first\n"+
			"failure of each failing exercise. Exercises it does not support are skipped.\n"+
			"Cases come from the goldens, the reference traces and a seed; --seed N repeats a\n"+
			"run's cases. The progress file of 'exercise run' is not touched.\n\n"+
			"Exit 0 every checked exercise passes, 1 a criterion failed (or the subject supports\n"+
			"no exercise), 2 usage error (no command, a command that cannot start), 3 the\n"+
			"subject broke the protocol (crashed, timed out, wrote a stdout line that is not a\n"+
			"valid response): one line on stderr names the stdout line and why.")
	sf := addSubjectFlags(fs)
	format := formatFlag(fs, runFormats...)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if dash := fs.ArgsLenAtDash(); dash != 0 {
		if dash < 0 && fs.NArg() > 0 {
			return usageError(e, cmd, "put -- before the subject's command line: conform -- %s", strings.Join(fs.Args(), " "))
		}
		if dash > 0 {
			return usageError(e, cmd, "unexpected argument %q before --", fs.Arg(0))
		}
	}
	cfg, ok := sf.config(e, fs, cmd)
	if !ok {
		return exitUsage
	}
	r, err := exercise.RunConform(cfg)
	if err != nil {
		return startFailed(e, cmd, err)
	}
	return finish(e, cmd, *format, r, rerunLine("conform", cfg.Seed, cfg.Argv))
}
