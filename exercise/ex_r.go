package exercise

import (
	"fmt"
	"strconv"

	"github.com/tracecheck/tracecheck/exercise/reference"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

func exerciseR() *Exercise {
	return &Exercise{
		ID:     "R",
		Slug:   "resume",
		Title:  "Resume a session",
		Source: "chapter 20 of the TypeScript harness (session replay and resume)",
		Statement: `A session (stable session_id) holds one or more runs (a new provenance.run_id
each). Resume continues it in a new run: rebuild the model-visible history
from the session file alone, answer every tool call that never got a result,
and append only what is new, never rewriting what is there.

Op resume {session_id, events, run_id, message}: events is the session file so
far, every run in order ([] when the store has no such session). Answer
{"appended": [events], "history": [messages]}:

  appended   the new run's events, in order, each a valid Trace 0.1.0 event:
             1. session.start: the last session.start's payload members
                (without resumed and resumes_run_id), then "resumed": true and
                "resumes_run_id": the last event's run_id; actor
                {"kind": "harness", "id": <agent_id>};
             2. per unanswered tool call, in call order, a tool.result with the
                call's own id: {"tool_call_id", "tool", "ok": false,
                "error": "Error [SESSION_RESUME_INTERRUPTED]: This tool call
                did not finish before the previous run on this session ended,
                so no output was recorded. Treat it as not executed and decide
                whether to retry it.", "error_type": "SessionResumeInterrupted"};
                actor the harness's (the tool never ran);
             3. the user.message {"content": message}, unless message is empty;
                actor the last user.message's ({"kind": "user", "id": "user"}
                when there is none).
             Sequences 0, 1, ...; event_id "evt-%03d" of the event's position in
             the whole session file (skipping ids already taken); each event's
             parent_event_id the one before it (none on the first); provenance
             the last event's with run_id replaced; trace_version "0.1.0";
             redaction {"status": "clean", "fields": []}. Timestamps are yours:
             any RFC 3339 date-time.
  history    the whole model-visible history after the resume, as
             {"role", "content", "name"?, "tool_call_id"?}: user.message gives a
             user message; a model response an assistant message (content, or
             the final chunk's accumulated); tool.result a tool message (name the
             tool, tool_call_id, content json.dumps(result if ok else {"ok":
             false, "error": ..., "error_type": ...}, ensure_ascii=False,
             sort_keys=True)).

An empty session is the error NOT_FOUND (nothing is created); a run_id the
session already holds is RUN_EXISTS. These two refusals must carry their
code: a refusal without one does not pass (it is what an op answers that is
not written yet).`,
		Ops: []string{"resume"},
		Criteria: []*Criterion{
			{
				Name:   "repairs-interrupted-call",
				Accept: "every interrupted tool call is answered once, with the exact SESSION_RESUME_INTERRUPTED result under its own call id",
				Hint: `Find the calls (model.response tool_calls, and tool.request for streamed responses) that
no tool.result answers. After the new session.start, append one tool.result per such
call, in call order, with the call's tool_call_id and tool and the exact error text.`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for _, t := range interruptedSessions(g) {
						cs = append(cs, resumeCase(t.Name, t.Events, g, repairsView))
					}
					return cs
				},
			},
			{
				Name:   "appends-new-run",
				Accept: "only new events are appended: a new run whose events continue the session file",
				Hint: `The new run starts at sequence 0 with the resume marker session.start; event ids go on
from the file's length; parent_event_id chains the new events; provenance is the last
event's with the new run_id. Never repeat an event that is already in the file.`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for _, t := range append(interruptedSessions(g), completeSessions(g)...) {
						cs = append(cs, resumeCase(t.Name, t.Events, g, appendedView))
					}
					return cs
				},
			},
			{
				Name:   "rebuilds-history",
				Accept: "the history is the whole model-visible history rebuilt from the file, the repairs and the new message",
				Hint: `Walk every run's events in order: user.message, one assistant message per response
(a stream's final chunk), tool messages whose content is json.dumps(..., ensure_ascii=False,
sort_keys=True) with the default ", " and ": " separators; then the repairs and the new
user message.`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for _, t := range append(completeSessions(g), interruptedSessions(g)...) {
						cs = append(cs, resumeCase(t.Name, t.Events, g, only([]string{"history"})))
					}
					return cs
				},
			},
			{
				Name:   "repairs-once",
				Accept: "resuming a session whose interruption is already repaired repairs nothing again",
				Hint: `The repair you appended is now a tool.result in the file: the call is answered, so the
next resume finds nothing to repair (rebuild from the file every time; keep no cache).`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					for _, t := range interruptedSessions(g) {
						res, err := reference.Resume(sessionOf(t.Events), t.Events, "run-first-resume-"+g.hex(4), "")
						if err != nil {
							continue
						}
						again := append(append([]jsonv.Value(nil), t.Events...), eventValues(res.Appended)...)
						cs = append(cs, resumeCase(t.Name+", resumed once already", again, g, appendedView))
					}
					for _, t := range g.Fx.Sessions {
						if holdsRepair(t.Events) && resumable(g, t.Events) {
							cs = append(cs, resumeCase(t.Name, t.Events, g, appendedView))
						}
					}
					return cs
				},
			},
			{
				Name:   "rejects-unknown-session",
				Accept: "resuming a session the store does not hold is refused with the code NOT_FOUND and creates nothing",
				Hint: `No events means no such session: refuse with the code NOT_FOUND instead of silently
starting a new one, which would lose the conversation the user thinks they continue. The
code is required: an error without one does not pass.`,
				Cases: func(g *Gen) []Case {
					id := "session-unknown-" + g.hex(6)
					return []Case{{Name: "no events for " + id, Run: func(k *conn) error {
						_, err := k.expectCode("resume", resumeFields(id, nil, "run-"+g.hex(6), "hello")...)
						return err
					}}}
				},
			},
			{
				Name:   "rejects-reused-run-id",
				Accept: "a run_id the session already holds is refused with the code RUN_EXISTS",
				Hint: `A resumed run is a new run: its run_id must not be one of the session's. Refuse with
the code RUN_EXISTS (required: an error without a code does not pass).`,
				Cases: func(g *Gen) []Case {
					var cs []Case
					all := completeSessions(g)
					for i, t := range []Trace{all[0], all[len(all)-1]} { // a fixture, a generated session
						events := t.Events
						run := runID(events[len(events)-1])
						cs = append(cs, Case{Name: fmt.Sprintf("%s with run_id %s again", t.Name, run), Run: func(k *conn) error {
							_, err := k.expectCode("resume", resumeFields(sessionOf(events), events, run, "again "+strconv.Itoa(i))...)
							return err
						}})
					}
					return cs
				},
			},
		},
	}
}

