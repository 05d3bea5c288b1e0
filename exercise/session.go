package exercise

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tracecheck/tracecheck/exercise/subject"
)

// Report is the outcome of one run against a subject: `exercise run` or
// `conform`.
type Report struct {
	Command   string           `json:"command"`         // "exercise run B" or "conform"
	Argv      []string         `json:"subject_command"` // the subject's command line
	Seed      int64            `json:"seed"`
	Hello     *subject.Hello   `json:"subject"` // nil when the handshake failed
	Status    Status           `json:"status"`  // pass, fail, or error (the protocol broke)
	Message   string           `json:"message,omitempty"`
	Protocol  string           `json:"protocol_error,omitempty"` // one line
	Exercises []ExerciseResult `json:"exercises"`
	Stderr    []string         `json:"stderr_tail"` // the subject's last stderr lines
}

// StderrLines is how many of the subject's last stderr lines a report keeps.
const StderrLines = 20

// ExitCode is the command's exit status for the report: 0 every check
// passed, 1 a criterion failed (or nothing could be checked), 3 the subject
// broke the protocol.
func (r *Report) ExitCode() int {
	switch r.Status {
	case Pass:
		return 0
	case Broken:
		return 3
	}
	return 1
}

// Config is what a run needs besides the exercises.
type Config struct {
	Argv     []string
	Subject  subject.Options
	Seed     int64
	Fixtures *Fixtures
	// Takes, when set, limits conform to the criteria of one shard (see
	// Options.Takes).
	Takes func(criterionID string) bool
}

// RunExercise starts the subject, checks ex in RunOrder (stopping at the
// first failure) and stops the subject. passed is the progress so far. The
// error is a *subject.StartError: the command could not be started.
func RunExercise(cfg Config, ex *Exercise, passed map[string]bool) (*Report, error) {
	r := &Report{Command: "exercise run " + ex.ID, Argv: cfg.Argv, Seed: cfg.Seed, Exercises: []ExerciseResult{}}
	err := withSubject(cfg, r, func(s *subject.Subject, hello *subject.Hello) error {
		if missing := ex.Missing(hello.Supports); len(missing) > 0 {
			r.Exercises = append(r.Exercises, ExerciseResult{ID: ex.ID, Slug: ex.Slug, Title: ex.Title, Status: Skipped, Missing: missing, Criteria: []CriterionResult{}})
			r.Message = fmt.Sprintf("the subject does not support %s, which exercise %s needs: answer each and list it in the ops of hello (hello lists: %s)", quoteOps(missing), ex.ID, listOrNone(hello.Ops))
			return nil
		}
		res, err := CheckExercise(s, ex, RunOrder(ex, passed), Options{Seed: cfg.Seed, Fixtures: cfg.Fixtures, StopAtFailure: true, Passed: passed})
		r.Exercises = append(r.Exercises, res)
		return err
	})
	return r, err
}

// RunConform starts the subject, checks every exercise its hello supports
// (every criterion of each) and stops the subject.
func RunConform(cfg Config) (*Report, error) {
	r := &Report{Command: "conform", Argv: cfg.Argv, Seed: cfg.Seed, Exercises: []ExerciseResult{}}
	err := withSubject(cfg, r, func(s *subject.Subject, hello *subject.Hello) error {
		res, err := Conform(s, hello, Options{Seed: cfg.Seed, Fixtures: cfg.Fixtures, Takes: cfg.Takes})
		r.Exercises = res
		if err == nil && !anyChecked(res) {
			r.Message = fmt.Sprintf("the subject supports no exercise: its hello lists: %s", listOrNone(hello.Ops))
		}
		return err
	})
	return r, err
}

func anyChecked(res []ExerciseResult) bool {
	for _, ex := range res {
		if ex.Status != Skipped {
			return true
		}
	}
	return false
}

func listOrNone(ops []string) string {
	if len(ops) == 0 {
		return "none"
	}
	return strings.Join(ops, ", ")
}

func quoteOps(ops []string) string {
	if len(ops) == 1 {
		return "op " + ops[0]
	}
	return "ops " + strings.Join(ops, ", ")
}

// withSubject starts the subject, shakes hands, runs check, closes the
// subject and settles the report's status and stderr tail. Only a start
// failure is returned; protocol errors go into the report.
func withSubject(cfg Config, r *Report, check func(*subject.Subject, *subject.Hello) error) error {
	s, err := subject.Start(cfg.Argv, cfg.Subject)
	if err != nil {
		return err
	}
	hello, err := s.Hello()
	if err == nil {
		r.Hello = hello
		err = check(s, hello)
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	r.Stderr = s.StderrTail(StderrLines)
	if r.Stderr == nil {
		r.Stderr = []string{}
	}
	r.settle(err)
	return nil
}

// settle sets the report's status from the run's error (a protocol error,
// or nil) and its results.
func (r *Report) settle(err error) {
	var pe *subject.ProtocolError
	switch {
	case errors.As(err, &pe):
		r.Status, r.Protocol = Broken, pe.Error()
	case err != nil:
		r.Status, r.Protocol = Broken, err.Error()
	case r.Message != "":
		r.Status = Fail
	default:
		r.Status = Pass
		for _, ex := range r.Exercises {
			if ex.Status == Fail {
				r.Status = Fail
			}
		}
	}
}
