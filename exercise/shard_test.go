package exercise

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/exercise/reference"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/shard"
)

// conformReport is what RunConform reports for results of Conform.
func conformReport(res []ExerciseResult) *Report {
	r := &Report{Command: "conform", Seed: 11, Hello: allOps, Exercises: res, Stderr: []string{}}
	r.settle(nil)
	return r
}

// TestShardedConformIsOneConform: for N of 1, 2 and 5 the shards check
// each criterion once, and MergeConform of their items (through JSON, as a
// result file holds them) is the report of one conform, for a subject that
// passes and for one with a mistake (B2's mutant); request ids aside,
// which each shard numbers on its own.
func TestShardedConformIsOneConform(t *testing.T) {
	fx := loadFixtures(t)
	ms := mutants()
	for name, mk := range map[string]func() mutant{
		"the reference": func() mutant {
			return func(op string, req jsonv.Value, h *reference.Handler) jsonv.Value { return h.Handle(req) }
		},
		"B2's mutant": ms["B2"],
	} {
		caller := func() Caller {
			h := reference.NewHandler()
			t.Cleanup(func() { h.Close() })
			m := mk()
			return &inProcess{h: func(req jsonv.Value) jsonv.Value { return m(member(req, "op").Text(), req, h) }}
		}
		whole, err := Conform(caller(), allOps, Options{Seed: 11, Fixtures: fx})
		if err != nil {
			t.Fatal(err)
		}
		want := conformReport(whole)
		for _, n := range []int{1, 2, 5} {
			byID := map[string]Item{}
			var parts []Part
			for k := 1; k <= n; k++ {
				spec := shard.Spec{Index: k, Total: n}
				res, err := Conform(caller(), allOps, Options{Seed: 11, Fixtures: fx, Takes: spec.Takes})
				if err != nil {
					t.Fatal(err)
				}
				r := conformReport(res)
				for _, it := range Items(r, spec.Takes) {
					if _, dup := byID[it.ID]; dup {
						t.Fatalf("%s N=%d: %s checked twice", name, n, it.ID)
					}
					b, _ := json.Marshal(it)
					var back Item
					if err := json.Unmarshal(b, &back); err != nil {
						t.Fatal(err)
					}
					byID[it.ID] = back
				}
				parts = append(parts, PartOf(r))
			}
			var items []Item
			for _, p := range Plan() {
				it, ok := byID[p.ID]
				if !ok {
					t.Fatalf("%s N=%d: no shard checked %s", name, n, p.ID)
				}
				items = append(items, it)
			}
			got := MergeConform(Settings{Seed: 11}, items, parts)
			got.Hello = allOps
			opts := cmp.Options{cmp.Comparer(func(a, b jsonv.Value) bool { return a.IsValid() == b.IsValid() })}
			if d := cmp.Diff(want, got, opts); d != "" {
				t.Errorf("%s N=%d: the merge differs from one conform (-conform +merged):\n%s", name, n, d)
			}
		}
	}
}
