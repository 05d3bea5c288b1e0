package golden

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/pmezard/go-difflib/difflib"

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/tracediff"
)

// Drift is how a trace departs from its golden: every differing event
// (counted, the first MaxEvents in full, each with the JSON pointer of every
// differing field), and a unified diff of their lines.
type Drift struct {
	// Mode is how the two were compared: ModeExact, ModeTolerant,
	// "trajectory:<match>" (package trajectory: the tool calls only), or
	// ModeLines when the files could not be aligned event by event.
	Mode string `json:"mode"`
	// Line is the golden's line of the first difference (1-based), where a
	// CI annotation points.
	Line int `json:"line"`
	// Differences counts the differing events (or trajectory failures);
	// Changed, Missing and Extra split an event diff's count by kind.
	Differences int `json:"differences"`
	Changed     int `json:"changed"`
	Missing     int `json:"missing"`
	Extra       int `json:"extra"`
	// ExpectedEvents and ActualEvents are the lines (trajectories: the
	// calls) of the golden and of the actual trace.
	ExpectedEvents int `json:"expected_events"`
	ActualEvents   int `json:"actual_events"`
	// Runs is the larger number of runs of the two files; with more than
	// one, each event names its run.
	Runs int `json:"runs,omitempty"`
	// Events are the first differences in full (tracediff.DefaultMaxEvents);
	// Omitted counts the others.
	Events  []tracediff.EventDiff `json:"events"`
	Omitted int                   `json:"omitted,omitempty"`
	// Note explains what is not one event's difference: why the files were
	// compared line by line (a golden that is not JSON, a torn last line),
	// a golden that is not well-formed.
	Note string `json:"note,omitempty"`
	// Diff is the unified diff of the detailed events' lines, with context;
	// its lines are cut and made safe to print (bounded).
	Diff string `json:"diff,omitempty"`
}

// Modes of a Drift.
const (
	// ModeExact: event by event, every byte counted (a scenario's golden).
	ModeExact = "exact"
	// ModeTolerant: the golden is a tolerant golden (package tolerant).
	ModeTolerant = "tolerant"
	// ModeLines: one of the files is no trace whose events can be aligned
	// (not JSON, no literal sequence, a torn last line): only the first
	// differing line is shown.
	ModeLines = "lines"
)

// Absent stands for a field or line one side does not have.
const Absent = tracediff.Absent

// Compare compares the golden bytes expected (named expName in the diff
// header) with the actual bytes (actName) byte for byte, and returns nil
// when they are identical. Otherwise the Drift lists every differing event:
// fields that differ, and events equal as JSON but written with other bytes
// (member order, spacing, escapes, CRLF), each explained in its note. When
// either file cannot be aligned event by event (see ModeLines) the Drift
// shows the first differing line and why.
//
// Neither file has to be a valid trace: whether the actual one is, is its
// subject's question (a scenario's check, a case's validation); the golden
// may be a tolerant golden, which is none.
func Compare(expected, actual []byte, expName, actName string) *Drift {
	if bytes.Equal(expected, actual) {
		return nil
	}
	r := tracediff.DiffBytes(expected, actual, expName, actName, tracediff.Options{Bytes: true, NoValidate: true})
	if !r.Invalid() && !r.Equal {
		d := FromReport(r)
		d.Mode = ModeExact
		return d
	}
	d := compareLines(expected, actual, expName, actName)
	if r.Invalid() {
		d.Note = strings.TrimSuffix(unaligned(r)+"; "+d.Note, "; ")
	}
	return d
}

// unaligned says why a report could not align the files: the first problem
// of each file that has one.
func unaligned(r *tracediff.Report) string {
	var why []string
	for _, f := range []*tracediff.FileSummary{&r.Expected, &r.Actual} {
		if len(f.Problems) > 0 {
			why = append(why, f.Problems[0].String())
		}
	}
	return "compared line by line, as the events cannot be aligned (" + strings.Join(why, "; ") + ")"
}

// FromReport turns a tracediff (or trajectory) report into a Drift: nil when
// the report says the traces are equal. A report on a file that failed its
// checks (a tolerant golden that is not well-formed, an actual trace that is
// not valid) becomes a Drift whose note lists the problems.
func FromReport(r *tracediff.Report) *Drift {
	if r.Equal {
		return nil
	}
	d := &Drift{
		Mode:           r.Mode,
		Differences:    r.Differences,
		Changed:        r.Changed,
		Missing:        r.Missing,
		Extra:          r.Extra,
		ExpectedEvents: r.Expected.Events,
		ActualEvents:   r.Actual.Events,
		Runs:           max(r.Expected.Runs, r.Actual.Runs),
		Events:         r.Events,
		Omitted:        r.Omitted,
		Diff:           r.Diff,
		Line:           1,
	}
	if d.Mode == "events" {
		d.Mode = ModeExact
		if r.Tolerant {
			d.Mode = ModeTolerant
		}
	}
	if len(d.Events) > 0 {
		d.Line = max(d.Events[0].Anchor, 1)
	}
	if r.Invalid() {
		var b strings.Builder
		n := 0
		for _, f := range []*tracediff.FileSummary{&r.Expected, &r.Actual} {
			for _, p := range f.Problems {
				if n == 0 && p.Line > 0 && f == &r.Expected {
					d.Line = p.Line
				}
				if n == maxProblems {
					fmt.Fprintf(&b, "\n... and more problems")
					break
				}
				if n > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(p.String())
				n++
			}
		}
		d.Note = "not compared: " + b.String()
	}
	return d
}

