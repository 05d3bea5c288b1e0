package exercise

import (
	"github.com/tracecheck/tracecheck/exercise/reference"
	"github.com/tracecheck/tracecheck/exercise/subject"
)

// Status is the outcome of a criterion, an exercise or a run.
type Status string

// Statuses, as --format json spells them.
const (
	Pass    Status = "pass"
	Fail    Status = "fail"
	NotRun  Status = "not_run" // a criterion after the first failure of `exercise run`
	Skipped Status = "skipped" // an exercise whose ops the subject does not support
	Broken  Status = "error"   // the subject broke the protocol
)

// CriterionResult is the outcome of one criterion.
type CriterionResult struct {
	ID      string   `json:"id"` // "B2"
	Name    string   `json:"name"`
	Accept  string   `json:"accept"`
	Hint    string   `json:"hint"`
	Index   int      `json:"index"` // 0-based, in the exercise
	Status  Status   `json:"status"`
	Cases   int      `json:"cases"` // cases checked
	Recheck bool     `json:"recheck,omitempty"`
	Failure *Failure `json:"failure,omitempty"`
}

// ExerciseResult is the outcome of one exercise: its criteria in the order
// they ran, then those that did not run.
type ExerciseResult struct {
	ID       string            `json:"id"`
	Slug     string            `json:"slug"`
	Title    string            `json:"title"`
	Status   Status            `json:"status"`
	Missing  []string          `json:"missing_ops,omitempty"`
	Criteria []CriterionResult `json:"criteria"`
}

// Passed counts the criteria that passed.
func (r *ExerciseResult) Passed() int {
	n := 0
	for _, c := range r.Criteria {
		if c.Status == Pass {
			n++
		}
	}
	return n
}

// FirstFailure returns the first failed criterion, or nil.
func (r *ExerciseResult) FirstFailure() *CriterionResult {
	for i := range r.Criteria {
		if r.Criteria[i].Status == Fail {
			return &r.Criteria[i]
		}
	}
	return nil
}

// Options configure a check.
type Options struct {
	Seed     int64
	Fixtures *Fixtures
	// StopAtFailure stops an exercise at its first failed criterion (the
	// rest are NotRun), as `exercise run` does.
	StopAtFailure bool
	// Passed names the criteria that passed before (the progress file):
	// they are marked as re-checks.
	Passed map[string]bool
	// Takes, when set, says which criteria (by id, "B2") Conform checks:
	// those of one shard of a sharded conform; the others are NotRun.
	Takes func(criterionID string) bool
}

// RunOrder is the order `exercise run` checks ex's criteria in: the current
// one (the first that has not passed) first, then the earlier ones again,
// then the later ones. With every criterion passed it is the catalogue
// order.
func RunOrder(ex *Exercise, passed map[string]bool) []int {
	cur := -1
	for i, c := range ex.Criteria {
		if !passed[c.Name] {
			cur = i
			break
		}
	}
	order := make([]int, 0, len(ex.Criteria))
	if cur < 0 {
		for i := range ex.Criteria {
			order = append(order, i)
		}
		return order
	}
	order = append(order, cur)
	for i := range ex.Criteria {
		if i != cur {
			order = append(order, i)
		}
	}
	return order
}

// CheckExercise checks ex's criteria in order (indices into ex.Criteria)
// against c. The error is the subject breaking the protocol
// (*subject.ProtocolError); the result then holds what ran before it.
func CheckExercise(c Caller, ex *Exercise, order []int, opts Options) (ExerciseResult, error) {
	res := ExerciseResult{ID: ex.ID, Slug: ex.Slug, Title: ex.Title, Status: Pass}
	ran := map[int]bool{}
	stopped := false
	for _, i := range order {
		if stopped {
			break
		}
		cr, err := checkCriterion(c, ex, i, opts)
		ran[i] = true
		res.Criteria = append(res.Criteria, cr)
		if err != nil {
			res.Status = Broken
			return res, err
		}
		if cr.Status == Fail {
			res.Status = Fail
			stopped = opts.StopAtFailure
		}
	}
	for i, crit := range ex.Criteria {
		if !ran[i] {
			res.Criteria = append(res.Criteria, CriterionResult{ID: ex.CriterionID(i), Name: crit.Name, Accept: crit.Accept, Hint: crit.Hint, Index: i, Status: NotRun, Recheck: opts.Passed[crit.Name]})
		}
	}
	return res, nil
}

// checkCriterion runs every case of criterion i until the first failure.
func checkCriterion(c Caller, ex *Exercise, i int, opts Options) (CriterionResult, error) {
	crit := ex.Criteria[i]
	id := ex.CriterionID(i)
	cr := CriterionResult{ID: id, Name: crit.Name, Accept: crit.Accept, Hint: crit.Hint, Index: i, Status: Pass, Recheck: opts.Passed[crit.Name]}
	for _, cs := range crit.Cases(newGen(opts.Seed, opts.Fixtures, id)) {
		err := runCase(c, cs)
		cr.Cases++
		if err == nil {
			continue
		}
		if f, ok := err.(*Failure); ok {
			cr.Status, cr.Failure = Fail, f
			return cr, nil
		}
		cr.Status = Broken
		return cr, err
	}
	return cr, nil
}

func runCase(c Caller, cs Case) error {
	oracle := reference.NewHandler()
	defer oracle.Close()
	return cs.Run(&conn{c: c, oracle: oracle, name: cs.Name})
}

// Conform checks every exercise whose ops the subject supports, every
// criterion of each. Exercises it does not support are Skipped. The error
// is a protocol error; the results then hold what ran before it.
func Conform(c Caller, hello *subject.Hello, opts Options) ([]ExerciseResult, error) {
	var out []ExerciseResult
	for _, ex := range Catalog() {
		if missing := ex.Missing(hello.Supports); len(missing) > 0 {
			out = append(out, ExerciseResult{ID: ex.ID, Slug: ex.Slug, Title: ex.Title, Status: Skipped, Missing: missing, Criteria: []CriterionResult{}})
			continue
		}
		order := make([]int, 0, len(ex.Criteria))
		for i := range ex.Criteria {
			if opts.Takes == nil || opts.Takes(ex.CriterionID(i)) {
				order = append(order, i)
			}
		}
		res, err := CheckExercise(c, ex, order, Options{Seed: opts.Seed, Fixtures: opts.Fixtures})
		out = append(out, res)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}
