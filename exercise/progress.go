package exercise

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/tracecheck/tracecheck/internal/atomicfile"
)

// DefaultProgressFile is where `tracecheck exercise` keeps a learner's
// progress, relative to the working directory.
const DefaultProgressFile = ".tracecheck/exercises.json"

// progressVersion is the version of the progress file format.
const progressVersion = 1

// Progress is a learner's progress: the criteria that passed, by exercise.
// It is a small JSON file, replaced atomically on every save.
type Progress struct {
	Version   int                          `json:"version"`
	Exercises map[string]*ExerciseProgress `json:"exercises"`
}

// ExerciseProgress is one exercise's progress.
type ExerciseProgress struct {
	Passed []string `json:"passed"` // criterion names, in catalogue order
	Done   bool     `json:"done"`   // every criterion passed in one run
}

// ProgressError is a progress file that cannot be used; it is left as it is.
type ProgressError struct {
	Path string
	Err  error
}

func (e *ProgressError) Error() string {
	return fmt.Sprintf("progress file %s: %v (it is left untouched: fix it, or remove it to start over)", e.Path, e.Err)
}

func (e *ProgressError) Unwrap() error { return e.Err }

// LoadProgress reads the progress file at path; a missing file is no
// progress. A file that is not a progress file is a *ProgressError.
func LoadProgress(path string) (*Progress, error) {
	p := &Progress{Version: progressVersion, Exercises: map[string]*ExerciseProgress{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, &ProgressError{Path: path, Err: err}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, &ProgressError{Path: path, Err: fmt.Errorf("not a progress file: %v", err)}
	}
	if p.Version != progressVersion {
		return nil, &ProgressError{Path: path, Err: fmt.Errorf("version %d; this tracecheck reads version %d", p.Version, progressVersion)}
	}
	if p.Exercises == nil {
		p.Exercises = map[string]*ExerciseProgress{}
	}
	for id, ep := range p.Exercises {
		if ep == nil {
			p.Exercises[id] = &ExerciseProgress{}
		}
	}
	return p, nil
}

// Save writes the progress to path atomically, creating its directory.
func (p *Progress) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return &ProgressError{Path: path, Err: err}
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return &ProgressError{Path: path, Err: err}
	}
	if err := atomicfile.Write(path, append(data, '\n'), 0o644); err != nil {
		return &ProgressError{Path: path, Err: err}
	}
	return nil
}

// PassedSet returns the names of ex's criteria that passed.
func (p *Progress) PassedSet(ex *Exercise) map[string]bool {
	out := map[string]bool{}
	if ep := p.Exercises[ex.ID]; ep != nil {
		for _, n := range ep.Passed {
			out[n] = true
		}
	}
	return out
}

// Record updates ex's progress with a run's results: a criterion that
// passed is added, one that failed removed, one that did not run (or that a
// protocol error interrupted: not the learner's failure) kept as it was.
func (p *Progress) Record(ex *Exercise, res ExerciseResult) {
	passed := p.PassedSet(ex)
	all := res.Status == Pass
	for _, c := range res.Criteria {
		switch c.Status {
		case Pass:
			passed[c.Name] = true
		case Fail:
			delete(passed, c.Name)
			all = false
		default:
			all = false
		}
	}
	ep := &ExerciseProgress{Passed: []string{}}
	for _, c := range ex.Criteria {
		if passed[c.Name] {
			ep.Passed = append(ep.Passed, c.Name)
		}
	}
	ep.Done = all && len(ep.Passed) == len(ex.Criteria)
	p.Exercises[ex.ID] = ep
}

// Reset forgets ex's progress.
func (p *Progress) Reset(ex *Exercise) { delete(p.Exercises, ex.ID) }

// Count returns how many of ex's criteria passed.
func (p *Progress) Count(ex *Exercise) int {
	n := 0
	passed := p.PassedSet(ex)
	for _, c := range ex.Criteria {
		if passed[c.Name] {
			n++
		}
	}
	return n
}

// Next returns the first exercise that is not done, or nil.
func (p *Progress) Next() *Exercise { return p.NextThrough(nil) }

// NextThrough returns the first exercise that is not done among the
// catalogue's exercises up to and including last (every exercise when
// last is nil), or nil when they are all done.
func (p *Progress) NextThrough(last *Exercise) *Exercise {
	for _, ex := range Catalog() {
		if ep := p.Exercises[ex.ID]; ep == nil || !ep.Done {
			return ex
		}
		if last != nil && ex.ID == last.ID {
			return nil
		}
	}
	return nil
}

// Current returns the index of the first of ex's criteria that has not
// passed, or -1.
func (p *Progress) Current(ex *Exercise) int {
	passed := p.PassedSet(ex)
	return slices.IndexFunc(ex.Criteria, func(c *Criterion) bool { return !passed[c.Name] })
}
