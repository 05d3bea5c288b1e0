package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"

	"github.com/spf13/pflag"

	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/shard"
)

// shardFlags are --shard K/N, --result FILE and -v, which verify, lint and
// conform share.
type shardFlags struct {
	spec    shardValue
	result  *string
	verbose *bool
}

// shardValue is --shard's value, checked when the flag is parsed.
type shardValue struct{ spec shard.Spec }

func (v *shardValue) String() string {
	if v.spec.IsZero() {
		return ""
	}
	return v.spec.String()
}
func (v *shardValue) Type() string { return "K/N" }
func (v *shardValue) Set(s string) error {
	spec, err := shard.Parse(s)
	if err != nil {
		return err
	}
	v.spec = spec
	return nil
}

// addShardFlags adds --shard, --result and -v to fs; items names what is
// split ("scenarios and cases", "files", "criteria").
func addShardFlags(fs *pflag.FlagSet, items string) *shardFlags {
	sf := &shardFlags{}
	fs.Var(&sf.spec, "shard", "run shard `K/N` only: the "+items+" whose hash falls in shard K of N (see docs/sharding.md)")
	sf.result = fs.String("result", "", "write this run's whole result (a shard's part) as JSON to `FILE`, for tracecheck merge (schema/result.schema.json)")
	sf.verbose = fs.BoolP("verbose", "v", false, "with --shard or --result: list the "+items+" this shard took (on stderr)")
	return sf
}

// part reports whether the run is one part of a run merge puts together
// (--shard or --result), and its spec (Whole without --shard).
func (sf *shardFlags) part() (shard.Spec, bool) {
	if sf.spec.spec.IsZero() {
		return shard.Whole, *sf.result != ""
	}
	return sf.spec.spec, true
}

// checkResult says what keeps --result FILE from being written, or "".
func (sf *shardFlags) checkResult() string {
	p := *sf.result
	if p == "" {
		return ""
	}
	if p == "-" {
		return "--result - : standard output carries the report; name a file"
	}
	if problem := outputProblem("--result", p); problem != "" {
		return problem
	}
	if _, err := os.Stat(p); err == nil && !shard.IsResultFile(p) {
		// A golden, a log being linted, the subject program: never
		// replaced by a result (an earlier run's result is).
		return fmt.Sprintf("--result %s: exists and is not a tracecheck result file; refusing to replace it (remove it or name another path)", textsafe.Quote(p))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("--result %s: %v", textsafe.Quote(p), errors.Unwrap(err))
	}
	return ""
}

// announce says on stderr which items the shard took: how many of how
// many, and with -v each one (what names it).
func (sf *shardFlags) announce(e *env, cmd, noun string, spec shard.Spec, taken []shard.Planned, total int) {
	fmt.Fprintf(e.stderr, "%s %s: shard %s took %d of %d %s\n", programName, cmd, spec, len(taken), total, noun)
	if *sf.verbose {
		for _, p := range taken {
			fmt.Fprintf(e.stderr, "  %s\n", textsafe.Quote(p.ID))
		}
	}
}

// writeResult writes res to the --result file; false after saying why it
// could not.
func (sf *shardFlags) writeResult(e *env, cmd string, res *shard.Result) bool {
	if err := res.Write(*sf.result); err != nil {
		errorLine(e, cmd, fmt.Errorf("--result: %w", err))
		return false
	}
	fmt.Fprintf(e.stderr, "%s %s: wrote the result of shard %s (%d of %d items) to %s\n", programName, cmd, res.Shard, len(res.Results), len(res.Plan), textsafe.Quote(*sf.result))
	return true
}

// buildVersion is tracecheck's version as a result file records it: the
// version, and the VCS revision the binary was built from when it has one
// (a modified tree marked), so that merge refuses results of two builds.
func buildVersion() string {
	v := version
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	rev, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if modified {
			rev += "+modified"
		}
		v += " (" + rev + ")"
	} else if info.Main.Version != "" && info.Main.Version != "(devel)" {
		v += " (" + info.Main.Version + ")"
	}
	return v
}
