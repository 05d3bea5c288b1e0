package tracediff

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
)

// diffLines is the -/+ lines of a unified diff, without the file headers.
func diffLines(diff string) (minus, plus []string) {
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"):
		case strings.HasPrefix(l, "-"):
			minus = append(minus, l[1:])
		case strings.HasPrefix(l, "+"):
			plus = append(plus, l[1:])
		}
	}
	return minus, plus
}

// The unified diff of a tolerant golden shows the actual line in the
// golden's form: where the placeholders matched it says what the golden
// says, so that the -/+ lines differ only at the real change.
func TestTolerantDiffInGoldenForm(t *testing.T) {
	golden := tolerantGolden(t)
	r := Diff(Input{"golden", bytes.NewReader(golden)}, open(t, filepath.Join(fixtures, "tolerant", "other-argument.jsonl")),
		Options{Tolerant: true, MaxLineBytes: 1 << 20})
	minus, plus := diffLines(r.Diff)
	if len(minus) != 1 || len(plus) != 1 {
		t.Fatalf("-%d +%d lines, want one each:\n%s", len(minus), len(plus), r.Diff)
	}
	if want := strings.Replace(minus[0], `"text":"hello"`, `"text":"goodbye"`, 1); plus[0] != want || plus[0] == minus[0] {
		t.Errorf("the + line is not the golden's with the one change:\n-%s\n+%s", minus[0], plus[0])
	}
	if strings.Contains(r.Diff, "00000000-0000-4002") || strings.Contains(r.Diff, "2026-09-01") {
		t.Errorf("the diff shows ids or timestamps the placeholders matched:\n%s", r.Diff)
	}

	// A placeholder that did not match shows the actual value there, and
	// only there: the timestamp that went back, the parent that names the
	// wrong event.
	for _, tt := range []struct{ file, golden, actual string }{
		{"backwards.jsonl", `"timestamp":"[TIMESTAMP]"`, `"timestamp":"2026-09-01T10:00:00.000Z"`},
		{"mixup.jsonl", `"parent_event_id":"[ID-9]"`, `"parent_event_id":"00000000-0000-4002-8000-000000000008"`},
	} {
		r := Diff(Input{"golden", bytes.NewReader(golden)}, open(t, filepath.Join(fixtures, "tolerant", tt.file)), Options{Tolerant: true, MaxLineBytes: 1 << 20})
		minus, plus := diffLines(r.Diff)
		if len(minus) != 1 || len(plus) != 1 || strings.Replace(minus[0], tt.golden, tt.actual, 1) != plus[0] {
			t.Errorf("%s: want the golden's line with %s for %s:\n%s", tt.file, tt.actual, tt.golden, r.Diff)
		}
	}
}

// An event with more differing fields than the report lists is still
// written in the golden's form whole (Match runs again for the rest), and
// the placeholders that matched stay.
func TestGoldenFormPastMaxFields(t *testing.T) {
	g := `{"sequence":0,"session_id":"[S]","a":1,"b":2,"c":3,"t":"[TIMESTAMP]"}` + "\n"
	a := `{"sequence":0,"session_id":"x","a":9,"b":8,"c":7,"t":"2026-01-01T00:00:00Z"}` + "\n"
	r := DiffBytes([]byte(g), []byte(a), "g", "a", Options{Tolerant: true, MaxFields: 1, NoValidate: true})
	if len(r.Events) != 1 || r.Events[0].FieldsOmitted != 2 {
		t.Fatalf("events %+v", r.Events)
	}
	_, plus := diffLines(r.Diff)
	if want := `{"sequence":0,"session_id":"[S]","a":9,"b":8,"c":7,"t":"[TIMESTAMP]"}`; len(plus) != 1 || plus[0] != want {
		t.Errorf("+ lines %q, want %q", plus, want)
	}
}

// Members the actual event lacks are left out of its golden form, extra
// ones follow the golden's, and array elements are placed one by one.
func TestGoldenFormShapes(t *testing.T) {
	g := `{"sequence":0,"id":"[ID-1]","gone":true,"list":["[ID-1]",1,2],"obj":{"k":"[UUID]","v":1}}` + "\n"
	a := `{"sequence":0,"id":"x","list":["x",1,2,3],"obj":{"v":2,"k":"00000000-0000-4000-8000-000000000000"},"new":null}` + "\n"
	r := DiffBytes([]byte(g), []byte(a), "g", "a", Options{Tolerant: true, NoValidate: true})
	_, plus := diffLines(r.Diff)
	if want := `{"sequence":0,"id":"[ID-1]","list":["[ID-1]",1,2,3],"obj":{"k":"[UUID]","v":2},"new":null}`; len(plus) != 1 || plus[0] != want {
		t.Errorf("+ lines %q, want %q", plus, want)
	}
}

// A changed pair of long lines whose first difference is past the cut
// starts both lines shortly before it, so that the -/+ lines show it.
func TestHunkShowsALateDifference(t *testing.T) {
	pad := strings.Repeat("x", 600)
	g := `{"sequence":0,"pad":"` + pad + `","v":"old"}` + "\n"
	a := `{"sequence":0,"pad":"` + pad + `","v":"new"}` + "\n"
	r := DiffBytes([]byte(g), []byte(a), "g", "a", Options{NoValidate: true})
	minus, plus := diffLines(r.Diff)
	if len(minus) != 1 || !strings.Contains(minus[0], `"v":"old"`) || !strings.Contains(plus[0], `"v":"new"`) || !strings.HasPrefix(minus[0], "…(") {
		t.Errorf("the difference past the cut is not shown:\n%s", r.Diff)
	}
	// An early difference keeps the line's start.
	g2 := `{"sequence":0,"v":"old","pad":"` + pad + `"}` + "\n"
	a2 := `{"sequence":0,"v":"new","pad":"` + pad + `"}` + "\n"
	minus, _ = diffLines(DiffBytes([]byte(g2), []byte(a2), "g", "a", Options{NoValidate: true}).Diff)
	if len(minus) != 1 || !strings.HasPrefix(minus[0], `{"sequence":0,"v":"old"`) {
		t.Errorf("an early difference moved the cut: %q", minus)
	}
}

