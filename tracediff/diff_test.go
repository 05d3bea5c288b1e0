package tracediff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"
)

const fixtures = "../testdata/tracediff"

func open(tb testing.TB, path string) Input {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return Input{Name: filepath.ToSlash(strings.TrimPrefix(path, "../")), R: bytes.NewReader(data)}
}

func caseInputs(tb testing.TB, name string) (Input, Input) {
	return open(tb, filepath.Join(fixtures, name, "expected.jsonl")), open(tb, filepath.Join(fixtures, name, "actual.jsonl"))
}

// render is the text report followed by the JSON one, for goldie.
func render(tb testing.TB, r *Report) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		tb.Fatal(err)
	}
	b.WriteString("---- json\n")
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func newGoldie(t *testing.T) *goldie.Goldie {
	return goldie.New(t, goldie.WithFixtureDir(filepath.Join(fixtures, "reports")), goldie.WithNameSuffix(".txt"))
}

// summary is what each case must report, checked without the goldens.
type summary struct {
	Equal, Invalid          bool
	Changed, Missing, Extra int
	Pointers                []string // of the first detailed event
}

func summarize(r *Report) summary {
	s := summary{Equal: r.Equal, Invalid: r.Invalid(), Changed: r.Changed, Missing: r.Missing, Extra: r.Extra}
	if len(r.Events) > 0 {
		for _, f := range r.Events[0].Fields {
			s.Pointers = append(s.Pointers, f.Pointer)
		}
	}
	return s
}

// TestDiffCases diffs each fixture pair and checks the outcome, then the
// whole report (text and JSON) against its golden in
// testdata/tracediff/reports.
func TestDiffCases(t *testing.T) {
	tests := []struct {
		name string
		opt  Options
		want summary
	}{
		{"same", Options{}, summary{Equal: true}},
		{"changed", Options{}, summary{Changed: 2, Pointers: []string{"/payload/arguments/text"}}},
		{"missing", Options{}, summary{Missing: 1}},
		{"extra", Options{}, summary{Extra: 1}},
		{"member-order", Options{}, summary{Equal: true}},
		{"second-run", Options{}, summary{Changed: 1, Pointers: []string{"/payload/content"}}},
		{"invalid-actual", Options{}, summary{Invalid: true}},
		{"many", Options{MaxEvents: 3, MaxFields: 1}, summary{Changed: 9, Pointers: []string{"/actor/id"}}},
	}
	g := newGoldie(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, a := caseInputs(t, tt.name)
			r := Diff(e, a, tt.opt)
			if diff := cmp.Diff(tt.want, summarize(r)); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			g.Assert(t, tt.name, render(t, r))
		})
	}
}

func TestDiffBytesMode(t *testing.T) {
	e, a := caseInputs(t, "member-order")
	r := Diff(e, a, Options{Bytes: true})
	if r.Equal || r.Changed != 1 || len(r.Events[0].Fields) != 0 || !strings.Contains(r.Events[0].Note, "other bytes") {
		t.Fatalf("member order with Bytes: %+v", r)
	}
	crlf := bytes.Replace(mustRead(t, filepath.Join(fixtures, "same", "actual.jsonl")), []byte("\n"), []byte("\r\n"), 1)
	r = DiffBytes(mustRead(t, filepath.Join(fixtures, "same", "expected.jsonl")), crlf, "e", "a", Options{Bytes: true})
	if r.Equal || r.Changed != 1 || !strings.Contains(r.Events[0].Note, "CRLF") {
		t.Fatalf("CRLF with Bytes: %+v", r.Events)
	}
}

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestDiffCapsDetailNotCount: past MaxEvents every difference is still
// counted, and the unified diff holds only the detailed ones.
func TestDiffCapsDetailNotCount(t *testing.T) {
	e, a := caseInputs(t, "many")
	r := Diff(e, a, Options{MaxEvents: 2, Context: -1})
	if r.Differences != 9 || len(r.Events) != 2 || r.Omitted != 7 {
		t.Fatalf("differences %d, detailed %d, omitted %d", r.Differences, len(r.Events), r.Omitted)
	}
	if got := strings.Count(r.Diff, "\n-"); got != 2 {
		t.Errorf("the diff holds %d removed lines, want 2:\n%s", got, r.Diff)
	}
}

