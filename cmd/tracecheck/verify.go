package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/scenarios"
)

// Verify statuses, as --format json spells them; text output upper-cases
// the failing ones.
const (
	statusOK       = "ok"
	statusDrift    = "drift"
	statusMissing  = "missing"
	statusObsolete = "obsolete"
	statusInvalid  = "invalid"
	statusCreated  = "created"
	statusUpdated  = "updated"
	statusRemoved  = "removed"
)

// verifyResult is one line of verify's report.
type verifyResult struct {
	ID       string        `json:"id,omitempty"`
	Status   string        `json:"status"`
	Events   int           `json:"events,omitempty"`
	File     string        `json:"file"`
	Drift    *golden.Drift `json:"drift,omitempty"`
	Problems []string      `json:"problems,omitempty"`
}

func (r verifyResult) failed() bool {
	switch r.Status {
	case statusDrift, statusMissing, statusObsolete, statusInvalid:
		return true
	}
	return false
}

// scenarioSource adds --scenario-dir to fs and returns a loader.
func scenarioSource(fs *pflag.FlagSet) func() ([]*scenarios.Scenario, error) {
	dir := fs.String("scenario-dir", "", "read scenarios/*.json from `DIR` instead of the built-in ones")
	return func() ([]*scenarios.Scenario, error) {
		if *dir != "" {
			return scenarios.LoadDir(*dir)
		}
		return scenarios.Builtin()
	}
}

func checkFormat(e *env, cmd, format string) bool {
	if format != "text" && format != "json" {
		fmt.Fprintf(e.stderr, "%s %s: --format must be text or json, not %q\n", programName, cmd, format)
		return false
	}
	return true
}

// selectScenarios returns the scenarios named by ids (all when none), in
// the order given, or reports the unknown ones.
func selectScenarios(e *env, cmd string, all []*scenarios.Scenario, ids []string) ([]*scenarios.Scenario, bool) {
	if len(ids) == 0 {
		return all, true
	}
	byID := map[string]*scenarios.Scenario{}
	known := make([]string, len(all))
	for i, s := range all {
		byID[s.ID] = s
		known[i] = s.ID
	}
	var out []*scenarios.Scenario
	ok := true
	for _, id := range ids {
		s, found := byID[id]
		switch {
		case !found:
			fmt.Fprintf(e.stderr, "%s %s: unknown scenario %q (known: %s)\n", programName, cmd, id, strings.Join(known, ", "))
			ok = false
		case !slices.Contains(out, s):
			out = append(out, s)
		}
	}
	return out, ok
}

