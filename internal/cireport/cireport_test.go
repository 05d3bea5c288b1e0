package cireport

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
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
