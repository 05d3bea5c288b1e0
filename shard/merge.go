package shard

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Merged is a whole run put back together from its shards' results.
type Merged struct {
	Command    string
	Tracecheck string
	Total      int
	Inputs     Inputs
	// Plan is the run's plan; Results the outcome of every item of it, in
	// its order.
	Plan    []Planned
	Results []ItemResult
	// Goldens are the goldens every shard saw, their names united (nil
	// for a command without goldens).
	Goldens *Goldens
	// Run is the settings every shard shares.
	Run json.RawMessage
	// Parts are the results by shard: Parts[k-1] is shard k's.
	Parts []*Result
	// Files names each part's file: Files[k-1] is shard k's.
	Files []string
}

// RefusedError says why a set of results is not one whole run; each
// problem names the files or shards it is about.
type RefusedError struct {
	Problems []string
}

func (e *RefusedError) Error() string { return strings.Join(e.Problems, "; ") }

// maxNamed bounds the ids a problem lists.
const maxNamed = 10

// Merge puts the results of one run's shards together, files[i] naming
// results[i] in messages. It refuses (a *RefusedError) results written by
// different tracecheck versions or of different commands, suites (inputs'
// digests, plans) or settings; a set whose shard counts differ, that lacks
// a shard or has one twice; and a result holding an item that is not its
// shard's, lacking one that is, or holding one twice.
func Merge(files []string, results []*Result) (*Merged, error) {
	if len(results) == 0 {
		return nil, &RefusedError{Problems: []string{"no result file given"}}
	}
	first, f0 := results[0], files[0]
	var probs []string
	add := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	for i, r := range results[1:] {
		f := files[i+1]
		switch {
		case r.Tracecheck != first.Tracecheck:
			add("%s was written by tracecheck %s, %s by tracecheck %s: merge the results of one tracecheck build", f, r.Tracecheck, f0, first.Tracecheck)
		case r.Command != first.Command:
			add("%s is a result of %s, %s of %s", f, r.Command, f0, first.Command)
		case r.Inputs.Digest != first.Inputs.Digest:
			add("%s is of another suite than %s (inputs digest %s, not %s): %s", f, f0, short(r.Inputs.Digest), short(first.Inputs.Digest), planDifference(first.Plan, r.Plan, f0, f))
		case r.Shard.Total != first.Shard.Total:
			add("%s is shard %s, %s shard %s: every shard of a run has the same N", f, r.Shard, f0, first.Shard)
		case !samePlan(r.Plan, first.Plan):
			add("%s planned other items than %s: %s", f, f0, planDifference(first.Plan, r.Plan, f0, f))
		default:
			if k, va, vb, ok := settingsDifference(first.Run, r.Run); ok {
				add("%s ran with other settings than %s: %s is %s in %s, %s in %s", f, f0, k, vb, f, va, f0)
			}
		}
	}
	if len(probs) > 0 {
		return nil, &RefusedError{Problems: probs}
	}

	n := first.Shard.Total
	for _, p := range first.Plan {
		if k := Of(p.ID, n); k != p.Shard {
			add("%s plans %q in shard %d/%d, but it belongs to shard %d/%d (assignment is by a hash of the id)", f0, p.ID, p.Shard, n, k, n)
		}
	}
	if len(probs) > 0 {
		return nil, &RefusedError{Problems: probs}
	}
	byIndex := make([][]int, n)
	for i, r := range results {
		byIndex[r.Shard.Index-1] = append(byIndex[r.Shard.Index-1], i)
	}
	var missing []int
	for k, idx := range byIndex {
		switch {
		case len(idx) == 0:
			missing = append(missing, k+1)
		case len(idx) > 1:
			names := make([]string, len(idx))
			for j, i := range idx {
				names[j] = files[i]
			}
			add("shard %d/%d is given %d times: %s", k+1, n, len(idx), strings.Join(names, ", "))
		}
	}
	if len(missing) > 0 {
		add("%s", missingShards(missing, n, first.Plan))
	}
	if len(probs) > 0 {
		return nil, &RefusedError{Problems: probs}
	}

	m := &Merged{Command: first.Command, Tracecheck: first.Tracecheck, Total: n, Inputs: first.Inputs, Plan: first.Plan, Run: first.Run,
		Parts: make([]*Result, n), Files: make([]string, n)}
	got := make(map[string]ItemResult, len(first.Plan))
	for i, r := range results {
		m.Parts[r.Shard.Index-1], m.Files[r.Shard.Index-1] = r, files[i]
		want := map[string]bool{}
		for _, p := range r.Plan {
			if p.Shard == r.Shard.Index {
				want[p.ID] = true
			}
		}
		seen := map[string]bool{}
		for _, it := range r.Results {
			switch {
			case seen[it.ID]:
				add("%s (shard %s) holds %q twice", files[i], r.Shard, it.ID)
			case !want[it.ID]:
				owner := "no shard's: it is not in the plan"
				if j := slices.IndexFunc(r.Plan, func(p Planned) bool { return p.ID == it.ID }); j >= 0 {
					owner = fmt.Sprintf("shard %d/%d's", r.Plan[j].Shard, n)
				}
				add("%s (shard %s) holds %q, which is %s", files[i], r.Shard, it.ID, owner)
			}
			seen[it.ID] = true
			got[it.ID] = it
		}
		var lacks []string
		for _, p := range r.Plan {
			if p.Shard == r.Shard.Index && !seen[p.ID] {
				lacks = append(lacks, p.ID)
			}
		}
		if len(lacks) > 0 {
			add("%s (shard %s) lacks %d of its items: %s", files[i], r.Shard, len(lacks), named(lacks))
		}
	}
	if len(probs) > 0 {
		return nil, &RefusedError{Problems: probs}
	}
	for _, p := range m.Plan {
		m.Results = append(m.Results, got[p.ID])
	}
	if first.Goldens != nil {
		g := &Goldens{Dir: first.Goldens.Dir, Embedded: first.Goldens.Embedded}
		set := map[string]bool{}
		for _, r := range results {
			if r.Goldens == nil {
				continue
			}
			for _, name := range r.Goldens.Names {
				set[name] = true
			}
		}
		for name := range set {
			g.Names = append(g.Names, name)
		}
		sort.Strings(g.Names)
		m.Goldens = g
	}
	return m, nil
}

