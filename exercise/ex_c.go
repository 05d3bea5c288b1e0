package exercise

import (
	"fmt"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

func exerciseC() *Exercise {
	return &Exercise{
		ID:     "C",
		Slug:   "streaming-reducer",
		Title:  "Streaming reducer",
		Source: "the curriculum's lesson s07, exercise C",
		Statement: `Lesson s02 streams a response as one model.response per chunk, each with
{turn, delta, accumulated, final, tool_calls}. Replaying every chunk as an
assistant message would repeat the text. Make replay (exercise B's op) follow
the final-event rule:

  - a model.response with content is a whole response: its content is one
    assistant message;
  - otherwise only the chunk whose final is true counts, with its accumulated
    text; other chunks add nothing.

The lesson's acceptance: the s02 trace gives one assistant message equal to the
final accumulated text, not three delta messages. The whole state is compared,
fingerprint included.`,
		Ops: []string{"replay"},
		Criteria: []*Criterion{
			{
				Name:   "s02-one-message",
				Accept: "the s02 trace replays to one assistant message, the final accumulated text",
				Hint: `A model.response without content is a chunk. Append payload["accumulated"] for the chunk
whose final is true and nothing for the others; never append delta.`,
				Cases: func(g *Gen) []Case {
					s02 := g.Fx.Journal("golden s02-events-streaming").Events
					return []Case{replayCase("lesson s07 exercise C: the s02 trace", s02, nil, nil)}
				},
			},
			{
				Name:   "final-chunk-rule",
				Accept: "streamed and whole responses mixed in any order give one message per response",
				Hint: `Decide per event: content present (even "") means a whole response; else final is true
means the end of a stream. A stream that never sends its final chunk (the run stopped)
adds no message.`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for _, t := range g.Fx.Journals {
						if hasStreaming(t.Events) && t.Name != "golden s02-events-streaming" {
							cs = append(cs, replayCase(t.Name, t.Events, nil, nil))
						}
					}
					for i := range 5 {
						ev := streamingJournal(g)
						what := "streamed and whole responses"
						if i%2 == 1 {
							ev = setFinal(ev, jsonv.BoolValue(false))
							what = "a stream whose final chunk never came"
						}
						cs = append(cs, replayCase(g.caseName(i, what), ev, nil, nil))
					}
					return cs
				},
			},
			{
				Name:   "final-is-true",
				Accept: "only the JSON value true marks the final chunk (not 1, not \"true\")",
				Hint: `Test final with identity to true (Python: payload.get("final") is True), not truthiness:
1 and "true" are not the final chunk.`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for i, v := range []jsonv.Value{jsonv.Int(1), jsonv.Str("true")} {
						ev := setFinal(streamingJournal(g), v)
						cs = append(cs, replayCase(g.caseName(i, "a last chunk with final "+show(v)), ev, nil, nil))
					}
					return cs
				},
			},
		},
	}
}

// streamingJournal generates journals until one holds a streamed response.
func streamingJournal(g *Gen) []jsonv.Value {
	for {
		if ev := g.journal(shape{Streaming: true, Noise: true}); hasStreaming(ev) {
			return ev
		}
	}
}

// setFinal replaces final: true by v in the journal's last streamed
// response.
func setFinal(events []jsonv.Value, v jsonv.Value) []jsonv.Value {
	out := append([]jsonv.Value(nil), events...)
	for i := len(out) - 1; i >= 0; i-- {
		p := member(out[i], "payload")
		if member(out[i], "type").Text() == "model.response" && member(p, "final").IsTrue() {
			out[i] = out[i].With("payload", p.With("final", v))
			return out
		}
	}
	panic(fmt.Sprintf("exercise: no final chunk in %d events", len(events)))
}
