// Package verify checks subjects against their golden files and carries
// the golden workflow around that comparison, the way insta/cargo-insta
// users expect it:
//
//   - update modes (UpdateMode): auto, new, always, no. auto writes a
//     pending <id>.trace.jsonl.new beside the golden on a developer's
//     machine and nothing in CI (DetectCI); new always writes the pending
//     file; always writes the golden itself; no writes nothing. A render
//     that is INVALID is never written. When a subject passes, a pending
//     file left for it by an earlier run is removed (only that file);
//   - review (Review, Accept, Reject): a pending file is shown against its
//     golden and accepted (renamed over the golden) or rejected (removed);
//   - artifacts (Options.Artifacts): every actual trace that differed, and
//     the golden it was compared with, kept in a directory CI can upload;
//   - unreferenced goldens (UnreferencedMode): a golden no subject renders
//     is warned about, rejected, or deleted; only after a full run of a
//     known set (no filter), no subject INVALID, subjects and goldens from
//     the same place; only names of the golden directory ending in
//     .trace.jsonl are touched, and what will be deleted is said before;
//   - the report (Report) in text, JSON, JUnit XML and GitHub annotations,
//     and the one next step that would fix what failed (NextStep).
//
// A subject is anything that yields an id, an actual trace (or the reasons
// it is INVALID) and a way to compare it with a golden: ScenarioSubjects
// adapts the scripted scenarios, CaseSubjects the command cases (package
// cases: a command whose output is a trace, and the trace of the scripted
// model it ran against). The machinery here never looks inside a subject.
//
// A subject may be run K times (Subject.Repeat: a case's "repeat"): each
// run is compared with the golden, the result passes only when all do
// (pass^k, Result.Repeat, Report.Reliability), only run 1 is written, and
// JUnit has a testcase per run.
package verify

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/internal/atomicfile"
)

// Subject is one thing whose trace is checked against its golden
// <Golden>.trace.jsonl.
type Subject struct {
	ID string
	// Golden names the golden file, <Golden>.trace.jsonl, and its pending
	// golden; "" is ID.
	Golden string
	// Kind names the sort of subject in reports ("scenario", "case").
	Kind string
	// File is where the subject is defined, for messages and annotations;
	// "" when it has no file.
	File string
	// ActualName names the actual trace in a diff's header; "" is
	// "actual <ID>".
	ActualName string
	// Render produces the actual trace.
	Render func() Actual
	// Compare compares the golden (expected) with the actual bytes and
	// returns nil when they match. nil means byte for byte: golden.Compare.
	Compare func(expected, actual []byte, expName, actName string) *golden.Drift
	// Tolerant says the golden is a tolerant golden (a tolerant case's):
	// its diff page compares it as tracecheck diff --normalize does.
	Tolerant bool
	// Repeat is how many times the subject is rendered and compared (a
	// command case's "repeat"); 0 and 1 are once. Render is run 1, Again
	// renders run 2 to Repeat. Only run 1 is ever written as a golden.
	Repeat int
	Again  func(run int) Actual
	// Group names the subjects whose runs are the same runs (a case's
	// id): a run of the group passes when each of them passes it
	// (Report.Reliability).
	Group string
}

// golden is the subject's golden name.
func (s *Subject) golden() string {
	if s.Golden != "" {
		return s.Golden
	}
	return s.ID
}

// Actual is what a subject rendered.
type Actual struct {
	// Bytes is the trace to compare; nil when none could be produced.
	Bytes []byte
	// Events is the number of events in Bytes.
	Events int
	// Invalid holds the reasons the render cannot stand as a golden; when
	// it is non-empty the subject is INVALID and nothing of it is written.
	Invalid []string
	// Golden is what an update writes as the golden when it is not Bytes
	// (a tolerant case writes the tolerant form of its trace); nil is
	// Bytes.
	Golden []byte
}

// Status is a result's verdict, as --format json spells it.
type Status string

