package exercise

import (
	"fmt"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

func exerciseA() *Exercise {
	return &Exercise{
		ID:     "A",
		Slug:   "reject-sequence-gap",
		Title:  "Reject a sequence gap",
		Source: "the curriculum's lesson s07, exercise A",
		Statement: `Build the session journal (the lesson's SessionJournal) from a list of events and
refuse one that breaks an invariant before any view of it exists:

  - there is at least one event;
  - the sequences are exactly 0, 1, ..., n-1, in order;
  - every event has the first event's session_id and provenance.run_id;
  - a parent_event_id names an earlier event, and no event_id appears twice
    (the reference's trace validator adds these two; tracecheck's journal
    checks them too).

Op journal {events} answers {"ok": true} for a good journal and an error for a
bad one. The error's code is optional; when you give one it must be the code
of the first violation in event order: EMPTY_JOURNAL, SEQUENCE_GAP,
MIXED_SESSION, MIXED_RUN, PARENT_NOT_EARLIER or DUPLICATE_EVENT_ID.`,
		Ops: []string{"journal"},
		Criteria: []*Criterion{
			{
				Name:   "accepts-valid-journals",
				Accept: "every valid journal (the goldens, the reference traces, generated ones) is accepted",
				Hint: `Accept a journal when its sequences are exactly 0..n-1 and every event shares the first
event's session_id and provenance.run_id. Do not refuse what the invariants allow: event
types you do not know, payload members you do not read, no parent_event_id on the first
event.`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for _, t := range g.Fx.Journals {
						cs = append(cs, journalCase(t.Name, t.Events))
					}
					for i := range 4 {
						ev := g.journal(shape{Streaming: true, Noise: true})
						cs = append(cs, journalCase(g.caseName(i, fmt.Sprintf("a journal of %d events", len(ev))), ev))
					}
					return cs
				},
			},
			{
				Name:   "rejects-sequence-gap",
				Accept: "a journal whose sequences are not exactly 0..n-1 is refused (SEQUENCE_GAP)",
				Hint: `Compare the list of sequences with 0, 1, ..., n-1 (Python: list(range(len(events)))).
A journal that starts at 1, skips a number, repeats one or goes back is refused, whatever
else is right about it.`,
				Cases: func(g *Gen) []Case {
					s07 := g.Fx.Journal("golden s07-session-replay").Events
					lesson := append([]jsonv.Value(nil), s07[:3]...)
					lesson[2] = withMember(lesson[2], jsonv.Int(4), "sequence")
					cs := []Case{journalCase("lesson s07 exercise A: the first three events of s07, the last sequence 2 changed to 4", lesson)}
					kinds := []string{"a gap", "a start at 1", "a repeated sequence", "two events swapped"}
					for i := range 4 {
						ev := g.journal(shape{Noise: true})
						k := g.between(1, len(ev)-2)
						out := append([]jsonv.Value(nil), ev...)
						switch i % 4 {
						case 0:
							d := int64(g.between(1, 3))
							for j := k; j < len(out); j++ {
								out[j] = withMember(out[j], jsonv.Int(int64(j)+d), "sequence")
							}
						case 1:
							for j := range out {
								out[j] = withMember(out[j], jsonv.Int(int64(j)+1), "sequence")
							}
						case 2:
							for j := k; j < len(out); j++ {
								out[j] = withMember(out[j], jsonv.Int(int64(j)-1), "sequence")
							}
						case 3:
							out[k], out[k+1] = out[k+1], out[k]
						}
						cs = append(cs, journalCase(g.caseName(i, fmt.Sprintf("%s at event %d of %d", kinds[i%4], k, len(out))), out))
					}
					return cs
				},
			},
			{
				Name:   "rejects-mixed-identity",
				Accept: "a journal holding a second session_id or a second provenance.run_id is refused (MIXED_SESSION, MIXED_RUN)",
				Hint: `Collect the session_id and the provenance.run_id of every event: more than one of either
is an error. The run identity is provenance.run_id; there is no top-level run_id. This is
what stops two event files from being concatenated into one "resumable" run.`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for i := range 4 {
						ev := g.journal(shape{Noise: true})
						k := g.between(1, len(ev)-1)
						out := append([]jsonv.Value(nil), ev...)
						what := "a second session_id"
						if i%2 == 0 {
							out[k] = withMember(out[k], jsonv.Str("session-other-"+g.hex(4)), "session_id")
						} else {
							out[k] = withMember(out[k], jsonv.Str("run-other-"+g.hex(4)), "provenance", "run_id")
							what = "a second provenance.run_id"
						}
						cs = append(cs, journalCase(g.caseName(i, fmt.Sprintf("%s at event %d", what, k)), out))
					}
					return cs
				},
			},
			{
				Name:   "rejects-empty",
				Accept: "an empty journal is refused (EMPTY_JOURNAL)",
				Hint:   `A journal needs at least one event: the lesson's SessionJournal raises on an empty list.`,
				Cases: func(g *Gen) []Case {
					return []Case{journalCase("no events", nil)}
				},
			},
			{
				Name:   "rejects-broken-lineage",
				Accept: "a parent_event_id naming no earlier event, or an event_id seen before, is refused (PARENT_NOT_EARLIER, DUPLICATE_EVENT_ID)",
				Hint: `Keep the event_ids seen so far, in order: an event's parent_event_id (when it has one)
must be among them, and its own event_id must not be.`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for i := range 4 {
						ev := g.journal(shape{})
						k := g.between(1, len(ev)-2)
						out := append([]jsonv.Value(nil), ev...)
						var what string
						switch i % 3 {
						case 0:
							out[k] = withMember(out[k], member(ev[k+1], "event_id"), "parent_event_id")
							what = fmt.Sprintf("event %d's parent is the event after it", k)
						case 1:
							out[k] = withMember(out[k], jsonv.Str("evt-missing-"+g.hex(3)), "parent_event_id")
							what = fmt.Sprintf("event %d's parent is no event", k)
						default:
							j := g.Intn(k)
							out[k] = withMember(out[k], member(ev[j], "event_id"), "event_id")
							out[k+1] = withMember(out[k+1], member(ev[j], "event_id"), "parent_event_id")
							what = fmt.Sprintf("event %d reuses the event_id of event %d", k, j)
						}
						cs = append(cs, journalCase(g.caseName(i, what), out))
					}
					return cs
				},
			},
		},
	}
}

// journalCase checks op journal on events against the oracle.
func journalCase(name string, events []jsonv.Value) Case {
	return Case{Name: name, Run: func(k *conn) error {
		_, err := k.expect(nil, "journal", jsonv.M("events", eventsValue(events)))
		return err
	}}
}
