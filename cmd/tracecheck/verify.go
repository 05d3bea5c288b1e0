package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/tracecheck/tracecheck/cases"
	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/scenarios"
	"github.com/tracecheck/tracecheck/shard"
	"github.com/tracecheck/tracecheck/verify"
	"github.com/tracecheck/tracecheck/view"
)

const verifyUsage = "verify [ID...] [--scenario-dir DIR] [--cases DIR] [--no-scenarios] [--golden-dir DIR]\n" +
	"                  [--update[=auto|new|always|no]] [--unreferenced=warn|reject|delete] [--artifacts DIR]\n" +
	"                  [--format text|json|junit|github] [--shard K/N] [--result FILE] [--verbose] [--prune]"

func verifyHelp() string {
	return `Render each scenario (all when no ID is given) with the scripted model, validate the
trace (Trace 0.1.0 schema, journal invariants, the scenario's expectations) and
compare it byte for byte with its golden file <id>.trace.jsonl.

Where scenarios and goldens come from (a plain verify's first output line says
it): inside the tracecheck module (found by walking up from the working
directory) both from its working tree, scenarios/*.json and golden/; outside it
both from the copies embedded in the binary (read-only). --scenario-dir and
--golden-dir override each; both directories must exist, and a scenario
directory must hold a scenario. With --cases the first line only counts what
runs ("tracecheck: 3 cases from ci/cases"); -v (--verbose) prints where
scenarios, cases and goldens come from under it.

--cases DIR runs the command cases of DIR (DIR/<id>.json, described by
schema/case.schema.json): each runs a command (your agent, any language), takes
its trace (stdout, the lines after a marker line, or a file it writes), and
compares it with <golden>.trace.jsonl: byte for byte, as a tolerant golden
("tolerant": true; an update writes the trace's tolerant form), or by its match
config; with "model" the command runs against the scripted model server and
the server's trace is checked against <golden>.model.trace.jsonl (id
<id>.model). A command that fails, times out (its process group is killed) or
writes no valid trace is INVALID, with the tail of its stderr. The cases run
alone, their goldens beside the case files in DIR: the built-in scenarios are
tracecheck's own, checked by a plain verify, and never run beside cases.
--scenario-dir adds your scenarios to the run; cases and scenarios then share
one golden directory, which --golden-dir names.

A case with "repeat": K runs its command K times, each run compared with the
golden, and passes only when all K do (pass^k): its line says "2/4 passed", its
detail is its first failing run's (the other failing runs one line each), and
a last "pass^k:" block gives each repeated case. An update writes the golden
(or pending golden) from run 1 only and says so; runs 2 to K are compared with
it.

One line per scenario or case: ok <id> events=<n>, DRIFT <id> (every differing
event, the JSON pointer of each differing field, the counts and a unified
diff), MISSING <id>, INVALID <id> (its problems); and OBSOLETE <file> for a
golden no scenario or case renders. Exit 0 all ok, 1 any drift, missing, invalid
(or obsolete with --unreferenced=reject), 2 usage error, a bad case file, or an
unknown id.

--update says what is written when a render differs or has no golden (as insta):
  auto    (the default) a pending golden <id>.trace.jsonl.new beside the golden on
          a developer's machine, nothing in CI, where a missing golden fails
  new     always the pending golden, in CI too
  always  the golden itself, atomically (--update and -update alone mean always)
  no      nothing
An INVALID render is never written. The run still fails until a pending golden is
accepted: 'tracecheck review' shows each against its golden and accepts or rejects
it. When a scenario or case passes, a pending golden left for it earlier is removed.
CI is detected from the environment: CI set to anything but "", 0 or false (CI=false
means not CI whatever else is set); else any of these set (non-empty):
` + wrap(strings.Join(verify.CIVariables(), ", "), 84, "  ") + `

--unreferenced says what happens to a golden no scenario or case renders: warn (the
default outside CI) lists it, reject (the default in CI) fails the run, delete
prints what it will delete, then deletes it. It runs only on a full run (no ID),
with no scenario or case INVALID, and with scenarios, cases and goldens from the
same place (all from the working tree, all embedded, or all named by
--scenario-dir, --cases and --golden-dir; the cases directory holding the goldens
counts as named); it only ever touches names ending in .trace.jsonl in the golden
directory in use.
--prune is a deprecated spelling of --unreferenced=delete, under the same rules.

--artifacts DIR keeps, for every scenario or case that differed, its actual trace
(<id>.actual.jsonl), the golden it was compared with (<id>.expected.jsonl) and,
when both are kept, a side-by-side diff page of the two (<id>.diff.html), for CI
to upload. A tolerant case is shown as 'tracecheck diff --normalize' compares it:
its report's unified diff is of the golden against the actual trace written in
the golden's form (placeholders that matched as the golden writes them), and its
page counts and highlights only the real differences, underlines the
placeholders that matched and lists no problem a placeholder causes.
--format junit writes JUnit XML (one testcase per scenario or case trace, and
per run of a repeated case: <id>#1 to <id>#K); --format github writes GitHub
Actions annotations, one on the golden's line of each differing event.

--shard K/N runs only the scenarios and cases whose id hashes to shard K of N
(a case with all its subjects), so that N jobs of a CI matrix split the suite;
stderr says how many it took (-v: which). --result FILE writes the shard's whole
result as JSON (schema/result.schema.json; without --shard, shard 1/1), and
'tracecheck merge' of every shard's file prints the report and exit status of
the run without --shard. A shard, or a run with --result, never decides on
unreferenced goldens (it sees only its part): merge does. See docs/sharding.md.`
}

