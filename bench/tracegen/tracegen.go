// Package tracegen writes long, deterministic Trace 0.1.0 journals in the
// reference layout, for benchmarks and for tests that need more than the
// golden traces hold.
//
// A generated journal is one run of one session: session.start, then turns
// of user.message, model.request and either a whole model.response, or a
// tool call (model.response with tool_calls, tool.request, tool.result, a
// second model.request) answered by a streamed model.response (one event per
// chunk, the last with final true), with an occasional context.compact; the
// last event is session.stop. Envelopes are the reference's golden ones
// (fixed clock, evt-%03d ids unless Options.IDs asks for zero-padded
// counters or UUIDs, parent_event_id naming the previous event),
// and some texts hold non-ASCII, quotes, backslashes and control characters
// so that encoders are exercised. The bytes depend only on Options.
//
// The package depends on jsonv alone, so any package's tests may use it.
package tracegen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Options select a journal.
type Options struct {
	Events int    // number of events, at least 2
	Seed   uint64 // varies the texts and turn shapes
	Name   string // lesson-like name: session-<Name>, run-<Name>-golden; default "bench"
	// IDs is the event id style: IDsRef (the default), IDsPadded or
	// IDsUUID. Only the ids (event_id and parent_event_id) differ between
	// styles; texts and turn shapes are the same for one Seed.
	IDs string
}

// Event id styles.
const (
	IDsRef    = "evt-%03d" // the reference's: evt-000, evt-001, ..., evt-1000
	IDsPadded = "evt-%07d" // zero-padded counters, as many tools write them
	IDsUUID   = "uuid"     // random version-4 UUIDs, as Claude Code, pi and Codex write them
)

// IDStyles lists the styles Options.IDs accepts.
var IDStyles = []string{IDsRef, IDsPadded, IDsUUID}

// Clock is the reference's fixed clock: event n is stamped Clock + n seconds.
var Clock = time.Date(2026, 8, 10, 0, 0, 0, 0, time.UTC)

var texts = []string{
	"Explain an agent loop in one sentence.",
	"Use the echo tool, then report its result.",
	"Stream one observability rule.",
	"Résumé: the café's naïve façade — déjà vu.",
	"日本語のテキストも記録されます。",
	"Emoji survive the journal 🚀✨ and so does Ω≈ç√.",
	"Quotes \"inside\" text, a backslash \\ and a\ttab.",
	"HTML-ish <b>bold</b> & ampersands stay as written.",
	"Line one\nline two\r\nline three.",
	"Inspect the report, then continue from a compacted checkpoint.",
	"A durable session is an ordered factual log from which the harness rebuilds views.",
	"Replay reads the factual record; it does not assume every event was visible to the model.",
}

var words = []string{
	"Observe ", "events, ", "not ", "hidden ", "state. ", "Replay ", "is ", "deterministic; ",
	"branches ", "record ", "lineage. ", "Ünïcödé ", "fäcts ", "证据 ", "→ ", "checkpoints ",
}

var tools = []string{"echo", "grep"}

// Generator produces a journal one line at a time.
type Generator struct {
	o       Options
	rng     *rand.Rand
	seq     int
	turn    int
	pending []func() (string, string, string, jsonv.Value) // queued events: type, actor kind, actor id, payload
	session string
	run     string
	prov    jsonv.Value
	buf     []byte
	ids     *rand.Rand // UUIDs, apart from rng so that texts do not depend on the id style
	id, par string     // this event's id and its parent's
}

// New returns a generator for o.
func New(o Options) *Generator {
	if o.Events < 2 {
		o.Events = 2
	}
	if o.Name == "" {
		o.Name = "bench"
	}
	if o.IDs == "" {
		o.IDs = IDsRef
	}
	g := &Generator{
		o:       o,
		rng:     rand.New(rand.NewPCG(o.Seed, 0x7472616365)),
		session: "session-" + o.Name,
		run:     "run-" + o.Name + "-golden",
		ids:     rand.New(rand.NewPCG(o.Seed, 0x75756964)),
	}
	g.prov = jsonv.Obj(
		jsonv.M("agent_id", jsonv.Str("reference-agent")),
		jsonv.M("snapshot_id", jsonv.Str("reference-agent-2026-08-10-python")),
		jsonv.M("surface", jsonv.Str("sdk")),
		jsonv.M("harness_mode", jsonv.Str("fake")),
		jsonv.M("run_id", jsonv.Str(g.run)),
		jsonv.M("experiment_id", jsonv.Str("reference-foundations-golden")),
		jsonv.M("model", jsonv.Str("scripted-model-v1")),
		jsonv.M("provider", jsonv.Str("local-fixture")),
	)
	return g
}

