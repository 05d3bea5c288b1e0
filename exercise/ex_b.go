package exercise

import (
	"fmt"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

func exerciseB() *Exercise {
	return &Exercise{
		ID:     "B",
		Slug:   "partial-replay",
		Title:  "Partial replay",
		Source: "the curriculum's lesson s07, exercise B",
		Statement: `Replay a journal, or a prefix of it, into the replay view (the lesson's ReplayState):

  session_id, run_id      the journal's identity (run_id is provenance.run_id)
  applied_sequences       the sequence of every replayed event
  user_messages           user.message content
  assistant_messages      model.response content
  tool_results            tool.result payloads, whole, as recorded
  stop_reason             the last session.stop's reason ("unknown" without one);
                          null when no session.stop was replayed
  fingerprint             SHA-256 hex of Python's json.dumps(replayed_events,
                          ensure_ascii=False, sort_keys=True, separators=(",", ":"))

Op replay {events, through?} answers {"state": {...}}. through is inclusive; without
it every event is replayed; a through outside the journal is an error
(OUT_OF_RANGE). The lesson's acceptance: replaying s07 through sequence 2 gives
the user message, no assistant message, no stop reason and exactly three applied
sequences. (Streamed responses are exercise C.)`,
		Ops: []string{"replay"},
		Criteria: []*Criterion{
			{
				Name:   "partial-view",
				Accept: "replaying through a sequence gives the view of exactly events 0..through (fingerprint aside)",
				Hint: `Replay only events 0..through. applied_sequences lists every replayed event's sequence
whatever its type; a prefix without a session.stop has stop_reason null, not "unknown".`,
				Cases: func(g *Gen) []Case {
					s07 := g.Fx.Journal("golden s07-session-replay").Events
					cs := []Case{replayCase("lesson s07 exercise B: s07 through sequence 2", s07, ptr(2), without("state", "fingerprint"))}
					for i := range 5 {
						ev := g.journal(shape{Noise: true})
						t := int64(g.Intn(len(ev)))
						cs = append(cs, replayCase(g.caseName(i, fmt.Sprintf("through %d of a %d-event journal", t, len(ev))), ev, &t, without("state", "fingerprint")))
					}
					return cs
				},
			},
			{
				Name:   "whole-view",
				Accept: "replaying without through gives the view of every event (fingerprint aside)",
				Hint: `Without through, replay every event. Tool results are the tool.result payloads as
recorded, every member; a session.stop without a reason gives "unknown".`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for _, t := range g.Fx.Journals {
						if !hasStreaming(t.Events) {
							cs = append(cs, replayCase(t.Name, t.Events, nil, without("state", "fingerprint")))
						}
					}
					for i := range 4 {
						ev := g.journal(shape{Noise: true})
						if i == 0 {
							ev = withoutStopReason(ev)
						}
						cs = append(cs, replayCase(g.caseName(i, fmt.Sprintf("a %d-event journal", len(ev))), ev, nil, without("state", "fingerprint")))
					}
					return cs
				},
			},
			{
				Name:   "fingerprint",
				Accept: "the fingerprint is the reference's SHA-256 of exactly the replayed events",
				Hint: `sha256(json.dumps(events[:through+1], ensure_ascii=False, sort_keys=True,
separators=(",", ":")).encode("utf-8")).hexdigest(), over the events as received (every
member), not over your view. Outside Python: sort object keys at every level, no spaces,
non-ASCII written as is (no \u escapes), no HTML escaping (Go: SetEscapeHTML(false)), and
\n \t \" \\ \u0001 escaped as Python does.`,
				Cases: func(g *Gen) []Case {
					s07 := g.Fx.Journal("golden s07-session-replay").Events
					fp := only([]string{"state", "fingerprint"})
					cs := []Case{
						replayCase("s07 through sequence 4 (1288ae16...)", s07, ptr(4), fp),
						replayCase("s07 through sequence 2 (1e38d6f6...)", s07, ptr(2), fp),
					}
					for _, t := range g.Fx.Journals {
						if !hasStreaming(t.Events) {
							cs = append(cs, replayCase(t.Name, t.Events, nil, fp))
						}
					}
					for i := range 5 {
						ev := g.journal(shape{Noise: true})
						t := int64(g.between(len(ev)/2, len(ev)-1))
						cs = append(cs, replayCase(g.caseName(i, fmt.Sprintf("through %d of a %d-event journal", t, len(ev))), ev, &t, fp))
					}
					return cs
				},
			},
			{
				Name:   "through-out-of-range",
				Accept: "a through outside the journal is refused (OUT_OF_RANGE)",
				Hint: `through names a sequence of the journal, 0..n-1. Anything else is an error, not an empty
view and not a whole replay.`,
				Cases: func(g *Gen) []Case {
					ev := g.journal(shape{})
					n := int64(len(ev))
					far := n + int64(g.between(1, 5))
					return []Case{
						replayCase(fmt.Sprintf("through %d of a %d-event journal", n, n), ev, ptr(n), nil),
						replayCase(fmt.Sprintf("through %d of a %d-event journal", far, n), ev, ptr(far), nil),
						replayCase("through -1", ev, ptr(-1), nil),
					}
				},
			},
		},
	}
}

func ptr(n int64) *int64 { return &n }

// replayCase checks op replay on events (through when not nil).
func replayCase(name string, events []jsonv.Value, through *int64, view func(jsonv.Value) jsonv.Value) Case {
	fields := []jsonv.Member{jsonv.M("events", eventsValue(events))}
	if through != nil {
		fields = append(fields, jsonv.M("through", jsonv.Int(*through)))
	}
	return Case{Name: name, Run: func(k *conn) error {
		_, err := k.expect(view, "replay", fields...)
		return err
	}}
}

// withoutStopReason drops the reason of the journal's session.stop.
func withoutStopReason(events []jsonv.Value) []jsonv.Value {
	out := append([]jsonv.Value(nil), events...)
	for i, e := range out {
		if member(e, "type").Text() == "session.stop" {
			out[i] = e.With("payload", member(e, "payload").Without("reason"))
		}
	}
	return out
}
