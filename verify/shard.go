package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tracecheck/tracecheck/cases"
	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/scenarios"
	"github.com/tracecheck/tracecheck/shard"
)

// Item is what a shard of a verify run takes whole: a scenario, or a
// command case with every subject of it (its trace, its model-side trace
// or its report share one run of its command, so they are never split).
// Items are assigned to shards by their id (package shard).
type Item struct {
	ID   string
	Kind string // KindScenario or KindCase
	// File is the item's definition file.
	File string
	// Goldens are the golden names its subjects render.
	Goldens  []string
	Subjects []Subject
	// Definition reads File's bytes, for the inputs' digest.
	Definition func() ([]byte, error)
}

// ScenarioItems makes an item of each scenario of list, read from src.
func ScenarioItems(src scenarios.Source, list []*scenarios.Scenario) []Item {
	out := make([]Item, len(list))
	for i, sc := range list {
		out[i] = Item{ID: sc.ID, Kind: KindScenario, File: sc.File, Goldens: []string{sc.ID}, Subjects: ScenarioSubjects(list[i : i+1]),
			Definition: func() ([]byte, error) { return src.Definition(sc) }}
	}
	return out
}

// CaseItems makes an item of each command case of list (see
// CaseSubjects); ctx stops their commands.
func CaseItems(ctx context.Context, list []*cases.Case) []Item {
	out := make([]Item, len(list))
	for i, c := range list {
		out[i] = Item{ID: c.ID, Kind: KindCase, File: c.File, Goldens: c.GoldenNames(), Subjects: CaseSubjects(ctx, list[i:i+1]),
			Definition: func() ([]byte, error) { return os.ReadFile(c.File) }}
	}
	return out
}

// Subjects are the subjects of items, in order.
func Subjects(items []Item) []Subject {
	var out []Subject
	for i := range items {
		out = append(out, items[i].Subjects...)
	}
	return out
}

// Digest is the digest of the inputs of a run that knew the items known
// (every scenario and case loaded, selected or not): each one's kind, id,
// definition file and golden names; not the goldens themselves, which a
// run checks and may write.
func Digest(known []Item) (*shard.Digest, error) {
	d := shard.NewDigest(shard.Verify)
	for i := range known {
		it := &known[i]
		def, err := it.Definition()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", quote(it.File), err)
		}
		parts := [][]byte{def}
		for _, g := range it.Goldens {
			parts = append(parts, []byte(g))
		}
		d.Add(it.Kind, it.ID, parts...)
	}
	return d, nil
}

// Plan is the plan of a run of items (see shard.Result.Plan).
func Plan(items []Item) []shard.Planned {
	out := make([]shard.Planned, len(items))
	for i := range items {
		out[i] = shard.Planned{ID: items[i].ID, Kind: items[i].Kind, Goldens: items[i].Goldens}
	}
	return out
}

// Settings are what every shard of a verify run shares, kept as a result
// file's "run": where scenarios, cases and goldens came from, the update
// mode, what the run could check, and the command line (for the next step
// the merged report gives).
type Settings struct {
	Scenarios *Origin    `json:"scenarios,omitempty"`
	Cases     *Origin    `json:"cases,omitempty"`
	Goldens   *Origin    `json:"goldens,omitempty"`
	GoldenDir string     `json:"golden_dir"`
	Embedded  bool       `json:"embedded"`
	CI        bool       `json:"ci"`
	Update    UpdateMode `json:"update"`
	Writes    Writes     `json:"writes"`
	Artifacts string     `json:"artifacts_dir,omitempty"`
	// Filtered: ids were named. MixedOrigins: why subjects and goldens do
	// not come from the same place. Either keeps the merge from looking
	// for unreferenced goldens, as each keeps Run.
	Filtered     bool       `json:"filtered"`
	MixedOrigins string     `json:"mixed_origins,omitempty"`
	Invocation   Invocation `json:"invocation"`
}

// SettingsOf are the settings of a run that gave rep with opts, invoked
// as inv.
func SettingsOf(rep *Report, opts Options, inv Invocation) Settings {
	inv.Part = false
	return Settings{Scenarios: rep.Scenarios, Cases: rep.Cases, Goldens: rep.Goldens, GoldenDir: rep.GoldenDir, Embedded: rep.Embedded,
		CI: rep.CI, Update: rep.Update, Writes: rep.Writes, Artifacts: rep.Artifacts, Filtered: opts.Filtered, MixedOrigins: opts.MixedOrigins,
		Invocation: inv}
}

// itemReport is an item's report in a result file: its subjects' results
// as --format json writes them, and the golden line each detailed drift
// event is anchored to (which --format github needs and the JSON form
// leaves out).
type itemReport struct {
	Results []savedResult `json:"results"`
}

