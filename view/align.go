package view

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/tracediff"
	"github.com/tracecheck/tracecheck/tracediff/tolerant"
)

// Field is one differing field of an aligned pair: its JSON pointer in the
// event, and the expected and actual values as JSON, or golden.Absent; for
// a tolerant golden, why its placeholder did not match, when it was one.
type Field struct {
	Pointer, Expected, Actual string
	Reason                    string
}

// Aligned is one position of a diff: the same event (by run and sequence)
// in the expected (golden) and the actual trace.
type Aligned struct {
	// Run is the event's run, numbered from 1 in order of first
	// appearance in its file (so run 1 of one file is compared with run 1
	// of the other whatever their ids); 0 for a line that is not an event.
	Run int
	// Sequence is the event's sequence; -1 when the line has none.
	Sequence int64
	// ExpectedLine and ActualLine are the event's 1-based line in each
	// file; 0 when that file does not have it.
	ExpectedLine, ActualLine int
	// Fields are the differing fields; Note explains a difference that is
	// not a field's value. Both are empty for an equal pair.
	Fields []Field
	Note   string
	// Matched are the pointers of the golden's placeholders that matched
	// the actual values there, when the golden is a tolerant one: the page
	// shows them as matched, not as differences.
	Matched []string
}

// Kind is "equal", "changed", "missing" (only the expected file has the
// event) or "extra" (only the actual file has it).
func (a *Aligned) Kind() string {
	switch {
	case a.ActualLine == 0:
		return "missing"
	case a.ExpectedLine == 0:
		return "extra"
	case len(a.Fields) == 0 && a.Note == "":
		return "equal"
	}
	return "changed"
}

// An Aligner lines up two traces event by event: every line of each file
// appears in exactly one Aligned, in an order that reads top to bottom in
// both files. The diff page is drawn from this list alone, so any trace
// differ can stand behind it.
type Aligner interface {
	Align(expected, actual []byte) []Aligned
}

// SequenceAligner pairs events by (run, sequence): run k of the expected
// file with run k of the actual file, runs numbered in order of first
// appearance. Lines that are no event pair by line number. Events only
// one file has are placed where they occur in it. Differing fields are
// golden.FieldDiffs' (member order is no difference; a number's spelling
// is), or with Tolerant the mismatches of the expected event read as a
// tolerant golden (package tolerant, bindings held across the file), as
// tracecheck diff --normalize finds them.
type SequenceAligner struct {
	Tolerant bool
}

type alignKey struct {
	run  int
	seq  int64
	line int // for lines that are no event
}

// Align implements Aligner.
func (s SequenceAligner) Align(expected, actual []byte) []Aligned {
	var m *tolerant.Matcher
	if s.Tolerant {
		m = tolerant.NewMatcher(true)
	}
	el, al := splitLines(expected), splitLines(actual)
	ek, ak := keys(el), keys(al)
	queue := map[alignKey][]int{}
	for j, k := range ak {
		queue[k] = append(queue[k], j)
	}
	used := make([]bool, len(al))
	out := make([]Aligned, 0, max(len(el), len(al)))
	extra := func(j int) {
		used[j] = true
		out = append(out, Aligned{Run: ak[j].run, Sequence: ak[j].seq, ActualLine: j + 1})
	}
	next := 0 // the first actual line not yet placed
	for i, k := range ek {
		q := queue[k]
		if len(q) == 0 {
			out = append(out, Aligned{Run: k.run, Sequence: k.seq, ExpectedLine: i + 1})
			continue
		}
		j := q[0]
		queue[k] = q[1:]
		for ; next < j; next++ {
			if !used[next] {
				extra(next)
			}
		}
		used[j] = true
		if next == j {
			next++
		}
		a := Aligned{Run: k.run, Sequence: k.seq, ExpectedLine: i + 1, ActualLine: j + 1}
		switch {
		case m != nil:
			m.Line = i + 1
			a.Fields, a.Note = matchLines(m, el[i], al[j])
		case !bytes.Equal(el[i], al[j]):
			a.Fields, a.Note = compareLines(el[i], al[j])
		}
		out = append(out, a)
	}
	for j := range al {
		if !used[j] {
			extra(j)
		}
	}
	return out
}

