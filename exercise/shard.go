package exercise

import (
	"encoding/json"

	"github.com/tracecheck/tracecheck/exercise/subject"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/shard"
)

// A sharded conform splits the catalogue's criteria (by id, "B2"; see
// package shard): each shard starts the subject once and checks its own
// criteria of every exercise the subject supports. The cases of a
// criterion come from the seed, the fixtures and the criterion's id alone,
// and every case gets sessions of its own, so a criterion checks the same
// whichever shard runs it: merged, the shards give the report of one
// conform, except the request ids of a failure (each shard numbers its
// own requests), the subject's stderr tail (the first failing or broken
// shard's) and, when a subject breaks the protocol, the exercises after
// the break (one conform stops there; merged, the other shards' go on).

// Plan is every criterion of the catalogue, in order: what a sharded
// conform splits.
func Plan() []shard.Planned {
	var out []shard.Planned
	for _, ex := range Catalog() {
		for i := range ex.Criteria {
			out = append(out, shard.Planned{ID: ex.CriterionID(i)})
		}
	}
	return out
}

// Digest is the digest of a conform run's inputs: each criterion's id and
// name, each fixture's name and events, the seed and the subject's command
// line (every shard must draw the same cases).
func Digest(cfg Config) *shard.Digest {
	d := shard.NewDigest(shard.Conform)
	for _, ex := range Catalog() {
		for i, c := range ex.Criteria {
			d.Add("criterion", ex.CriterionID(i), []byte(c.Name))
		}
	}
	if cfg.Fixtures != nil {
		for _, t := range cfg.Fixtures.Sessions {
			var b []byte
			for _, e := range t.Events {
				b = e.AppendJSON(b)
				b = append(b, '\n')
			}
			d.Add("fixture", t.Name, b)
		}
	}
	seed, _ := json.Marshal(cfg.Seed)
	argv, _ := json.Marshal(cfg.Argv)
	d.Add("setting", "seed", seed)
	d.Add("setting", "subject", argv)
	return d
}

// Settings are what every shard of a conform shares (a result file's
// "run").
type Settings struct {
	Argv []string `json:"subject_command"`
	Seed int64    `json:"seed"`
}

// Head is an exercise without its criteria, as each of its criteria's
// item carries it.
type Head struct {
	ID      string   `json:"id"`
	Slug    string   `json:"slug"`
	Title   string   `json:"title"`
	Status  Status   `json:"status"`
	Missing []string `json:"missing_ops,omitempty"`
}

// Part is what a shard of conform says of its subject as a whole (a
// result file's "part").
type Part struct {
	Hello    *subject.Hello `json:"subject"`
	Status   Status         `json:"status"`
	Message  string         `json:"message,omitempty"`
	Protocol string         `json:"protocol_error,omitempty"`
	Stderr   []string       `json:"stderr_tail"`
}

// Item is one criterion's report in a result file: its exercise and its
// result (nil when the exercise was skipped).
type Item struct {
	ID        string           `json:"-"`
	Exercise  Head             `json:"exercise"`
	Criterion *CriterionResult `json:"criterion"`
}

// PartOf is what r, one shard's conform, says of its subject.
func PartOf(r *Report) Part {
	return Part{Hello: r.Hello, Status: r.Status, Message: r.Message, Protocol: r.Protocol, Stderr: r.Stderr}
}

// Items are the reports of the criteria taken picks in r, a conform of
// them (RunConform with Config.Takes), in catalogue order: a criterion the
// run did not reach (the subject broke the protocol before) is NotRun.
func Items(r *Report, taken func(id string) bool) []Item {
	var out []Item
	for _, ex := range Catalog() {
		var res *ExerciseResult
		for i := range r.Exercises {
			if r.Exercises[i].ID == ex.ID {
				res = &r.Exercises[i]
			}
		}
		head := Head{ID: ex.ID, Slug: ex.Slug, Title: ex.Title, Status: NotRun}
		if res != nil {
			head.Status, head.Missing = res.Status, res.Missing
		}
		for i, crit := range ex.Criteria {
			id := ex.CriterionID(i)
			if !taken(id) {
				continue
			}
			it := Item{ID: id, Exercise: head}
			if head.Status != Skipped {
				cr := CriterionResult{ID: id, Name: crit.Name, Accept: crit.Accept, Hint: crit.Hint, Index: i, Status: NotRun}
				if res != nil {
					for _, c := range res.Criteria {
						if c.ID == id {
							cr = c
						}
					}
				}
				it.Criterion = &cr
			}
			out = append(out, it)
		}
	}
	return out
}

// MergeConform is the report of one conform from the items of every
// criterion of the catalogue (in catalogue order) that a sharded conform's
// shards kept, and its parts (by shard): each exercise with its
// criteria in order, failed when one failed, broken when one shard's
// subject broke the protocol on it; the run broken when a shard's was (its
// protocol error and stderr tail), else failed when an exercise failed.
func MergeConform(set Settings, items []Item, parts []Part) *Report {
	r := &Report{Command: "conform", Argv: set.Argv, Seed: set.Seed, Exercises: []ExerciseResult{}, Stderr: []string{}}
	byID := map[string]*ExerciseResult{}
	for _, it := range items {
		ex := byID[it.Exercise.ID]
		if ex == nil {
			r.Exercises = append(r.Exercises, ExerciseResult{ID: it.Exercise.ID, Slug: it.Exercise.Slug, Title: it.Exercise.Title,
				Status: Pass, Criteria: []CriterionResult{}})
			ex = &r.Exercises[len(r.Exercises)-1]
			for k := range r.Exercises {
				byID[r.Exercises[k].ID] = &r.Exercises[k]
			}
		}
		if it.Exercise.Status == Skipped {
			ex.Status, ex.Missing = Skipped, it.Exercise.Missing
			continue
		}
		if it.Criterion == nil {
			continue
		}
		ex.Criteria = append(ex.Criteria, *it.Criterion)
		switch {
		case it.Criterion.Status == Broken:
			ex.Status = Broken
		case it.Criterion.Status == Fail && ex.Status == Pass:
			ex.Status = Fail
		}
	}
	for i := range r.Exercises {
		if ex := &r.Exercises[i]; ex.Status == Skipped {
			ex.Criteria = []CriterionResult{}
		}
	}
	for _, p := range parts {
		if r.Hello == nil && p.Hello != nil {
			r.Hello = p.Hello
		}
	}
	var failing *Part
	for i := range parts {
		p := &parts[i]
		if p.Status == Broken {
			r.Status, r.Protocol, r.Stderr = Broken, p.Protocol, p.Stderr
			return r
		}
		if p.Status == Fail && failing == nil {
			failing = p
		}
	}
	r.Status = Pass
	for _, p := range parts {
		if p.Message != "" {
			r.Status, r.Message = Fail, p.Message
		}
	}
	for _, ex := range r.Exercises {
		if ex.Status == Fail {
			r.Status = Fail
		}
	}
	if failing != nil {
		r.Stderr = failing.Stderr
	} else if len(parts) > 0 && parts[0].Stderr != nil {
		r.Stderr = parts[0].Stderr
	}
	return r
}

// UnmarshalJSON reads a failure as MarshalJSON writes it.
func (f *Failure) UnmarshalJSON(b []byte) error {
	type plain Failure
	var aux struct {
		*plain
		Request json.RawMessage `json:"request"`
	}
	aux.plain = (*plain)(f)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	f.Request = jsonv.Value{}
	if len(aux.Request) > 0 && string(aux.Request) != "null" {
		v, err := jsonv.Parse(aux.Request)
		if err != nil {
			return err
		}
		f.Request = v
	}
	return nil
}
