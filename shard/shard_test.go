package shard

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Spec
		err  string
	}{
		{"1/1", Spec{1, 1}, ""},
		{"3/7", Spec{3, 7}, ""},
		{"7/7", Spec{7, 7}, ""},
		{"10000/10000", Spec{10000, 10000}, ""},
		{"0/3", Spec{}, "1 <= K <= N"},
		{"4/3", Spec{}, "1 <= K <= N"},
		{"1/0", Spec{}, "1 <= K <= N"},
		{"-1/3", Spec{}, "1 <= K <= N"},
		{"1/10001", Spec{}, "N <= 10000"},
		{"+1/3", Spec{}, "two integers"},
		{"3", Spec{}, "two integers"},
		{"a/b", Spec{}, "two integers"},
		{"1/2/3", Spec{}, "two integers"},
		{"", Spec{}, "two integers"},
	} {
		got, err := Parse(tc.in)
		if tc.err == "" {
			if err != nil || got != tc.want || got.String() != tc.in {
				t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Parse(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.err)
		}
	}
}

// TestOfIsTheDocumentedHash: the shard of an id is 1 + the first 8 bytes
// of its SHA-256, big-endian, mod N, as the package and the schema say.
func TestOfIsTheDocumentedHash(t *testing.T) {
	for _, id := range []string{"s01-agent-loop", "random-agent", "logs/a.jsonl", "B2", "", "é"} {
		h := sha256.Sum256([]byte(id))
		for n := 1; n <= 9; n++ {
			if want := int(binary.BigEndian.Uint64(h[:8])%uint64(n)) + 1; Of(id, n) != want {
				t.Errorf("Of(%q, %d) = %d, want %d", id, n, Of(id, n), want)
			}
		}
	}
}

// TestEveryItemInExactlyOneShard: for N from 1 to 7 each id is taken by
// one shard exactly; adding an item moves no other; the zero Spec takes
// every id.
func TestEveryItemInExactlyOneShard(t *testing.T) {
	var ids []string
	for i := range 500 {
		ids = append(ids, fmt.Sprintf("case-%03d", i))
	}
	for n := 1; n <= 7; n++ {
		count := make([]int, n)
		for _, id := range ids {
			takers := 0
			for k := 1; k <= n; k++ {
				if (Spec{k, n}).Takes(id) {
					takers++
					count[k-1]++
				}
			}
			if takers != 1 {
				t.Fatalf("N=%d: %q is taken by %d shards", n, id, takers)
			}
		}
		for k, c := range count {
			if c < 500/n/2 {
				t.Errorf("N=%d: shard %d took %d of 500 ids: the hash does not spread them", n, k+1, c)
			}
		}
		before := make([]int, len(ids))
		for i, id := range ids {
			before[i] = Of(id, n)
		}
		more := append(slices.Clone(ids), "a-new-case")
		for i, id := range more[:len(ids)] {
			if Of(id, n) != before[i] {
				t.Errorf("N=%d: adding an item moved %q", n, id)
			}
		}
	}
	if !(Spec{}).Takes("anything") {
		t.Error("the zero Spec does not take every id")
	}
}

func TestDigestSeparatesFields(t *testing.T) {
	sum := func(add func(d *Digest)) string {
		d := NewDigest("verify")
		add(d)
		return d.Sum()
	}
	base := sum(func(d *Digest) { d.Add("case", "ab", []byte("c")) })
	for name, other := range map[string]string{
		"id and part boundary": sum(func(d *Digest) { d.Add("case", "a", []byte("bc")) }),
		"kind":                 sum(func(d *Digest) { d.Add("scenario", "ab", []byte("c")) }),
		"parts split":          sum(func(d *Digest) { d.Add("case", "ab", []byte("c"), nil) }),
		"two items":            sum(func(d *Digest) { d.Add("case", "ab"); d.Add("c", "") }),
		"command":              func() string { d := NewDigest("lint"); d.Add("case", "ab", []byte("c")); return d.Sum() }(),
	} {
		if other == base {
			t.Errorf("%s: the digests are equal", name)
		}
	}
	if again := sum(func(d *Digest) { d.Add("case", "ab", []byte("c")) }); again != base || !strings.HasPrefix(base, "sha256:") || len(base) != 71 {
		t.Errorf("digest %q, again %q", base, again)
	}
}