// interruptedSessions are sessions whose last run stopped between a
// tool.request and its tool.result: s03 cut there (the session store's
// interrupted-mid-tool-call fixture) and generated ones.
func interruptedSessions(g *Gen) []Trace {
	s03 := g.Fx.Journal("golden s03-tool-dispatch").Events
	cut := 0
	for i, e := range s03 {
		if member(e, "type").Text() == "tool.request" {
			cut = i + 1
			break
		}
	}
	out := []Trace{{Name: "s03 interrupted after its tool.request", Events: s03[:cut]}}
	for i := range 4 {
		sh := shape{Interrupt: true, Streaming: true, Noise: i%2 == 0, Runs: 1 + i%2}
		out = append(out, Trace{Name: g.caseName(i, fmt.Sprintf("a %d-run session interrupted mid tool call", sh.Runs)), Events: g.generate(sh)})
	}
	return out
}

// completeSessions are sessions that need no repair and hold none: the
// fixtures whose history tracecheck can rebuild (no system prompt, no
// compaction), and generated ones. (Sessions repaired before are
// repairs-once's.)
func completeSessions(g *Gen) []Trace {
	var out []Trace
	for _, t := range g.Fx.Sessions {
		if !holdsRepair(t.Events) && resumable(g, t.Events) {
			out = append(out, t)
		}
	}
	for i := range 2 {
		sh := shape{Streaming: true, Noise: true, Runs: 1 + i}
		out = append(out, Trace{Name: g.caseName(i, fmt.Sprintf("a complete %d-run session", sh.Runs)), Events: g.generate(sh)})
	}
	return out
}

