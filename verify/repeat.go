package verify

import (
	"strings"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/golden"
)

// Repeat is how the runs of a subject run more than once went (a command
// case's "repeat": K, after tau-bench's pass^k: a case is reliable when
// all K runs pass, not when one of them does).
type Repeat struct {
	// Case is the Subject.Group: the case whose command each run ran.
	Case string `json:"case"`
	// Count is K, Passed how many runs passed, PassK whether all did.
	Count  int  `json:"count"`
	Passed int  `json:"passed"`
	PassK  bool `json:"pass_k"`
	// Shown is the run (1 to Count) whose status, drift, problems and
	// artifacts the result holds: the first that failed, else run 1.
	Shown int `json:"shown"`
	// Runs are the runs in order.
	Runs []RepeatRun `json:"runs"`
}

// RepeatRun is one run of a repeated subject.
type RepeatRun struct {
	Run    int    `json:"run"`
	Status Status `json:"status"`
	Failed bool   `json:"failed"`
	Events int    `json:"events"`
	// Summary says in one line how a failed run other than the shown one
	// failed (the counts of its drift, its first problem): the full
	// detail of K runs would drown the one that matters.
	Summary string `json:"summary,omitempty"`
}

// Reliability is pass^k over the cases of a run that ran more than once.
type Reliability struct {
	Cases []CaseRuns `json:"cases"`
	// PassK is how many of Cases passed every run.
	PassK int `json:"pass_k"`
}

// CaseRuns is one repeated case: a run of it passes when every subject of
// the case (its trace, its model-side trace) passes that run.
type CaseRuns struct {
	Case   string `json:"case"`
	Count  int    `json:"count"`
	Passed int    `json:"passed"`
	PassK  bool   `json:"pass_k"`
}

// checkRuns finishes the check of a subject with Repeat > 1 whose run 1
// was judged as first (res holds it): run 1 is written as a single run
// would be, and only run 1 (an update takes one capture, as insta takes one
// snapshot; a flaky run must not overwrite it); runs 2 to Repeat are
// compared with the golden as it then stands (the one just written, else
// want as read). The result is the first failed run's, and the artifacts
// are that run's traces.
func checkRuns(s Subject, store *golden.Store, writes Writes, opts Options, res Result, first verdict, want []byte, readErr error) Result {
	name := s.golden()
	if first.status != StatusInvalid {
		write(&res, store, name, writes, first.act)
	}
	if res.Status == StatusCreated || res.Status == StatusUpdated {
		want, readErr = first.act.Golden, nil
		if want == nil {
			want = first.act.Bytes
		}
	}
	verdicts := []verdict{first}
	rep := &Repeat{Case: s.Group, Count: s.Repeat, Runs: []RepeatRun{{Run: 1, Status: res.Status, Failed: res.Status.fails(), Events: first.act.Events}}}
	for n := 2; n <= s.Repeat; n++ {
		v := s.judge(s.Again(n), want, readErr, res.File)
		verdicts = append(verdicts, v)
		rep.Runs = append(rep.Runs, RepeatRun{Run: n, Status: v.status, Failed: v.status.fails(), Events: v.act.Events})
	}
	rep.Shown = 1
	for i := len(rep.Runs) - 1; i >= 0; i-- {
		if rep.Runs[i].Failed {
			rep.Shown = i + 1
		}
	}
	for i := range rep.Runs {
		r := &rep.Runs[i]
		if !r.Failed {
			rep.Passed++
		} else if r.Run != rep.Shown {
			r.Summary = runSummary(&verdicts[i])
		}
	}
	rep.PassK = rep.Passed == rep.Count
	shown := &verdicts[rep.Shown-1]
	if rep.Shown > 1 {
		// Run 1's writes stay said (Pending, RemovedPending and their
		// problems); the verdict is the shown run's.
		res.Status, res.Drift, res.Events = shown.status, shown.drift, shown.act.Events
		res.Problems = append(append([]string(nil), shown.problems...), res.Problems...)
	}
	if shown.keep {
		keep(&res, opts, shown.expected, shown.act.Bytes, s.Tolerant)
	}
	res.Repeat = rep
	return res
}

// runSummary is one line on how a run failed.
func runSummary(v *verdict) string {
	switch {
	case v.status == StatusMissing:
		return "no golden"
	case v.drift != nil:
		return v.drift.Summary()
	case len(v.problems) > 0:
		first, _, _ := strings.Cut(v.problems[0], "\n")
		if len(v.problems) > 1 {
			first += " (and more)"
		}
		return cutLine(first)
	}
	return string(v.status)
}

// cutLine cuts a line to golden.MaxShown bytes, saying so.
func cutLine(s string) string {
	if len(s) <= golden.MaxShown {
		return s
	}
	n := golden.MaxShown
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// reliability is pass^k of each case whose subjects ran more than once,
// in the order of the results; nil when none did.
func reliability(results []Result) *Reliability {
	var out *Reliability
	index := map[string]int{}
	var failed [][]bool // per case, per run: some subject failed it
	for i := range results {
		rp := results[i].Repeat
		if rp == nil {
			continue
		}
		if out == nil {
			out = &Reliability{Cases: []CaseRuns{}}
		}
		k, seen := index[rp.Case]
		if !seen {
			k = len(out.Cases)
			index[rp.Case] = k
			out.Cases = append(out.Cases, CaseRuns{Case: rp.Case})
			failed = append(failed, nil)
		}
		for len(failed[k]) < len(rp.Runs) {
			failed[k] = append(failed[k], false)
		}
		for j, run := range rp.Runs {
			failed[k][j] = failed[k][j] || run.Failed
		}
	}
	if out == nil {
		return nil
	}
	for k := range out.Cases {
		c := &out.Cases[k]
		c.Count = len(failed[k])
		for _, f := range failed[k] {
			if !f {
				c.Passed++
			}
		}
		c.PassK = c.Passed == c.Count
		if c.PassK {
			out.PassK++
		}
	}
	return out
}
