package view

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile("../" + path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// shape is what the page draws of an alignment: each row's kind, lines,
// run, sequence and differing pointers.
type shape struct {
	Kind     string
	E, A     int
	Run      int
	Seq      int64
	Pointers string
}

func shapes(rows []Aligned) []shape {
	var out []shape
	for _, r := range rows {
		var ps []string
		for _, f := range r.Fields {
			ps = append(ps, f.Pointer)
		}
		out = append(out, shape{r.Kind(), r.ExpectedLine, r.ActualLine, r.Run, r.Sequence, strings.Join(ps, " ")})
	}
	return out
}

func TestAligners(t *testing.T) {
	s07 := readFile(t, "golden/s07-session-replay.trace.jsonl")
	lines := bytes.SplitAfter(s07, []byte("\n"))
	resume := readFile(t, "golden/session-resume.trace.jsonl")
	tests := []struct {
		name     string
		exp, act []byte
		want     []shape
	}{
		{"identical", s07, s07, nil},
		{"a drift", s07, readFile(t, "testdata/view/s07-drift.trace.jsonl"), []shape{
			{"equal", 1, 1, 1, 0, ""}, {"equal", 2, 2, 1, 1, ""}, {"equal", 3, 3, 1, 2, ""},
			{"changed", 4, 4, 1, 3, "/payload/content"}, {"changed", 5, 5, 1, 4, "/payload/turns"},
			{"equal", 6, 6, 1, 5, ""}, {"missing", 7, 0, 1, 6, ""}}},
		{"an extra event", bytes.Join(lines[:6], nil), s07, nil},
		{"the same events, other bytes", s07[:bytes.IndexByte(s07, '\n')+1],
			[]byte(strings.Replace(string(s07[:bytes.IndexByte(s07, '\n')+1]), `{"max_turns":8,"tool_count":0}`, `{"tool_count":0,"max_turns":8}`, 1)),
			[]shape{{"changed", 1, 1, 1, 0, ""}}},
		{"runs: run 2 lost an event", resume, append(bytes.Join(bytes.SplitAfter(resume, []byte("\n"))[:18], nil), bytes.Join(bytes.SplitAfter(resume, []byte("\n"))[19:], nil)...), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq := shapes(SequenceAligner{}.Align(tt.exp, tt.act))
			td := shapes(TracediffAligner{}.Align(tt.exp, tt.act))
			if d := cmp.Diff(seq, td); d != "" {
				t.Errorf("the aligners disagree (-sequence +tracediff):\n%s", d)
			}
			if tt.want != nil {
				if d := cmp.Diff(tt.want, td); d != "" {
					t.Errorf("alignment (-want +got):\n%s", d)
				}
			}
			// Every line of each file is in exactly one row, in order.
			e, a := 0, 0
			for _, r := range td {
				if r.E > 0 {
					if r.E != e+1 {
						t.Fatalf("expected line %d after %d", r.E, e)
					}
					e = r.E
				}
				if r.A > 0 {
					if r.A != a+1 {
						t.Fatalf("actual line %d after %d", r.A, a)
					}
					a = r.A
				}
			}
			if e != len(splitLines(tt.exp)) || a != len(splitLines(tt.act)) {
				t.Errorf("rows cover %d and %d lines, the files have %d and %d", e, a, len(splitLines(tt.exp)), len(splitLines(tt.act)))
			}
		})
	}
}

// An invalid trace is still aligned (tracediff reports only its problems).
func TestTracediffAlignerFallsBack(t *testing.T) {
	bad := readFile(t, "testdata/bad/invalid-json.jsonl")
	rows := TracediffAligner{}.Align(readFile(t, "golden/s07-session-replay.trace.jsonl"), bad)
	if d := cmp.Diff(shapes(SequenceAligner{}.Align(readFile(t, "golden/s07-session-replay.trace.jsonl"), bad)), shapes(rows)); d != "" {
		t.Errorf("(-sequence +tracediff):\n%s", d)
	}
	if len(rows) == 0 {
		t.Error("no rows")
	}
}