func runVerify(e *env, args []string) int {
	fs := newFlags(e, "verify", "verify [ID...] [--update [--prune]] [--golden-dir DIR] [--format text|json]",
		"Render each scenario (all when no ID is given) with the scripted model, validate the\n"+
			"trace (Trace 0.1.0 schema, journal invariants, the scenario's expectations) and\n"+
			"compare it byte for byte with its golden file <id>.trace.jsonl.\n\n"+
			"Golden files are read from --golden-dir, else from the golden/ directory of the\n"+
			"tracecheck module found by walking up from the working directory, else from the\n"+
			"copies embedded in the binary (read-only).\n\n"+
			"One line per scenario: ok <id> events=<n>, DRIFT <id> (with where and how it differs),\n"+
			"MISSING <id>, INVALID <id>; with no ID, also OBSOLETE <file> for a golden that no\n"+
			"scenario renders. Exit 0 all ok, 1 any drift, missing, invalid or obsolete, 2 usage\n"+
			"error or unknown scenario.")
	update := fs.Bool("update", false, "write the renders that differ from their goldens (atomically); also -update")
	prune := fs.Bool("prune", false, "with --update, remove obsolete golden files")
	goldenDir := fs.String("golden-dir", "", "read and write golden files in `DIR`")
	format := fs.String("format", "text", "output format: text or json")
	load := scenarioSource(fs)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if !checkFormat(e, "verify", *format) {
		return exitUsage
	}
	if *prune && !*update {
		fmt.Fprintf(e.stderr, "%s verify: --prune only goes with --update\n", programName)
		return exitUsage
	}
	all, err := load()
	if err != nil {
		fmt.Fprintf(e.stderr, "%s verify: %v\n", programName, err)
		return exitUsage
	}
	selected, ok := selectScenarios(e, "verify", all, fs.Args())
	if !ok {
		return exitUsage
	}
	var store *golden.Store
	if *goldenDir != "" {
		store = golden.DiskStore(*goldenDir)
	} else {
		wd, err := os.Getwd()
		if err != nil {
			wd = "."
		}
		store = golden.DefaultStore(wd)
	}
	if *update && store.Embedded() {
		fmt.Fprintf(e.stderr, "%s verify: --update: %v\n", programName, golden.ErrReadOnly)
		return exitUsage
	}

	results := make([]verifyResult, 0, len(selected)) // [] in JSON, never null
	for _, sc := range selected {
		results = append(results, verifyOne(sc, store, *update))
	}
	if len(fs.Args()) == 0 {
		obs, err := obsolete(store, all, *update && *prune)
		if err != nil {
			fmt.Fprintf(e.stderr, "%s verify: %v\n", programName, err)
			return exitFailed
		}
		results = append(results, obs...)
	}

	failed := slices.ContainsFunc(results, verifyResult.failed)
	if *format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			GoldenDir string         `json:"golden_dir"`
			Embedded  bool           `json:"embedded"`
			OK        bool           `json:"ok"`
			Results   []verifyResult `json:"results"`
		}{store.String(), store.Embedded(), !failed, results}); err != nil {
			fmt.Fprintf(e.stderr, "%s verify: %v\n", programName, err)
			return exitFailed
		}
	} else {
		for _, r := range results {
			writeResult(e.stdout, r)
		}
		if failed && !*update {
			fmt.Fprintf(e.stderr, "%s verify: goldens in %s do not match; if the change is intended, run: %s verify --update\n", programName, store, programName)
		}
	}
	if failed {
		return exitFailed
	}
	return exitOK
}

// verifyOne renders, checks and compares one scenario, and with update
// writes its golden when it differs.
func verifyOne(sc *scenarios.Scenario, store *golden.Store, update bool) verifyResult {
	res := verifyResult{ID: sc.ID, File: store.Path(sc.ID)}
	r, err := scenarios.Render(sc)
	if err != nil {
		res.Status, res.Problems = statusInvalid, []string{err.Error()}
		return res
	}
	res.Events = len(r.Events)
	if problems := scenarios.Check(r); len(problems) > 0 {
		// An invalid render is never written, even with --update.
		res.Status, res.Problems = statusInvalid, problems
		return res
	}
	want, err := store.Read(sc.ID)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		res.Status = statusMissing
	case err != nil:
		res.Status, res.Problems = statusInvalid, []string{err.Error()}
		return res
	default:
		res.Drift = golden.Compare(want, r.Bytes, res.File, "rendered "+sc.ID)
		res.Status = statusOK
		if res.Drift != nil {
			res.Status = statusDrift
		}
	}
	if update && res.Status != statusOK {
		created := res.Status == statusMissing
		if _, err := store.Write(sc.ID, r.Bytes); err != nil {
			res.Problems = []string{"writing the golden: " + err.Error()}
			return res
		}
		res.Status, res.Drift = statusUpdated, nil
		if created {
			res.Status = statusCreated
		}
	}
	return res
}

