package verify_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/verify"
)

// mixedReport is a run with every kind of result: a passes, b drifts at
// line 1, c has no golden, d is INVALID, z is unreferenced (warned).
func mixedReport(tb testing.TB) (*verify.Report, string) {
	tb.Helper()
	dir := dirWith(tb, map[string]string{"a.trace.jsonl": trace(1), "b.trace.jsonl": trace(9), "d.trace.jsonl": trace(4), "z.trace.jsonl": trace(26)})
	subjects := append(fourSubjects()[:3], subject("d", trace(4)))
	rep := verify.Run(subjects, golden.DiskStore(dir), verify.Options{Update: verify.UpdateNo, Unreferenced: verify.UnreferencedWarn})
	// d INVALID after the fact would skip the unreferenced check; build it
	// from two runs instead.
	inv := verify.Run([]verify.Subject{subject("d", trace(4), "expected 3 events, rendered 2", "focus event is missing: tool.result")}, golden.DiskStore(dir), verify.Options{Update: verify.UpdateNo, Filtered: true})
	for i, r := range rep.Results {
		if r.ID == "d" {
			rep.Results[i] = inv.Results[0]
			rep.OK = false
		}
	}
	return rep, dir
}

// TestJUnitValidatesAgainstTheSchema checks --format junit against
// testdata/junit.xsd (see its header) with xmllint, which .ci/run installs
// (Debian's libxml2-utils) when it is missing.
func TestJUnitValidatesAgainstTheSchema(t *testing.T) {
	rep, _ := mixedReport(t)
	var out bytes.Buffer
	if err := rep.WriteJUnit(&out); err != nil {
		t.Fatal(err)
	}
	// The counts and the failure text, read back.
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				File    string `xml:"file,attr"`
				Line    int    `xml:"line,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if doc.Tests != 5 || doc.Failures != 3 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 5 {
		t.Fatalf("tests %d failures %d:\n%s", doc.Tests, doc.Failures, out.String())
	}
	b := doc.Suites[0].Cases[1]
	if b.Name != "b" || b.Line != 1 || b.Failure == nil || b.Failure.Type != "DRIFT" ||
		!strings.Contains(b.Failure.Text, "/payload/n: expected 9, actual 2") || !strings.Contains(b.Failure.Message, "1 event differs") ||
		!strings.Contains(b.Failure.Message, "(expected line 1, actual line 1)") {
		t.Errorf("drift case: %+v", b)
	}

	xsd := filepath.Join("testdata", "junit.xsd")
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not found (Debian package libxml2-utils; .ci/run installs it): the JUnit output was not checked against testdata/junit.xsd")
	}
	check := func(doc []byte) (string, error) {
		f := filepath.Join(t.TempDir(), "junit.xml")
		if err := os.WriteFile(f, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		msg, err := exec.Command(xmllint, "--noout", "--schema", xsd, f).CombinedOutput()
		return string(msg), err
	}
	if msg, err := check(out.Bytes()); err != nil {
		t.Errorf("the JUnit report does not validate: %v\n%s\n%s", err, msg, out.String())
	}
	// The check can fail: a testcase without its name does not validate.
	bad := bytes.Replace(out.Bytes(), []byte(`<testcase name="a"`), []byte(`<testcase`), 1)
	if msg, err := check(bad); err == nil {
		t.Errorf("a testcase without a name validated:\n%s", msg)
	}
}

func TestGitHubAnnotations(t *testing.T) {
	rep, dir := mixedReport(t)
	var out bytes.Buffer
	if err := rep.WriteGitHub(&out, dir); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	wantPrefixes := []string{
		"::error file=b.trace.jsonl,line=1,title=tracecheck verify%3A DRIFT b::b differs from ",
		"::error file=c.trace.jsonl,title=tracecheck verify%3A MISSING c::c has no golden ",
		"::error file=subjects/d.json,title=tracecheck verify%3A INVALID d::d is INVALID: expected 3 events, rendered 2%0A",
		"::warning file=z.trace.jsonl,title=tracecheck verify%3A OBSOLETE golden::",
	}
	if len(lines) != len(wantPrefixes) {
		t.Fatalf("%d annotations, want %d:\n%s", len(lines), len(wantPrefixes), out.String())
	}
	for i, w := range wantPrefixes {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("annotation %d:\n%s\nwant prefix\n%s", i, lines[i], w)
		}
	}
	if !strings.Contains(lines[0], "/payload/n: expected 9, actual 2") {
		t.Errorf("the drift annotation lacks the field: %s", lines[0])
	}
}

func TestTextReportQuotesInput(t *testing.T) {
	evil := "x\x1b[2Jok y"
	dir := dirWith(t, map[string]string{})
	rep := verify.Run([]verify.Subject{subject(evil, trace(1), "bad\x1b]0;title\x07 field")}, golden.DiskStore(dir), verify.Options{Update: verify.UpdateNo, Filtered: true})
	var out bytes.Buffer
	rep.WriteText(&out)
	if strings.ContainsAny(out.String(), "\x1b\x07") {
		t.Errorf("raw escapes in the report: %q", out.String())
	}
	if !strings.Contains(out.String(), `INVALID "x\x1b[2Jok y"`) {
		t.Errorf("id not quoted: %q", out.String())
	}
}

// TestReportNamesNonJSONGoldensSafely: a golden that is not JSON, or not
// text at all, is quoted and cut in the report, never printed raw.
func TestReportNamesNonJSONGoldensSafely(t *testing.T) {
	binary := "\x1b[31m\x00\xff" + strings.Repeat("\x9b\x01 PNG data ", 600) // no newline, 7 KB
	dir := dirWith(t, map[string]string{"a.trace.jsonl": binary})
	rep := verify.Run([]verify.Subject{subject("a", trace(1))}, golden.DiskStore(dir), verify.Options{Update: verify.UpdateNo, Filtered: true})
	var out bytes.Buffer
	rep.WriteText(&out)
	s := out.String()
	if strings.ContainsAny(s, "\x1b\x00\x01") || strings.Contains(s, "\xff") {
		t.Errorf("raw bytes of the golden in the report: %q", s)
	}
	if !strings.Contains(s, `golden line 1 is not valid JSON`) || !strings.Contains(s, `-"\x1b[31m\x00\xff`) || !strings.Contains(s, fmt.Sprintf("(%d bytes)", len(binary))) {
		t.Errorf("the golden's line is not shown quoted and cut:\n%s", s)
	}
	for _, l := range strings.Split(s, "\n") {
		if len(l) > 4*golden.MaxShown {
			t.Errorf("a line of %d bytes in the report", len(l))
		}
	}
}

