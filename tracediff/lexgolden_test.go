package tracediff

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tolerant golden compared with a validated trace is lexed and settled
// line by line against the actual lines (settle.go); with slowPaths it is
// checked and compiled as it is read. Both must give the same report, to
// the byte, whatever the golden holds.
func diffBothWays(t *testing.T, name string, golden, actual []byte) *Report {
	t.Helper()
	dir := t.TempDir()
	gp, ap := filepath.Join(dir, "golden.jsonl"), filepath.Join(dir, "actual.jsonl")
	if err := os.WriteFile(gp, golden, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ap, actual, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func() (*Report, []byte, []byte) {
		gf, err := os.Open(gp)
		if err != nil {
			t.Fatal(err)
		}
		defer gf.Close()
		af, err := os.Open(ap)
		if err != nil {
			t.Fatal(err)
		}
		defer af.Close()
		r := Diff(Input{"golden.jsonl", gf}, Input{"actual.jsonl", af}, Options{Tolerant: true})
		j, _ := json.Marshal(r)
		var txt bytes.Buffer
		r.WriteText(&txt)
		return r, j, txt.Bytes()
	}
	lexed, lj, lt := run()
	slowPaths = true
	_, sj, st := run()
	slowPaths = false
	if !bytes.Equal(lj, sj) || !bytes.Equal(lt, st) {
		t.Fatalf("%s: lexed and checked goldens give other reports:\n%s\n---\n%s", name, lt, st)
	}
	return lexed
}

// goldenOf is the trace's golden, as tracecheck normalize writes it.
func goldenOf(t *testing.T, trace []byte) []byte {
	t.Helper()
	var g bytes.Buffer
	if probs, err := Normalize(Input{"t", bytes.NewReader(trace)}, &g); err != nil || probs != nil {
		t.Fatal(err, probs)
	}
	return g.Bytes()
}

// editLine replaces the first old in line n (from 1) of data with new.
func editLine(t *testing.T, data []byte, n int, old, new string) []byte {
	t.Helper()
	lines := bytes.SplitAfter(data, []byte{'\n'})
	if !bytes.Contains(lines[n-1], []byte(old)) {
		t.Fatalf("line %d has no %q", n, old)
	}
	lines[n-1] = bytes.Replace(lines[n-1], []byte(old), []byte(new), 1)
	return bytes.Join(lines, nil)
}

func TestLexedGoldenCases(t *testing.T) {
	trace, err := os.ReadFile("../testdata/good/s02-events-streaming.trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	golden := goldenOf(t, trace)
	traceLines := bytes.SplitAfter(trace, []byte{'\n'})
	withLine := func(n int, l []byte) []byte {
		lines := bytes.SplitAfter(golden, []byte{'\n'})
		lines[n-1] = l
		return bytes.Join(lines, nil)
	}
	cases := []struct {
		name    string
		golden  []byte
		invalid bool // the golden has problems
		diffs   bool // valid, with differences
		line    int  // the first golden problem's line, or the first difference's expected line
	}{
		{name: "differs only in holes", golden: golden},
		{name: "every line the bytes of the actual's", golden: trace},
		{name: "a line the bytes of another actual line", golden: withLine(2, traceLines[2]), invalid: true, line: 2},
		{name: "hole does not match", golden: editLine(t, golden, 3, `"[TIMESTAMP]"`, `"[UUID]"`), diffs: true, line: 3},
		{name: "literal differs", golden: editLine(t, golden, 2, `"reference-agent"`, `"other-agent"`), diffs: true, line: 2},
		{name: "binding mixes events", golden: editLine(t, golden, 3, `"parent_event_id":"[ID-`, `"parent_event_id":"[ID-9`), diffs: true, line: 3},
		{name: "not JSON", golden: editLine(t, golden, 2, `"actor":{`, `"actor":{{`), invalid: true, line: 2},
		{name: "missing comma after a hole", golden: editLine(t, golden, 2, `,"sequence"`, `"sequence"`), invalid: true, line: 2},
		{name: "hole as a key", golden: editLine(t, golden, 2, `"type":`, `"[ID-1]":`), diffs: true, line: 2},
		{name: "hole string with a control character", golden: editLine(t, golden, 2, `"[TIMESTAMP]"`, "\"[..]\x01\""), invalid: true, line: 2},
		{name: "hole string with a bad escape", golden: editLine(t, golden, 2, `"[TIMESTAMP]"`, `"\u005bID-1\x]"`), invalid: true, line: 2},
		{name: "escaped hole", golden: editLine(t, golden, 2, `"[TIMESTAMP]"`, `"\u005bTIMESTAMP]"`)},
		{name: "escaped key", golden: editLine(t, golden, 2, `"type":`, `"typ\u0065":`)},
		{name: "duplicate key", golden: editLine(t, golden, 2, `"type":`, `"type":"x","type":`), invalid: true, line: 2},
		{name: "open object", golden: editLine(t, golden, 2, `"actor":{`, `"actor":{"...":"{...}",`)},
		{name: "sequence gap", golden: editLine(t, golden, 3, `"sequence":2,`, `"sequence":5,`), invalid: true, line: 3},
		{name: "sequence as a hole", golden: editLine(t, golden, 3, `"sequence":2,`, `"sequence":"[N]",`), invalid: true, line: 3},
		{name: "blank line", golden: withLine(2, []byte("\n")), invalid: true, line: 2},
		{name: "torn last line", golden: bytes.TrimSuffix(golden, []byte{'\n'}), invalid: true},
		{name: "empty", golden: nil, invalid: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := diffBothWays(t, c.name, c.golden, trace)
			switch {
			case c.invalid:
				if len(r.Expected.Problems) == 0 {
					t.Fatalf("no golden problem: %+v", r)
				}
				if c.line != 0 && r.Expected.Problems[0].Line != c.line {
					t.Fatalf("first problem %+v, want line %d", r.Expected.Problems[0], c.line)
				}
			case c.diffs:
				if r.Invalid() || r.Differences == 0 {
					t.Fatalf("want differences: %+v", r)
				}
				if r.Events[0].ExpectedLine != c.line {
					t.Fatalf("first difference at line %d, want %d", r.Events[0].ExpectedLine, c.line)
				}
			default:
				if !r.Equal {
					t.Fatalf("want equal: %+v", r)
				}
			}
		})
	}
}

// Goldens broken at random (bytes dropped, doubled, or JSON's marks put
// in) against their traces: the lexed golden is never taken for valid
// when the checked one is not, and never compiled otherwise.
func TestLexedGoldenMutated(t *testing.T) {
	files, _ := filepath.Glob("../testdata/good/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no traces")
	}
	r := rand.New(rand.NewPCG(7, 25))
	marks := []string{`"`, `\`, `,`, `:`, `{`, `}`, `[`, `]`, " ", `"[A]"`, `"[..]`, `\"`, "\x01", "\xff"}
	invalid := 0
	for _, f := range files {
		trace, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		golden := goldenOf(t, trace)
		for round := 0; round < 40; round++ {
			lines := bytes.SplitAfter(golden, []byte{'\n'})
			for k := 0; k < 1+r.IntN(3); k++ {
				n := r.IntN(len(lines))
				l := lines[n]
				if len(l) < 2 {
					continue
				}
				i := r.IntN(len(l) - 1)
				var b strings.Builder
				b.Write(l[:i])
				switch r.IntN(3) {
				case 0: // drop a byte
					b.Write(l[i+1:])
				case 1: // put in a mark
					b.WriteString(marks[r.IntN(len(marks))])
					b.Write(l[i:])
				default: // double a stretch
					j := min(len(l)-1, i+1+r.IntN(12))
					b.Write(l[i:j])
					b.Write(l[i:])
				}
				lines[n] = []byte(b.String())
			}
			rep := diffBothWays(t, f, bytes.Join(lines, nil), trace)
			if len(rep.Expected.Problems) > 0 {
				invalid++
			}
		}
	}
	if invalid < 20 {
		t.Fatalf("only %d broken goldens", invalid)
	}
}

// A golden that tracecheck normalize wrote, against the trace it came
// from, is proven line by line from the validator's member spans
// (tolerant.Compiler.Prove), with the report of a golden checked as it is
// read: the fast path is the one taken, not only a correct one.
func TestGoldenProvenByMembers(t *testing.T) {
	const events = 3000
	trace, _ := genPair(t, events, 0)
	golden := goldenOf(t, trace)
	want := diffBothWays(t, "generated", golden, trace)
	r, d := diff(Input{"golden.jsonl", bytes.NewReader(golden)}, Input{"actual.jsonl", bytes.NewReader(trace)}, Options{Tolerant: true})
	if !r.Equal || !want.Equal {
		t.Fatalf("the golden does not match its trace: %+v", r)
	}
	if d.gc == nil || d.gc.byMembers != events {
		n := -1
		if d.gc != nil {
			n = d.gc.byMembers
		}
		t.Fatalf("%d of %d lines proven by their members", n, events)
	}
}