// obsolete reports the golden files no scenario renders, removing them when
// prune is set.
func obsolete(store *golden.Store, all []*scenarios.Scenario, prune bool) ([]verifyResult, error) {
	ids, err := store.IDs()
	if err != nil {
		return nil, err
	}
	var out []verifyResult
	for _, id := range ids {
		if slices.ContainsFunc(all, func(s *scenarios.Scenario) bool { return s.ID == id }) {
			continue
		}
		r := verifyResult{Status: statusObsolete, File: store.Path(id)}
		if prune {
			if err := store.Remove(id); err != nil {
				r.Problems = []string{"removing: " + err.Error()}
			} else {
				r.Status = statusRemoved
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func writeResult(w io.Writer, r verifyResult) {
	switch r.Status {
	case statusOK, statusCreated, statusUpdated:
		fmt.Fprintf(w, "%s %s events=%d\n", r.Status, r.ID, r.Events)
	case statusRemoved:
		fmt.Fprintf(w, "removed %s\n", r.File)
	case statusObsolete:
		fmt.Fprintf(w, "OBSOLETE %s (no scenario renders it; remove it with --update --prune)\n", r.File)
	case statusMissing:
		fmt.Fprintf(w, "MISSING %s (no golden %s)\n", r.ID, r.File)
	case statusInvalid:
		fmt.Fprintf(w, "INVALID %s\n", r.ID)
	case statusDrift:
		fmt.Fprintf(w, "DRIFT %s\n", r.ID)
		writeDrift(w, r.File, r.Drift)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  - %s\n", indent(p, "    "))
	}
}

func writeDrift(w io.Writer, file string, d *golden.Drift) {
	fmt.Fprintf(w, "  %s: first difference at line %d", file, d.Line)
	if d.Sequence != nil || d.EventID != "" || d.Type != "" {
		fmt.Fprint(w, ", event")
		if d.Sequence != nil {
			fmt.Fprintf(w, " sequence=%d", *d.Sequence)
		}
		if d.EventID != "" {
			fmt.Fprintf(w, " event_id=%s", d.EventID)
		}
		if d.Type != "" {
			fmt.Fprintf(w, " type=%s", d.Type)
		}
	}
	fmt.Fprintln(w)
	if d.Note != "" {
		fmt.Fprintf(w, "  %s\n", d.Note)
	}
	for _, f := range d.Fields {
		fmt.Fprintf(w, "  %s: expected %s, actual %s\n", f.Path, f.Expected, f.Actual)
	}
	if d.Diff != "" {
		fmt.Fprintf(w, "  %s\n", indent(strings.TrimSuffix(d.Diff, "\n"), "  "))
	}
}

func indent(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func runList(e *env, args []string) int {
	fs := newFlags(e, "list", "list [--format text|json]",
		"List the scenarios: id, the number of events its render holds, whether its golden\n"+
			"must equal the reference implementation's, and the focus event types it must show.")
	format := fs.String("format", "text", "output format: text or json")
	load := scenarioSource(fs)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if !checkFormat(e, "list", *format) {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "%s list: unexpected argument %q\n", programName, fs.Arg(0))
		return exitUsage
	}
	all, err := load()
	if err != nil {
		fmt.Fprintf(e.stderr, "%s list: %v\n", programName, err)
		return exitUsage
	}
	type entry struct {
		ID          string   `json:"id"`
		Events      int      `json:"events"`
		Reference   bool     `json:"reference"`
		Focus       []string `json:"focus_event_types"`
		Description string   `json:"description,omitempty"`
		Error       string   `json:"error,omitempty"`
	}
	entries := make([]entry, 0, len(all))
	code := exitOK
	for _, sc := range all {
		en := entry{ID: sc.ID, Reference: sc.Reference, Focus: sc.Expect.FocusEventTypes, Description: sc.Description}
		if en.Focus == nil {
			en.Focus = []string{}
		}
		if r, err := scenarios.Render(sc); err != nil {
			en.Error = err.Error()
			code = exitFailed
		} else {
			en.Events = len(r.Events)
		}
		entries = append(entries, en)
	}
	if *format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(entries); err != nil {
			return exitFailed
		}
		return code
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEVENTS\tREFERENCE\tFOCUS")
	for _, en := range entries {
		events := fmt.Sprint(en.Events)
		if en.Error != "" {
			events = "error: " + en.Error
		}
		ref := "-"
		if en.Reference {
			ref = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", en.ID, events, ref, strings.Join(en.Focus, ", "))
	}
	tw.Flush()
	return code
}
