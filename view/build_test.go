package view

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
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
func rowsWith(p *Page, flag uint16) []int {
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
		flag  uint16
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

// On every golden trace, each run's replay view holds exactly what
// package reducer's replay holds: the counts, each message's text in
// order, each tool result as text, the stop reason and the fingerprint,
// though the page keeps its own bounded list and gives the reducer no
// payload (Page.apply).
func TestReplayViewsAreTheReducers(t *testing.T) {
	paths, err := filepath.Glob("../golden/*.trace.jsonl")
	if err != nil || len(paths) < 20 {
		t.Fatalf("golden traces: %v %v", paths, err)
	}
	for _, path := range paths {
		p := build(t, Options{Limits: Limits{TextBytes: 1 << 30, ListItems: 1 << 20}}, strings.TrimPrefix(path, "../"))
		evs, order := readRuns(t, path)
		if len(order) != len(p.runs) {
			t.Fatalf("%s: %d runs, the page has %d", path, len(order), len(p.runs))
		}
		for i, k := range order {
			j, err := journal.New(evs[k])
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			want := reducer.Replay(j)
			got := p.runs[i].replay
			if got.Applied != len(want.AppliedSequences) || got.Fingerprint != want.Fingerprint || got.Users != len(want.UserMessages) ||
				got.Assistants != len(want.AssistantMessages) || got.Tools != len(want.ToolResults) || (got.StopReason == nil) != (want.StopReason == nil) ||
				got.StopReason != nil && *got.StopReason != *want.StopReason || got.Omitted != 0 {
				t.Errorf("%s run %d: view %+v, reducer %+v", path, i, got, want)
				continue
			}
			var users, assistants, tools []string
			for _, it := range got.Items {
				switch it.Role {
				case "user":
					users = append(users, it.Text)
				case "assistant":
					assistants = append(assistants, it.Text)
				case "tool":
					tools = append(tools, it.Tool+" "+it.Text)
				}
			}
			var wantTools []string
			for _, r := range want.ToolResults {
				wantTools = append(wantTools, toolText(r))
			}
			if d := cmp.Diff(want.UserMessages, users, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("%s run %d: user messages (-reducer +view):\n%s", path, i, d)
			}
			if d := cmp.Diff(want.AssistantMessages, assistants, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("%s run %d: assistant messages (-reducer +view):\n%s", path, i, d)
			}
			if d := cmp.Diff(wantTools, tools, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("%s run %d: tool results (-reducer +view):\n%s", path, i, d)
			}
		}
	}
}

// readRuns reads a multi-run file's events by run, in order of first
// appearance.
func readRuns(t *testing.T, path string) (map[string][]journal.Event, []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	evs := map[string][]journal.Event{}
	var order []string
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		_, ev, jerr := journal.DecodeLine(l)
		if jerr != nil {
			t.Fatalf("%s: %v", path, jerr)
		}
		k := ev.SessionID + "\x00" + ev.Provenance.RunID
		if evs[k] == nil {
			order = append(order, k)
		}
		evs[k] = append(evs[k], ev)
	}
	return evs, order
}

// toolText is how the replay view writes a tool result the reducer holds:
// the tool, then its error (failed) or result as text, or the payload.
func toolText(p jsonv.Value) string {
	tool := ""
	if t, ok := p.Get("tool"); ok && t.Kind() == jsonv.String {
		tool = t.Text()
	}
	if ok, _ := p.Get("ok"); ok.Kind() == jsonv.Bool && !ok.Bool() {
		if e, has := p.Get("error"); has && e.Kind() == jsonv.String {
			return tool + " " + e.Text()
		}
	}
	if r, ok := p.Get("result"); ok {
		if r.Kind() == jsonv.String {
			return tool + " " + r.Text()
		}
		return tool + " " + string(r.AppendJSON(nil))
	}
	return tool + " " + string(p.AppendJSON(nil))
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
	if len(p.branches) != 1 || p.branches[0].ParentRunID.S != "run-branch-continue-golden" || p.branches[0].ParentRun != -1 {
		t.Fatalf("branches %+v", p.branches)
	}
	if got := rowsWith(p, flagInherited|flagForkPoint); got != nil {
		t.Errorf("rows marked inherited or fork point: %v", got)
	}
	bs := p.runData(0, p.runs[0]).Branches
	if len(bs) != 1 || bs[0].Check == nil || bs[0].Check.Verdict != "unchecked" || bs[0].Check.Why != "its parent run is not in this page" || bs[0].Cells != nil {
		t.Errorf("branch shown as %+v", bs)
	}
	if !strings.Contains(string(islandOf(t, p)), `"parentRun":-1,"fork":5,"forkRow":-1,"fp":"69d27c23ab7b69438490b17e8820858b7c869c8d8c6615fee38cd18ff34d9685","verdict":"unchecked"`) {
		t.Error("the page's data does not say the branch is unchecked")
	}
}

// islandOf is the page's data as WriteHTML writes it.
func islandOf(t *testing.T, p *Page) []byte {
	t.Helper()
	var b bytes.Buffer
	w := newIsland(&b)
	p.island(w, nil)
	if w.err != nil {
		t.Fatal(w.err)
	}
	return b.Bytes()
}