type savedResult struct {
	Result
	Anchors []int `json:"drift_anchors,omitempty"`
}

// AddResults records in res the results of rep, a Run of the subjects of
// taken (in order), item by item, and the goldens of store.
func AddResults(res *shard.Result, taken []Item, rep *Report, store *golden.Store) error {
	i := 0
	for _, it := range taken {
		n := len(it.Subjects)
		if i+n > len(rep.Results) {
			return errors.New("the report holds fewer results than the items have subjects")
		}
		ir := itemReport{Results: make([]savedResult, n)}
		outcome, failed := "", false
		for j, r := range rep.Results[i : i+n] {
			ir.Results[j].Result = r
			if r.Drift != nil {
				for _, e := range r.Drift.Events {
					ir.Results[j].Anchors = append(ir.Results[j].Anchors, e.Anchor)
				}
			}
			if outcome == "" || r.Failed && !failed {
				outcome = string(r.Status)
			}
			failed = failed || r.Failed
		}
		if outcome == "" {
			outcome = string(StatusOK)
		}
		if err := res.Add(it.ID, outcome, failed, ir); err != nil {
			return err
		}
		i += n
	}
	ids, err := store.IDs()
	if err != nil {
		return fmt.Errorf("listing the goldens of %s: %w", quote(store.String()), err)
	}
	if ids == nil {
		ids = []string{}
	}
	res.Goldens = &shard.Goldens{Dir: store.String(), Embedded: store.Embedded(), Names: ids}
	return nil
}

// MergeOptions say what Merge does besides putting the shards' reports
// together.
type MergeOptions struct {
	// Unreferenced is what to do with a golden no item of the run renders.
	Unreferenced UnreferencedMode
	// Notes receives what Merge says before it acts (the goldens it is
	// about to delete); nil discards it.
	Notes io.Writer
}

// Merge makes the report of a whole verify run from its shards' results:
// every item's results in the plan's order (the order the run without
// --shard gives them), then the unreferenced goldens, decided here across
// every shard as Run decides them for a whole run: a golden any shard saw
// on disk that no item of the plan renders, under the same conditions (no
// ids named, every item valid, subjects and goldens from the same place).
// With UnreferencedDelete they are deleted from the golden directory the
// results name, as seen from the working directory (the checkout the
// shards ran in). It returns the run's settings too.
func Merge(m *shard.Merged, opts MergeOptions) (*Report, *Settings, error) {
	if m.Command != shard.Verify {
		return nil, nil, fmt.Errorf("results of %s, not of verify", m.Command)
	}
	var set Settings
	if err := json.Unmarshal(m.Run, &set); err != nil {
		return nil, nil, fmt.Errorf("the results' settings: %w", err)
	}
	rep := &Report{Scenarios: set.Scenarios, Cases: set.Cases, Goldens: set.Goldens, GoldenDir: set.GoldenDir, Embedded: set.Embedded,
		CI: set.CI, Update: set.Update, Writes: set.Writes, Unreferenced: UnreferencedReport{Mode: opts.Unreferenced}, Artifacts: set.Artifacts,
		Results: []Result{}}
	invalid := 0
	refs := map[string]bool{}
	for _, p := range m.Plan {
		for _, g := range p.Goldens {
			refs[g] = true
		}
		// The plan is every item the unsharded run checks: the counts of
		// its first line.
		switch p.Kind {
		case KindScenario:
			rep.Counted.Scenarios++
		case KindCase:
			rep.Counted.Cases++
		}
	}
	for _, it := range m.Results {
		var ir itemReport
		if err := json.Unmarshal(it.Report, &ir); err != nil {
			return nil, nil, fmt.Errorf("the report of %q: %w", it.ID, err)
		}
		for _, sr := range ir.Results {
			r := sr.Result
			if r.Drift != nil {
				for k := range r.Drift.Events {
					if k < len(sr.Anchors) {
						r.Drift.Events[k].Anchor = sr.Anchors[k]
					}
				}
			}
			if r.Status == StatusInvalid {
				invalid++
			}
			rep.Results = append(rep.Results, r)
		}
	}
	store := golden.EmbeddedStore()
	if !set.Embedded {
		store = golden.DiskStore(set.GoldenDir)
	}
	var onDisk []string
	if m.Goldens != nil {
		onDisk = m.Goldens.Names
	}
	if onDisk == nil {
		onDisk = []string{}
	}
	o := Options{Unreferenced: opts.Unreferenced, Filtered: set.Filtered, MixedOrigins: set.MixedOrigins, Notes: opts.Notes}
	rep.settle(o, invalid, func() []Result { return unreferenced(store, onDisk, refs, o) })
	return rep, &set, nil
}