// Statuses. Text output upper-cases the failing ones.
const (
	StatusOK       Status = "ok"
	StatusDrift    Status = "drift"
	StatusMissing  Status = "missing"
	StatusInvalid  Status = "invalid"
	StatusCreated  Status = "created"
	StatusUpdated  Status = "updated"
	StatusObsolete Status = "obsolete" // a golden no subject renders
	StatusRemoved  Status = "removed"  // such a golden, deleted
)

// Result is one line of the report: a subject, or an unreferenced golden.
type Result struct {
	ID   string `json:"id,omitempty"`
	Kind string `json:"kind,omitempty"`
	// Golden is the golden's name when it is not ID.
	Golden string `json:"golden,omitempty"`
	Status Status `json:"status"`
	// Failed says whether this result fails the run (an obsolete golden
	// does only with --unreferenced=reject).
	Failed bool `json:"failed"`
	Events int  `json:"events,omitempty"`
	// File is the golden's path.
	File string `json:"file"`
	// Source is where the subject is defined.
	Source   string        `json:"source,omitempty"`
	Drift    *golden.Drift `json:"drift,omitempty"`
	Problems []string      `json:"problems,omitempty"`
	// Pending is the pending golden written for review in this run.
	Pending string `json:"pending,omitempty"`
	// RemovedPending is a pending golden of an earlier run removed because
	// the subject now passes (or its golden was just written).
	RemovedPending string `json:"removed_pending,omitempty"`
	// Artifacts are the files kept in Options.Artifacts.
	Artifacts []string `json:"artifacts,omitempty"`
	// Repeat is how each run of a subject run more than once went (a
	// command case's "repeat"); nil for one run. Status, Events, Drift,
	// Problems and Artifacts are then those of the run Repeat.Shown, the
	// first that failed (else run 1), so that the detail kept is bounded.
	Repeat *Repeat `json:"repeat,omitempty"`
}

// fixable reports whether writing the render as the golden would make the
// result pass. Of a subject run more than once only run 1 is written: that
// fixes it when run 1 is what failed and no run was INVALID (a run that
// passed beside one that failed is flakiness, which no golden fixes).
func (r *Result) fixable() bool {
	if r.Status != StatusDrift && r.Status != StatusMissing {
		return false
	}
	if r.Repeat == nil {
		return true
	}
	first := r.Repeat.Runs[0].Status
	if first != StatusDrift && first != StatusMissing {
		return false
	}
	for _, run := range r.Repeat.Runs {
		if run.Status == StatusInvalid {
			return false
		}
	}
	return true
}

// fails reports whether a result of this status fails the run (an
// obsolete golden's depends on the mode: see settle).
func (s Status) fails() bool {
	return s == StatusDrift || s == StatusMissing || s == StatusInvalid
}

// Options says how Run writes and what it checks besides the subjects.
type Options struct {
	// Update is the update mode asked for; CI resolves auto.
	Update UpdateMode
	CI     bool
	// Unreferenced is what to do with a golden no subject renders.
	Unreferenced UnreferencedMode
	// Filtered is set when the subjects are a selection (ids were named):
	// the unreferenced check then cannot run.
	Filtered bool
	// MixedOrigins, when not "", says why the subjects and the goldens do
	// not come from the same place (see Locations.MixedOrigins): the
	// unreferenced check then cannot run.
	MixedOrigins string
	// Artifacts is a directory (it must exist) where the actual trace of
	// every subject that differed, and its golden, are kept; "" for none.
	Artifacts string
	// DiffPage, when set, also writes <id>.diff.html beside a differing
	// subject's two artifacts: the page of the golden against the render,
	// the golden a tolerant one when the subject says so (view.WriteDiffFile
	// has this shape).
	DiffPage func(path string, expected, actual []byte, expName, actName string, tolerant bool) error
	// Notes receives what Run says as it acts, before it acts (the goldens
	// it is about to delete); nil discards it.
	Notes io.Writer
	// Shard, when not "", is the shard ("2/3") the subjects are: a part
	// of the run, so the unreferenced check cannot run (tracecheck merge
	// runs it on every shard's result; see Merge).
	Shard string
}