// run builds the results of every shard of a run of n over ids: what a
// command writes with --shard k/n --result.
func run(t *testing.T, n int, ids []string, onDisk ...string) []*Result {
	t.Helper()
	d := NewDigest(Verify)
	var plan []Planned
	for _, id := range ids {
		d.Add("case", id, []byte("{}"))
		plan = append(plan, Planned{ID: id, Kind: "case", Goldens: []string{id}})
	}
	var out []*Result
	for k := 1; k <= n; k++ {
		r, err := New(Verify, "1.0", Spec{k, n}, d, slices.Clone(plan), map[string]any{"update": "auto"})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range r.Taken() {
			if err := r.Add(p.ID, "ok", false, map[string]string{"id": p.ID}); err != nil {
				t.Fatal(err)
			}
		}
		r.Goldens = &Goldens{Dir: "golden", Names: onDisk}
		out = append(out, r)
	}
	return out
}

func files(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("result-%d.json", i+1)
	}
	return out
}

func TestMergeWholeRun(t *testing.T) {
	ids := []string{"c", "a", "e", "b", "d", "f", "g", "h"}
	for n := 1; n <= 7; n++ {
		rs := run(t, n, ids, "a", "zz")
		rs[n-1].Goldens.Names = []string{"b", "stale"}
		slices.Reverse(rs) // any order
		m, err := Merge(files(n), rs)
		if err != nil {
			t.Fatalf("N=%d: %v", n, err)
		}
		var got []string
		for _, it := range m.Results {
			got = append(got, it.ID)
		}
		if !slices.Equal(got, ids) {
			t.Errorf("N=%d: merged %v, want the plan's order %v", n, got, ids)
		}
		if want := []string{"a", "b", "stale", "zz"}; n > 1 && !slices.Equal(m.Goldens.Names, want) || n == 1 && !slices.Equal(m.Goldens.Names, []string{"b", "stale"}) {
			t.Errorf("N=%d: goldens %v", n, m.Goldens.Names)
		}
		for k, p := range m.Parts {
			if p.Shard.Index != k+1 {
				t.Errorf("N=%d: part %d is shard %s", n, k, p.Shard)
			}
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	for _, tc := range []struct {
		name  string
		edit  func(rs []*Result) []*Result
		wants []string
	}{
		{"a shard missing", func(rs []*Result) []*Result { return append(rs[:1], rs[2:]...) },
			[]string{"shard 2/3 is missing (it holds "}},
		{"two shards missing", func(rs []*Result) []*Result { return rs[:1] },
			[]string{"shards 2/3, 3/3 are missing (they hold "}},
		{"a shard twice", func(rs []*Result) []*Result { return append(rs, rs[1]) },
			[]string{"shard 2/3 is given 2 times: result-2.json, result-4.json"}},
		{"another version", func(rs []*Result) []*Result { rs[2].Tracecheck = "2.0"; return rs },
			[]string{"result-3.json was written by tracecheck 2.0, result-1.json by tracecheck 1.0"}},
		{"another command", func(rs []*Result) []*Result { rs[1].Command = Lint; return rs },
			[]string{"result-2.json is a result of lint, result-1.json of verify"}},
		{"another suite", func(rs []*Result) []*Result {
			other := run(t, 3, append(slices.Clone(ids), "k"))
			rs[1] = other[1]
			return rs
		}, []string{"result-2.json is of another suite than result-1.json", `only result-2.json has "k"`}},
		{"another N", func(rs []*Result) []*Result { rs[1] = run(t, 4, ids)[1]; return rs },
			[]string{"result-2.json is shard 2/4, result-1.json shard 1/3"}},
		{"other settings", func(rs []*Result) []*Result { rs[2].Run = json.RawMessage(`{"update":"no"}`); return rs },
			[]string{`result-3.json ran with other settings than result-1.json: update is "no" in result-3.json, "auto" in result-1.json`}},
		{"an item in the wrong shard", func(rs []*Result) []*Result {
			rs[0].Results = append(rs[0].Results, rs[1].Results[0])
			return rs
		}, []string{"result-1.json (shard 1/3) holds", "which is shard 2/3's"}},
		{"an item left out", func(rs []*Result) []*Result { rs[2].Results = rs[2].Results[1:]; return rs },
			[]string{"result-3.json (shard 3/3) lacks 1 of its items"}},
		{"an item twice", func(rs []*Result) []*Result { rs[2].Results = append(rs[2].Results, rs[2].Results[0]); return rs },
			[]string{"result-3.json (shard 3/3) holds", "twice"}},
		{"a plan that is not the hash's", func(rs []*Result) []*Result {
			for _, r := range rs {
				r.Plan[0].Shard = r.Plan[0].Shard%3 + 1
			}
			return rs
		}, []string{"result-1.json plans \"a\" in shard", "assignment is by a hash of the id"}},
		{"nothing", func(rs []*Result) []*Result { return nil }, []string{"no result file given"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := tc.edit(run(t, 3, ids))
			_, err := Merge(files(len(rs)), rs)
			var re *RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("Merge: %v, want a refusal", err)
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestWriteThenRead(t *testing.T) {
	r := run(t, 2, []string{"a", "b", "c"}, "a")[1]
	r.Run = json.RawMessage(`{"golden_dir":"golden","embedded":false,"ci":true,"update":"auto","writes":"none","filtered":false,"invocation":{"program":"tracecheck"}}`)
	path := filepath.Join(t.TempDir(), "r.json")
	if err := r.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(r)
	b, _ := json.Marshal(back)
	if string(a) != string(b) {
		t.Errorf("read back\n%s\nwrote\n%s", b, a)
	}
}

// TestWriteRefusesWhatReadWould: a result past MaxResultBytes is refused
// by Write, and the file it would have replaced is left as it was.
func TestWriteRefusesWhatReadWould(t *testing.T) {
	r := run(t, 1, []string{"a"}, "a")[0]
	r.Run = json.RawMessage(`{}`)
	r.Results[0].Report = json.RawMessage(`"` + strings.Repeat("x", MaxResultBytes) + `"`)
	path := filepath.Join(t.TempDir(), "r.json")
	small := run(t, 1, []string{"a"}, "a")[0]
	small.Run = json.RawMessage(`{}`)
	if err := small.Write(path); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	var tl *TooLargeError
	if err := r.Write(path); !errors.As(err, &tl) {
		t.Fatalf("Write of a result past MaxResultBytes: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the refused Write changed the file")
	}
	if !IsResultFile(path) {
		t.Error("IsResultFile of a written result is false")
	}
}

// TestIsResultFile: only what Write writes reads as a result file.
func TestIsResultFile(t *testing.T) {
	dir := t.TempDir()
	for text, want := range map[string]bool{
		"{\n  \"format\": \"tracecheck-result\",\n  \"version\": 1\n}\n": true,
		`{"format":"tracecheck-result"}`:                                 true,
		`{"trace_version":"0.1.0","event_id":"evt-000"}`:                 false,
		"#!/bin/sh\n": false,
		"":            false,
	} {
		p := filepath.Join(dir, "f")
		os.WriteFile(p, []byte(text), 0o644)
		if got := IsResultFile(p); got != want {
			t.Errorf("IsResultFile(%q) = %v, want %v", text, got, want)
		}
	}
	if IsResultFile(filepath.Join(dir, "missing")) {
		t.Error("IsResultFile of a missing file is true")
	}
}

// TestReadRefuses: one fixture per way a file is no result this version
// reads.
func TestReadRefuses(t *testing.T) {
	for file, want := range map[string]string{
		"not-json.json":     "not a tracecheck result file (not JSON",
		"two-values.json":   "more than one JSON value",
		"other-format.json": `no "format": "tracecheck-result"`,
		"version-2.json":    "a result file of version 2; this tracecheck reads version 1",
		"no-version.json":   `no integer "version" (this tracecheck reads version 1)`,
		"no-plan.json":      "not a valid result file: /: missing properties: 'plan'",
		"shard-3-of-2.json": "shard 3/2 does not exist",
		"no-such-file.json": "no such file",
		"..":                "not a regular file",
	} {
		_, err := Read(filepath.Join("testdata", "read", file))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", file, err, want)
		}
	}
}