// SessionID and RunID name the generated run.
func (g *Generator) SessionID() string { return g.session }

// RunID is the run identity (provenance.run_id) of the generated journal.
func (g *Generator) RunID() string { return g.run }

// Next returns the next line with its newline, or nil after the last. The
// slice is reused by the next call.
func (g *Generator) Next() []byte {
	if g.seq >= g.o.Events {
		return nil
	}
	var typ, kind, id string
	var payload jsonv.Value
	switch {
	case g.seq == 0:
		typ, kind, id = "session.start", "harness", "reference-agent"
		payload = jsonv.Obj(jsonv.M("max_turns", jsonv.Int(int64(g.o.Events))), jsonv.M("tool_count", jsonv.Int(int64(len(tools)))))
	case g.seq == g.o.Events-1:
		typ, kind, id = "session.stop", "harness", "reference-agent"
		payload = jsonv.Obj(jsonv.M("reason", jsonv.Str("completed")), jsonv.M("turns", jsonv.Int(int64(g.turn))))
	default:
		if len(g.pending) == 0 {
			g.planTurn()
		}
		f := g.pending[0]
		g.pending = g.pending[1:]
		typ, kind, id, payload = f()
	}
	g.par, g.id = g.id, g.eventID()
	g.buf = g.appendEvent(g.buf[:0], typ, kind, id, payload)
	g.seq++
	return g.buf
}

// eventID is the id of event g.seq in the chosen style.
func (g *Generator) eventID() string {
	switch g.o.IDs {
	case IDsPadded:
		return fmt.Sprintf("evt-%07d", g.seq)
	case IDsUUID:
		hi, lo := g.ids.Uint64(), g.ids.Uint64()
		hi = hi&^0xf000 | 0x4000     // version 4
		lo = lo&^(0xc<<60) | 0x8<<60 // RFC 4122 variant
		return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, hi>>16&0xffff, hi&0xffff, lo>>48, lo&(1<<48-1))
	}
	return fmt.Sprintf("evt-%03d", g.seq)
}

func (g *Generator) appendEvent(dst []byte, typ, kind, id string, payload jsonv.Value) []byte {
	ms := []jsonv.Member{
		jsonv.M("trace_version", jsonv.Str("0.1.0")),
		jsonv.M("event_id", jsonv.Str(g.id)),
		jsonv.M("session_id", jsonv.Str(g.session)),
		jsonv.M("sequence", jsonv.Int(int64(g.seq))),
		jsonv.M("timestamp", jsonv.Str(Clock.Add(time.Duration(g.seq)*time.Second).Format("2006-01-02T15:04:05Z"))),
		jsonv.M("type", jsonv.Str(typ)),
		jsonv.M("actor", jsonv.Obj(jsonv.M("kind", jsonv.Str(kind)), jsonv.M("id", jsonv.Str(id)))),
		jsonv.M("payload", payload),
		jsonv.M("provenance", g.prov),
		jsonv.M("redaction", jsonv.Obj(jsonv.M("status", jsonv.Str("clean")), jsonv.M("fields", jsonv.Arr()))),
	}
	if g.seq > 0 {
		ms = append(ms, jsonv.M("parent_event_id", jsonv.Str(g.par)))
	}
	dst = jsonv.Obj(ms...).AppendJSON(dst)
	return append(dst, '\n')
}

func (g *Generator) text() string { return texts[g.rng.IntN(len(texts))] }