// compareLines says how two differing lines differ.
func compareLines(e, a []byte) ([]Field, string) {
	ev, eerr := jsonv.Parse(e)
	av, aerr := jsonv.Parse(a)
	switch {
	case eerr != nil && aerr != nil:
		return nil, "neither line is valid JSON"
	case eerr != nil:
		return nil, "the golden line is not valid JSON: " + eerr.Error()
	case aerr != nil:
		return nil, "the actual line is not valid JSON: " + aerr.Error()
	}
	var fields []Field
	for _, f := range golden.FieldDiffs(ev, av) {
		fields = append(fields, Field{Pointer: f.Pointer, Expected: f.Expected, Actual: f.Actual})
	}
	if len(fields) == 0 {
		return nil, "the same JSON value written with other bytes (member order, spacing, escaping or number spelling)"
	}
	return fields, ""
}

// matchLines says how an actual line departs from a tolerant golden's
// line, as tracediff's tolerant comparison does: the mismatches of Match
// (nothing when every placeholder matched).
func matchLines(m *tolerant.Matcher, e, a []byte) ([]Field, string) {
	ev, eerr := jsonv.Parse(e)
	av, aerr := jsonv.Parse(a)
	if eerr != nil || aerr != nil {
		return compareLines(e, a)
	}
	ms, n := m.Match("", ev, av, nil, maxFieldsShown)
	var fields []Field
	for _, x := range ms {
		f := tracediff.FieldOf(x, fieldValueBytes)
		fields = append(fields, Field{Pointer: f.Pointer, Expected: f.Expected, Actual: f.Actual, Reason: f.Reason})
	}
	note := ""
	if n > len(ms) {
		note = fmt.Sprintf("%d more differing fields are not listed", n-len(ms))
	}
	return fields, note
}

// keys numbers each line's run and reads its sequence.
func keys(lines [][]byte) []alignKey {
	runs := map[[2]string]int{}
	out := make([]alignKey, len(lines))
	for i, l := range lines {
		out[i] = alignKey{seq: -1, line: i + 1}
		v, err := jsonv.Parse(l)
		if err != nil || v.Kind() != jsonv.Object {
			continue
		}
		s, ok := v.Get("sequence")
		if !ok {
			continue
		}
		seq, ok := s.Int64()
		if !ok || s.IsFloat() {
			continue
		}
		id := [2]string{text(v, "session_id"), ""}
		if p, ok := v.Get("provenance"); ok {
			id[1] = text(p, "run_id")
		}
		run, ok := runs[id]
		if !ok {
			run = len(runs) + 1
			runs[id] = run
		}
		out[i] = alignKey{run: run, seq: seq}
	}
	return out
}

func text(v jsonv.Value, key string) string {
	f, ok := v.Get(key)
	if !ok || f.Kind() != jsonv.String {
		return ""
	}
	return f.Text()
}

// splitLines splits b into lines without their LF; a last line without
// one is a line too.
func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i])
		b = b[i+1:]
	}
	return out
}

// TracediffAligner aligns two traces with package tracediff (events by run
// and sequence; every differing event with its fields by JSON pointer; a
// byte difference counts) and fills in the equal events between the
// differences, which advance both files in step. Where tracediff does not
// compare (either file is not a valid trace: it then reports problems, no
// differences) or its report cannot be laid out line by line, it is
// SequenceAligner's alignment instead, so the page of an invalid trace
// still shows what differs.
//
// With Tolerant the expected file is a tolerant golden, compared as
// tracecheck diff --normalize compares it: an event whose placeholders all
// matched is equal, the differing fields are the real differences, and
// each changed row lists the placeholders that did match (Matched). Both
// files then get only the shape check alignment needs: the page reports
// their validity itself (ValidateGolden for the golden), so that the
// events of an actual trace that is not valid are still compared.
type TracediffAligner struct {
	Tolerant bool
}