// Report is what Run found and did.
type Report struct {
	// Scenarios, Cases and Goldens say where the subjects and the goldens
	// came from; the caller fills them (see Locate). Scenarios is nil when
	// no scenario ran, Cases when no case did.
	Scenarios *Origin `json:"scenarios,omitempty"`
	Cases     *Origin `json:"cases,omitempty"`
	Goldens   *Origin `json:"goldens,omitempty"`
	// Counted is how many scenarios and cases the run checked, for the
	// first line of the text report; the caller fills it (Merge from the
	// plan).
	Counted Counts `json:"-"`
	// GoldenDir and Embedded repeat Goldens in the form earlier versions
	// wrote.
	GoldenDir string `json:"golden_dir"`
	Embedded  bool   `json:"embedded"`
	CI        bool   `json:"ci"`
	// Update is the mode asked for; Writes what it came to: "golden",
	// "pending" or "none".
	Update       UpdateMode         `json:"update"`
	Writes       Writes             `json:"writes"`
	Unreferenced UnreferencedReport `json:"unreferenced"`
	Artifacts    string             `json:"artifacts_dir,omitempty"`
	OK           bool               `json:"ok"`
	Results      []Result           `json:"results"`
	// Reliability is pass^k of each case run more than once; nil when no
	// case was.
	Reliability *Reliability `json:"reliability,omitempty"`
	// Next is the command that would fix what failed, when there is one
	// (see NextStep); the caller fills it.
	Next *Step `json:"next_step,omitempty"`
}

// Counts are how many scenarios and cases a run checked.
type Counts struct{ Scenarios, Cases int }

// UnreferencedReport says whether the unreferenced check ran, and if not,
// why.
type UnreferencedReport struct {
	Mode    UnreferencedMode `json:"mode"`
	Checked bool             `json:"checked"`
	Skipped string           `json:"skipped,omitempty"`
}

// Run checks every subject against its golden in store, writes what opts
// asks for, checks for unreferenced goldens when it may, and reports.
func Run(subjects []Subject, store *golden.Store, opts Options) *Report {
	writes := opts.Update.Writes(opts.CI)
	if store.Embedded() {
		writes = WritesNone
	}
	rep := &Report{
		GoldenDir:    store.String(),
		Embedded:     store.Embedded(),
		CI:           opts.CI,
		Update:       opts.Update,
		Writes:       writes,
		Unreferenced: UnreferencedReport{Mode: opts.Unreferenced},
		Artifacts:    opts.Artifacts,
		Results:      make([]Result, 0, len(subjects)), // [] in JSON, never null
	}
	invalid := 0
	for _, s := range subjects {
		r := check(s, store, writes, opts)
		if r.Status == StatusInvalid {
			invalid++
		}
		rep.Results = append(rep.Results, r)
	}
	rep.settle(opts, invalid, func() []Result { return unreferenced(store, nil, referenced(subjects), opts) })
	return rep
}

// settle checks for unreferenced goldens when it may (obsolete lists
// them, and deletes them as opts says) and decides which results fail the
// run.
func (rep *Report) settle(opts Options, invalid int, obsolete func() []Result) {
	switch {
	case opts.Shard != "":
		rep.Unreferenced.Skipped = "this run is shard " + opts.Shard + ", which sees only its own part of the scenarios and cases: tracecheck merge decides, across every shard's --result"
	case opts.Filtered:
		rep.Unreferenced.Skipped = "ids were named: it needs a full run"
	case opts.MixedOrigins != "":
		rep.Unreferenced.Skipped = opts.MixedOrigins
	case invalid > 0:
		rep.Unreferenced.Skipped = fmt.Sprintf("%d INVALID: a golden of theirs would look unreferenced", invalid)
	default:
		rep.Unreferenced.Checked = true
		rep.Results = append(rep.Results, obsolete()...)
	}

	rep.OK = true
	for i := range rep.Results {
		r := &rep.Results[i]
		switch {
		case r.Status.fails():
			r.Failed = true
		case r.Status == StatusObsolete:
			r.Failed = opts.Unreferenced == UnreferencedReject || len(r.Problems) > 0
		}
		if r.Failed {
			rep.OK = false
		}
	}
	rep.Reliability = reliability(rep.Results)
}

