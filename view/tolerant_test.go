package view_test

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/view"
)

// The tolerant golden with one real change (testdata/tolerant-drift) and
// the run that changed it.
const (
	tolerantGolden = "testdata/tolerant-drift/one-change.trace.jsonl"
	oneChange      = "testdata/tracediff/tolerant/other-argument.jsonl"
	sameRun        = "testdata/tracediff/tolerant/real-b.jsonl"
)

// diffRow is what the page's island says of one row.
type diffRow struct {
	Kind     string
	Seq      int
	Pointers []string // of the differing fields, which the page highlights
	Matched  []string // the placeholders shown as matched
}

// rowsOf reads the rows of a diff page's island.
func rowsOf(t *testing.T, page []byte) (rows []diffRow, tolerant bool) {
	t.Helper()
	v := island(t, page)
	tolerant, _ = v["tolerant"].(bool)
	for _, r := range v["rows"].([]any) {
		r := r.([]any)
		row := diffRow{Kind: r[0].(string), Seq: int(r[2].(float64))}
		for _, f := range r[8].([]any) {
			row.Pointers = append(row.Pointers, f.([]any)[0].(string))
		}
		if len(r) > 9 {
			for _, p := range r[9].([]any) {
				row.Matched = append(row.Matched, p.(string))
			}
		}
		rows = append(rows, row)
	}
	return rows, tolerant
}

func differing(rows []diffRow) []diffRow {
	var out []diffRow
	for _, r := range rows {
		if r.Kind != "equal" {
			out = append(out, r)
		}
	}
	return out
}

var verdictRE = regexp.MustCompile(`<p class="summary" id="verdict">(.*?)</p>`)

func buildPage(t *testing.T, golden, actual []byte, opt view.DiffOptions) (*view.DiffPage, []byte) {
	t.Helper()
	d := view.BuildDiff(golden, actual, opt)
	var out bytes.Buffer
	if err := d.WriteHTML(&out); err != nil {
		t.Fatal(err)
	}
	return d, out.Bytes()
}

// Issue 23 item 3: the diff page of a tolerant golden compares it as
// diff --normalize does. One event of nine differs, at the one field that
// changed; the golden's placeholders are no SCHEMA problems; the
// placeholders of the changed event that matched are listed as matched.
func TestTolerantDiffPage(t *testing.T) {
	d, page := buildPage(t, read(t, tolerantGolden), read(t, oneChange), view.DiffOptions{ExpectedName: "golden", ActualName: "actual", Tolerant: true})
	if d.Differences() != 1 || d.Problems() != 0 {
		t.Errorf("%d differences and %d problems, want 1 and 0", d.Differences(), d.Problems())
	}
	if v := verdictRE.FindSubmatch(page); v == nil || !strings.Contains(string(v[1]), "1 of 9 events differs</span>: 1 changed, 0 missing") {
		t.Errorf("verdict %q", v)
	}
	if bytes.Contains(page, []byte(`class="problems"`)) || bytes.Contains(page, []byte("is not valid &#39;date-time&#39;")) {
		t.Error("the page lists the placeholders as SCHEMA problems")
	}
	rows, tolerant := rowsOf(t, page)
	diffs := differing(rows)
	if !tolerant || len(rows) != 9 || len(diffs) != 1 {
		t.Fatalf("tolerant %v, %d rows, differing %+v", tolerant, len(rows), diffs)
	}
	r := diffs[0]
	if r.Kind != "changed" || r.Seq != 4 || fmt.Sprint(r.Pointers) != "[/payload/arguments/text]" {
		t.Errorf("the difference %+v, want sequence 4 changed at /payload/arguments/text only", r)
	}
	for _, p := range []string{"/event_id", "/session_id", "/timestamp", "/payload/tool_call_id", "/provenance/run_id", "/parent_event_id"} {
		if !slices.Contains(r.Matched, p) {
			t.Errorf("placeholder %s is not shown as matched: %v", p, r.Matched)
		}
	}
	if slices.Contains(r.Matched, "/payload/arguments/text") {
		t.Error("the difference is shown as matched")
	}

	// A run that matches the golden: no difference, the page says so.
	d, page = buildPage(t, read(t, tolerantGolden), read(t, sameRun), view.DiffOptions{Tolerant: true})
	if d.Differences() != 0 || d.Problems() != 0 || d.Equal() || !bytes.Contains(page, []byte("Matches the tolerant golden")) {
		t.Errorf("a matching run: %d differences, %d problems, identical %v", d.Differences(), d.Problems(), d.Equal())
	}

	// The same golden compared literally, as the page did before: every
	// event differs and its placeholders are SCHEMA problems.
	d, _ = buildPage(t, read(t, tolerantGolden), read(t, oneChange), view.DiffOptions{})
	if d.Differences() != 9 || d.Problems() == 0 {
		t.Errorf("compared literally: %d differences, %d problems", d.Differences(), d.Problems())
	}
}

