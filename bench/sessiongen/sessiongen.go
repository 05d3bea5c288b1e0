// Package sessiongen writes long session files that `tracecheck session
// resume` can resume: one run in the golden layout whose every recorded
// count and digest is the one reducer.History rebuilds (the generator
// follows its own events with a reducer.HistoryBuilder). The memory and
// speed figures of docs/session-store.md and BENCHMARKS.md use it through
// `go run ./bench/gensession`, and tests use it in-process, so no large
// session is ever committed.
//
// Two shapes:
//
//   - Turns: agent turns (user.message, model.request, model.response with a
//     tool call, tool.request, tool.result, model.request, the answer), with
//     a context.compact whenever the history passes Config's trigger, as
//     long-running sessions compact: the model-visible history stays small
//     however long the file grows.
//   - Messages: user.message events of MessageBytes bytes each and nothing
//     else, never compacted: the model-visible history is the whole file.
//
// The bytes depend only on Options.
package sessiongen

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// Options select a session.
type Options struct {
	// Session is the session_id; "" is "session-gen".
	Session string
	// Events: the Turns shape, whole turns until the session holds at
	// least this many events.
	Events int
	// Messages and MessageBytes: the Messages shape (when Messages > 0),
	// this many user messages of MessageBytes bytes of content each.
	Messages, MessageBytes int
	// Open leaves the last turn's tool call unanswered (Turns shape): the
	// run stops between tool.request and tool.result, so a resume repairs
	// one call.
	Open bool
	// IDs is the events' ID style (issue 13 measures each): evt-%03d of
	// the event's position (the zero value), evt-%07d of it, or a
	// UUID-shaped ID that the position alone decides.
	IDs IDStyle
}

// IDStyle is an ID style of generated events.
type IDStyle int

const (
	RefIDs    IDStyle = iota // evt-%03d, the reference goldens' style
	PaddedIDs                // evt-%07d, zero-padded as many tools write them
	UUIDIDs                  // UUID-shaped, as Claude Code, pi and Codex write them
)

// ParseIDStyle reads an ID style as the bench commands' -ids flag names it:
// evt-%03d, evt-%07d or uuid.
func ParseIDStyle(s string) (IDStyle, error) {
	switch s {
	case "evt-%03d":
		return RefIDs, nil
	case "evt-%07d":
		return PaddedIDs, nil
	case "uuid":
		return UUIDIDs, nil
	}
	return 0, fmt.Errorf("ID style %q: want evt-%%03d, evt-%%07d or uuid", s)
}

// The history configuration of the Turns shape, which resume must be
// given: as flags, --system-prompt SystemPrompt --compact-trigger
// TriggerChars --compact-keep KeepRecent --compact-summary Summary.
const (
	SystemPrompt = "You are a careful coding agent."
	TriggerChars = 2000
	KeepRecent   = 4
	Summary      = "Earlier: the agent ran the tests, read files and fixed failures."
)

// Config returns the history configuration a resume of a session of
// these options needs.
func (o Options) Config() reducer.HistoryConfig {
	if o.Messages > 0 {
		return reducer.HistoryConfig{}
	}
	return reducer.HistoryConfig{SystemPrompt: SystemPrompt,
		Compactor: &reducer.Compactor{TriggerChars: TriggerChars, KeepRecentMessages: KeepRecent, Summarize: reducer.FixedSummary(Summary)}}
}

// RunID is the generated run's provenance.run_id.
const RunID = "run-gen"

var (
	model, provider = "scripted-model-v1", "local-fixture"
	harness         = journal.Actor{Kind: "harness", ID: "reference-agent"}
	user            = journal.Actor{Kind: "user", ID: "user"}
	modelActor      = journal.Actor{Kind: "model", ID: "scripted-model-v1"}
	toolActor       = journal.Actor{Kind: "tool", ID: "bash"}
	clock           = time.Date(2026, 8, 12, 0, 0, 0, 0, time.UTC)
)

// Generator writes a session one event at a time.
type Generator struct {
	o     Options
	w     io.Writer
	hist  *reducer.HistoryBuilder
	n     int // events written
	last  string
	turns int
	line  []byte
	bytes int64
	err   error
}

