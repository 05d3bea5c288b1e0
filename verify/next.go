package verify

import (
	"strings"

	"github.com/tracecheck/tracecheck/golden"
)

// Invocation is how verify was run, flags as the user typed them, so that
// NextStep can repeat them.
type Invocation struct {
	Program     string   `json:"program"`                // "tracecheck"
	ScenarioDir string   `json:"scenario_dir,omitempty"` // the --scenario-dir value; "" when not given
	GoldenDir   string   `json:"golden_dir,omitempty"`   // the --golden-dir value; "" when not given
	Cases       string   `json:"cases,omitempty"`        // the --cases value; "" when not given
	NoScenarios bool     `json:"no_scenarios,omitempty"` // --no-scenarios was given
	IDs         []string `json:"ids,omitempty"`
	// Part: the run was one shard of a run (--shard), so an update it
	// suggests names the ids it is about rather than running every one.
	Part bool `json:"-"`
}

// goldenDir is the directory review must be told: --golden-dir, else the
// cases directory when it holds the goldens (see Locations).
func (inv Invocation) goldenDir() string {
	if inv.GoldenDir != "" {
		return inv.GoldenDir
	}
	return inv.Cases
}

// Step is a command that would fix what a run found, and when or why to
// run it ("if the change is intended", "to review the pending goldens"),
// written to go before ", run: <command>".
type Step struct {
	Command string `json:"command"`
	Does    string `json:"does"`
}

// NextStep returns the one command that would make the failed results of
// r pass, or ok false when there is none: nothing failed, the goldens are
// the read-only embedded copies, or only results that no write would fix
// failed (INVALID ones, goldens that could not be written). Pending goldens
// written by the run are reviewed (tracecheck review); renders that differ
// are written as pending goldens with --update=new and then reviewed, as
// cargo insta's flow goes (never --update=always, which writes goldens
// unreviewed), naming the ids when the run was a selection or had failures
// the update would not fix; unreferenced goldens that failed the run are
// deleted with --unreferenced=delete.
func (r *Report) NextStep(inv Invocation) (Step, bool) {
	if r.OK || r.Embedded {
		return Step{}, false
	}
	var pending, fixable []string
	unref, other := false, false
	for i := range r.Results {
		res := &r.Results[i]
		switch {
		case !res.Failed:
		case res.Pending != "":
			pending = append(pending, res.ID)
		case res.fixable() && len(res.Problems) == 0:
			fixable = append(fixable, res.ID)
		case res.Status == StatusObsolete && len(res.Problems) == 0:
			unref = true
		default:
			other = true
		}
	}
	args := []string{inv.Program}
	var does string
	switch {
	case len(pending) > 0:
		args = append(args, "review")
		if dir := inv.goldenDir(); dir != "" {
			args = append(args, GoldenDirFlag, dir)
		}
		does = "to review the pending goldens (accept or reject each)"
	case len(fixable) > 0:
		args = append(args, "verify")
		args = appendDirs(args, inv)
		args = append(args, "--update=new")
		if len(inv.IDs) > 0 || unref || other || inv.Part {
			args = append(args, fixable...)
		}
		review := []string{inv.Program, "review"}
		if dir := inv.goldenDir(); dir != "" {
			review = append(review, GoldenDirFlag, dir)
		}
		first, ok1 := shellJoin(args)
		second, ok2 := shellJoin(review)
		if !ok1 || !ok2 {
			return Step{}, false
		}
		// As cargo insta: write the new renders as pending goldens, then
		// review each, never goldens overwritten unreviewed. "; ", not
		// " && ": a verify that wrote pending goldens exits 1.
		return Step{Command: first + "; " + second,
			Does: "locally, if the change is intended (the actual traces become pending goldens, <id>.trace.jsonl.new, and review accepts or rejects each)"}, true
	case unref && !other:
		args = append(args, "verify")
		args = appendDirs(args, inv)
		args = append(args, "--unreferenced=delete")
		does = "to delete the goldens no scenario or case renders"
	default:
		return Step{}, false
	}
	cmd, ok := shellJoin(args)
	if !ok {
		return Step{}, false
	}
	return Step{Command: cmd, Does: does}, true
}

func appendDirs(args []string, inv Invocation) []string {
	if inv.ScenarioDir != "" {
		args = append(args, ScenarioDirFlag, inv.ScenarioDir)
	}
	if inv.Cases != "" {
		args = append(args, CasesFlag, inv.Cases)
	}
	if inv.NoScenarios {
		args = append(args, NoScenariosFlag)
	}
	if inv.GoldenDir != "" {
		args = append(args, GoldenDirFlag, inv.GoldenDir)
	}
	return args
}

// shellJoin writes args as a POSIX shell would read them back; it fails
// on an argument that cannot be shown safely on a terminal.
func shellJoin(args []string) (string, bool) {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "":
			out[i] = a
		case golden.Displayable(a):
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		default:
			return "", false
		}
	}
	return strings.Join(out, " "), true
}
