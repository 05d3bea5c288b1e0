package trajectory

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/tracediff"
	"github.com/tracecheck/tracecheck/tracediff/tolerant"
)

// checkPolicy adds a failure for every call, count or turn of the actual
// trace that p does not allow. anchor gives the expected file's line a
// failure about an actual call is reported at.
func checkPolicy(act *Trace, p *Policy, f *failures, anchor func(*Call) int) {
	on := func(a *Call, pointer, expected string, got jsonv.Value, note string) {
		ed := tracediff.EventDiff{Kind: KindPolicy, Run: a.Run + 1, Sequence: a.Sequence, EventID: a.EventID, Type: "tool.request",
			ActualLine: a.Line, Anchor: anchor(a), Note: note}
		if pointer != "" {
			fd := tracediff.FieldOf(tolerant.Mismatch{Pointer: pointer, Actual: got}, 0)
			fd.Expected = expected
			ed.Fields = []tracediff.FieldDiff{fd}
		}
		f.add(ed)
	}
	counts := map[string]int{}
	for i := range act.Calls {
		a := &act.Calls[i]
		name := a.ToolName()
		counts[name]++
		if p.AllowedTools != nil && !slices.Contains(p.AllowedTools, name) {
			on(a, "/payload/tool", "one of "+list(p.AllowedTools), a.Tool, "the tool is not allowed")
		}
		if slices.Contains(p.DeniedTools, name) {
			on(a, "/payload/tool", "none of "+list(p.DeniedTools), a.Tool, "the tool is denied")
		}
		if b, ok := p.Calls[name]; ok && b.Max != nil && counts[name] == *b.Max+1 {
			on(a, "/payload/tool", "at most "+strconv.Itoa(*b.Max)+" calls", a.Tool, "call "+strconv.Itoa(counts[name])+" of "+quote(name))
		}
		if p.NoOrphanCalls && !a.HasResult {
			on(a, "/payload/tool_call_id", "answered by a tool.result", a.ToolCallID, "an orphan call: no tool.result with its tool_call_id in the run")
		}
	}
	names := make([]string, 0, len(p.Calls))
	for name := range p.Calls {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if b := p.Calls[name]; b.Min != nil && counts[name] < *b.Min {
			f.add(tracediff.EventDiff{Kind: KindPolicy, Anchor: 1,
				Note: quote(name) + " is called " + strconv.Itoa(counts[name]) + " times; at least " + strconv.Itoa(*b.Min) + " expected"})
		}
	}
	if p.MaxTurns != nil {
		runs := make([]int, 0, len(act.Turns))
		for run := range act.Turns {
			runs = append(runs, run)
		}
		sort.Ints(runs)
		for _, run := range runs {
			if ts := act.Turns[run]; len(ts) > *p.MaxTurns {
				t := ts[*p.MaxTurns]
				f.add(tracediff.EventDiff{Kind: KindPolicy, Run: run + 1, Sequence: t.Sequence, EventID: t.EventID, Type: "model.request",
					ActualLine: t.Line, Anchor: 1,
					Note: "turn " + strconv.Itoa(*p.MaxTurns+1) + " of " + strconv.Itoa(len(ts)) + ": at most " + strconv.Itoa(*p.MaxTurns) + " turns are allowed"})
			}
		}
	}
}

func quote(s string) string { return string(jsonv.AppendPyString(nil, s)) }

func list(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
