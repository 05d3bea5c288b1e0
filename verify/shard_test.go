package verify_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/shard"
	"github.com/tracecheck/tracecheck/verify"
)

// suite is a golden directory and the items of a run over it: a..h, one
// of them a case with two subjects (its trace and its model-side trace),
// one drifting, one without a golden, and a golden no item renders.
func suite(t *testing.T) (string, []verify.Item) {
	t.Helper()
	files := map[string]string{"retired.trace.jsonl": trace(99)}
	var items []verify.Item
	for i, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		it := verify.Item{ID: id, Kind: "fake", File: "subjects/" + id + ".json", Goldens: []string{id},
			Subjects:   []verify.Subject{subject(id, trace(i))},
			Definition: func() ([]byte, error) { return []byte(id), nil }}
		switch id {
		case "c":
			it.Goldens = append(it.Goldens, id+".model")
			it.Subjects = append(it.Subjects, verify.Subject{ID: id + ".model", Golden: id + ".model", Kind: "fake", Render: subject(id, trace(50)).Render})
			files[id+".model.trace.jsonl"] = trace(50)
			files[id+".trace.jsonl"] = trace(i)
		case "d":
			files[id+".trace.jsonl"] = strings.Replace(trace(i), "completed", "failed", 1) // drifts at line 2
		case "e": // no golden
		default:
			files[id+".trace.jsonl"] = trace(i)
		}
		items = append(items, it)
	}
	return dirWith(t, files), items
}

// reports writes rep in every format.
func reports(t *testing.T, rep *verify.Report) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range verify.Formats() {
		var b bytes.Buffer
		if err := rep.Write(&b, f, ""); err != nil {
			t.Fatal(err)
		}
		out[f] = b.String()
	}
	return out
}

// runShards runs every shard of n over items as verify --shard k/n
// --result does, and returns the results as a file holds them.
func runShards(t *testing.T, dir string, items []verify.Item, n int, opts verify.Options) []*shard.Result {
	t.Helper()
	store := golden.DiskStore(dir)
	d, err := verify.Digest(items)
	if err != nil {
		t.Fatal(err)
	}
	var out []*shard.Result
	for k := 1; k <= n; k++ {
		spec := shard.Spec{Index: k, Total: n}
		var taken []verify.Item
		for _, it := range items {
			if spec.Takes(it.ID) {
				taken = append(taken, it)
			}
		}
		o := opts
		o.Shard = spec.String()
		rep := verify.Run(verify.Subjects(taken), store, o)
		for _, r := range rep.Results {
			if r.Status == verify.StatusObsolete || r.Status == verify.StatusRemoved {
				t.Errorf("N=%d: shard %s reported %s %s: a shard never decides unreferenced goldens", n, spec, r.Status, r.File)
			}
		}
		if rep.Unreferenced.Checked || !strings.Contains(rep.Unreferenced.Skipped, "tracecheck merge decides") {
			t.Errorf("N=%d: shard %s: unreferenced %+v", n, spec, rep.Unreferenced)
		}
		res, err := shard.New(shard.Verify, "test", spec, d, verify.Plan(items), verify.SettingsOf(rep, o, verify.Invocation{Program: "tracecheck"}))
		if err != nil {
			t.Fatal(err)
		}
		if err := verify.AddResults(res, taken, rep, store); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "r.json")
		if err := res.Write(path); err != nil {
			t.Fatal(err)
		}
		back, err := shard.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, back)
	}
	return out
}

// TestMergeEqualsTheWholeRun: for N from 1 to 7, merging the shards'
// results gives the report of the run without shards, byte for byte in
// every format (the drift's GitHub annotations on their golden lines
// included), and only the merge reports the golden no item renders.
func TestMergeEqualsTheWholeRun(t *testing.T) {
	dir, items := suite(t)
	opts := verify.Options{Update: verify.UpdateNo, Unreferenced: verify.UnreferencedReject}
	whole := verify.Run(verify.Subjects(items), golden.DiskStore(dir), opts)
	want := reports(t, whole)
	if !strings.Contains(want["text"], "OBSOLETE "+filepath.Join(dir, "retired.trace.jsonl")) || !strings.Contains(want["github"], "d.trace.jsonl,line=2,") {
		t.Fatalf("the whole run:\n%s%s", want["text"], want["github"])
	}
	for n := 1; n <= 7; n++ {
		rs := runShards(t, dir, items, n, opts)
		files := make([]string, n)
		for i := range files {
			files[i] = fmt.Sprintf("r%d.json", i+1)
		}
		m, err := shard.Merge(files, rs)
		if err != nil {
			t.Fatalf("N=%d: %v", n, err)
		}
		rep, _, err := verify.Merge(m, verify.MergeOptions{Unreferenced: verify.UnreferencedReject})
		if err != nil {
			t.Fatal(err)
		}
		if rep.OK != whole.OK {
			t.Errorf("N=%d: ok %v, the whole run %v", n, rep.OK, whole.OK)
		}
		if d := cmp.Diff(want, reports(t, rep)); d != "" {
			t.Errorf("N=%d: the merged report differs from the whole run's (-whole +merged):\n%s", n, d)
		}
	}
}