func TestNextStep(t *testing.T) {
	inv := verify.Invocation{Program: "tracecheck", GoldenDir: "my goldens"}
	run := func(opts verify.Options, files map[string]string, subjects ...verify.Subject) *verify.Report {
		return verify.Run(subjects, golden.DiskStore(dirWith(t, files)), opts)
	}
	no := verify.Options{Update: verify.UpdateNo, Unreferenced: verify.UnreferencedWarn}
	drift := map[string]string{"a.trace.jsonl": trace(1), "b.trace.jsonl": trace(9)}
	tests := []struct {
		name string
		rep  *verify.Report
		inv  verify.Invocation
		want string
	}{
		{"all ok", run(no, drift, subject("a", trace(1)), subject("b", trace(9))), inv, ""},
		{"drift, full run", run(no, drift, subject("a", trace(1)), subject("b", trace(2))), inv,
			"tracecheck verify --golden-dir 'my goldens' --update=new; tracecheck review --golden-dir 'my goldens'"},
		{"drift and INVALID: name the fixable ids", run(no, drift, subject("a", trace(1), "broken"), subject("b", trace(2)), subject("c", trace(3))), inv,
			"tracecheck verify --golden-dir 'my goldens' --update=new b c; tracecheck review --golden-dir 'my goldens'"},
		{"a selection", run(verify.Options{Update: verify.UpdateNo, Filtered: true}, drift, subject("b", trace(2))),
			verify.Invocation{Program: "tracecheck", ScenarioDir: "s", IDs: []string{"b"}}, "tracecheck verify --scenario-dir s --update=new b; tracecheck review"},
		{"only INVALID", run(no, drift, subject("a", trace(1), "broken"), subject("b", trace(9))), inv, ""},
		{"pending written", run(verify.Options{Update: verify.UpdateNew}, drift, subject("a", trace(1)), subject("b", trace(2))), inv,
			"tracecheck review --golden-dir 'my goldens'"},
		{"unreferenced rejected", run(verify.Options{Update: verify.UpdateNo, Unreferenced: verify.UnreferencedReject}, drift, subject("a", trace(1))), inv,
			"tracecheck verify --golden-dir 'my goldens' --unreferenced=delete"},
		{"an unprintable directory", run(no, drift, subject("a", trace(1)), subject("b", trace(2))),
			verify.Invocation{Program: "tracecheck", GoldenDir: "g\x1b"}, ""},
		{"embedded goldens", verify.Run([]verify.Subject{subject("s01-agent-loop", trace(1))}, golden.EmbeddedStore(), verify.Options{Filtered: true}), inv, ""},
	}
	for _, tc := range tests {
		step, ok := tc.rep.NextStep(tc.inv)
		if step.Command != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: NextStep = %q, %v; want %q", tc.name, step.Command, ok, tc.want)
		}
	}
}