// Write writes the session o selects to w and returns its events and
// bytes.
func Write(w io.Writer, o Options) (events int, bytes int64, err error) {
	if o.Session == "" {
		o.Session = "session-gen"
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	g := &Generator{o: o, w: bw, hist: reducer.NewHistoryBuilder(o.Config())}
	g.event("session.start", harness, jsonv.Obj(jsonv.M("max_turns", jsonv.Int(8)), jsonv.M("tool_count", jsonv.Int(1))))
	if o.Messages > 0 {
		g.messages()
	} else {
		for g.n < o.Events && g.err == nil {
			open := o.Open && g.n+8 >= o.Events
			g.turn(open)
			if open {
				break
			}
		}
	}
	if g.err == nil {
		g.err = bw.Flush()
	}
	return g.n, g.bytes, g.err
}

// EventID is the ID of a generated session's n-th event in the given
// style.
func EventID(style IDStyle, n int) string {
	switch style {
	case RefIDs:
		return fmt.Sprintf("evt-%03d", n)
	case PaddedIDs:
		return fmt.Sprintf("evt-%07d", n)
	}
	x := uint64(n)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 29
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(x), uint16(x>>32), uint16(x>>48)&0xfff, n&0xfff, uint64(n)&(1<<48-1))
}

func (g *Generator) event(typ string, actor journal.Actor, payload jsonv.Value) {
	if g.err != nil {
		return
	}
	e := journal.Event{
		TraceVersion:  journal.TraceVersion,
		EventID:       EventID(g.o.IDs, g.n),
		SessionID:     g.o.Session,
		Sequence:      int64(g.n),
		Timestamp:     clock.Add(time.Duration(g.n) * time.Second).Format(time.RFC3339),
		Type:          typ,
		Actor:         actor,
		Payload:       payload,
		Provenance:    journal.Provenance{AgentID: "reference-agent", SnapshotID: "reference-agent-gen", Surface: "sdk", HarnessMode: "fake", RunID: RunID, Model: &model, Provider: &provider},
		Redaction:     journal.CleanRedaction(),
		ParentEventID: g.last,
	}
	if g.err = g.hist.Apply(&e); g.err != nil {
		return
	}
	g.line = e.AppendGolden(g.line[:0])
	_, g.err = g.w.Write(g.line)
	g.bytes += int64(len(g.line))
	g.n++
	g.last = e.EventID
}

// messages writes the Messages shape: user messages only, each its own
// text of MessageBytes bytes.
func (g *Generator) messages() {
	filler := strings.Repeat("The quick brown fox jumps over the lazy dog. ", g.o.MessageBytes/45+1)
	for i := range g.o.Messages {
		head := fmt.Sprintf("Message %d: ", i+1)
		text := head + filler[:max(0, g.o.MessageBytes-len(head))]
		g.event("user.message", user, jsonv.Obj(jsonv.M("content", jsonv.Str(text))))
		// The history is the generator's only memory of the text: keep it
		// from holding every message (the file is what matters).
		g.hist = reducer.NewHistoryBuilder(g.o.Config())
	}
}

func (g *Generator) request() {
	g.event("model.request", harness, jsonv.Obj(jsonv.M("message_count", jsonv.Int(int64(len(g.hist.Messages()))))))
}

// turn writes one turn (7 events, 8 with a compaction); open stops it
// after the tool.request.
func (g *Generator) turn(open bool) {
	g.turns++
	call := fmt.Sprintf("call-%d", g.turns)
	args := jsonv.Obj(jsonv.M("cmd", jsonv.Str(fmt.Sprintf("go test ./pkg%d/...", g.turns%7))))
	g.event("user.message", user, jsonv.Obj(jsonv.M("content", jsonv.Str(fmt.Sprintf("Step %d: run the tests and fix what fails.", g.turns)))))
	g.request()
	g.event("model.response", modelActor, jsonv.Obj(jsonv.M("content", jsonv.Str("")),
		jsonv.M("tool_calls", jsonv.Arr(jsonv.Obj(jsonv.M("id", jsonv.Str(call)), jsonv.M("name", jsonv.Str("bash")), jsonv.M("arguments", args))))))
	g.event("tool.request", modelActor, jsonv.Obj(jsonv.M("tool_call_id", jsonv.Str(call)), jsonv.M("tool", jsonv.Str("bash")), jsonv.M("arguments", args)))
	if open {
		return
	}
	g.event("tool.result", toolActor, jsonv.Obj(jsonv.M("tool_call_id", jsonv.Str(call)), jsonv.M("tool", jsonv.Str("bash")),
		jsonv.M("ok", jsonv.BoolValue(true)), jsonv.M("result", jsonv.Obj(jsonv.M("exit_code", jsonv.Int(0)), jsonv.M("stdout", jsonv.Str("ok \t12 tests passed (0.4s)\n"))))))
	g.request()
	g.event("model.response", modelActor, jsonv.Obj(jsonv.M("content", jsonv.Str(fmt.Sprintf("Step %d done: the tests pass.", g.turns)))))
	if c := g.o.Config().Compactor; c.ShouldCompact(g.hist.Messages()) {
		comp, err := c.Compact(g.hist.Messages())
		if err != nil {
			g.err = err
			return
		}
		g.event("context.compact", harness, comp.Payload())
	}
}
