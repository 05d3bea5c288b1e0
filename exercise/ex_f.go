package exercise

import (
	"fmt"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

func exerciseF() *Exercise {
	return &Exercise{
		ID:     "F",
		Slug:   "snapshot-acceleration",
		Title:  "Snapshot acceleration",
		Source: "the curriculum's lesson s07, exercise F",
		Statement: `Long journals make replay expensive. A checkpoint caches the projection at
sequence N so that only N+1 onward is replayed; it must record the reducer
version, the source sequence and fingerprint, and the serialized projection
(and, to check a tail, the source's session_id and run_id).

Op checkpoint {events, through} answers {"checkpoint": <any JSON>}; tracecheck
keeps it and later sends it back, re-encoded (member order may change), in op
replay_from_checkpoint {checkpoint, tail}, which answers {"state": {...}}. The
lesson's acceptance: replay from the checkpoint plus the tail equals replay
from event zero. A tail that does not continue the checkpoint (a gap, another
run or session) is refused with the code the whole journal would get.

The fingerprint of that state may be null: SHA-256 cannot be continued from a
digest (Go can keep the hash's state; Python's hashlib cannot), so tracecheck
compares it only when you give it.`,
		Ops: []string{"checkpoint", "replay_from_checkpoint"},
		Criteria: []*Criterion{
			{
				Name:   "checkpoint-plus-tail",
				Accept: "replay from a checkpoint plus the tail equals replay from event zero",
				Hint: `Store in the checkpoint what the view holds after event N (applied_sequences, messages,
tool results, stop_reason), then apply only the tail's events to it, with the same
reducer as replay. Keep the checkpoint plain JSON: it comes back re-encoded.`,
				Cases: func(g *Gen) []Case {
					s07 := g.Fx.Journal("golden s07-session-replay").Events
					cs := []Case{checkpointCase("lesson s07 exercise F: s07 checkpointed at sequence 2", s07, 2, s07[3:])}
					for _, t := range g.Fx.Journals {
						if len(t.Events) < 2 {
							continue
						}
						k := int64(g.Intn(len(t.Events) - 1)) // a tail of one event at least
						cs = append(cs, checkpointCase(fmt.Sprintf("%s checkpointed at sequence %d", t.Name, k), t.Events, k, t.Events[k+1:]))
					}
					for i := range 4 {
						ev := g.journal(shape{Streaming: true, Noise: true})
						k := int64(g.Intn(len(ev) - 1))
						cs = append(cs, checkpointCase(g.caseName(i, fmt.Sprintf("checkpointed at sequence %d of %d", k, len(ev))), ev, k, ev[k+1:]))
					}
					return cs
				},
			},
			{
				Name:   "empty-tail",
				Accept: "with an empty tail the checkpoint alone gives the view through its sequence",
				Hint: `With no tail, the answer is the checkpointed view itself: applied_sequences 0..N, and
stop_reason null when no session.stop came before N.`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for i := range 4 {
						ev := g.journal(shape{Noise: true})
						k := int64(len(ev) - 1)
						if i%2 == 1 {
							k = int64(g.Intn(len(ev) - 1))
						}
						cs = append(cs, checkpointCase(g.caseName(i, fmt.Sprintf("checkpointed at sequence %d of %d, no tail", k, len(ev))), ev[:k+1], k, nil))
					}
					return cs
				},
			},
			{
				Name:   "rejects-foreign-tail",
				Accept: "a tail that does not continue the checkpointed journal is refused",
				Hint: `Check each tail event as the journal would: its sequence must be the next after the
checkpoint's (SEQUENCE_GAP), its session_id and provenance.run_id the checkpoint's
(MIXED_SESSION, MIXED_RUN). That is why the checkpoint records where it stands.`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for i := range 3 {
						ev := g.journal(shape{Noise: true})
						k := int64(g.Intn(len(ev) - 2))
						tail := append([]jsonv.Value(nil), ev[k+1:]...)
						var what string
						switch i {
						case 0:
							tail = tail[1:]
							what = "the tail skips an event"
						case 1:
							for j := range tail {
								tail[j] = withMember(tail[j], jsonv.Str("run-other-"+g.hex(4)), "provenance", "run_id")
							}
							what = "the tail is another run's"
						default:
							for j := range tail {
								tail[j] = withMember(tail[j], jsonv.Str("session-other-"+g.hex(4)), "session_id")
							}
							what = "the tail is another session's"
						}
						cs = append(cs, checkpointCase(g.caseName(i, fmt.Sprintf("checkpointed at sequence %d; %s", k, what)), ev, k, tail))
					}
					return cs
				},
			},
		},
	}
}

// checkpointCase makes a checkpoint of events through sequence k, sends it
// back (re-encoded) with tail, and compares the answer with tracecheck's
// answer for events 0..k followed by tail, from event zero: the replay, or
// the journal's refusal.
func checkpointCase(name string, events []jsonv.Value, k int64, tail []jsonv.Value) Case {
	return Case{Name: name, Run: func(k2 *conn) error {
		okOnly := func(jsonv.Value) jsonv.Value { return jsonv.Obj() }
		cp, err := k2.expect(okOnly, "checkpoint", jsonv.M("events", eventsValue(events)), jsonv.M("through", jsonv.Int(k)))
		if err != nil {
			return err
		}
		got, err := k2.c.Call("replay_from_checkpoint", jsonv.M("checkpoint", reorder(cp.Get("checkpoint"))), jsonv.M("tail", eventsValue(tail)))
		if err != nil {
			return err
		}
		whole := append(append([]jsonv.Value(nil), events[:k+1]...), tail...)
		want := k2.oracle.Handle(jsonv.Obj(jsonv.M("id", jsonv.Int(1)), jsonv.M("op", jsonv.Str("replay")), jsonv.M("events", eventsValue(whole))))
		var view func(jsonv.Value) jsonv.Value
		if got.OK && member(member(got.Value, "state"), "fingerprint").Kind() == jsonv.Null {
			view = without("state", "fingerprint")
		}
		return k2.compare(got, want, view)
	}}
}
