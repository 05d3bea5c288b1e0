package view

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/reducer"
)

func build(t *testing.T, opt Options, paths ...string) *Page {
	t.Helper()
	var srcs []Source
	for _, p := range paths {
		srcs = append(srcs, FileSource(filepath.Join("..", p)))
	}
	p, err := Build(srcs, opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// rowsWith lists the rows that carry flag.
func rowsWith(p *Page, flag int32) []int {
	var out []int
	for i, f := range p.rows.flags {
		if f&flag != 0 {
			out = append(out, i)
		}
	}
	return out
}

// What the timeline marks, trace by trace.
func TestMarks(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		flag  int32
		rows  []int
	}{
		{"an interrupted run's last call is an orphan", []string{"testdata/view/interrupted-run.trace.jsonl"}, flagOrphan, []int{8}},
		{"resume answers it: no orphan", []string{"golden/session-resume.trace.jsonl"}, flagOrphan, nil},
		{"the call resume repaired", []string{"golden/session-resume.trace.jsonl"}, flagInterrupted, []int{8}},
		{"the repair resume synthesized", []string{"golden/session-resume.trace.jsonl"}, flagSynth, []int{10}},
		{"a repair in the same run", []string{"golden/orphan-call.trace.jsonl"}, flagSynth, []int{8}},
		{"its call", []string{"golden/orphan-call.trace.jsonl"}, flagInterrupted, []int{6}},
		{"the fork point of s07's branch", []string{"golden/s07-session-replay.trace.jsonl"}, flagForkPoint, []int{2}},
		{"the prefix it inherits", []string{"golden/s07-session-replay.trace.jsonl"}, flagInherited, []int{0, 1, 2}},
		{"a branch in another session of the file", []string{"golden/branch-continue.trace.jsonl"}, flagForkPoint, []int{5}},
		{"problems pinned to their lines", []string{"testdata/bad/sequence-gap.jsonl", "testdata/bad/invalid-json.jsonl"}, flagProblem, []int{2, 4}},
		{"an undecodable line is shown as text", []string{"testdata/bad/invalid-json.jsonl"}, flagUnreadable, []int{1}},
		{"a torn last line", []string{"testdata/bad/torn-tail.jsonl"}, flagTorn, []int{2}},
		{"a result no call asked for", []string{"view/testdata/unmatched-result.trace.jsonl"}, flagUnmatched, []int{4}},
		{"--through 2 leaves the rest out of the replay", []string{"golden/s07-session-replay.trace.jsonl"}, flagNotReplayed, []int{3, 4, 5, 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := Options{}
			if strings.HasPrefix(tt.name, "--through") {
				opt = Options{Through: 2, HasThrough: true}
			}
			p := build(t, opt, tt.files...)
			if d := cmp.Diff(tt.rows, rowsWith(p, tt.flag)); d != "" {
				t.Errorf("rows (-want +got):\n%s", d)
			}
		})
	}
}

func TestJoinsAndLinks(t *testing.T) {
	p := build(t, Options{}, "golden/session-resume.trace.jsonl")
	for req, res := range map[int32]int32{4: 5, 8: 10, 14: 15} {
		if p.rows.link[req] != res || p.rows.link[res] != req {
			t.Errorf("tool.request row %d and tool.result row %d are not joined (links %d, %d)", req, res, p.rows.link[req], p.rows.link[res])
		}
	}
	// Parents link within a run; a run's first event has none.
	if p.rows.parent[1] != 0 || p.rows.parent[9] != -1 || p.rows.parent[10] != 9 {
		t.Errorf("parents of rows 1, 9, 10: %d %d %d", p.rows.parent[1], p.rows.parent[9], p.rows.parent[10])
	}
	// A parent no earlier event has is kept as text, for the page to say so.
	if q := build(t, Options{}, "testdata/bad/parent-not-earlier.jsonl"); len(q.dangling) != 1 {
		t.Errorf("dangling parents %v", q.dangling)
	}
	if len(p.runs) != 3 || p.runs[1].Resumes != 0 || p.runs[2].Resumes != 1 || p.runs[1].ResumedRow != 9 {
		t.Errorf("resume markers: %+v %+v", p.runs[1], p.runs[2])
	}
}

// The replay view is package reducer's, and the fingerprints events claim
// are recomputed with it.
func TestReplayIsTheReducers(t *testing.T) {
	f, err := os.Open("../golden/s07-session-replay.trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	j, err := journal.Read(f, "s07")
	if err != nil {
		t.Fatal(err)
	}
	want := reducer.Replay(j)
	p := build(t, Options{}, "golden/s07-session-replay.trace.jsonl")
	got := p.runs[0].replay
	if got.Fingerprint != want.Fingerprint || *got.StopReason != *want.StopReason || got.Applied != len(want.AppliedSequences) {
		t.Errorf("replay view %+v, reducer %+v", got, want)
	}
	if len(got.Items) != 2 || got.Items[0].Row != 1 || got.Items[0].Text != want.UserMessages[0] || got.Items[1].Row != 3 || got.Items[1].Text != want.AssistantMessages[0] {
		t.Errorf("items %+v", got.Items)
	}
	// --through 2: the fingerprint vector of the reference.
	p = build(t, Options{Through: 2, HasThrough: true}, "golden/s07-session-replay.trace.jsonl")
	if fp := p.runs[0].replay.Fingerprint; fp != "1e38d6f6527a0c7a8cbf0e78bc9424aba27dcd718bf370f948f2e8cf030923fb" {
		t.Errorf("through 2: fingerprint %s", fp)
	}
}

func TestFingerprintChecks(t *testing.T) {
	tests := []struct {
		file     string
		verdicts []string
	}{
		{"golden/s07-session-replay.trace.jsonl", []string{"match", "match"}},
		{"golden/orphan-call.trace.jsonl", []string{"match", "match"}},
		{"golden/branch-continue.trace.jsonl", []string{"match", "match", "match"}},
		// A branch whose parent run is not in the page: nothing to hash.
		{"view/testdata/branch-parent-absent.trace.jsonl", nil},
	}
	for _, tt := range tests {
		p := build(t, Options{}, tt.file)
		var got []string
		for _, c := range p.checks {
			got = append(got, c.Verdict)
		}
		if d := cmp.Diff(tt.verdicts, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.file, d)
		}
	}
}

// A branch whose parent run is not in the page cannot be checked: the
// page says so, and draws no lineage.
func TestBranchOfAbsentParent(t *testing.T) {
	p := build(t, Options{}, "view/testdata/branch-parent-absent.trace.jsonl")
	if len(p.branches) != 1 || p.branches[0].ParentRunID != "run-branch-continue-golden" || p.branches[0].ParentRun != -1 {
		t.Fatalf("branches %+v", p.branches)
	}
	if got := rowsWith(p, flagInherited|flagForkPoint); got != nil {
		t.Errorf("rows marked inherited or fork point: %v", got)
	}
	bs := p.runData(0, p.runs[0]).Branches
	if len(bs) != 1 || bs[0].Check == nil || bs[0].Check.Verdict != "unchecked" || bs[0].Check.Why != "its parent run is not in this page" || bs[0].Cells != nil {
		t.Errorf("branch shown as %+v", bs)
	}
	if !strings.Contains(string(p.island(nil)), `"parentRun":-1,"fork":5,"forkRow":-1,"fp":"69d27c23ab7b69438490b17e8820858b7c869c8d8c6615fee38cd18ff34d9685","verdict":"unchecked"`) {
		t.Error("the page's data does not say the branch is unchecked")
	}
}

func TestLimits(t *testing.T) {
	p := build(t, Options{Limits: Limits{PayloadBytes: 40}}, "golden/s07-session-replay.trace.jsonl")
	if cut := rowsWith(p, flagPayloadCut); len(cut) == 0 || len(p.rows.payload[cut[0]]) > 40 || p.cutSize[int32(cut[0])] <= 40 {
		t.Errorf("payloads over 40 bytes: rows %v", cut)
	}
	p = build(t, Options{Limits: Limits{DataBytes: 100}}, "golden/s07-session-replay.trace.jsonl")
	if gone := rowsWith(p, flagPayloadGone); len(gone) == 0 || p.rows.payload[gone[0]] != "" || len(p.notes) != 1 {
		t.Errorf("past the data budget: rows %v, notes %q", gone, p.notes)
	}
	p = build(t, Options{Limits: Limits{Events: 3}}, "golden/s07-session-replay.trace.jsonl", "golden/s01-agent-loop.trace.jsonl")
	if p.Events() != 3 || len(p.notes) != 1 || !strings.Contains(p.notes[0], "first 3 lines") {
		t.Errorf("past the events limit: %d rows, notes %q", p.Events(), p.notes)
	}
}

func TestAppendJSString(t *testing.T) {
	for _, s := range []string{
		"plain", "", `quote " backslash \ `, "</script><!--<script>", "a\u2028b\u2029c", "tab\tnl\ncr\rbel\x07del\x7f",
		"<>&", "é日本🚀", "\u202eRLO",
	} {
		got := appendJSString(nil, s)
		for _, bad := range []string{"<", ">", "&", "\u2028", "\u2029"} {
			if strings.Contains(string(got), bad) {
				t.Errorf("%q encodes to %s, with a raw %q", s, got, bad)
			}
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil || back != s {
			t.Errorf("%q encodes to %s, which reads back as %q (%v)", s, got, back, err)
		}
	}
	// Bytes that are not UTF-8 become U+FFFD.
	if got := string(appendJSString(nil, "a\xffb")); got != `"a\ufffdb"` {
		t.Errorf("invalid UTF-8: %s", got)
	}
}