// dataOf is the page's data, read back.
func dataOf(t *testing.T, p *Page) struct {
	Cut [][]int
	Ev  struct{ Payload []string }
} {
	t.Helper()
	var d struct {
		Cut [][]int
		Ev  struct{ Payload []string }
	}
	if err := json.Unmarshal(islandOf(t, p), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLimits(t *testing.T) {
	p := build(t, Options{Limits: Limits{PayloadBytes: 40}}, "golden/s07-session-replay.trace.jsonl")
	d := dataOf(t, p)
	if cut := rowsWith(p, flagPayloadCut); len(cut) == 0 || len(d.Ev.Payload[cut[0]]) > 40 || len(d.Cut) != len(cut) || d.Cut[0][0] != cut[0] || d.Cut[0][1] <= 40 || d.Cut[0][2] != len(d.Ev.Payload[cut[0]]) {
		t.Errorf("payloads over 40 bytes: rows %v, cut %v", cut, d.Cut)
	}
	p = build(t, Options{Limits: Limits{DataBytes: 100}}, "golden/s07-session-replay.trace.jsonl")
	d = dataOf(t, p)
	if gone := rowsWith(p, flagPayloadGone); len(gone) == 0 || d.Ev.Payload[gone[0]] != "" || len(p.notes) != 1 {
		t.Errorf("past the data budget: rows %v, notes %q", gone, p.notes)
	}
	p = build(t, Options{Limits: Limits{Events: 3}}, "golden/s07-session-replay.trace.jsonl", "golden/s01-agent-loop.trace.jsonl")
	if p.Events() != 3 || len(p.notes) != 1 || !strings.Contains(p.notes[0], "first 3 lines") || p.files[1].Lines == 0 || p.Lines() <= p.Events() {
		t.Errorf("past the events limit: %d rows, notes %q, the second file's lines %d, %d lines read", p.Events(), p.notes, p.files[1].Lines, p.Lines())
	}
	// Two events, then 150 blank lines: rows that are no events, and more
	// problems than validation collects.
	p = build(t, Options{}, "testdata/view/unreadable-lines.jsonl")
	if p.Events() != 152 || p.Unreadable() != 150 || p.Lines() != 152 || p.Stopped() != 1 || p.Problems() != journal.MaxErrors+1 {
		t.Errorf("blank lines: %d rows, %d unreadable, %d lines, %d stopped, %d problems", p.Events(), p.Unreadable(), p.Lines(), p.Stopped(), p.Problems())
	}
	// session-resume holds 3 runs; the third starts at line 20 of 24.
	p = build(t, Options{Limits: Limits{Runs: 2}}, "golden/session-resume.trace.jsonl")
	if p.Events() != 19 || len(p.runs) != 2 || len(p.notes) != 1 || !strings.Contains(p.notes[0], "from line 20 on (it holds at most 2 runs, Limits.Runs)") || p.files[0].Lines != 24 {
		t.Errorf("past the runs limit: %d rows, %d runs, notes %q, lines %d", p.Events(), len(p.runs), p.notes, p.files[0].Lines)
	}
	p = build(t, Options{Limits: Limits{EnvelopeBytes: 1500}}, "golden/s07-session-replay.trace.jsonl")
	if p.Events() == 0 || p.Events() == 7 || p.envBytes > 1500 || len(p.notes) != 1 || !strings.Contains(p.notes[0], "Limits.EnvelopeBytes") {
		t.Errorf("past the envelope budget: %d rows, %d bytes, notes %q", p.Events(), p.envBytes, p.notes)
	}
	// The replay views list at most ReplayItems over the page: s07's run
	// has two messages, and a list of one.
	p = build(t, Options{Limits: Limits{ReplayItems: 1}}, "golden/s07-session-replay.trace.jsonl")
	if rp := p.runs[0].replay; len(rp.Items) != 1 || rp.Omitted != 1 || !rp.Short || rp.Users != 1 || rp.Assistants != 1 || !strings.Contains(strings.Join(p.notes, " "), "Limits.ReplayItems") {
		t.Errorf("past the replay items: %+v, notes %q", rp, p.notes)
	}
	var page bytes.Buffer
	if err := p.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `<li class="gap">… 1 more, not listed: the page lists at most 1 messages over all runs`) {
		t.Error("the replay view does not say a message is not listed")
	}
	// The envelope budget is a bound on what the page writes of it: the
	// tables, the row entries and the columns but the payloads.
	for _, path := range []string{"golden/session-resume.trace.jsonl", "golden/branch-continue.trace.jsonl", "testdata/bad/invalid-json.jsonl", "testdata/bad/parent-not-earlier.jsonl"} {
		p = build(t, Options{Limits: Limits{PayloadBytes: 50}}, path)
		d := islandOf(t, p)
		span := func(from, to string) int {
			i, j := bytes.Index(d, []byte(from)), bytes.Index(d, []byte(to))
			if i < 0 || j < i {
				t.Fatalf("%s: no %s before %s in the data", path, from, to)
			}
			return j - i
		}
		if n := span(`"types":`, `"files":`) + span(`"cut":`, `"payloadLimit":`) + span(`"ev":`, `"payload":`); int64(n) > p.envBytes {
			t.Errorf("%s: the data besides payloads is %d bytes; the budget counted %d", path, n, p.envBytes)
		}
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