// referenced is the set of golden names the subjects render.
func referenced(subjects []Subject) map[string]bool {
	out := make(map[string]bool, len(subjects))
	for i := range subjects {
		out[subjects[i].golden()] = true
	}
	return out
}

// check renders, compares and writes one subject: run 1 as a single run
// goes, then the other runs of a repeated subject (checkRuns).
func check(s Subject, store *golden.Store, writes Writes, opts Options) Result {
	name := s.golden()
	res := Result{ID: s.ID, Kind: s.Kind, File: store.Path(name), Source: s.File}
	if name != s.ID {
		res.Golden = name
	}
	want, readErr := store.Read(name)
	act := s.Render()
	first := s.judge(act, want, readErr, res.File)
	res.Status, res.Drift, res.Problems, res.Events = first.status, first.drift, first.problems, act.Events
	if s.Repeat <= 1 || s.Again == nil { // a subject that cannot render again runs once
		if first.keep {
			keep(&res, opts, first.expected, act.Bytes, s.Tolerant)
		}
		if first.status != StatusInvalid {
			write(&res, store, name, writes, act)
		}
		return res
	}
	return checkRuns(s, store, writes, opts, res, first, want, readErr)
}

// verdict is one render judged against the golden, before anything is
// written for it.
type verdict struct {
	act      Actual
	status   Status // ok, drift, missing or invalid
	drift    *golden.Drift
	problems []string
	// expected is the golden it was compared with (nil when there was
	// none); keep says its traces go to the artifacts (it did not match).
	expected []byte
	keep     bool
}

// judge compares a render with the golden want (readErr: the error
// reading it); file names the golden.
func (s *Subject) judge(act Actual, want []byte, readErr error, file string) verdict {
	v := verdict{act: act}
	switch {
	case len(act.Invalid) > 0:
		// An invalid render is never written, whatever the mode.
		v.status, v.problems, v.keep = StatusInvalid, act.Invalid, true
	case errors.Is(readErr, fs.ErrNotExist):
		v.status, v.keep = StatusMissing, true
	case readErr != nil:
		v.status, v.problems = StatusInvalid, []string{"reading the golden: " + readErr.Error()}
	default:
		cmp := s.Compare
		if cmp == nil {
			cmp = golden.Compare
		}
		actName := s.ActualName
		if actName == "" {
			actName = "actual " + s.ID
		}
		v.status, v.expected = StatusOK, want
		if v.drift = cmp(want, act.Bytes, file, actName); v.drift != nil {
			v.status, v.keep = StatusDrift, true
		}
	}
	return v
}

// write writes what the mode asks for a render res judged (not INVALID):
// the golden or the pending golden when it differs or has none, and the
// removal of a stale pending golden when it passes or was written.
func write(res *Result, store *golden.Store, name string, writes Writes, act Actual) {
	capture := act.Golden
	if capture == nil {
		capture = act.Bytes
	}
	switch {
	case writes == WritesNone:
	case res.Status == StatusOK:
		removeStalePending(res, store, name)
	case writes == WritesGolden:
		created := res.Status == StatusMissing
		if _, err := store.Write(name, capture); err != nil {
			res.Problems = append(res.Problems, "writing the golden: "+err.Error())
			return
		}
		res.Status, res.Drift = StatusUpdated, nil
		if created {
			res.Status = StatusCreated
		}
		removeStalePending(res, store, name)
	case writes == WritesPending:
		if err := store.WritePending(name, capture); err != nil {
			res.Problems = append(res.Problems, "writing the pending golden: "+err.Error())
			return
		}
		res.Pending = store.PendingPath(name)
	}
}

