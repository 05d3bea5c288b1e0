package exercise

import (
	"fmt"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

func exerciseE() *Exercise {
	return &Exercise{
		ID:     "E",
		Slug:   "duplicate-delivery",
		Title:  "Duplicate delivery",
		Source: "the curriculum's lesson s07, exercise E",
		Statement: `Networks retry. Design append(event) with a stable event ID against a store
you keep for the length of the run (one list of events per session; sessions
start empty), with this policy, tracecheck's session store's:

  stored event_id?   same event?   answer
  no                 -             store it, then {"result": "appended"}
  yes                yes           store nothing, {"result": "duplicate"}
  yes                no            store nothing, the error CONFLICT

Two deliveries are the same event when they are the same JSON value: member
order and spacing do not matter, every member's value does. The duplicate check
comes before any other: a retry of an old event is a duplicate, not a sequence
gap. event_ids are unique per session, not across sessions. The acknowledgement
point: answer "appended" only once the event is stored (in tracecheck's store:
written and fsynced); a process that answers first can lose an acknowledged
event. Op append {session_id, event}.`,
		Ops: []string{"append"},
		Criteria: []*Criterion{
			{
				Name:   "appends-new-events",
				Accept: "each new event of a session is appended",
				Hint: `Keep, per session_id, the events stored so far (a dict from event_id to the event is
enough here). An event_id not stored yet is stored and answered "appended".`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for i := range 3 {
						ev := g.journal(shape{Streaming: true, Noise: true})
						cs = append(cs, appendCase(g.caseName(i, fmt.Sprintf("%d new events", len(ev))), appendAll(ev)))
					}
					return cs
				},
			},
			{
				Name:   "identical-retry-is-duplicate",
				Accept: "an identical retry of a stored event is answered duplicate, whatever its member order",
				Hint: `Compare the retry with the stored event as values, not as text (Python: the parsed
dicts; elsewhere: a canonical encoding with sorted keys). Answer "duplicate" and store
nothing.`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for i := range 3 {
						ev := g.journal(shape{Noise: true})
						j := g.Intn(len(ev) - 1)
						steps := appendAll(ev[:len(ev)-1])
						steps = append(steps, ev[len(ev)-2], ev[j], reorder(ev[j]))
						steps = append(steps, appendAll(ev[len(ev)-1:])...)
						steps = append(steps, reorder(ev[len(ev)-1]))
						cs = append(cs, appendCase(g.caseName(i, fmt.Sprintf("retries of events %d and %d (one with its members reordered)", len(ev)-2, j)), steps))
					}
					return cs
				},
			},
			{
				Name:   "conflicting-duplicate-rejected",
				Accept: "a different event under a stored event_id is refused (CONFLICT)",
				Hint: `Same event_id, different value: refuse with the code CONFLICT, whatever differs (the
payload, the timestamp, the type, even the sequence: the duplicate check comes first).`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for i := range 4 {
						ev := g.journal(shape{Noise: true})
						j := g.Intn(len(ev))
						bad, what := conflicting(ev[j], i)
						steps := append(appendAll(ev), bad)
						cs = append(cs, appendCase(g.caseName(i, fmt.Sprintf("event %d again with %s", j, what)), steps))
					}
					return cs
				},
			},
			{
				Name:   "conflict-writes-nothing",
				Accept: "after a refused conflict the stored event is unchanged and the session goes on",
				Hint: `A refused event must leave no trace: the original stays stored (its retry is still a
duplicate, the conflicting one is still refused) and the next new event is appended.`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for i := range 3 {
						ev := g.journal(shape{Noise: true})
						j := g.Intn(len(ev) - 1)
						bad, what := conflicting(ev[j], i)
						steps := appendAll(ev[:len(ev)-1])
						steps = append(steps, bad, ev[j], bad, ev[len(ev)-1])
						cs = append(cs, appendCase(g.caseName(i, fmt.Sprintf("event %d with %s, then the original, then the next event", j, what)), steps))
					}
					return cs
				},
			},
			{
				Name:   "sessions-are-separate",
				Accept: "an event_id stored in one session is new in another",
				Hint: `Key the store by session_id first: two sessions may both hold evt-000 (every reference
session does).`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for i := range 2 {
						a, b := g.journal(shape{}), g.journal(shape{})
						steps := append(appendAll(a), appendAll(b)...)
						steps = append(steps, a[len(a)-1], b[0])
						cs = append(cs, appendCase(g.caseName(i, "two sessions with the same event_ids"), steps))
					}
					return cs
				},
			},
		},
	}
}

func appendAll(events []jsonv.Value) []jsonv.Value { return append([]jsonv.Value(nil), events...) }

// appendCase appends each event of steps in turn to its own session,
// comparing every answer with tracecheck's store.
func appendCase(name string, steps []jsonv.Value) Case {
	return Case{Name: name, Run: func(k *conn) error {
		for _, e := range steps {
			if _, err := k.expect(nil, "append", jsonv.M("session_id", member(e, "session_id")), jsonv.M("event", e)); err != nil {
				return err
			}
		}
		return nil
	}}
}

// reorder returns v with the members of every object in reverse order: the
// same JSON value written differently.
func reorder(v jsonv.Value) jsonv.Value {
	switch v.Kind() {
	case jsonv.Object:
		ms := v.Members()
		out := make([]jsonv.Member, len(ms))
		for i, m := range ms {
			out[len(ms)-1-i] = jsonv.M(m.Key, reorder(m.Value))
		}
		return jsonv.Obj(out...)
	case jsonv.Array:
		es := v.Elems()
		out := make([]jsonv.Value, len(es))
		for i, e := range es {
			out[i] = reorder(e)
		}
		return jsonv.Arr(out...)
	}
	return v
}

// conflicting returns a different event under e's event_id, the i-th of
// four kinds of difference, and says what differs.
func conflicting(e jsonv.Value, i int) (jsonv.Value, string) {
	switch i % 4 {
	case 0:
		return e.With("payload", member(e, "payload").With("retry_note", jsonv.Str("not the same event"))), "another payload"
	case 1:
		return e.With("timestamp", jsonv.Str(Stamp(9999))), "another timestamp"
	case 2:
		return e.With("type", jsonv.Str("agent.message")), "another type"
	default:
		n, _ := member(e, "sequence").Int64()
		return e.With("sequence", jsonv.Int(n+100)), "another sequence"
	}
}
