package exercise

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tracecheck/tracecheck/exercise/reference"
	"github.com/tracecheck/tracecheck/exercise/subject"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

func TestReferencePassesEverythingInProcess(t *testing.T) {
	fx := loadFixtures(t)
	for _, seed := range []int64{1, 2} {
		res, err := Conform(referenceCaller(t), allOps, Options{Seed: seed, Fixtures: fx})
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range res {
			for _, c := range ex.Criteria {
				if c.Status != Pass {
					t.Errorf("seed %d: %s %s: %s %+v", seed, c.ID, c.Name, c.Status, c.Failure)
				}
				if c.Cases == 0 {
					t.Errorf("seed %d: %s has no case", seed, c.ID)
				}
			}
		}
	}
}

// recorder is a Caller that keeps every request it forwards.
type recorder struct {
	c    Caller
	reqs []string
}

func (r *recorder) Call(op string, fields ...jsonv.Member) (*subject.Response, error) {
	resp, err := r.c.Call(op, fields...)
	if resp != nil {
		// Without the id: the same case must send the same request.
		r.reqs = append(r.reqs, string(resp.Request.Without("id").AppendJSON(nil)))
	}
	return resp, err
}

// requestsOf returns the requests criterion i of ex sends for seed.
func requestsOf(t *testing.T, fx *Fixtures, ex *Exercise, i int, seed int64) []string {
	rec := &recorder{c: referenceCaller(t)}
	if _, err := CheckExercise(rec, ex, []int{i}, Options{Seed: seed, Fixtures: fx}); err != nil {
		t.Fatal(err)
	}
	return rec.reqs
}

// A seed reproduces a criterion's cases exactly, and another seed gives
// other cases to every criterion that generates any.
func TestSeedsReproduceAndDiffer(t *testing.T) {
	fx := loadFixtures(t)
	fixed := map[string]bool{"A4": true, "C1": true} // fixtures only: the empty journal, the s02 trace
	for _, ex := range Catalog() {
		for i := range ex.Criteria {
			id := ex.CriterionID(i)
			a, again, b := requestsOf(t, fx, ex, i, 1), requestsOf(t, fx, ex, i, 1), requestsOf(t, fx, ex, i, 2)
			if !slices.Equal(a, again) {
				t.Errorf("%s: seed 1 twice sent different requests", id)
			}
			if differ := !slices.Equal(a, b); differ == fixed[id] {
				t.Errorf("%s: seeds 1 and 2 differ: %v, want %v", id, differ, !fixed[id])
			}
		}
	}
}

func TestRunOrder(t *testing.T) {
	ex := exerciseA()
	names := func(ns ...int) map[string]bool {
		m := map[string]bool{}
		for _, n := range ns {
			m[ex.Criteria[n].Name] = true
		}
		return m
	}
	tests := []struct {
		passed map[string]bool
		want   []int
	}{
		{nil, []int{0, 1, 2, 3, 4}},
		{names(0, 1), []int{2, 0, 1, 3, 4}},
		{names(0, 2), []int{1, 0, 2, 3, 4}},
		{names(0, 1, 2, 3, 4), []int{0, 1, 2, 3, 4}},
	}
	for _, tt := range tests {
		if got := RunOrder(ex, tt.passed); !slices.Equal(got, tt.want) {
			t.Errorf("RunOrder(%v) = %v, want %v", tt.passed, got, tt.want)
		}
	}
}

// exercise run: the current criterion first, then the earlier ones again (a
// regression is caught), stopping at the first failure.
func TestCheckExerciseStopsAtFirstFailure(t *testing.T) {
	fx := loadFixtures(t)
	ex := exerciseA()
	passed := map[string]bool{"accepts-valid-journals": true, "rejects-sequence-gap": true, "rejects-mixed-identity": true}
	h := reference.NewHandler()
	defer h.Close()
	m := mutants()["A2"]() // A2 regressed
	c := &inProcess{h: func(req jsonv.Value) jsonv.Value { return m(member(req, "op").Text(), req, h) }}
	res, err := CheckExercise(c, ex, RunOrder(ex, passed), Options{Seed: 3, Fixtures: fx, StopAtFailure: true, Passed: passed})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Criteria {
		got = append(got, fmt.Sprintf("%s:%s:%v", c.ID, c.Status, c.Recheck))
	}
	want := []string{"A4:pass:false", "A1:pass:true", "A2:fail:true", "A3:not_run:true", "A5:not_run:false"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v,\nwant %v", got, want)
	}
	if res.Status != Fail {
		t.Errorf("status %s", res.Status)
	}
}