func runVerify(e *env, args []string) int {
	fs := newFlags(e, "verify", verifyUsage, verifyHelp())
	scenarioDir := addScenarioDir(fs)
	casesDir := fs.String("cases", "", "run the command cases of `DIR` (DIR/<id>.json; see schema/case.schema.json), beside --scenario-dir's scenarios if given")
	noScenarios := fs.Bool("no-scenarios", false, "run no scenario, not even --scenario-dir's: the cases of --cases only, their goldens beside them unless --golden-dir")
	goldenDir := addGoldenDir(fs)
	update := fs.String("update", string(verify.UpdateAuto), "what to write for a render that differs: `MODE` auto, new, always or no")
	fs.Lookup("update").NoOptDefVal = string(verify.UpdateAlways)
	unref := fs.String("unreferenced", "", "what to do with a golden no scenario or case renders: `MODE` warn, reject or delete (default: reject in CI, else warn)")
	prune := fs.Bool("prune", false, "deprecated: the same as --unreferenced=delete")
	artifacts := fs.String("artifacts", "", "keep the actual and expected traces of every scenario or case that differed, and a side-by-side diff page <id>.diff.html, in `DIR` (created when missing)")
	format := formatFlag(fs, verify.Formats()...)
	sf := addShardFlags(fs, "scenarios and cases")
	// verify's -v also says where everything came from, which the short
	// first line of a run with cases leaves out.
	fs.Lookup("verbose").Usage = "print where the scenarios, cases and goldens come from under the first line; with --shard or --result, also list the scenarios and cases this shard took (on stderr)"
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if msg := sf.checkResult(); msg != "" {
		return usageError(e, "verify", "%s", msg)
	}
	spec, part := sf.part()
	mode, err := verify.ParseUpdateMode(*update)
	if err != nil {
		return usageError(e, "verify", "%v", err)
	}
	ci, _ := verify.DetectCI(os.LookupEnv)
	unrefExplicit := fs.Changed("unreferenced")
	if *prune {
		if unrefExplicit && *unref != string(verify.UnreferencedDelete) {
			return usageError(e, "verify", "--prune (deprecated) means --unreferenced=delete; it cannot go with --unreferenced=%s", *unref)
		}
		fmt.Fprintf(e.stderr, "%s verify: --prune is deprecated: use --unreferenced=delete\n", programName)
		*unref, unrefExplicit = string(verify.UnreferencedDelete), true
	}
	unrefMode, err := verify.ParseUnreferencedMode(*unref, ci)
	if err != nil {
		return usageError(e, "verify", "%v", err)
	}

	if *noScenarios && *casesDir == "" {
		return usageError(e, "verify", "--no-scenarios goes with --cases DIR: there would be nothing to verify")
	}
	loc, code, ok := locate(e, "verify", verify.Dirs{Scenarios: *scenarioDir, Cases: *casesDir, Goldens: *goldenDir, NoScenarios: *noScenarios})
	if !ok {
		return code
	}
	var all []*scenarios.Scenario
	if loc.RunScenarios {
		if all, code, ok = loadScenarios(e, "verify", loc.Scenarios); !ok {
			return code
		}
	}
	var cs []*cases.Case
	if loc.Cases != "" {
		lookup := verify.ScenarioLookup(loc.Scenarios)
		if loc.RunScenarios {
			lookup = verify.LoadedLookup(all) // read above from loc.Scenarios
		}
		if cs, code, ok = loadCases(e, loc, lookup); !ok {
			return code
		}
		if err := verify.CheckNames(all, cs); err != nil {
			fmt.Fprintf(e.stderr, "%s verify: %s\n", programName, verify.SafeLines(err.Error()))
			return exitUsage
		}
	}
	ids := fs.Args()
	if bareUpdate(args) {
		for _, id := range ids {
			if _, err := verify.ParseUpdateMode(id); err == nil && !slices.ContainsFunc(all, func(s *scenarios.Scenario) bool { return s.ID == id }) &&
				!slices.ContainsFunc(cs, func(c *cases.Case) bool { return c.ID == id }) {
				return usageError(e, "verify", "%q after a bare --update is taken as a scenario id: write --update=%s", id, id)
			}
		}
	}
	selected, selCases, err := verify.Select(all, cs, ids)
	if err != nil {
		return usageError(e, "verify", "%v", err)
	}
	store := loc.Goldens
	if store.Embedded() {
		if fs.Changed("update") && mode.Writes(ci) != verify.WritesNone && mode != verify.UpdateAuto {
			return usageError(e, "verify", "--update=%s: %v", mode, golden.ErrReadOnly)
		}
		if unrefMode == verify.UnreferencedDelete {
			return usageError(e, "verify", "--unreferenced=delete: %v", golden.ErrReadOnly)
		}
	}
	if *artifacts != "" {
		if msg := prepareArtifacts(*artifacts, store); msg != "" {
			return usageError(e, "verify", "--artifacts %s", msg)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	items := append(verify.ScenarioItems(loc.Scenarios, selected), verify.CaseItems(ctx, selCases)...)
	var res *shard.Result
	taken := items
	if part {
		known := all
		if !loc.RunScenarios {
			known = nil
		}
		d, err := verify.Digest(append(verify.ScenarioItems(loc.Scenarios, known), verify.CaseItems(ctx, cs)...))
		if err != nil {
			errorLine(e, "verify", err)
			return exitUsage
		}
		if res, err = shard.New(shard.Verify, buildVersion(), spec, d, verify.Plan(items), nil); err != nil {
			errorLine(e, "verify", err)
			return exitFailed
		}
		taken = nil
		for _, it := range items {
			if spec.Takes(it.ID) {
				taken = append(taken, it)
			}
		}
		sf.announce(e, "verify", "scenarios and cases", spec, res.Taken(), len(items))
	}
	opts := verify.Options{
		Update:       mode,
		CI:           ci,
		Unreferenced: unrefMode,
		Filtered:     len(ids) > 0,
		MixedOrigins: loc.MixedOrigins(),
		Artifacts:    *artifacts,
		DiffPage:     view.WriteDiffFile,
		Notes:        notes(e.stderr, "verify"),
	}
	if part {
		opts.Shard = spec.String()
	}
	rep := verify.Run(verify.Subjects(taken), store, opts)
	rep.Scenarios, rep.Goldens = &loc.ScenarioOrigin, &loc.GoldenOrigin
	if loc.Cases != "" {
		rep.Cases = &loc.CaseOrigin
	}
	for _, it := range taken {
		switch it.Kind {
		case verify.KindScenario:
			rep.Counted.Scenarios++
		case verify.KindCase:
			rep.Counted.Cases++
		}
	}
	inv := verify.Invocation{Program: programName, ScenarioDir: *scenarioDir, GoldenDir: *goldenDir, Cases: *casesDir, NoScenarios: *noScenarios, IDs: ids, Part: part}
	if step, ok := rep.NextStep(inv); ok {
		rep.Next = &step
	}
	if res != nil {
		res.Run, err = json.Marshal(verify.SettingsOf(rep, opts, inv))
		if err == nil {
			err = verify.AddResults(res, taken, rep, store)
		}
		if err != nil {
			errorLine(e, "verify", err)
			return exitFailed
		}
	}
	root := os.Getenv("GITHUB_WORKSPACE")
	if root == "" {
		root = loc.Root
	}
	if *format == "text" {
		err = rep.WriteTextOptions(e.stdout, verify.TextOptions{Verbose: *sf.verbose})
	} else {
		err = rep.Write(e.stdout, *format, root)
	}
	if err != nil {
		errorLine(e, "verify", err)
		return exitFailed
	}
	verifyNotes(e, "verify", rep, unrefExplicit, *artifacts)
	if res != nil && !sf.writeResult(e, "verify", res) {
		return exitFailed
	}
	if !rep.OK {
		return exitFailed
	}
	return exitOK
}

// verifyNotes says on stderr what the report's lines do not: a check that
// was asked for and could not run, what CI changed, where artifacts are,
// and the next step.
func verifyNotes(e *env, cmd string, rep *verify.Report, unrefExplicit bool, artifacts string) {
	u := rep.Unreferenced
	if !u.Checked && unrefExplicit {
		fmt.Fprintf(e.stderr, "%s %s: --unreferenced=%s did nothing: %s\n", programName, cmd, u.Mode, u.Skipped)
	}
	if rep.CI && rep.Update == verify.UpdateAuto && !rep.OK {
		fmt.Fprintf(e.stderr, "%s %s: in CI --update=auto writes nothing: a golden that differs or is missing fails the run\n", programName, cmd)
	}
	if artifacts != "" {
		n := 0
		for _, r := range rep.Results {
			n += len(r.Artifacts)
		}
		fmt.Fprintf(e.stderr, "%s %s: --artifacts: kept %d file(s) in %s\n", programName, cmd, n, textsafe.Quote(artifacts))
	}
	if rel := rep.Reliability; rel != nil {
		// A case that passed some runs and failed others has no next
		// step: no golden makes a flaky command reliable.
		var flaky []string
		for _, c := range rel.Cases {
			if c.Passed > 0 && !c.PassK {
				flaky = append(flaky, fmt.Sprintf("%s %d/%d", textsafe.Quote(c.Case), c.Passed, c.Count))
			}
		}
		if len(flaky) > 0 {
			what := "1 case passed some of its runs and failed others"
			if len(flaky) > 1 {
				what = fmt.Sprintf("%d cases passed some of their runs and failed others", len(flaky))
			}
			fmt.Fprintf(e.stderr, "%s %s: %s (%s): no golden fixes that; the report details the first failing run\n",
				programName, cmd, what, strings.Join(flaky, ", "))
		}
	}
	if rep.Next != nil {
		fmt.Fprintf(e.stderr, "%s %s: %s, run: %s\n", programName, cmd, rep.Next.Does, rep.Next.Command)
	}
}

// wrap breaks text at spaces into lines of at most width bytes, each
// starting with prefix.
func wrap(text string, width int, prefix string) string {
	var lines []string
	line := prefix
	for _, w := range strings.Fields(text) {
		if len(line) > len(prefix) && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = prefix
		}
		if len(line) > len(prefix) {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}

// bareUpdate reports whether args hold --update (or -update) with no
// value: then the next word is an argument, not the mode.
func bareUpdate(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--update" || a == "-update" {
			return true
		}
	}
	return false
}

// prepareArtifacts creates the artifacts directory when missing and says
// what keeps it from serving, or "".
func prepareArtifacts(dir string, store *golden.Store) string {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Sprintf("%s: %v", textsafe.Quote(dir), err)
	}
	if !store.Embedded() {
		a, aerr := os.Stat(dir)
		g, gerr := os.Stat(store.Dir())
		if aerr == nil && gerr == nil && os.SameFile(a, g) {
			return fmt.Sprintf("%s: is the golden directory; keep artifacts elsewhere", textsafe.Quote(dir))
		}
	}
	return ""
}