func TestDiffEmptyAndUnreadable(t *testing.T) {
	r := DiffBytes(nil, mustRead(t, filepath.Join(fixtures, "same", "actual.jsonl")), "empty", "a", Options{})
	if !r.Invalid() || r.Expected.Problems[0].Code != "EMPTY_JOURNAL" {
		t.Fatalf("empty expected: %+v", r.Expected)
	}
	r = DiffBytes([]byte("{\"sequence\":0}\n"), []byte("not json\n"), "e", "a", Options{Tolerant: true})
	if !r.Invalid() || r.Actual.Problems[0].Code != "INVALID_JSON" {
		t.Fatalf("non-JSON actual: %+v", r.Actual)
	}
}

func tolerantGolden(t *testing.T) []byte {
	t.Helper()
	var out bytes.Buffer
	problems, err := Normalize(open(t, filepath.Join(fixtures, "tolerant", "real-a.jsonl")), &out)
	if err != nil || len(problems) > 0 {
		t.Fatalf("normalize: %v %v", err, problems)
	}
	g := goldie.New(t, goldie.WithFixtureDir(filepath.Join(fixtures, "tolerant")), goldie.WithNameSuffix(".jsonl"))
	g.Assert(t, "expected", out.Bytes())
	return out.Bytes()
}

// TestTolerant captures a tolerant golden from one real run with Normalize
// (testdata/tracediff/tolerant/expected.jsonl), then checks that it matches
// another run whose ids, timestamps and durations all differ, and that each
// real change fails at the right pointer with the right reason.
func TestTolerant(t *testing.T) {
	golden := tolerantGolden(t)
	tests := []struct {
		actual  string
		equal   bool
		pointer string
		reason  string
	}{
		{"real-a.jsonl", true, "", ""},
		{"real-b.jsonl", true, "", ""},
		{"mixup.jsonl", false, "/parent_event_id", "and this value to [ID-8] (expected line 5 at /event_id): a mix-up"},
		{"backwards.jsonl", false, "/timestamp", "never decrease"},
		{"other-argument.jsonl", false, "/payload/arguments/text", ""},
	}
	g := newGoldie(t)
	for _, tt := range tests {
		t.Run(tt.actual, func(t *testing.T) {
			r := Diff(Input{"tolerant/expected.jsonl", bytes.NewReader(golden)}, open(t, filepath.Join(fixtures, "tolerant", tt.actual)), Options{Tolerant: true})
			if r.Equal != tt.equal || r.Invalid() {
				t.Fatalf("equal %v (want %v), problems %v %v\n%s", r.Equal, tt.equal, r.Expected.Problems, r.Actual.Problems, render(t, r))
			}
			if tt.equal {
				return
			}
			f := r.Events[0].Fields[0]
			if f.Pointer != tt.pointer || !strings.Contains(f.Reason, tt.reason) {
				t.Errorf("first field %+v, want pointer %s and a reason with %q", f, tt.pointer, tt.reason)
			}
			g.Assert(t, "tolerant-"+strings.TrimSuffix(tt.actual, ".jsonl"), render(t, r))
		})
	}
	// The same golden compared exactly fails on every id and timestamp.
	r := Diff(Input{"expected", bytes.NewReader(golden)}, open(t, filepath.Join(fixtures, "tolerant", "real-b.jsonl")), Options{})
	if !r.Invalid() {
		t.Errorf("an exact diff took the tolerant golden for a valid trace")
	}
}

func TestTolerantGoldenShape(t *testing.T) {
	tests := []struct {
		golden string
		code   string
	}{
		{`{"sequence":"[SEQ]"}` + "\n", "SCHEMA"},
		{`{"sequence":0}` + "\n" + `{"sequence":2}` + "\n", "SEQUENCE_GAP"},
		{`[1]` + "\n", "NOT_OBJECT"},
		{`{"sequence":0}` + "\n\n", "BLANK_LINE"},
		{`{"sequence":0,"a":1,"a":2}` + "\n", "DUPLICATE_KEY"},
		{`{"sequence":0}`, "TORN_TAIL"},
		{"", "EMPTY_JOURNAL"},
	}
	actual := mustRead(t, filepath.Join(fixtures, "same", "actual.jsonl"))
	for _, tt := range tests {
		r := DiffBytes([]byte(tt.golden), actual, "golden", "actual", Options{Tolerant: true})
		if len(r.Expected.Problems) == 0 || r.Expected.Problems[0].Code != tt.code {
			t.Errorf("golden %q: problems %+v, want %s first", tt.golden, r.Expected.Problems, tt.code)
		}
	}
}