// The golden's real problems are still listed: a literal the schema
// refuses is one, where the placeholders on its line are not.
func TestTolerantDiffPageKeepsRealProblems(t *testing.T) {
	golden := bytes.Replace(read(t, tolerantGolden), []byte(`"type":"session.stop"`), []byte(`"type":"session.stopped"`), 1)
	d, page := buildPage(t, golden, read(t, oneChange), view.DiffOptions{ExpectedName: "golden", Tolerant: true})
	if d.Problems() != 1 || !bytes.Contains(page, []byte(`golden line 9 <code class="code">SCHEMA</code>`)) || !bytes.Contains(page, []byte(`at <code>/type</code>`)) {
		t.Errorf("%d problems; the page does not list line 9's /type", d.Problems())
	}
	rows, _ := rowsOf(t, page)
	if diffs := differing(rows); len(diffs) != 2 || fmt.Sprint(diffs[1].Pointers) != "[/type]" {
		t.Errorf("differing rows %+v, want the change and /type", diffs)
	}
}

// When the actual trace cannot be aligned by tracediff (a line that is
// not JSON), the page falls back to its own alignment, and that compares
// tolerantly too.
func TestTolerantDiffPageFallback(t *testing.T) {
	actual := append(read(t, oneChange), "not json\n"...)
	d, page := buildPage(t, read(t, tolerantGolden), actual, view.DiffOptions{Tolerant: true})
	rows, _ := rowsOf(t, page)
	diffs := differing(rows)
	if len(diffs) != 2 || fmt.Sprint(diffs[0].Pointers) != "[/payload/arguments/text]" || diffs[1].Kind != "extra" || d.Problems() != 1 {
		t.Errorf("differing rows %+v, %d problems; want the change, the extra line, and its problem", diffs, d.Problems())
	}
}

// DetectGolden: a golden that holds placeholders and is no valid trace is
// tolerant; a valid trace that holds one as data is not, but is named.
func TestDetectGolden(t *testing.T) {
	if g := view.DetectGolden(read(t, tolerantGolden)); !g.Tolerant || g.Placeholder != `line 1: "[ID-1]" at /event_id` {
		t.Errorf("the tolerant golden: %+v", g)
	}
	if g := view.DetectGolden(read(t, "golden/s07-session-replay.trace.jsonl")); g.Tolerant || g.Placeholder != "" {
		t.Errorf("a plain trace: %+v", g)
	}
	data := bytes.Replace(read(t, sameRun), []byte(`"text":"hello"`), []byte(`"text":"[GREETING]"`), 1)
	if g := view.DetectGolden(data); g.Tolerant || !strings.Contains(g.Placeholder, `"[GREETING]" at /payload/tool_calls/0/arguments/text`) {
		t.Errorf("a valid trace holding a placeholder: %+v", g)
	}
}