// A file compared as a plain trace that holds placeholders, and is refused
// for them, gets a hint under its problems: it looks like a tolerant
// golden; --normalize reads it as one (and it goes first).
func TestPlaceholderHint(t *testing.T) {
	golden := tolerantGolden(t)
	realB := open(t, filepath.Join(fixtures, "tolerant", "real-b.jsonl"))
	r := Diff(Input{"golden", bytes.NewReader(golden)}, realB, Options{})
	if !r.Invalid() || !strings.Contains(r.Expected.Hint, `(line 1: "[ID-1]" at /event_id)`) || !strings.Contains(r.Expected.Hint, "add --normalize") || r.Actual.Hint != "" {
		t.Fatalf("hints %q / %q", r.Expected.Hint, r.Actual.Hint)
	}
	var out bytes.Buffer
	r.WriteText(&out)
	text := out.String()
	if i, j := strings.LastIndex(text, "SCHEMA"), strings.Index(text, "  hint: the file holds placeholders"); j < 0 || j < i {
		t.Errorf("the hint is not under the SCHEMA problems:\n%s", text)
	}

	// The golden second: the hint is the actual file's, and says the
	// golden goes first.
	r = Diff(open(t, filepath.Join(fixtures, "tolerant", "real-b.jsonl")), Input{"golden", bytes.NewReader(golden)}, Options{})
	if r.Expected.Hint != "" || !strings.Contains(r.Actual.Hint, "goes first, as EXPECTED") {
		t.Errorf("reversed: hints %q / %q", r.Expected.Hint, r.Actual.Hint)
	}

	// Read as a tolerant golden, or two valid traces: no hint.
	ce, ca := caseInputs(t, "changed")
	for _, r := range []*Report{
		Diff(Input{"golden", bytes.NewReader(golden)}, open(t, filepath.Join(fixtures, "tolerant", "real-b.jsonl")), Options{Tolerant: true}),
		Diff(ce, ca, Options{}),
	} {
		if r.Expected.Hint != "" || r.Actual.Hint != "" {
			t.Errorf("a hint where none is due: %q / %q", r.Expected.Hint, r.Actual.Hint)
		}
	}
}

// ValidateGolden checks a tolerant golden where it is literal: the
// placeholders normalize writes are no problems; a literal the schema
// refuses is one, and so are a broken invariant and a sequence
// placeholder.
func TestValidateGolden(t *testing.T) {
	golden := tolerantGolden(t)
	if p, n := ValidateGolden(golden, "g"); len(p) != 0 || n != 0 {
		t.Fatalf("the normalizer's golden: %v (%d excused)", p, n)
	}
	if len(journal.Validate(bytes.NewReader(golden), "g")) == 0 {
		t.Fatal("the golden is a valid trace as written: the test proves nothing")
	}
	lines := strings.SplitAfter(string(golden), "\n")
	edit := func(i int, old, new string) []byte {
		c := append([]string(nil), lines...)
		if !strings.Contains(c[i], old) {
			t.Fatalf("line %d has no %s", i+1, old)
		}
		c[i] = strings.Replace(c[i], old, new, 1)
		return []byte(strings.Join(c, ""))
	}
	tests := []struct {
		name    string
		golden  []byte
		want    string // "LINE CODE POINTER", or ""
		excused int
		more    bool // more problems follow the first
	}{
		{"a misspelt type", edit(8, `"type":"session.stop"`, `"type":"session.stopped"`), "9 SCHEMA /type", 0, false},
		{"a payload that is any value", edit(4, `"payload":{"tool_call_id":"[ID-7]","tool":"echo","arguments":{"text":"hello"}}`, `"payload":"{...}"`), "", 0, false},
		{"a binding where a number is wanted", edit(5, `"duration_ms":"[DURATION]"`, `"duration_ms":"[D]"`), "", 1, false},
		{"a binding and a misspelt type on one line", edit(4, `"timestamp":"[TIMESTAMP]","type":"tool.request"`, `"timestamp":"[T]","type":"tool.requested"`), "5 SCHEMA /type", 0, false},
		{"a sequence placeholder", edit(2, `"sequence":2`, `"sequence":"[SEQ]"`), "3 SCHEMA /sequence", 0, false},
		{"one binding for two events", edit(2, `"event_id":"[ID-5]"`, `"event_id":"[ID-4]"`), "3 DUPLICATE_EVENT_ID /event_id", 0, true}, // and line 4's parent [ID-5] is gone
		{"an escaped literal", edit(8, `"type":"session.stop"`, `"type":"\\session.stop"`), "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, n := ValidateGolden(tt.golden, "g")
			got := ""
			if len(p) > 0 {
				got = strings.Join([]string{strconv.Itoa(p[0].Line), string(p[0].Code), p[0].Pointer}, " ")
			}
			if got != tt.want || n != tt.excused || len(p) > 1 != tt.more {
				t.Errorf("problems %v (%d excused); want %q first (more: %v), %d excused", p, n, tt.want, tt.more, tt.excused)
			}
			if len(p) > 0 && p[0].Code == journal.Schema && strings.Contains(p[0].Msg, "date-time") {
				t.Errorf("a placeholder's problem is listed: %v", p[0])
			}
		})
	}
}