// maxProblems bounds the problems a Drift's note lists.
const maxProblems = 5

// Summary is one line on the drift's size: how many events differ and of
// what kind, out of how many, or for a line-by-line comparison where.
func (d *Drift) Summary() string {
	switch {
	case d.Mode == ModeLines:
		return fmt.Sprintf("first difference at line %d (compared line by line)", d.Line)
	case d.Differences == 0:
		return "not compared"
	case strings.HasPrefix(d.Mode, "trajectory:"):
		return fmt.Sprintf("%s (%s); the golden has %s, the actual trace %d", plural(d.Differences, "failure"), d.Mode, plural(d.ExpectedEvents, "call"), d.ActualEvents)
	}
	verb := "differ"
	if d.Differences == 1 {
		verb = "differs"
	}
	mode := ""
	if d.Mode == ModeTolerant {
		mode = " (tolerant)"
	}
	return fmt.Sprintf("%s %s%s (%d changed, %d missing, %d extra); the golden has %d events, the actual trace %d",
		plural(d.Differences, "event"), verb, mode, d.Changed, d.Missing, d.Extra, d.ExpectedEvents, d.ActualEvents)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// compareLines finds the first line where two files differ and describes
// it: the event on it, its differing fields, or a note (not JSON, extra or
// missing lines, the same event written with other bytes, the bytes after
// the last newline), with a unified diff of the lines around it.
func compareLines(expected, actual []byte, expName, actName string) *Drift {
	el, al := splitLines(expected), splitLines(actual)
	i := 0
	for i < len(el) && i < len(al) && el[i] == al[i] {
		i++
	}
	d := &Drift{Mode: ModeLines, Line: i + 1, Differences: 1, ExpectedEvents: len(el), ActualEvents: len(al), Events: []tracediff.EventDiff{}}
	var ev, av jsonv.Value
	var eerr, aerr error
	hasE, hasA := i < len(el), i < len(al)
	if hasE {
		ev, eerr = jsonv.Parse([]byte(strings.TrimSuffix(el[i], "\n")))
	}
	if hasA {
		av, aerr = jsonv.Parse([]byte(strings.TrimSuffix(al[i], "\n")))
	}
	ed := tracediff.EventDiff{Kind: tracediff.KindChanged, Anchor: i + 1}
	if hasE {
		ed.ExpectedLine = i + 1
	}
	if hasA {
		ed.ActualLine = i + 1
	}
	known := false
	if hasA && aerr == nil {
		known = identify(&ed, av)
	}
	if hasE && eerr == nil {
		known = identify(&ed, ev) || known
	}
	switch {
	case !hasE && !hasA:
		d.Note = "the lines are equal; the files differ in what follows the last newline"
	case !hasE:
		ed.Kind = tracediff.KindExtra
		d.Changed, d.Extra = 0, 1
		d.Note = fmt.Sprintf("the golden file ends after line %d; the actual trace has %d lines", len(el), len(al))
	case !hasA:
		ed.Kind = tracediff.KindMissing
		d.Changed, d.Missing = 0, 1
		d.Note = fmt.Sprintf("the actual trace ends after line %d; the golden file has %d lines", len(al), len(el))
	case eerr != nil:
		d.Note = fmt.Sprintf("golden line %d is not valid JSON: %v", i+1, eerr)
	case aerr != nil:
		d.Note = fmt.Sprintf("actual line %d is not valid JSON: %v", i+1, aerr)
	default:
		ed.Fields = FieldDiffs(ev, av)
		if len(ed.Fields) == 0 {
			switch {
			case !strings.HasSuffix(el[i], "\n") || !strings.HasSuffix(al[i], "\n"):
				ed.Note = "the same event; one side lacks the final newline"
			case strings.TrimRight(el[i], "\r\n") == strings.TrimRight(al[i], "\r\n"):
				ed.Note = "the same event; the line endings differ (CRLF)"
			default:
				ed.Note = "the same event written with other bytes (member order, spacing, escaping or number spelling)"
			}
		}
	}
	if d.Changed == 0 && d.Missing == 0 && d.Extra == 0 {
		d.Changed = 1
	}
	if known || len(ed.Fields) > 0 || ed.Note != "" {
		d.Events = append(d.Events, ed)
	}
	d.Diff = unifiedHunk(el, al, expName, actName)
	return d
}

// identify sets the event's sequence, id and type from v where they are not
// set yet, and reports whether v holds an event's sequence.
func identify(ed *tracediff.EventDiff, v jsonv.Value) bool {
	seq := false
	if s, ok := v.Get("sequence"); ok {
		if n, ok := s.Int64(); ok {
			ed.Sequence, seq = n, true
		}
	}
	if s, ok := v.Get("event_id"); ok && s.Kind() == jsonv.String && ed.EventID == "" {
		ed.EventID = s.Text()
	}
	if s, ok := v.Get("type"); ok && s.Kind() == jsonv.String && ed.Type == "" {
		ed.Type = s.Text()
	}
	return seq
}

// splitLines splits b after each LF, keeping the LF.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// FieldDiffs lists the differing leaves of two JSON values, each named by
// its JSON pointer, using go-cmp. Member order is not a difference; a
// number's spelling is (1 and 1.0 differ on the wire).
func FieldDiffs(expected, actual jsonv.Value) []tracediff.FieldDiff {
	var r reporter
	cmp.Equal(toAny(expected), toAny(actual), cmp.Reporter(&r))
	return r.diffs
}

// number keeps a JSON number's spelling through go-cmp.
type number string

func toAny(v jsonv.Value) any {
	return v.Interface(func(s string) any { return number(s) })
}

type reporter struct {
	path  cmp.Path
	diffs []tracediff.FieldDiff
}

func (r *reporter) PushStep(ps cmp.PathStep) { r.path = append(r.path, ps) }
func (r *reporter) PopStep()                 { r.path = r.path[:len(r.path)-1] }

func (r *reporter) Report(rs cmp.Result) {
	if rs.Equal() {
		return
	}
	vx, vy := r.path.Last().Values()
	r.diffs = append(r.diffs, tracediff.FieldDiff{Pointer: pointer(r.path), Expected: showValue(vx), Actual: showValue(vy)})
}

// pointer renders a cmp path through maps and slices as a JSON pointer.
func pointer(p cmp.Path) string {
	var b strings.Builder
	for _, s := range p {
		switch s := s.(type) {
		case cmp.MapIndex:
			b.WriteByte('/')
			k := s.Key().String()
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
		case cmp.SliceIndex:
			b.WriteByte('/')
			k := s.Key()
			if k < 0 { // an element only one side has
				x, y := s.SplitKeys()
				k = max(x, y)
			}
			b.WriteString(strconv.Itoa(k))
		}
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

func showValue(v reflect.Value) string {
	if !v.IsValid() {
		return Absent
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(jsonable(v.Interface())); err != nil {
		return ShowText(fmt.Sprint(v.Interface()))
	}
	return ShowJSON(strings.TrimSuffix(out.String(), "\n"))
}

// jsonable turns number back into json.Number for encoding.
func jsonable(x any) any {
	switch x := x.(type) {
	case number:
		return json.Number(x)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, v := range x {
			m[k] = jsonable(v)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, v := range x {
			s[i] = jsonable(v)
		}
		return s
	}
	return x
}

// unifiedHunk is the unified diff of the first group of changes, with one
// line of context.
func unifiedHunk(a, b []string, aName, bName string) string {
	m := difflib.NewMatcherWithJunk(a, b, false, nil)
	groups := m.GetGroupedOpCodes(1)
	if len(groups) == 0 {
		return ""
	}
	g := groups[0]
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", ShowLine(aName), ShowLine(bName))
	first, last := g[0], g[len(g)-1]
	fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(first.I1, last.I2), hunkRange(first.J1, last.J2))
	for _, c := range g {
		switch c.Tag {
		case 'e':
			writeLines(&out, " ", a[c.I1:c.I2])
		case 'r', 'd':
			writeLines(&out, "-", a[c.I1:c.I2])
		}
		if c.Tag == 'r' || c.Tag == 'i' {
			writeLines(&out, "+", b[c.J1:c.J2])
		}
	}
	return out.String()
}

func hunkRange(start, stop int) string {
	n := stop - start
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return strconv.Itoa(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// MaxHunkLines bounds how many lines of each side the diff shows: a golden
// that is not text can be one difference spanning thousands of lines. Each
// line is cut to tracediff.DefaultMaxLineBytes, as tracediff's hunks are.
const MaxHunkLines = 40

func writeLines(out *strings.Builder, prefix string, lines []string) {
	for i, l := range lines {
		if i == MaxHunkLines {
			fmt.Fprintf(out, "%s... %d more lines\n", prefix, len(lines)-i)
			return
		}
		out.WriteString(prefix)
		body, nl := strings.CutSuffix(l, "\n")
		shown := ShowLine(body)
		if len(shown) > tracediff.DefaultMaxLineBytes {
			k := len(cut(shown, tracediff.DefaultMaxLineBytes))
			shown = fmt.Sprintf("%s…(%d more bytes)", shown[:k], len(shown)-k)
		}
		out.WriteString(shown)
		out.WriteByte('\n')
		if !nl {
			out.WriteString("\\ No newline at end of file\n")
		}
	}
}
