package journal_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// pairFixtures are the good and bad traces, and a long generated one
// (several batches).
func pairFixtures(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	for _, dir := range []string{"good", "bad"} {
		files, _ := filepath.Glob(filepath.Join(testdata, dir, "*.jsonl"))
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	if len(out) < 4 {
		t.Fatal("no fixtures")
	}
	var long bytes.Buffer
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&long, `{"trace_version":"0.1.0","event_id":"evt-%03d","session_id":"s","sequence":%d,"timestamp":"2026-01-01T00:00:00Z","type":"model.response","actor":{"kind":"model","id":"m"},"payload":{"turn":%d,"text":"%s"},"provenance":{"agent_id":"a","snapshot_id":"x","surface":"sdk","harness_mode":"fake","run_id":"r"},"redaction":{"status":"clean","fields":[]}}`+"\n",
			i, i, i, strings.Repeat("y", i%300))
	}
	return append(out, long.Bytes())
}

// mutate edits a copy of trace as a second version of it might differ:
// lines dropped, repeated, edited, made blank, invalid or torn.
func mutate(r *rand.Rand, trace []byte) []byte {
	lines := bytes.SplitAfter(trace, []byte{'\n'})
	var out bytes.Buffer
	edits := [][2]string{{`"sequence":`, `"sequence": `}, {`"session_id":"`, `"session_id":"x`}, {`{`, `[`},
		{`"event_id":"`, `"event_id":"\u0065`}, {`"type":"`, `"type":"z`}, {`"payload":{`, `"payload":{"x":1,`},
		{"\n", "\r\n"}, {`"run_id":"`, `"run_id":"q`}, {`}`, `}}`}}
	for _, l := range lines {
		switch k := r.IntN(60); {
		case k == 0:
			continue
		case k == 1:
			out.Write(l)
		case k == 2:
			out.WriteString("\n")
		case k < 6:
			e := edits[r.IntN(len(edits))]
			l = bytes.Replace(l, []byte(e[0]), []byte(e[1]), 1)
		}
		out.Write(l)
	}
	b := out.Bytes()
	if r.IntN(4) == 0 && len(b) > 10 {
		b = b[:len(b)-1-r.IntN(10)] // a torn tail
	}
	return b
}

// readerLines is what journal.Reader gives, and the error it stops at.
func readerLines(data []byte) ([]journal.Line, error) {
	rd := journal.NewReader(bytes.NewReader(data))
	var out []journal.Line
	for {
		l, err := rd.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return out, err
		}
		l.Raw = bytes.Clone(l.Raw)
		out = append(out, l)
	}
}

// walk reads both files of f to the end in an order that pick chooses
// (0 or 1 for the side to read next, while both have lines), and returns
// the lines of each.
func walk(f *journal.Files, pick func() int) [2][]journal.CheckedLine {
	var got [2][]journal.CheckedLine
	var done [2]bool
	take := func(i int) {
		ls := f.Next(i)
		if ls == nil {
			done[i] = true
			return
		}
		for _, l := range ls {
			l.Raw = bytes.Clone(l.Raw)
			l.Members = slices.Clone(l.Members)
			got[i] = append(got[i], l)
		}
	}
	for !done[0] || !done[1] {
		switch {
		case done[0]:
			take(1)
		case done[1]:
			take(0)
		default:
			take(pick())
		}
	}
	return got
}