// missingShards names the missing shards and what they hold.
func missingShards(missing []int, n int, plan []Planned) string {
	names := make([]string, len(missing))
	for i, k := range missing {
		names[i] = fmt.Sprintf("%d/%d", k, n)
	}
	var ids []string
	for _, p := range plan {
		if slices.Contains(missing, p.Shard) {
			ids = append(ids, p.ID)
		}
	}
	noun, holds := "shard "+names[0]+" is", "it holds"
	if len(names) > 1 {
		noun, holds = "shards "+strings.Join(names, ", ")+" are", "they hold"
	}
	what := "none of the plan's items"
	if len(ids) > 0 {
		what = fmt.Sprintf("%d item(s): %s", len(ids), named(ids))
	}
	return fmt.Sprintf("%s missing (%s %s): give the result file of every shard of the run", noun, holds, what)
}

// named lists ids, the first maxNamed of them.
func named(ids []string) string {
	q := make([]string, 0, min(len(ids), maxNamed))
	for _, id := range ids[:min(len(ids), maxNamed)] {
		q = append(q, fmt.Sprintf("%q", id))
	}
	s := strings.Join(q, ", ")
	if len(ids) > maxNamed {
		s += fmt.Sprintf(" and %d more", len(ids)-maxNamed)
	}
	return s
}

func short(digest string) string {
	if len(digest) > 19 {
		return digest[:19] + "…"
	}
	return digest
}

func samePlan(a, b []Planned) bool {
	return len(a) == len(b) && slices.EqualFunc(a, b, func(x, y Planned) bool {
		return x.ID == y.ID && x.Kind == y.Kind && x.Shard == y.Shard && slices.Equal(x.Goldens, y.Goldens)
	})
}

// planDifference says how the plan of b (file fb) differs from a's (fa).
func planDifference(a, b []Planned, fa, fb string) string {
	ids := func(p []Planned) map[string]bool {
		m := make(map[string]bool, len(p))
		for _, x := range p {
			m[x.ID] = true
		}
		return m
	}
	ia, ib := ids(a), ids(b)
	var onlyA, onlyB []string
	for _, x := range a {
		if !ib[x.ID] {
			onlyA = append(onlyA, x.ID)
		}
	}
	for _, x := range b {
		if !ia[x.ID] {
			onlyB = append(onlyB, x.ID)
		}
	}
	var parts []string
	if len(onlyA) > 0 {
		parts = append(parts, fmt.Sprintf("only %s has %s", fa, named(onlyA)))
	}
	if len(onlyB) > 0 {
		parts = append(parts, fmt.Sprintf("only %s has %s", fb, named(onlyB)))
	}
	if len(parts) == 0 {
		return "the same items, defined otherwise (a changed definition file or golden name, or another order)"
	}
	return strings.Join(parts, "; ")
}

// settingsDifference names the first top-level setting (in name order) in
// which two runs' settings differ, with its value in each; ok is false
// when they are the same.
func settingsDifference(a, b json.RawMessage) (key, va, vb string, ok bool) {
	var ma, mb map[string]any
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return "run", string(a), string(b), string(a) != string(b)
	}
	keys := map[string]bool{}
	for k := range ma {
		keys[k] = true
	}
	for k := range mb {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		if !reflect.DeepEqual(ma[k], mb[k]) {
			return k, show(ma[k]), show(mb[k]), true
		}
	}
	return "", "", "", false
}

func show(v any) string {
	if v == nil {
		return "unset"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
