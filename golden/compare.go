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
)

// Drift describes where a render first departs from its golden.
type Drift struct {
	// Line is the 1-based number of the first line that differs.
	Line int `json:"line"`
	// The event on that line: the render's when it has the line and it
	// parses, else the golden's.
	Sequence *int64 `json:"sequence,omitempty"`
	EventID  string `json:"event_id,omitempty"`
	Type     string `json:"type,omitempty"`
	// Fields are the differing JSON fields of that line.
	Fields []FieldDiff `json:"fields,omitempty"`
	// Note explains a difference that is not a field's value: extra or
	// missing lines, a line that is not JSON, equal JSON written with other
	// bytes, line endings.
	Note string `json:"note,omitempty"`
	// Diff is the unified diff of the lines around the first difference.
	Diff string `json:"diff"`
}

// FieldDiff is one differing field: its JSON pointer within the event, and
// the expected (golden) and actual (rendered) values as JSON (SafeJSON:
// characters a terminal would act on escaped), or "(absent)".
type FieldDiff struct {
	Path     string `json:"path"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
}

// Absent stands for a field or line one side does not have.
const Absent = "(absent)"

// Compare compares the golden bytes expected (named expName in the diff
// header) with the rendered bytes actual (actName). It returns nil when they
// are byte-identical.
func Compare(expected, actual []byte, expName, actName string) *Drift {
	if bytes.Equal(expected, actual) {
		return nil
	}
	el, al := splitLines(expected), splitLines(actual)
	i := 0
	for i < len(el) && i < len(al) && el[i] == al[i] {
		i++
	}
	d := &Drift{Line: i + 1}
	var ev, av jsonv.Value
	var eerr, aerr error
	hasE, hasA := i < len(el), i < len(al)
	if hasE {
		ev, eerr = jsonv.Parse([]byte(strings.TrimSuffix(el[i], "\n")))
	}
	if hasA {
		av, aerr = jsonv.Parse([]byte(strings.TrimSuffix(al[i], "\n")))
	}
	switch {
	case hasA && aerr == nil:
		d.identify(av)
	case hasE && eerr == nil:
		d.identify(ev)
	}
	switch {
	case !hasE && !hasA:
		d.Note = "the lines are equal; the files differ in what follows the last newline"
	case !hasE:
		d.Note = fmt.Sprintf("the golden file ends after line %d; the render has %d lines", len(el), len(al))
	case !hasA:
		d.Note = fmt.Sprintf("the render ends after line %d; the golden file has %d lines", len(al), len(el))
	case eerr != nil:
		d.Note = fmt.Sprintf("golden line %d is not valid JSON: %v", i+1, eerr)
	case aerr != nil:
		d.Note = fmt.Sprintf("rendered line %d is not valid JSON: %v", i+1, aerr)
	default:
		d.Fields = FieldDiffs(ev, av)
		if len(d.Fields) == 0 {
			switch {
			case !strings.HasSuffix(el[i], "\n") || !strings.HasSuffix(al[i], "\n"):
				d.Note = "the same event; one side lacks the final newline"
			case strings.TrimRight(el[i], "\r\n") == strings.TrimRight(al[i], "\r\n"):
				d.Note = "the same event; the line endings differ (CRLF)"
			default:
				d.Note = "the same JSON value written with other bytes (member order, spacing, escaping or number spelling)"
			}
		}
	}
	d.Diff = unifiedHunk(el, al, expName, actName)
	return d
}

func (d *Drift) identify(v jsonv.Value) {
	if s, ok := v.Get("sequence"); ok {
		if n, ok := s.Int64(); ok {
			d.Sequence = &n
		}
	}
	if s, ok := v.Get("event_id"); ok && s.Kind() == jsonv.String {
		d.EventID = s.Text()
	}
	if s, ok := v.Get("type"); ok && s.Kind() == jsonv.String {
		d.Type = s.Text()
	}
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
func FieldDiffs(expected, actual jsonv.Value) []FieldDiff {
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
	diffs []FieldDiff
}

func (r *reporter) PushStep(ps cmp.PathStep) { r.path = append(r.path, ps) }
func (r *reporter) PopStep()                 { r.path = r.path[:len(r.path)-1] }

func (r *reporter) Report(rs cmp.Result) {
	if rs.Equal() {
		return
	}
	vx, vy := r.path.Last().Values()
	r.diffs = append(r.diffs, FieldDiff{Path: pointer(r.path), Expected: showValue(vx), Actual: showValue(vy)})
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
	return SafeJSON(strings.TrimSuffix(out.String(), "\n"))
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
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
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
// that is not text can be one difference spanning thousands of lines.
const MaxHunkLines = 40

func writeLines(out *strings.Builder, prefix string, lines []string) {
	for i, l := range lines {
		if i == MaxHunkLines {
			fmt.Fprintf(out, "%s... %d more lines\n", prefix, len(lines)-i)
			return
		}
		out.WriteString(prefix)
		body, nl := strings.CutSuffix(l, "\n")
		out.WriteString(ShowLine(body))
		out.WriteByte('\n')
		if !nl {
			out.WriteString("\\ No newline at end of file\n")
		}
	}
}