// checkSide compares one side's lines and problems with Reader and
// Validate's, and its verdicts with DecodeLine's.
func checkSide(t *testing.T, name, file string, data []byte, lines []journal.CheckedLine, problems []*journal.Error, other []journal.CheckedLine, members bool) {
	t.Helper()
	want, _ := readerLines(data)
	if len(lines) != len(want) {
		t.Fatalf("%s: %d lines, Reader gives %d", name, len(lines), len(want))
	}
	byNum := map[int][]byte{}
	for _, l := range other {
		byNum[l.Num] = l.Raw
	}
	for i, l := range lines {
		w := want[i]
		if l.Num != w.Num || !bytes.Equal(l.Raw, w.Raw) || l.Torn != w.Torn {
			t.Fatalf("%s: line %d is %d %q torn %v, Reader's %d %q torn %v", name, i, l.Num, l.Raw, l.Torn, w.Num, w.Raw, w.Torn)
		}
		if l.Twin && !bytes.Equal(byNum[l.Num], l.Raw) {
			t.Fatalf("%s: line %d is a twin of a line with other bytes", name, l.Num)
		}
		if !l.Event {
			continue
		}
		_, ev, err := journal.DecodeLine(l.Raw)
		if err != nil || ev.Sequence != l.Sequence || ev.SessionID != l.SessionID || ev.Provenance.RunID != l.RunID {
			t.Fatalf("%s: line %d: event %d %q %q, DecodeLine %v %d %q %q", name, l.Num, l.Sequence, l.SessionID, l.RunID,
				err, ev.Sequence, ev.SessionID, ev.Provenance.RunID)
		}
		var sc journal.LineScanner
		if ms, ok := sc.Members(nil, l.Raw); members && (!slices.Equal(ms, l.Members) || ok != (l.Members != nil)) || !members && l.Members != nil {
			t.Fatalf("%s: line %d: Members %v, LineScanner.Members %v %v", name, l.Num, l.Members, ms, ok)
		}
		checkMembers(t, name, l)
	}
	wantProblems := journal.Validate(bytes.NewReader(data), file)
	if !reflect.DeepEqual(problems, wantProblems) {
		t.Fatalf("%s: problems\n%v\nValidate's\n%v", name, problems, wantProblems)
	}
	if len(problems) == 0 {
		for _, l := range lines {
			if !l.Event {
				t.Fatalf("%s: line %d of a valid file is not an event", name, l.Num)
			}
		}
	}
}

// checkMembers checks that the spans of an event line's Members are its
// top-level members' values, in line order, every member once.
func checkMembers(t *testing.T, name string, l journal.CheckedLine) {
	t.Helper()
	if l.Members == nil {
		return
	}
	v, err := jsonv.Parse(l.Raw)
	if err != nil {
		t.Fatalf("%s: line %d has Members but does not parse: %v", name, l.Num, err)
	}
	if len(l.Members) != len(v.Members()) {
		t.Fatalf("%s: line %d: %d spans for %d members", name, l.Num, len(l.Members), len(v.Members()))
	}
	end := int32(0)
	for _, s := range l.Members {
		mv, ok := v.Get(s.Member.String())
		if !ok || s.Start < end || s.End <= s.Start || int(s.End) > len(l.Raw) {
			t.Fatalf("%s: line %d: span %v of %s: out of place or no such member", name, l.Num, s, s.Member)
		}
		end = s.End
		got, err := jsonv.Parse(l.Raw[s.Start:s.End])
		if err != nil || !bytes.Equal(got.AppendCanonical(nil), mv.AppendCanonical(nil)) {
			t.Fatalf("%s: line %d: %s spans %q, the member's value is %s", name, l.Num, s.Member, l.Raw[s.Start:s.End], mv.AppendCanonical(nil))
		}
	}
}

// CheckFiles reads and judges each file as Reader and Validate do,
// whatever the other file holds and whatever the order the caller reads
// them in: versions of the fixtures with lines dropped, repeated, edited,
// blank and torn, read in lockstep, at random, one file first.
func TestCheckFilesMatchesValidate(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 2))
	fixtures := pairFixtures(t)
	twins, spanned := 0, 0
	for round := 0; round < 6; round++ {
		for fi, a := range fixtures {
			b := mutate(r, a)
			if round == 0 {
				b = a
			}
			if round == 1 {
				a = mutate(r, a)
			}
			orders := map[string]func() int{
				"lockstep": func() int { return r.IntN(2) },
				"a first":  func() int { return 0 },
				"b first":  func() int { return 1 },
			}
			for oname, pick := range orders {
				name := fmt.Sprintf("round %d fixture %d %s", round, fi, oname)
				bMembers := round%2 == 0
				f := journal.CheckFiles(journal.Source{R: bytes.NewReader(a), File: "a", Members: true},
					journal.Source{R: bytes.NewReader(b), File: "b", Members: bMembers})
				got := walk(f, pick)
				checkSide(t, name+" a", "a", a, got[0], f.Problems(0), got[1], true)
				checkSide(t, name+" b", "b", b, got[1], f.Problems(1), got[0], bMembers)
				for _, l := range got[1] {
					if l.Twin {
						twins++
					}
				}
				for _, l := range got[0] {
					if l.Members != nil {
						spanned++
					}
				}
			}
		}
	}
	if twins < 1000 {
		t.Fatalf("only %d lines were checked once for both files", twins)
	}
	if spanned < 1000 {
		t.Fatalf("only %d lines came with their members' spans", spanned)
	}
}

