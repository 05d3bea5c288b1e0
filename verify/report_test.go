package verify_test

import (
	"bytes"
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
		!strings.Contains(b.Failure.Text, "/payload/n: expected 9, actual 2") || !strings.Contains(b.Failure.Message, "at line 1") {
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
			"tracecheck verify --golden-dir 'my goldens' --update=always"},
		{"drift and INVALID: name the fixable ids", run(no, drift, subject("a", trace(1), "broken"), subject("b", trace(2)), subject("c", trace(3))), inv,
			"tracecheck verify --golden-dir 'my goldens' --update=always b c"},
		{"a selection", run(verify.Options{Update: verify.UpdateNo, Filtered: true}, drift, subject("b", trace(2))),
			verify.Invocation{Program: "tracecheck", ScenarioDir: "s", IDs: []string{"b"}}, "tracecheck verify --scenario-dir s --update=always b"},
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

// TestLongFieldValuesAreCutOnce: a long differing value is cut in the text
// report, once, and kept whole in JSON.
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
	if strings.Count(text.String(), "bytes)") != 1 || !strings.Contains(text.String(), "... (1002 bytes), actual \"short\"") {
		t.Errorf("text:\n%s", text.String())
	}
	if !strings.Contains(js.String(), `"expected": "\"`+long+`\""`) {
		t.Errorf("the JSON report cut the value")
	}
}