// resumable reports whether tracecheck can resume events (it can rebuild
// their history).
func resumable(g *Gen, events []jsonv.Value) bool {
	_, err := reference.Resume(sessionOf(events), events, "run-probe-"+g.hex(4), "")
	return err == nil
}

// holdsRepair reports whether a session holds a resume's repair of an
// interrupted tool call.
func holdsRepair(events []jsonv.Value) bool {
	for _, e := range events {
		if member(member(e, "payload"), "error_type").Text() == reducer.InterruptedToolErrorType {
			return true
		}
	}
	return false
}

func sessionOf(events []jsonv.Value) string { return member(events[0], "session_id").Text() }

func resumeFields(session string, events []jsonv.Value, run, message string) []jsonv.Member {
	return []jsonv.Member{
		jsonv.M("session_id", jsonv.Str(session)),
		jsonv.M("events", eventsValue(events)),
		jsonv.M("run_id", jsonv.Str(run)),
		jsonv.M("message", jsonv.Str(message)),
	}
}

// resumeCase resumes events in a new run (with a new user message, or
// none for every third session) and compares view(response). Appended
// events must be valid Trace events; their timestamps are the subject's.
func resumeCase(name string, events []jsonv.Value, g *Gen, view func(jsonv.Value) jsonv.Value) Case {
	run := "run-resume-" + g.hex(6)
	message := ""
	if g.Intn(3) > 0 {
		message = g.text()
	}
	return Case{Name: name, Run: func(k *conn) error {
		got, want, err := k.exchange("resume", resumeFields(sessionOf(events), events, run, message)...)
		if err != nil {
			return err
		}
		if got.OK && member(want, "ok").IsTrue() {
			for i, e := range got.Get("appended").Elems() {
				if _, _, jerr := journal.DecodeLine(e.AppendJSON(nil)); jerr != nil {
					return k.failf(got, fmt.Sprintf("/appended/%d%s", i, jerr.Pointer), "a valid Trace 0.1.0 event", show(e),
						"appended event %d is not a valid Trace 0.1.0 event: %s: %s", i, jerr.Code, jerr.Msg)
				}
			}
			want = want.With("appended", takeTimestamps(member(want, "appended"), got.Get("appended")))
		}
		return k.compare(got, want, view)
	}}
}

// takeTimestamps gives want's events the timestamps of got's events at
// the same places: timestamps are the subject's to choose.
func takeTimestamps(want, got jsonv.Value) jsonv.Value {
	we, ge := want.Elems(), got.Elems()
	out := make([]jsonv.Value, len(we))
	for i, e := range we {
		out[i] = e
		if i < len(ge) {
			if ts := member(ge[i], "timestamp"); ts.Kind() == jsonv.String {
				out[i] = e.With("timestamp", ts)
			}
		}
	}
	return jsonv.Arr(out...)
}

// appendedView keeps the appended events.
var appendedView = only([]string{"appended"})

// repairsView keeps, of each appended event, its type, and for a
// tool.result its actor and payload: the repairs, at their places.
func repairsView(v jsonv.Value) jsonv.Value {
	evs := member(v, "appended").Elems()
	out := make([]jsonv.Value, len(evs))
	for i, e := range evs {
		ms := []jsonv.Member{jsonv.M("type", member(e, "type"))}
		if member(e, "type").Text() == "tool.result" {
			ms = append(ms, jsonv.M("actor", member(e, "actor")), jsonv.M("payload", member(e, "payload")))
		}
		out[i] = jsonv.Obj(ms...)
	}
	return jsonv.Obj(jsonv.M("appended", jsonv.Arr(out...)))
}

func eventValues(evs []journal.Event) []jsonv.Value {
	out := make([]jsonv.Value, len(evs))
	for i := range evs {
		out[i] = evs[i].Value()
	}
	return out
}
