package reducer_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/tracecheck/tracecheck/bench/sessiongen"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// genConfig is the history configuration of generated long sessions: the
// compactor keeps the model-visible history bounded, as long-running
// sessions do.
var genConfig = reducer.HistoryConfig{
	SystemPrompt: "You are a careful coding agent.",
	Compactor: &reducer.Compactor{TriggerChars: 2000, KeepRecentMessages: 4,
		Summarize: reducer.FixedSummary("Earlier: the agent ran the tests, read files and fixed failures.")},
}

// sessionGen writes a long agent session in the golden layout: turns of
// user.message, model.request, model.response with a tool call,
// tool.request, tool.result, model.request and the final answer, and a
// context.compact whenever the history passes the compactor's trigger.
// It tracks the history with a HistoryBuilder, so every recorded count and
// digest is the one a rebuild computes.
type sessionGen struct {
	session, run string
	ids          sessiongen.IDStyle
	n            int // events in the session
	seq          int64
	last         string
	turns        int
	hist         *reducer.HistoryBuilder
	emit         func(e *journal.Event)
}

func newSessionGen(session string, emit func(e *journal.Event)) *sessionGen {
	return &sessionGen{session: session, run: "run-gen", hist: reducer.NewHistoryBuilder(genConfig), emit: emit}
}

var genModel, genProvider = "scripted-model-v1", "local-fixture"

func (g *sessionGen) event(tb testing.TB, typ string, actor journal.Actor, payload jsonv.Value) {
	e := journal.Event{
		TraceVersion: journal.TraceVersion,
		EventID:      sessiongen.EventID(g.ids, g.n),
		SessionID:    g.session,
		Sequence:     g.seq,
		Timestamp:    time.Date(2026, 8, 12, 0, 0, 0, 0, time.UTC).Add(time.Duration(g.n) * time.Second).Format(time.RFC3339),
		Type:         typ,
		Actor:        actor,
		Payload:      payload,
		Provenance: journal.Provenance{AgentID: "reference-agent", SnapshotID: "reference-agent-gen", Surface: "sdk",
			HarnessMode: "fake", RunID: g.run, Model: &genModel, Provider: &genProvider},
		Redaction:     journal.CleanRedaction(),
		ParentEventID: g.last,
	}
	g.observe(tb, &e)
	g.emit(&e)
}

// observe follows an event the generator did not write (a resume's).
func (g *sessionGen) observe(tb testing.TB, e *journal.Event) {
	if err := g.hist.Apply(e); err != nil {
		tb.Fatal(err)
	}
	g.n++
	g.run, g.seq, g.last = e.Provenance.RunID, e.Sequence+1, e.EventID
}

var (
	genHarness = journal.Actor{Kind: "harness", ID: "reference-agent"}
	genUser    = journal.Actor{Kind: "user", ID: "user"}
	genModelA  = journal.Actor{Kind: "model", ID: "scripted-model-v1"}
	genTool    = journal.Actor{Kind: "tool", ID: "bash"}
)

func (g *sessionGen) start(tb testing.TB) {
	g.event(tb, "session.start", genHarness, jsonv.Obj(jsonv.M("max_turns", jsonv.Int(8)), jsonv.M("tool_count", jsonv.Int(1))))
}

func (g *sessionGen) request(tb testing.TB) {
	g.event(tb, "model.request", genHarness, jsonv.Obj(jsonv.M("message_count", jsonv.Int(int64(len(g.hist.Messages()))))))
}

// turn writes one turn (7 events, 8 with a compaction). open leaves the
// tool call unanswered and stops there (a run interrupted mid-call).
func (g *sessionGen) turn(tb testing.TB, open bool) {
	g.turns++
	call := fmt.Sprintf("call-%d", g.turns)
	args := jsonv.Obj(jsonv.M("cmd", jsonv.Str(fmt.Sprintf("go test ./pkg%d/...", g.turns%7))))
	g.event(tb, "user.message", genUser, jsonv.Obj(jsonv.M("content", jsonv.Str(fmt.Sprintf("Step %d: run the tests and fix what fails.", g.turns)))))
	g.request(tb)
	g.event(tb, "model.response", genModelA, jsonv.Obj(jsonv.M("content", jsonv.Str("")),
		jsonv.M("tool_calls", jsonv.Arr(jsonv.Obj(jsonv.M("id", jsonv.Str(call)), jsonv.M("name", jsonv.Str("bash")), jsonv.M("arguments", args))))))
	g.event(tb, "tool.request", genModelA, jsonv.Obj(jsonv.M("tool_call_id", jsonv.Str(call)), jsonv.M("tool", jsonv.Str("bash")), jsonv.M("arguments", args)))
	if open {
		return
	}
	g.event(tb, "tool.result", genTool, jsonv.Obj(jsonv.M("tool_call_id", jsonv.Str(call)), jsonv.M("tool", jsonv.Str("bash")),
		jsonv.M("ok", jsonv.BoolValue(true)), jsonv.M("result", jsonv.Obj(jsonv.M("exit_code", jsonv.Int(0)), jsonv.M("stdout", jsonv.Str("ok \t12 tests passed (0.4s)\n"))))))
	g.request(tb)
	g.event(tb, "model.response", genModelA, jsonv.Obj(jsonv.M("content", jsonv.Str(fmt.Sprintf("Step %d done: the tests pass.", g.turns)))))
	if c := genConfig.Compactor; c.ShouldCompact(g.hist.Messages()) {
		comp, err := c.Compact(g.hist.Messages())
		if err != nil {
			tb.Fatal(err)
		}
		g.event(tb, "context.compact", genHarness, comp.Payload())
	}
}