// TestLongFieldValuesAreCutOnce: a long differing value is cut, once, in
// the text report and in JSON alike, saying how much was left out.
func TestLongFieldValuesAreCutOnce(t *testing.T) {
	long := strings.Repeat("x", 1000)
	line := func(v string) string {
		return `{"sequence":0,"event_id":"evt-000","type":"session.start","payload":{"s":"` + v + `"}}` + "\n"
	}
	dir := dirWith(t, map[string]string{"a.trace.jsonl": line(long)})
	rep := verify.Run([]verify.Subject{subject("a", line("short"))}, golden.DiskStore(dir), verify.Options{Update: verify.UpdateNo, Filtered: true})
	var text, js bytes.Buffer
	rep.WriteText(&text)
	rep.WriteJSON(&js)
	var field string
	for _, l := range strings.Split(text.String(), "\n") {
		if strings.Contains(l, "/payload/s:") {
			field = l
		}
	}
	if strings.Count(field, "more bytes)") != 1 || !strings.Contains(field, "…(802 more bytes), actual \"short\"") {
		t.Errorf("text:\n%s", text.String())
	}
	if !strings.Contains(js.String(), `…(802 more bytes)",`) || strings.Contains(js.String(), long) {
		t.Errorf("the JSON report does not cut the value the same way:\n%s", js.String())
	}
}

