package cireport

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestWriteJUnit(t *testing.T) {
	var buf bytes.Buffer
	err := WriteJUnit(&buf, "tracecheck verify", Suite{Name: "verify", Cases: []Case{
		{Name: "s01-agent-loop"},
		{Name: "s02", File: "golden/s02.trace.jsonl", Line: 3, Failure: &Failure{Message: "DRIFT s02\nmore", Type: "drift", Text: "a < b & \x1b[31m"}},
		{Name: "broken", Error: &Failure{Message: "INVALID"}},
		{Name: "later", Skipped: "filtered"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`<testsuites name="tracecheck verify" tests="4" failures="1" errors="1" skipped="1">`,
		`<testcase name="s02" classname="verify" file="golden/s02.trace.jsonl" line="3">`,
		`<failure message="DRIFT s02" type="drift">a &lt; b &amp; ` + "\uFFFD" + `[31m</failure>`,
		`<skipped message="filtered"></skipped>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("JUnit output lacks %q:\n%s", want, out)
		}
	}
	// It parses back as XML, with the counts it claims.
	var doc xmlSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("output is not XML: %v\n%s", err, out)
	}
	if doc.Tests != 4 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 4 {
		t.Errorf("parsed back %+v", doc)
	}
}

func TestWriteGitHub(t *testing.T) {
	var buf bytes.Buffer
	err := WriteGitHub(&buf, []Annotation{
		{File: "golden/a,b:c.trace.jsonl", Line: 4, Col: 2, Title: "DRIFT a", Message: "50% off\nline two"},
		{Level: LevelWarning, Message: "no file"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "::error file=golden/a%2Cb%3Ac.trace.jsonl,line=4,col=2,title=DRIFT a::50%25 off%0Aline two\n" +
		"::warning::no file\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// TestWriteGitHubEscapesControls: a file name, title or message holding
// an ANSI escape, another C0 or C1 control, DEL, a byte that is not UTF-8
// or a bidirectional or invisible formatting character reaches the log as
// the escape textsafe writes for it (what the text output shows), so no
// input can colour, move or reorder the CI log; GitHub's own %25, %0D, %0A,
// %3A and %2C encodings still apply.
func TestWriteGitHubEscapesControls(t *testing.T) {
	hostile := "\x1b[31m\x07\x00\t\x7f\u0085\u009b\x9b\u202a\u202e\u2066\u2069\u200b\u200f\ufeff"
	const escaped = `\x1b[31m\x07\x00\t\x7f\u0085\u009b\x9b\u202a\u202e\u2066\u2069\u200b\u200f\ufeff`
	var buf bytes.Buffer
	err := WriteGitHub(&buf, []Annotation{
		{File: "dir/" + hostile + ",x:y.jsonl", Line: 2, Title: "CODE " + hostile, Message: "50% " + hostile + "\r\nnext: a,b é ✓"},
		{Level: LevelNotice, Message: "plain"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "::error file=dir/" + escaped + "%2Cx%3Ay.jsonl,line=2,title=CODE " + escaped + "::50%25 " + escaped + "%0D%0Anext: a,b é ✓\n" +
		"::notice::plain\n"
	if buf.String() != want {
		t.Errorf("got\n%q\nwant\n%q", buf.String(), want)
	}
	for i, r := range strings.TrimSuffix(buf.String(), "\n") {
		if r == '\n' {
			continue
		}
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == utf8.RuneError || unicode.Is(unicode.Cf, r) {
			t.Errorf("byte %d of the output is %U", i, r)
		}
	}
}
