package view_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/tracecheck/tracecheck/view"
)

// read returns a file of the module by its path from the root.
func read(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", path))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// tracePage builds the page of module files, each named by its path.
func tracePage(tb testing.TB, opt view.Options, paths ...string) []byte {
	tb.Helper()
	var srcs []view.Source
	for _, p := range paths {
		srcs = append(srcs, view.BytesSource(p, read(tb, p)))
	}
	p, err := view.Build(srcs, opt)
	if err != nil {
		tb.Fatal(err)
	}
	var out bytes.Buffer
	if err := p.WriteHTML(&out); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

func diffPage(tb testing.TB, golden, actual string) []byte {
	tb.Helper()
	d := view.BuildDiff(read(tb, golden), read(tb, actual), view.DiffOptions{ExpectedName: golden, ActualName: actual})
	var out bytes.Buffer
	if err := d.WriteHTML(&out); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

// The pages themselves are golden files: the same input gives the same
// bytes (regenerate with go test ./view -update and read the diff).
func TestGoldenPages(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata"), goldie.WithNameSuffix(".html"))
	g.Assert(t, "s07", tracePage(t, view.Options{}, "golden/s07-session-replay.trace.jsonl"))
	g.Assert(t, "s07-drift.diff", diffPage(t, "golden/s07-session-replay.trace.jsonl", "testdata/view/s07-drift.trace.jsonl"))
}

func TestDeterministic(t *testing.T) {
	files := []string{"golden/session-resume.trace.jsonl", "golden/branch-continue.trace.jsonl", "testdata/bad/sequence-gap.jsonl"}
	a := tracePage(t, view.Options{}, files...)
	b := tracePage(t, view.Options{}, files...)
	if !bytes.Equal(a, b) {
		t.Error("two builds of the same page differ")
	}
}

var islandRE = regexp.MustCompile(`(?s)<script type="application/json" id="tc-data">(.*?)</script>`)

// island returns the page's data, and checks it is the only thing that
// could end its <script> element.
func island(t *testing.T, page []byte) map[string]any {
	t.Helper()
	m := islandRE.FindSubmatch(page)
	if m == nil {
		t.Fatal("no data island in the page")
	}
	data := m[1]
	for _, bad := range []string{"<", ">", "&", "\u2028", "\u2029"} {
		if bytes.Contains(data, []byte(bad)) {
			t.Errorf("the data island holds a raw %q", bad)
		}
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("the data island is not JSON: %v", err)
	}
	return v
}

// Payloads that would be markup or script if pasted raw stay data: the
// island has no character that could end its element, reads back to the
// exact text, and the page holds exactly the two scripts it writes.
func TestHostilePayloadsStayData(t *testing.T) {
	page := tracePage(t, view.Options{}, "testdata/view/hostile.trace.jsonl")
	v := island(t, page)
	payloads := v["ev"].(map[string]any)["payload"].([]any)
	var content struct{ Content string }
	if err := json.Unmarshal([]byte(payloads[1].(string)), &content); err != nil {
		t.Fatal(err)
	}
	want := "</script><script>window.pwned=1</script><!--<script> \u2028line\u2029sep <img src=x onerror=\"window.pwned=2\"> & &amp; </SCRIPT >"
	if content.Content != want {
		t.Errorf("payload read back as %q, want %q", content.Content, want)
	}
	if n := bytes.Count(bytes.ToLower(page), []byte("<script")); n != 2 {
		t.Errorf("the page opens %d script elements, want 2", n)
	}
	if n := bytes.Count(bytes.ToLower(page), []byte("</script")); n != 2 {
		t.Errorf("the page closes %d script elements, want 2", n)
	}
}

// Text from the trace that goes into the overview (html/template) is
// escaped there: a hostile run id or message is text.
func TestOverviewEscapes(t *testing.T) {
	page := tracePage(t, view.Options{}, "testdata/view/hostile.trace.jsonl")
	html := string(page[:islandRE.FindIndex(page)[0]])
	if strings.Contains(html, "<img") || strings.Contains(html, "<b>bold") {
		t.Error("markup from a payload reached the overview unescaped")
	}
	if !strings.Contains(html, "&lt;/script&gt;&lt;script&gt;window.pwned=1") {
		t.Error("the replay view does not show the hostile user message as text")
	}
}

// The page needs nothing from the network: no src or href leaves the file.
func TestSelfContained(t *testing.T) {
	for name, page := range map[string][]byte{
		"trace": tracePage(t, view.Options{}, "golden/s07-session-replay.trace.jsonl"),
		"diff":  diffPage(t, "golden/s07-session-replay.trace.jsonl", "testdata/view/s07-drift.trace.jsonl"),
	} {
		for _, m := range regexp.MustCompile(`(?i)(src|href)\s*=\s*"([^"]*)"`).FindAllSubmatch(page, -1) {
			if !bytes.HasPrefix(m[2], []byte("#")) {
				t.Errorf("%s page: %s=%q leaves the page", name, m[1], m[2])
			}
		}
		if !bytes.Contains(page, []byte(`content="default-src 'none';`)) {
			t.Errorf("%s page: no Content-Security-Policy forbidding loads", name)
		}
		if bytes.Contains(page, []byte("@import")) || bytes.Contains(page, []byte("url(")) {
			t.Errorf("%s page: the stylesheet loads something", name)
		}
	}
}

// An imported log's lint findings are counted as problems, in the header
// and in Page.Problems (the exit status), except info ones, which the page
// still lists, as notes.
func TestInfoFindingsAreNotProblems(t *testing.T) {
	const path = "golden/s07-session-replay.trace.jsonl"
	tests := []struct {
		name     string
		findings []view.Finding
		problems int
		header   string
		panel    string
	}{
		{"info only", []view.Finding{{Line: 2, Code: "UNKNOWN_RECORD", Severity: "info", Message: "skipped"}}, 0,
			`<span class="good">valid</span>`, `<h2>Notes</h2>`},
		{"a warning and an info", []view.Finding{{Line: 2, Code: "UNKNOWN_RECORD", Severity: "info", Message: "skipped"}, {Line: 3, Code: "ORPHAN_CALL", Severity: "warning", Message: "no result"}}, 1,
			`href="#problems">1 problem</a>`, `<h2>Problems <span class="count bad">1</span></h2>`},
	}
	for _, tt := range tests {
		src := view.BytesSource(path, read(t, path))
		src.Findings = tt.findings
		p, err := view.Build([]view.Source{src}, view.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := p.WriteHTML(&out); err != nil {
			t.Fatal(err)
		}
		page := out.String()
		if p.Problems() != tt.problems || !strings.Contains(page, tt.header) || !strings.Contains(page, tt.panel) || !strings.Contains(page, "UNKNOWN_RECORD") {
			t.Errorf("%s: Problems() = %d (want %d); header %q in page: %v; panel %q in page: %v",
				tt.name, p.Problems(), tt.problems, tt.header, strings.Contains(page, tt.header), tt.panel, strings.Contains(page, tt.panel))
		}
	}
}

// The diff page's budget counts what it writes too, and holds for the
// differences as well: a difference past it keeps its kind and fields
// and says its lines are left out.
func TestDiffPageBudgetCountsWrittenBytes(t *testing.T) {
	var exp, act bytes.Buffer
	angles := strings.Repeat("<", 10_000)
	for i := range 100 {
		id, parent := evt(i)
		exp.WriteString(line(i, id, parent, "s", "r", "user.message", "u", `{"content":"`+angles+`"}`))
		act.WriteString(line(i, id, parent, "s", "r", "user.message", "u", `{"content":"`+angles+`!"}`))
	}
	const budget = 1 << 20
	d := view.BuildDiff(exp.Bytes(), act.Bytes(), view.DiffOptions{ExpectedName: "e", ActualName: "a", Limits: view.Limits{DataBytes: budget}})
	var out bytes.Buffer
	if err := d.WriteHTML(&out); err != nil {
		t.Fatal(err)
	}
	if d.Differences() != 100 {
		t.Fatalf("%d differences", d.Differences())
	}
	if n := len(islandBytes(t, out.Bytes())); n > budget+64<<10 {
		t.Errorf("the diff page's data is %d bytes, over its budget of %d", n, budget)
	}
	if !strings.Contains(out.String(), "some differences show their fields but not their lines") {
		t.Error("the page does not say some differences' lines are left out")
	}
	var data struct{ Rows [][]any }
	if err := json.Unmarshal(islandBytes(t, out.Bytes()), &data); err != nil {
		t.Fatal(err)
	}
	if last := data.Rows[99]; last[5] != nil || len(last[8].([]any)) == 0 {
		t.Errorf("the last difference: lines %v, fields %v; want no lines, its fields", last[5], last[8])
	}
}