func TestMergeDeletesOnlyWhatNoShardRenders(t *testing.T) {
	dir, items := suite(t)
	opts := verify.Options{Update: verify.UpdateNo, Unreferenced: verify.UnreferencedDelete}
	rs := runShards(t, dir, items, 3, opts)
	if _, err := os.Stat(filepath.Join(dir, "retired.trace.jsonl")); err != nil {
		t.Fatalf("a shard deleted the unreferenced golden: %v", err)
	}
	m, err := shard.Merge([]string{"1", "2", "3"}, rs)
	if err != nil {
		t.Fatal(err)
	}
	var notes bytes.Buffer
	rep, _, err := verify.Merge(m, verify.MergeOptions{Unreferenced: verify.UnreferencedDelete, Notes: &notes})
	if err != nil {
		t.Fatal(err)
	}
	last := rep.Results[len(rep.Results)-1]
	if last.Status != verify.StatusRemoved || !strings.Contains(notes.String(), "removing 1 unreferenced golden(s)") {
		t.Fatalf("last result %+v, notes %q", last, notes.String())
	}
	got := listing(t, dir)
	if _, ok := got["retired.trace.jsonl"]; ok || len(got) != 8 {
		t.Errorf("the golden directory holds %v", got)
	}
}

// TestMergeKeepsVerifysRules: a run with ids named, or with an INVALID
// item, looks for no unreferenced golden, merged or not.
func TestMergeKeepsVerifysRules(t *testing.T) {
	dir, items := suite(t)
	items[1].Subjects[0] = subject("b", trace(1), "broken")
	for _, tc := range []struct {
		name  string
		opts  verify.Options
		items []verify.Item
		want  string
	}{
		{"an INVALID item", verify.Options{Update: verify.UpdateNo, Unreferenced: verify.UnreferencedDelete}, items, "1 INVALID"},
		{"ids named", verify.Options{Update: verify.UpdateNo, Unreferenced: verify.UnreferencedDelete, Filtered: true}, items[2:4], "ids were named"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := shard.Merge([]string{"1", "2"}, runShards(t, dir, tc.items, 2, tc.opts))
			if err != nil {
				t.Fatal(err)
			}
			rep, _, err := verify.Merge(m, verify.MergeOptions{Unreferenced: verify.UnreferencedDelete})
			if err != nil {
				t.Fatal(err)
			}
			whole := verify.Run(verify.Subjects(tc.items), golden.DiskStore(dir), tc.opts)
			if rep.Unreferenced != whole.Unreferenced || !strings.Contains(rep.Unreferenced.Skipped, tc.want) {
				t.Errorf("merged %+v, whole %+v", rep.Unreferenced, whole.Unreferenced)
			}
			if _, err := os.Stat(filepath.Join(dir, "retired.trace.jsonl")); err != nil {
				t.Error("the unreferenced golden was deleted")
			}
		})
	}
}

// TestResultCarriesTheWholeReport: an item's report in the file is its
// results as --format json writes them.
func TestResultCarriesTheWholeReport(t *testing.T) {
	dir, items := suite(t)
	rs := runShards(t, dir, items, 1, verify.Options{Update: verify.UpdateNo})
	var got struct {
		Results []map[string]any `json:"results"`
	}
	for _, it := range rs[0].Results {
		if it.ID != "d" {
			continue
		}
		if err := json.Unmarshal(it.Report, &got); err != nil {
			t.Fatal(err)
		}
		if it.Outcome != "drift" || !it.Failed || len(got.Results) != 1 || got.Results[0]["drift"] == nil || got.Results[0]["drift_anchors"] == nil {
			t.Errorf("item d: %+v %v", it, got)
		}
	}
	if g := rs[0].Goldens; g == nil || strings.Join(g.Names, ",") != "a,b,c,c.model,d,f,g,h,retired" {
		t.Errorf("goldens %+v", g)
	}
}