// maxFieldsShown bounds the differing fields listed for one event;
// fieldValueBytes each value.
const (
	maxFieldsShown  = 200
	fieldValueBytes = 4 << 10
)

// Align implements Aligner.
func (t TracediffAligner) Align(expected, actual []byte) []Aligned {
	el, al := splitLines(expected), splitLines(actual)
	opt := tracediff.Options{Bytes: true, MaxEvents: len(el) + len(al) + 1, MaxFields: maxFieldsShown, MaxValueBytes: fieldValueBytes,
		NoLineDiff: true} // the page draws no unified diff
	if t.Tolerant {
		opt.Bytes, opt.Tolerant, opt.NoValidate = false, true, true
	}
	rep := tracediff.DiffBytes(expected, actual, "expected", "actual", opt)
	if rep.Invalid() || rep.Omitted > 0 {
		return SequenceAligner{Tolerant: t.Tolerant}.Align(expected, actual)
	}
	out, ok := fillEqual(rep.Events, keys(el), len(el), len(al))
	if !ok {
		return SequenceAligner{Tolerant: t.Tolerant}.Align(expected, actual)
	}
	if t.Tolerant {
		matched(out, el)
	}
	return out
}

// matched fills in each changed row's Matched: the placeholders of its
// golden line (tolerant.Compile's holes) but those at a differing field.
// A line Compile cannot take whole ("..." forms) lists those before them.
func matched(rows []Aligned, el [][]byte) {
	var holes []tolerant.Hole
	var ptrs []byte
	for i := range rows {
		r := &rows[i]
		if r.Kind() != "changed" {
			continue
		}
		holes, ptrs, _ = tolerant.Compile(holes[:0], ptrs[:0], el[r.ExpectedLine-1])
	next:
		for _, h := range holes {
			if h.Kind == tolerant.Escaped {
				continue // a literal, written escaped
			}
			for _, f := range r.Fields {
				if f.Pointer == h.Ptr || h.Ptr == "" && f.Pointer == "/" {
					continue next
				}
			}
			r.Matched = append(r.Matched, strings.Clone(h.Ptr))
		}
	}
}

// fillEqual lays the differing events of a report out with the equal
// events between them: an equal event takes the next line of each file, a
// missing one the next expected line, an extra one the next actual line.
// ok is false when the report does not fit that walk.
func fillEqual(diffs []tracediff.EventDiff, ek []alignKey, ne, na int) (out []Aligned, ok bool) {
	out = make([]Aligned, 0, max(ne, na))
	e, a := 1, 1
	equal := func() {
		k := ek[e-1]
		out = append(out, Aligned{Run: k.run, Sequence: k.seq, ExpectedLine: e, ActualLine: a})
		e++
		a++
	}
	for _, d := range diffs {
		for (d.ExpectedLine > 0 && e < d.ExpectedLine) || (d.ExpectedLine == 0 && a < d.ActualLine) {
			if e > ne || a > na {
				return nil, false
			}
			equal()
		}
		if (d.ExpectedLine > 0 && e != d.ExpectedLine) || (d.ActualLine > 0 && a != d.ActualLine) {
			return nil, false
		}
		row := Aligned{Run: d.Run, Sequence: d.Sequence, ExpectedLine: d.ExpectedLine, ActualLine: d.ActualLine, Note: d.Note}
		for _, f := range d.Fields {
			row.Fields = append(row.Fields, Field{Pointer: f.Pointer, Expected: f.Expected, Actual: f.Actual, Reason: f.Reason})
		}
		if d.FieldsOmitted > 0 {
			row.Note = strings.TrimPrefix(row.Note+"; ", "; ") + fmt.Sprintf("%d more differing fields are not listed", d.FieldsOmitted)
		}
		if row.Kind() == "equal" {
			row.Note = "the events differ" // tracediff said so without a field or a note
		}
		out = append(out, row)
		if d.ExpectedLine > 0 {
			e++
		}
		if d.ActualLine > 0 {
			a++
		}
	}
	for e <= ne && a <= na {
		equal()
	}
	return out, e == ne+1 && a == na+1
}