// addScenarioDir adds --scenario-dir to fs.
func addScenarioDir(fs *pflag.FlagSet) *string {
	return fs.String("scenario-dir", "", "read the scenarios <id>.json from `DIR` (default: the module's scenarios/, else the embedded ones)")
}

// addGoldenDir adds --golden-dir to fs.
func addGoldenDir(fs *pflag.FlagSet) *string {
	return fs.String("golden-dir", "", "read and write golden files in `DIR`, which must exist (default: the module's golden/, else the embedded ones)")
}

// locate finds scenarios, cases and goldens (see verify.Locate); a
// directory that cannot serve, or a combination that cannot run, is a
// one-line usage error.
func locate(e *env, cmd string, d verify.Dirs) (*verify.Locations, int, bool) {
	loc, err := verify.Locate(workDir(), d)
	if err != nil {
		return nil, usageError(e, cmd, "%v", err), false
	}
	return loc, 0, true
}

// loadCases reads every case of the cases directory, a model's scenario
// ids found with lookup (in the scenarios verify reads); problems in case
// files are reported one per line (file, JSON pointer, message), exit 2.
func loadCases(e *env, loc *verify.Locations, lookup cases.Lookup) ([]*cases.Case, int, bool) {
	cs, err := cases.LoadDir(loc.Cases, lookup)
	if err != nil {
		fmt.Fprintf(e.stderr, "%s verify: %s\n", programName, verify.SafeLines(err.Error()))
		return nil, exitUsage, false
	}
	if len(cs) == 0 {
		fmt.Fprintf(e.stderr, "%s verify: %s %s holds no case file (<id>.json)\n", programName, verify.CasesFlag, textsafe.Quote(loc.Cases))
		return nil, exitUsage, false
	}
	return cs, 0, true
}

// loadScenarios reads every scenario of src; problems in scenario files
// are reported one per line (file, JSON pointer, message), exit 2. A
// directory that holds no scenario is a usage error too (a mistyped
// --scenario-dir would otherwise verify nothing and pass).
func loadScenarios(e *env, cmd string, src scenarios.Source) ([]*scenarios.Scenario, int, bool) {
	all, err := src.Load()
	if err != nil {
		fmt.Fprintf(e.stderr, "%s %s: %s\n", programName, cmd, verify.SafeLines(err.Error()))
		return nil, exitUsage, false
	}
	if len(all) == 0 {
		return nil, usageError(e, cmd, "%s holds no scenario file (<id>.json)", textsafe.Quote(src.Dir())), false
	}
	return all, 0, true
}

func workDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return filepath.Clean(wd)
}