// planTurn queues the events of one turn.
func (g *Generator) planTurn() {
	g.turn++
	turn := int64(g.turn)
	msgs := int64(2*g.turn - 1)
	user := g.text()
	g.queue("user.message", "user", "learner", jsonv.Obj(jsonv.M("content", jsonv.Str(user))))
	g.queue("model.request", "harness", "reference-agent", modelRequest(turn, msgs, false))
	switch r := g.rng.IntN(10); {
	case r < 3: // a whole answer
		g.queue("model.response", "model", "scripted-model-v1", jsonv.Obj(
			jsonv.M("turn", jsonv.Int(turn)),
			jsonv.M("content", jsonv.Str(g.text())),
			jsonv.M("stop", jsonv.BoolValue(true)),
			jsonv.M("tool_calls", jsonv.Arr()),
		))
	default: // a tool call, then a streamed answer
		tool := tools[g.rng.IntN(len(tools))]
		callID := fmt.Sprintf("call-%03d", g.turn)
		args := jsonv.Obj(jsonv.M("text", jsonv.Str(words[g.rng.IntN(len(words))])))
		g.queue("model.response", "model", "scripted-model-v1", jsonv.Obj(
			jsonv.M("turn", jsonv.Int(turn)),
			jsonv.M("content", jsonv.Str("")),
			jsonv.M("stop", jsonv.BoolValue(false)),
			jsonv.M("tool_calls", jsonv.Arr(jsonv.Obj(jsonv.M("id", jsonv.Str(callID)), jsonv.M("name", jsonv.Str(tool)), jsonv.M("arguments", args)))),
		))
		g.queue("tool.request", "model", "scripted-model-v1", jsonv.Obj(
			jsonv.M("tool_call_id", jsonv.Str(callID)), jsonv.M("tool", jsonv.Str(tool)), jsonv.M("arguments", args)))
		if r == 9 {
			g.queue("tool.result", "tool", tool, jsonv.Obj(
				jsonv.M("tool_call_id", jsonv.Str(callID)), jsonv.M("tool", jsonv.Str(tool)),
				jsonv.M("ok", jsonv.BoolValue(false)),
				jsonv.M("error", jsonv.Str("path escapes the workspace: ../../etc/passwd")),
				jsonv.M("error_type", jsonv.Str("PermissionError"))))
		} else {
			g.queue("tool.result", "tool", tool, jsonv.Obj(
				jsonv.M("tool_call_id", jsonv.Str(callID)), jsonv.M("tool", jsonv.Str(tool)),
				jsonv.M("ok", jsonv.BoolValue(true)),
				jsonv.M("result", jsonv.Obj(jsonv.M(tool, jsonv.Str(words[g.rng.IntN(len(words))])), jsonv.M("score", jsonv.Float(float64(g.rng.IntN(1000))/8)))),
				jsonv.M("truncated", jsonv.BoolValue(false))))
		}
		g.queue("model.request", "harness", "reference-agent", modelRequest(turn, msgs+2, true))
		chunks := 2 + g.rng.IntN(4)
		acc := ""
		for c := 0; c < chunks; c++ {
			delta := words[g.rng.IntN(len(words))]
			acc += delta
			g.queue("model.response", "model", "scripted-model-v1", jsonv.Obj(
				jsonv.M("turn", jsonv.Int(turn)),
				jsonv.M("delta", jsonv.Str(delta)),
				jsonv.M("accumulated", jsonv.Str(acc)),
				jsonv.M("final", jsonv.BoolValue(c == chunks-1)),
				jsonv.M("tool_calls", jsonv.Arr()),
			))
		}
	}
	if g.rng.IntN(25) == 0 {
		g.queue("context.compact", "harness", "reference-agent", jsonv.Obj(
			jsonv.M("dropped_messages", jsonv.Int(msgs)),
			jsonv.M("original_chars", jsonv.Int(int64(400+g.rng.IntN(4000)))),
			jsonv.M("final_chars", jsonv.Int(260)),
			jsonv.M("summary_chars", jsonv.Int(int64(80+g.rng.IntN(100)))),
			jsonv.M("source_sha256", jsonv.Str(fmt.Sprintf("%016x%016x%016x%016x", g.rng.Uint64(), g.rng.Uint64(), g.rng.Uint64(), g.rng.Uint64()))),
		))
	}
}

func modelRequest(turn, msgs int64, withTool bool) jsonv.Value {
	var roles []string
	for i := int64(0); i < msgs && i < 3; i++ {
		if i%2 == 0 {
			roles = append(roles, "user")
		} else {
			roles = append(roles, "assistant")
		}
	}
	if withTool {
		roles = append(roles, "assistant", "tool")
	}
	return jsonv.Obj(
		jsonv.M("turn", jsonv.Int(turn)),
		jsonv.M("message_count", jsonv.Int(msgs)),
		jsonv.M("roles", jsonv.StrArr(roles)),
		jsonv.M("tools", jsonv.StrArr(tools)),
	)
}

func (g *Generator) queue(typ, kind, id string, payload jsonv.Value) {
	g.pending = append(g.pending, func() (string, string, string, jsonv.Value) { return typ, kind, id, payload })
}

// Write writes the whole journal to w and returns the bytes written.
func Write(w io.Writer, o Options) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	g := New(o)
	var n int64
	for line := g.Next(); line != nil; line = g.Next() {
		m, err := bw.Write(line)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// Bytes returns the whole journal; for tests.
func Bytes(o Options) []byte {
	g := New(o)
	var out []byte
	for line := g.Next(); line != nil; line = g.Next() {
		out = append(out, line...)
	}
	return out
}