// TestDiffStreamsLargeFiles: a long trace against itself with a change
// every 1000 events finds each change, counts every event and keeps only
// the capped detail.
func TestDiffStreamsLargeFiles(t *testing.T) {
	exp, act := genPair(t, 20000, 1000)
	r := DiffBytes(exp, act, "e", "a", Options{})
	if r.Invalid() {
		t.Fatalf("problems: %v %v", r.Expected.Problems, r.Actual.Problems)
	}
	if r.Expected.Events != 20000 || r.Actual.Events != 20000 || r.Changed != 19 || len(r.Events) != 19 {
		t.Fatalf("events %d/%d, changed %d, detailed %d", r.Expected.Events, r.Actual.Events, r.Changed, len(r.Events))
	}
	for i, ed := range r.Events {
		if want := int64(1000 * (i + 1)); ed.Sequence != want || ed.Fields[0].Pointer != "/payload" && !strings.HasPrefix(ed.Fields[0].Pointer, "/payload/") {
			t.Errorf("event %d: sequence %d (want %d), fields %+v", i, ed.Sequence, want, ed.Fields)
		}
	}
}

func TestSafeLine(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":"b"}`:            `{"a":"b"}`,
		"x\u202ey":             `x\u202ey`,
		"tab\there":            `tab\u0009here`,
		"caf\u00e9 \U0001F680": "caf\u00e9 \U0001F680",
		"bad\xffbyte":          `bad\ufffdbyte`,
		"del\x7f":              `del\u007f`,
	} {
		if got := SafeLine(in); got != want {
			t.Errorf("SafeLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func ExampleReport_WriteText() {
	exp := `{"trace_version":"0.1.0","event_id":"e0","session_id":"s","sequence":0,"timestamp":"2026-08-10T00:00:00Z","type":"session.start","actor":{"kind":"harness","id":"h"},"payload":{"max_turns":8},"provenance":{"agent_id":"a","snapshot_id":"x","surface":"sdk","harness_mode":"fake","run_id":"r"},"redaction":{"status":"clean","fields":[]}}` + "\n"
	act := strings.Replace(exp, `"max_turns":8`, `"max_turns":9`, 1)
	r := DiffBytes([]byte(exp), []byte(act), "golden.jsonl", "run.jsonl", Options{Context: -1})
	r.WriteText(os.Stdout)
	fmt.Println("equal:", r.Equal)
	// Output:
	// DIFFERENT golden.jsonl run.jsonl: 1 event differs (1 changed, 0 missing, 0 extra); expected 1 events, actual 1
	// changed sequence=0 event_id=e0 type=session.start (expected line 1, actual line 1)
	//   /payload/max_turns: expected 8, actual 9
	// --- golden.jsonl
	// +++ run.jsonl
	// @@ -1 +1 @@
	// -{"trace_version":"0.1.0","event_id":"e0","session_id":"s","sequence":0,"timestamp":"2026-08-10T00:00:00Z","type":"session.start","actor":{"kind":"harness","id":"h"},"payload":{"max_turns":8},"provenance":{"agent_id":"a","snapshot_id":"x","surface":"sdk","harness_mode":"fake","run_id":"r"},"redaction":{"status":"clean","fields":[]}}
	// +{"trace_version":"0.1.0","event_id":"e0","session_id":"s","sequence":0,"timestamp":"2026-08-10T00:00:00Z","type":"session.start","actor":{"kind":"harness","id":"h"},"payload":{"max_turns":9},"provenance":{"agent_id":"a","snapshot_id":"x","surface":"sdk","harness_mode":"fake","run_id":"r"},"redaction":{"status":"clean","fields":[]}}
	// equal: false
}
