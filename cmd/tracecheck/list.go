package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/tracecheck/tracecheck/internal/jsonout"
	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/scenarios"
	"github.com/tracecheck/tracecheck/verify"
)

func runList(e *env, args []string) int {
	fs := newFlags(e, "list", "list [--scenario-dir DIR] [--format text|json]",
		"List the scenarios: id, the number of events its render holds, whether its golden\n"+
			"must equal the reference implementation's, and the focus event types it must show.\n\n"+
			"Scenarios come from where verify reads them: the module's scenarios/ inside the\n"+
			"tracecheck module, else the copies embedded in the binary; --scenario-dir overrides.")
	format := formatFlag(fs, "text", "json")
	scenarioDir := addScenarioDir(fs)
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(e, "list", "unexpected argument %q", fs.Arg(0))
	}
	src, _, err := verify.LocateScenarios(workDir(), *scenarioDir)
	if err != nil {
		return usageError(e, "list", "%v", err)
	}
	all, code, ok := loadScenarios(e, "list", src)
	if !ok {
		return code
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
	code = exitOK
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
		if err := jsonout.Write(e.stdout, entries); err != nil {
			return exitFailed
		}
		return code
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEVENTS\tREFERENCE\tFOCUS")
	for _, en := range entries {
		events := fmt.Sprint(en.Events)
		if en.Error != "" {
			events = "error: " + textsafe.Quote(en.Error)
		}
		ref := "-"
		if en.Reference {
			ref = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", textsafe.Quote(en.ID), events, ref, strings.Join(en.Focus, ", "))
	}
	tw.Flush()
	return code
}
