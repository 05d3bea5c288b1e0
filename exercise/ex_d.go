package exercise

import (
	"fmt"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

func exerciseD() *Exercise {
	return &Exercise{
		ID:     "D",
		Slug:   "stable-branch-identity",
		Title:  "Stable branch identity",
		Source: "the curriculum's lesson s07, exercise D",
		Statement: `A branch is lineage, not a copied transcript: it records which exact prefix
of the parent it inherits (the lesson's SessionBranch):

  branch_id             as requested
  parent_session_id     the journal's session_id
  parent_run_id         the journal's provenance.run_id
  fork_sequence         as requested: the last inherited sequence
  inherited_event_ids   the event_id of events 0..fork_sequence
  parent_fingerprint    the fingerprint of events 0..fork_sequence

Op branch {events, fork_sequence, branch_id} answers {"branch": {...}}. A blank
branch_id (empty or white space) is the error BLANK_BRANCH_ID, a fork_sequence
outside the journal OUT_OF_RANGE. The lesson's acceptance: two branches at the
same sequence with different ids have the same parent fingerprint and inherited
event ids, and different branch ids.`,
		Ops: []string{"branch"},
		Criteria: []*Criterion{
			{
				Name:   "branch-record",
				Accept: "a branch record names the parent, the fork and exactly the inherited prefix",
				Hint: `Replay through fork_sequence, then record the ids of events 0..fork_sequence and the
fingerprint of exactly that prefix (exercise B's fingerprint with through = fork_sequence).`,
				Cases: func(g *Gen) []Case {
					s07 := g.Fx.Journal("golden s07-session-replay").Events
					cs := []Case{branchCase("s07 at sequence 2, the reference's branch-alternative-response", s07, 2, "branch-alternative-response")}
					for _, t := range g.Fx.Journals {
						fork := int64(g.Intn(len(t.Events)))
						cs = append(cs, branchCase(fmt.Sprintf("%s at sequence %d", t.Name, fork), t.Events, fork, "branch-"+g.hex(6)))
					}
					for i := range 4 {
						ev := g.journal(shape{Streaming: true, Noise: true})
						fork := int64(g.Intn(len(ev)))
						cs = append(cs, branchCase(g.caseName(i, fmt.Sprintf("sequence %d of %d events", fork, len(ev))), ev, fork, "branch-"+g.hex(6)))
					}
					return cs
				},
			},
			{
				Name:   "same-fork-same-lineage",
				Accept: "two branches at one sequence differ only in branch_id",
				Hint: `The lineage depends on the parent prefix alone. Do not derive anything from a counter,
the clock or an earlier request: the same request must always get the same record.`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for i := range 4 {
						ev := g.journal(shape{Noise: true})
						fork := int64(g.Intn(len(ev)))
						a, b := "branch-a-"+g.hex(4), "branch-b-"+g.hex(4)
						cs = append(cs, Case{
							Name: g.caseName(i, fmt.Sprintf("branches %s and %s at sequence %d", a, b, fork)),
							Run: func(k *conn) error {
								for _, id := range []string{a, b, a} {
									if _, err := k.expect(nil, "branch", branchFields(ev, fork, id)...); err != nil {
										return err
									}
								}
								return nil
							},
						})
					}
					return cs
				},
			},
			{
				Name:   "rejects-bad-branch",
				Accept: "a blank branch_id or a fork_sequence outside the journal is refused",
				Hint: `Check the branch_id first (empty, or only spaces and tabs: BLANK_BRANCH_ID), then that
fork_sequence is a sequence of the journal (OUT_OF_RANGE).`,
				Cases: func(g *Gen) []Case {
					ev := g.journal(shape{})
					n := int64(len(ev))
					return []Case{
						branchCase("an empty branch_id", ev, 1, ""),
						branchCase("a branch_id of spaces and a tab", ev, 1, "  \t "),
						branchCase(fmt.Sprintf("fork_sequence %d of %d events", n, n), ev, n, "branch-"+g.hex(4)),
						branchCase("fork_sequence -1", ev, -1, "branch-"+g.hex(4)),
					}
				},
			},
		},
	}
}

func branchFields(events []jsonv.Value, fork int64, id string) []jsonv.Member {
	return []jsonv.Member{
		jsonv.M("events", eventsValue(events)),
		jsonv.M("fork_sequence", jsonv.Int(fork)),
		jsonv.M("branch_id", jsonv.Str(id)),
	}
}

func branchCase(name string, events []jsonv.Value, fork int64, id string) Case {
	return Case{Name: name, Run: func(k *conn) error {
		_, err := k.expect(nil, "branch", branchFields(events, fork, id)...)
		return err
	}}
}
