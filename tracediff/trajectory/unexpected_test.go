package trajectory

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/tracediff"
)

// normalizedDiff compares testdata/CASE as 'tracecheck diff --normalize
// --match MODE' does: the tolerant golden the normalizer captures from
// expected.jsonl against actual.jsonl.
func normalizedDiff(t *testing.T, name string, mode Mode) *tracediff.Report {
	t.Helper()
	dir := filepath.Join("testdata", name)
	exp, err := os.Open(filepath.Join(dir, "expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Close()
	var golden bytes.Buffer
	if problems, err := tracediff.Normalize(tracediff.Input{Name: exp.Name(), R: exp}, &golden); err != nil || len(problems) > 0 {
		t.Fatalf("normalize: %v %v", problems, err)
	}
	act, err := os.Open(filepath.Join(dir, "actual.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer act.Close()
	r := Diff(tracediff.Input{Name: "golden", R: &golden}, tracediff.Input{Name: act.Name(), R: act}, &Config{Match: mode}, tracediff.Options{Tolerant: true})
	if r.Invalid() {
		t.Fatalf("invalid: %v %v", r.Expected.Problems, r.Actual.Problems)
	}
	return r
}

// TestUnexpectedCallNamesPointer: an actual call the relation leaves
// without an expected partner is shown against the closest expected call,
// with the differing pointer and both values, as every other failure is:
// the closest unmatched one, or, when every expected call is matched, the
// closest of all.
func TestUnexpectedCallNamesPointer(t *testing.T) {
	type field struct{ Pointer, Expected, Actual string }
	tests := []struct {
		name         string
		mode         Mode
		actualLine   int
		expectedLine int
		note         string
		fields       []field
	}{
		{"subset-changed-argument", Subset, 3, 5, `the closest unmatched expected call "grep" (expected line 5) differs as shown`,
			[]field{{"/payload/arguments/q", `"x"`, `"y"`}}},
		{"subset-extra-call", Subset, 5, 3, `every expected call is matched, the closest, expected call "grep" (expected line 3), differs as shown`,
			[]field{{"/payload/arguments/q", `"x"`, `"y"`}}},
		{"same-multiset-extra-call", SameMultiset, 7, 3, `every expected call is matched, the closest, expected call "read" (expected line 3), differs as shown`,
			[]field{{"/payload/arguments/path", `"a"`, `"b"`}}},
		// A call repeated past its expected one differs in no field: the
		// note names the call it repeats.
		{"subset-repeated-call", Subset, 5, 3, `it repeats expected call "grep" (expected line 3), which another actual call matches`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := normalizedDiff(t, tt.name, tt.mode)
			if r.Equal || r.Differences != 1 || len(r.Events) != 1 {
				t.Fatalf("equal %v, %d failures: %+v", r.Equal, r.Differences, r.Events)
			}
			ed := r.Events[0]
			var got []field
			for _, f := range ed.Fields {
				got = append(got, field{f.Pointer, f.Expected, f.Actual})
			}
			if diff := cmp.Diff(tt.fields, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			if ed.Kind != KindUnexpected || ed.ActualLine != tt.actualLine || ed.ExpectedLine != tt.expectedLine || ed.Anchor != tt.expectedLine {
				t.Errorf("%s at actual line %d, expected line %d (anchor %d); want unexpected at %d, %d", ed.Kind, ed.ActualLine, ed.ExpectedLine, ed.Anchor, tt.actualLine, tt.expectedLine)
			}
			if !strings.HasPrefix(ed.Note, "no expected call is left for this call to match") || !strings.Contains(ed.Note, tt.note) {
				t.Errorf("note %q, want it to say %q", ed.Note, tt.note)
			}
		})
	}
}
