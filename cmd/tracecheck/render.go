package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/internal/jsonout"
	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/scenarios"
	"github.com/tracecheck/tracecheck/verify"
)

func runRender(e *env, args []string) int {
	fset := newFlags(e, "render", "render ID|FILE [--scenario-dir DIR]",
		"Render one scenario and print its trace on standard output, byte for byte what\n"+
			"verify compares with the golden, without comparing. ID names a scenario where\n"+
			"verify finds them (the module's scenarios/, else the embedded ones, or\n"+
			"--scenario-dir); FILE is a scenario file path (ending in .json, or holding a /).\n\n"+
			"On standard error: the scenario's \"expect\" block as the render would need it\n"+
			"(event_count, every event type present as focus_event_types, run_ids,\n"+
			"stop_reason, assistant_messages, unanswered_calls, repaired_calls), ready to\n"+
			"paste into the scenario file, then any problem verify would report (INVALID).\n"+
			"Exit 0 when the render is valid, 1 when it is not (the trace is still printed),\n"+
			"2 usage error or unknown scenario.")
	scenarioDir := addScenarioDir(fset)
	if code, ok := parseFlags(e, fset, args); !ok {
		return code
	}
	if fset.NArg() != 1 {
		return usageError(e, "render", "want one scenario id or scenario file, got %d", fset.NArg())
	}
	sc, code, ok := loadScenarioRef(e, "render", fset.Arg(0), *scenarioDir)
	if !ok {
		return code
	}

	r, err := scenarios.Render(sc)
	if err != nil {
		fmt.Fprintf(e.stderr, "%s render: %s\n", programName, verify.SafeLines(err.Error()))
		return exitFailed
	}
	if _, err := e.stdout.Write(r.Bytes); err != nil {
		return exitFailed
	}
	obs, err := scenarios.Observe(r)
	if err != nil {
		fmt.Fprintf(e.stderr, "%s render: %s: %s\n", programName, textsafe.Quote(sc.ID), verify.SafeLines(err.Error()))
	} else {
		var block strings.Builder
		jsonout.Write(&block, obs)
		lines := strings.Split(strings.TrimSuffix(block.String(), "\n"), "\n")
		for i, l := range lines {
			lines[i] = golden.SafeJSON(l) // the indented JSON's lines hold no newline of their own
		}
		fmt.Fprintf(e.stderr, "%s render: %s renders %d events; its \"expect\" would need (focus_event_types lists every type present: keep the ones it is about):\n\"expect\": %s\n",
			programName, textsafe.Quote(sc.ID), len(r.Events), strings.Join(lines, "\n"))
	}
	if problems := scenarios.Check(r); len(problems) > 0 {
		fmt.Fprintf(e.stderr, "%s render: INVALID %s (verify would not write it):\n", programName, textsafe.Quote(sc.ID))
		for _, p := range problems {
			fmt.Fprintf(e.stderr, "  - %s\n", strings.ReplaceAll(verify.SafeLines(p), "\n", "\n    "))
		}
		return exitFailed
	}
	return exitOK
}

// loadScenarioRef reads the scenario ref names: a scenario file when ref
// looks like a path (ends in .json or holds a slash), else the scenario of
// that id from --scenario-dir, the module's scenarios/ or the embedded ones.
// Problems are one-line usage errors.
func loadScenarioRef(e *env, cmd, ref, scenarioDir string) (*scenarios.Scenario, int, bool) {
	if strings.HasSuffix(ref, ".json") || strings.ContainsRune(ref, '/') || strings.ContainsRune(ref, os.PathSeparator) {
		if scenarioDir != "" {
			return nil, usageError(e, cmd, "--scenario-dir goes with a scenario id, not a file"), false
		}
		sc, err := scenarios.LoadFile(ref)
		var pe *fs.PathError
		switch {
		case errors.As(err, &pe):
			return nil, usageError(e, cmd, "%s: %v", textsafe.Quote(pe.Path), pe.Err), false
		case err != nil:
			fmt.Fprintf(e.stderr, "%s %s: %s\n", programName, cmd, verify.SafeLines(err.Error()))
			return nil, exitUsage, false
		}
		return sc, 0, true
	}
	src, _, err := verify.LocateScenarios(workDir(), scenarioDir)
	if err != nil {
		return nil, usageError(e, cmd, "%v", err), false
	}
	all, code, ok := loadScenarios(e, cmd, src)
	if !ok {
		return nil, code, false
	}
	sel, err := scenarios.Select(all, []string{ref})
	if err != nil {
		return nil, usageError(e, cmd, "%v; %s", err, scenarioFileHint(ref)), false
	}
	return sel[0], 0, true
}

// scenarioFileHint says how a scenario file is named, with the real
// agents' scenario of that name when the module has one (the docs run
// agent run on agents/scenarios/<name>.json).
func scenarioFileHint(ref string) string {
	if root, ok := golden.ModuleRoot(workDir()); ok {
		p := filepath.Join("agents", "scenarios", ref+".json")
		if st, err := os.Stat(filepath.Join(root, p)); err == nil && st.Mode().IsRegular() {
			if rel, err := filepath.Rel(workDir(), filepath.Join(root, p)); err == nil {
				p = rel
			}
			return "a scenario file is named by its path: did you mean " + textsafe.Quote(p) + "?"
		}
	}
	return "a scenario file is named by its path (FILE.json)"
}