// TestDriftReportsEveryEvent: a golden with several differing events is
// reported in full in every format: each event with the pointer of its
// field, the count, the unified diff; one GitHub annotation per event at
// its golden line.
func TestDriftReportsEveryEvent(t *testing.T) {
	ev := func(seq, n int) string {
		return fmt.Sprintf(`{"sequence":%d,"event_id":"evt-%03d","type":"tool.result","payload":{"n":%d}}`+"\n", seq, seq, n)
	}
	var want, got strings.Builder
	for i := range 8 {
		want.WriteString(ev(i, i))
		switch i {
		case 1, 5:
			got.WriteString(ev(i, 100+i)) // changed
		case 7: // missing
		default:
			got.WriteString(ev(i, i))
		}
	}
	dir := dirWith(t, map[string]string{"m.trace.jsonl": want.String()})
	rep := verify.Run([]verify.Subject{subject("m", got.String())}, golden.DiskStore(dir), verify.Options{Update: verify.UpdateNo, Filtered: true})
	d := rep.Results[0].Drift
	if rep.OK || d == nil || d.Differences != 3 || d.Changed != 2 || d.Missing != 1 || len(d.Events) != 3 {
		t.Fatalf("drift %+v", d)
	}

	var text bytes.Buffer
	rep.WriteText(&text)
	for _, w := range []string{
		"DRIFT m\n",
		"m.trace.jsonl: 3 events differ (2 changed, 1 missing, 0 extra); the golden has 8 events, the actual trace 7\n",
		"  changed sequence=1 event_id=evt-001 type=tool.result (expected line 2, actual line 2)\n    /payload/n: expected 1, actual 101\n",
		"  changed sequence=5 event_id=evt-005 type=tool.result (expected line 6, actual line 6)\n    /payload/n: expected 5, actual 105\n",
		"  missing sequence=7 event_id=evt-007 type=tool.result (expected line 8)\n",
		"  @@ -1,8 +1,7 @@\n",
	} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, text.String())
		}
	}

	var js bytes.Buffer
	rep.WriteJSON(&js)
	var doc struct {
		Results []struct {
			Drift struct {
				Differences int `json:"differences"`
				Events      []struct {
					Kind         string `json:"kind"`
					ExpectedLine int    `json:"expected_line"`
					Fields       []struct{ Pointer, Expected, Actual string }
				} `json:"events"`
			} `json:"drift"`
		} `json:"results"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	jd := doc.Results[0].Drift
	if jd.Differences != 3 || len(jd.Events) != 3 || jd.Events[1].ExpectedLine != 6 || jd.Events[1].Fields[0].Pointer != "/payload/n" ||
		jd.Events[1].Fields[0].Actual != "105" || jd.Events[2].Kind != "missing" {
		t.Errorf("json: %+v", jd)
	}

	var junit bytes.Buffer
	rep.WriteJUnit(&junit)
	if !strings.Contains(junit.String(), `line="2"`) || strings.Count(junit.String(), "/payload/n: expected") != 2 || !strings.Contains(junit.String(), "missing sequence=7") {
		t.Errorf("junit:\n%s", junit.String())
	}

	var gh bytes.Buffer
	rep.WriteGitHub(&gh, dir)
	lines := strings.Split(strings.TrimSuffix(gh.String(), "\n"), "\n")
	wantPrefixes := []string{
		"::error file=m.trace.jsonl,line=2,title=tracecheck verify%3A DRIFT m::m differs from ",
		"::error file=m.trace.jsonl,line=6,title=tracecheck verify%3A DRIFT m::m differs from " + filepath.Join(dir, "m.trace.jsonl") + ": event 2 of 3%0Achanged sequence=5",
		"::error file=m.trace.jsonl,line=8,title=tracecheck verify%3A DRIFT m::m differs from " + filepath.Join(dir, "m.trace.jsonl") + ": event 3 of 3%0Amissing sequence=7",
	}
	if len(lines) != len(wantPrefixes) {
		t.Fatalf("%d annotations:\n%s", len(lines), gh.String())
	}
	for i, w := range wantPrefixes {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("annotation %d:\n%s\nwant prefix\n%s", i, lines[i], w)
		}
	}
	if !strings.Contains(lines[1], "/payload/n: expected 5, actual 105") {
		t.Errorf("the second annotation lacks its field: %s", lines[1])
	}
}

// TestDriftByteOnlyIsStillADrift: a golden equal to the render as JSON but
// written with other bytes (member order, CRLF, spacing) is a DRIFT whose
// event says why.
func TestDriftByteOnlyIsStillADrift(t *testing.T) {
	base := trace(1)
	for _, tc := range []struct{ name, golden, note string }{
		{"member order", strings.Replace(base, `{"sequence":1,"event_id":"evt-001"`, `{"event_id":"evt-001","sequence":1`, 1), "other bytes (member order"},
		{"CRLF", strings.Replace(base, "\n", "\r\n", 1), "the line endings differ (CRLF)"},
		{"whitespace", strings.Replace(base, `"payload":{"n":1}`, `"payload": {"n": 1}`, 1), "other bytes"},
	} {
		dir := dirWith(t, map[string]string{"a.trace.jsonl": tc.golden})
		rep := verify.Run([]verify.Subject{subject("a", base)}, golden.DiskStore(dir), verify.Options{Update: verify.UpdateNo, Filtered: true})
		r := rep.Results[0]
		if r.Status != verify.StatusDrift || r.Drift.Mode != golden.ModeExact || len(r.Drift.Events) != 1 || !strings.Contains(r.Drift.Events[0].Note, tc.note) {
			t.Errorf("%s: %s %+v", tc.name, r.Status, r.Drift)
		}
	}
}
