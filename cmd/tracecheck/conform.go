package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tracecheck/tracecheck/exercise"
	"github.com/tracecheck/tracecheck/shard"
)

func runConform(e *env, args []string) int {
	const cmd = "conform"
	fs := newFlags(e, cmd, "conform [flags] [--shard K/N --seed N] [--result FILE] -- CMD ARGS...",
		"Start CMD ARGS (a subject: docs/protocol.md) once and check every exercise whose ops\n"+
			"its hello lists, every criterion of each; print a summary table and the first\n"+
			"failure of each failing exercise. Exercises it does not support are skipped.\n"+
			"Cases come from the goldens, the reference traces and a seed; --seed N repeats a\n"+
			"run's cases. The progress file of 'exercise run' is not touched.\n\n"+
			"--shard K/N checks only the criteria (A1, B2, ...) whose id hashes to shard K of\n"+
			"N, so that N jobs of a CI matrix split the catalogue; every shard needs the same\n"+
			"--seed. --result FILE writes the shard's whole result as JSON for 'tracecheck\n"+
			"merge', which prints the report of one conform (docs/sharding.md).\n\n"+
			"Exit 0 every checked exercise passes, 1 a criterion failed (or the subject supports\n"+
			"no exercise), 2 usage error (no command, a command that cannot start), 3 the\n"+
			"subject broke the protocol (crashed, timed out, wrote a stdout line that is not a\n"+
			"valid response): one line on stderr names the stdout line and why.")
	sf := addSubjectFlags(fs)
	format := formatFlag(fs, runFormats...)
	shf := addShardFlags(fs, "criteria")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if msg := shf.checkResult(); msg != "" {
		return usageError(e, cmd, "%s", msg)
	}
	spec, part := shf.part()
	if part && spec.Total > 1 && !fs.Changed("seed") {
		return usageError(e, cmd, "--shard %s needs --seed N: every shard must draw the same cases", spec)
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
	var res *shard.Result
	if part {
		var err error
		res, err = shard.New(shard.Conform, buildVersion(), spec, exercise.Digest(cfg), exercise.Plan(), exercise.Settings{Argv: cfg.Argv, Seed: cfg.Seed})
		if err != nil {
			errorLine(e, cmd, err)
			return exitFailed
		}
		cfg.Takes = spec.Takes
		shf.announce(e, cmd, "criteria", spec, res.Taken(), len(res.Plan))
	}
	r, err := exercise.RunConform(cfg)
	if err != nil {
		return startFailed(e, cmd, err)
	}
	code := finish(e, cmd, *format, r, rerunLine("conform", cfg.Seed, cfg.Argv))
	if res != nil {
		if err := addConformResults(res, r, spec); err != nil {
			errorLine(e, cmd, err)
			return exitFailed
		}
		if !shf.writeResult(e, cmd, res) {
			return exitFailed
		}
	}
	return code
}

// addConformResults records in res the criteria of shard spec that r, the
// shard's conform, checked, and what it says of its subject.
func addConformResults(res *shard.Result, r *exercise.Report, spec shard.Spec) error {
	var err error
	if res.Part, err = json.Marshal(exercise.PartOf(r)); err != nil {
		return err
	}
	for _, it := range exercise.Items(r, spec.Takes) {
		outcome, failed := string(exercise.Skipped), false
		if it.Criterion != nil {
			outcome = string(it.Criterion.Status)
			failed = it.Criterion.Status == exercise.Fail || it.Criterion.Status == exercise.Broken
		}
		if err := res.Add(it.ID, outcome, failed, it); err != nil {
			return err
		}
	}
	return nil
}

// mergeConform prints the report of one conform from m, and returns its
// exit status.
func mergeConform(e *env, m *shard.Merged, format string) int {
	const cmd = "merge"
	var set exercise.Settings
	if err := json.Unmarshal(m.Run, &set); err != nil {
		errorLine(e, cmd, fmt.Errorf("the results' settings: %w", err))
		return exitUsage
	}
	items := make([]exercise.Item, len(m.Results))
	for i, it := range m.Results {
		if err := json.Unmarshal(it.Report, &items[i]); err != nil {
			errorLine(e, cmd, fmt.Errorf("the report of %s: %w", it.ID, err))
			return exitUsage
		}
	}
	parts := make([]exercise.Part, len(m.Parts))
	for k, p := range m.Parts {
		if len(p.Part) == 0 {
			errorLine(e, cmd, fmt.Errorf("%s: the shard says nothing of its subject (no \"part\")", m.Files[k]))
			return exitUsage
		}
		if err := json.Unmarshal(p.Part, &parts[k]); err != nil {
			errorLine(e, cmd, fmt.Errorf("%s: %w", m.Files[k], err))
			return exitUsage
		}
	}
	r := exercise.MergeConform(set, items, parts)
	return finish(e, cmd, format, r, rerunLine("conform", set.Seed, set.Argv))
}