// One file alone, through readers that give a few bytes at a time, and
// readers that fail: the lines and problems are Reader's and Validate's.
func TestCheckFilesOneSideAndReaders(t *testing.T) {
	fixtures := pairFixtures(t)
	for fi, data := range fixtures {
		for wi, wrap := range []func(io.Reader) io.Reader{
			func(r io.Reader) io.Reader { return r },
			iotest.OneByteReader, iotest.HalfReader, iotest.DataErrReader,
		} {
			for side := 0; side < 2; side++ {
				var srcs [2]journal.Source
				srcs[side] = journal.Source{R: wrap(bytes.NewReader(data)), File: "f"}
				f := journal.CheckFiles(srcs[0], srcs[1])
				got := walk(f, func() int { return side })
				name := fmt.Sprintf("fixture %d reader %d side %d", fi, wi, side)
				checkSide(t, name, "f", data, got[side], f.Problems(side), nil, false)
				if len(got[1-side]) != 0 || f.Problems(1-side) != nil {
					t.Fatalf("%s: the missing side has lines or problems", name)
				}
			}
		}
	}
	// A reader that fails after some lines: they are read, then READ_FAILED.
	data := fixtures[len(fixtures)-1]
	cut := bytes.IndexByte(data[300000:], '\n') + 300000 + 50
	boom := errors.New("disk on fire")
	f := journal.CheckFiles(journal.Source{R: io.MultiReader(bytes.NewReader(data[:cut]), iotest.ErrReader(boom)), File: "f"}, journal.Source{})
	got := walk(f, func() int { return 0 })
	want, _ := readerLines(data[:cut])
	want = want[:len(want)-1] // the part of a line before the failure is not a line
	if len(got[0]) != len(want) {
		t.Fatalf("%d lines before the failure, want %d", len(got[0]), len(want))
	}
	p := f.Problems(0)
	if len(p) == 0 || p[len(p)-1].Code != journal.ReadFailed || p[len(p)-1].Line != len(want)+1 || !strings.Contains(p[len(p)-1].Msg, "disk on fire") {
		t.Fatalf("problems %v, want READ_FAILED at line %d", p, len(want)+1)
	}
}

// A line over the limit ends the file there, as Validate says, and the
// reader is read to its end all the same (a caller may tee it).
func TestCheckFilesLineTooLong(t *testing.T) {
	if testing.Short() {
		t.Skip("a 16 MiB line")
	}
	good := pairFixtures(t)[0]
	data := append(bytes.Clone(good), bytes.Repeat([]byte("x"), journal.DefaultMaxLineBytes+1)...)
	data = append(append(data, '\n'), good...)
	var seen bytes.Buffer
	f := journal.CheckFiles(journal.Source{R: io.TeeReader(bytes.NewReader(data), &seen), File: "f"},
		journal.Source{R: bytes.NewReader(data), File: "g"})
	got := walk(f, func() int { return 0 })
	for side := 0; side < 2; side++ {
		name := fmt.Sprintf("side %d", side)
		checkSide(t, name, []string{"f", "g"}[side], data, got[side], f.Problems(side), got[1-side], false)
		p := f.Problems(side)
		if p[len(p)-1].Code != journal.LineTooLong {
			t.Fatalf("%s: problems %v", name, p)
		}
	}
	if seen.Len() != len(data) {
		t.Fatalf("read %d bytes of %d", seen.Len(), len(data))
	}
}
