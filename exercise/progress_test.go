package exercise

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestProgressRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dir", "exercises.json")
	p, err := LoadProgress(path)
	if err != nil || len(p.Exercises) != 0 {
		t.Fatalf("a missing file: %+v, %v", p, err)
	}
	a, b := exerciseA(), exerciseB()
	res := ExerciseResult{Status: Fail, Criteria: []CriterionResult{
		{Name: "rejects-sequence-gap", Status: Pass}, {Name: "accepts-valid-journals", Status: Pass}, {Name: "rejects-empty", Status: Fail}, {Name: "rejects-mixed-identity", Status: NotRun},
	}}
	p.Record(a, res)
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	q, err := LoadProgress(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := q.Exercises["A"].Passed; !slices.Equal(got, []string{"accepts-valid-journals", "rejects-sequence-gap"}) || q.Exercises["A"].Done {
		t.Errorf("A: %+v", q.Exercises["A"])
	}
	if q.Current(a) != 2 || q.Count(a) != 2 || q.Next().ID != "A" {
		t.Errorf("current %d count %d next %s", q.Current(a), q.Count(a), q.Next().ID)
	}
	// A regression removes a criterion; a protocol error does not.
	q.Record(a, ExerciseResult{Status: Fail, Criteria: []CriterionResult{{Name: "accepts-valid-journals", Status: Fail}, {Name: "rejects-sequence-gap", Status: Broken}}})
	if got := q.Exercises["A"].Passed; !slices.Equal(got, []string{"rejects-sequence-gap"}) {
		t.Errorf("after a regression: %v", got)
	}
	all := ExerciseResult{Status: Pass}
	for _, c := range b.Criteria {
		all.Criteria = append(all.Criteria, CriterionResult{Name: c.Name, Status: Pass})
	}
	q.Record(b, all)
	if !q.Exercises["B"].Done || q.Current(b) != -1 {
		t.Errorf("B: %+v", q.Exercises["B"])
	}
	q.Reset(a)
	if q.Count(a) != 0 || q.Exercises["B"] == nil {
		t.Errorf("reset A: %+v", q.Exercises)
	}
}

// A file that is not a progress file is refused with its path, and left
// exactly as it was.
func TestBadProgressFileIsLeftAlone(t *testing.T) {
	for name, content := range map[string]string{
		"not json":      "{\"version\": 1, \"exercises\": ",
		"other version": `{"version": 2, "exercises": {}}`,
		"unknown field": `{"version": 1, "exercises": {}, "colour": "red"}`,
	} {
		path := filepath.Join(t.TempDir(), "exercises.json")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadProgress(path)
		var pe *ProgressError
		if !errors.As(err, &pe) || pe.Path != path {
			t.Errorf("%s: got %v, want a *ProgressError naming the file", name, err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, []byte(content)) {
			t.Errorf("%s: the file changed", name)
		}
	}
}

// NextThrough stops at its last exercise: with A-F done, the next through F
// is none while the next of all is R; an exercise not done before it comes
// first.
func TestProgressNextThrough(t *testing.T) {
	p := &Progress{Version: progressVersion, Exercises: map[string]*ExerciseProgress{}}
	f, err := Find("F")
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range Catalog() {
		if ex.ID == "R" {
			break
		}
		p.Exercises[ex.ID] = &ExerciseProgress{Done: true}
	}
	if next := p.NextThrough(f); next != nil {
		t.Errorf("A-F done: next through F is %s, want none", next.ID)
	}
	if next := p.Next(); next == nil || next.ID != "R" {
		t.Errorf("A-F done: next is %v, want R", next)
	}
	p.Exercises["C"].Done = false
	if next := p.NextThrough(f); next == nil || next.ID != "C" {
		t.Errorf("C not done: next through F is %v, want C", next)
	}
	a, _ := Find("A")
	if next := p.NextThrough(a); next != nil {
		t.Errorf("A done: next through A is %s, want none", next.ID)
	}
}