func removeStalePending(res *Result, store *golden.Store, name string) {
	removed, err := store.RemovePending(name)
	switch {
	case err != nil:
		res.Problems = append(res.Problems, "removing the stale pending golden: "+err.Error())
	case removed:
		res.RemovedPending = store.PendingPath(name)
	}
}

// keep writes a differing subject's actual trace, and the golden it was
// compared with, into the artifacts directory: <id>.actual.jsonl and
// <id>.expected.jsonl (names that are never taken for goldens), and the
// diff page of the two when opts asks for one (a tolerant golden's page
// when tolerant).
func keep(res *Result, opts Options, expected, actual []byte, tolerant bool) {
	keepTraces(res, opts.Artifacts, expected, actual)
	keepDiffPage(res, opts, expected, actual, tolerant)
}

func keepTraces(res *Result, dir string, expected, actual []byte) {
	if dir == "" || (expected == nil && actual == nil) {
		return
	}
	if res.ID == "" || res.ID != filepath.Base(res.ID) || strings.HasPrefix(res.ID, ".") {
		res.Problems = append(res.Problems, "not kept as an artifact: the id is not a plain file name")
		return
	}
	for _, f := range []struct {
		suffix string
		data   []byte
	}{{".actual.jsonl", actual}, {".expected.jsonl", expected}} {
		if f.data == nil {
			continue
		}
		path := filepath.Join(dir, res.ID+f.suffix)
		if err := atomicfile.Write(path, f.data, 0o644); err != nil {
			res.Problems = append(res.Problems, "keeping an artifact: "+err.Error())
			continue
		}
		res.Artifacts = append(res.Artifacts, path)
	}
}

// keepDiffPage writes <id>.diff.html beside the artifacts keep wrote, when
// opts asks for it and both traces were kept.
func keepDiffPage(res *Result, opts Options, expected, actual []byte, tolerant bool) {
	if opts.DiffPage == nil || len(res.Artifacts) != 2 {
		return
	}
	path := filepath.Join(opts.Artifacts, res.ID+".diff.html")
	if err := opts.DiffPage(path, expected, actual, res.File, res.Artifacts[0], tolerant); err != nil {
		res.Problems = append(res.Problems, "keeping the diff page: "+err.Error())
		return
	}
	res.Artifacts = append(res.Artifacts, path)
}

// unreferenced reports (or deletes) the goldens of store that no subject
// renders: the names of onDisk (nil: the goldens store lists) that are not
// in referenced. Deletion is announced on opts.Notes before it happens.
func unreferenced(store *golden.Store, onDisk []string, referenced map[string]bool, opts Options) []Result {
	ids := onDisk
	if ids == nil {
		var err error
		if ids, err = store.IDs(); err != nil {
			return []Result{{Status: StatusObsolete, File: store.String(), Problems: []string{"listing the goldens: " + err.Error()}}}
		}
	}
	var out []Result
	for _, id := range ids {
		if referenced[id] {
			continue
		}
		out = append(out, Result{Status: StatusObsolete, File: store.Path(id), ID: id})
	}
	if opts.Unreferenced != UnreferencedDelete || len(out) == 0 {
		for i := range out {
			out[i].ID = ""
		}
		return out
	}
	notes := opts.Notes
	if notes == nil {
		notes = io.Discard
	}
	fmt.Fprintf(notes, "removing %d unreferenced golden(s), which no scenario or case renders (--unreferenced=delete):\n", len(out))
	for _, r := range out {
		fmt.Fprintf(notes, "  %s\n", quote(r.File))
	}
	for i := range out {
		r := &out[i]
		if err := store.Remove(r.ID); err != nil {
			r.Problems = []string{"removing: " + err.Error()}
		} else {
			r.Status = StatusRemoved
		}
		r.ID = ""
	}
	return out
}
