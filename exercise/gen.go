package exercise

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Gen gives a criterion its inputs: the fixtures, and a random source
// seeded from the run's seed and the criterion's id, so that a criterion
// gets the same generated cases for a seed whether it runs alone or with
// the others, and other cases for another seed.
type Gen struct {
	Seed int64
	Fx   *Fixtures
	r    *rand.Rand
	tag  string // the criterion id, lower case: part of generated ids
	n    int    // generated sessions so far
}

func newGen(seed int64, fx *Fixtures, criterionID string) *Gen {
	h := fnv.New64a()
	h.Write([]byte(criterionID))
	return &Gen{Seed: seed, Fx: fx, r: rand.New(rand.NewPCG(uint64(seed), h.Sum64())), tag: strings.ToLower(criterionID)}
}

// Intn returns a number in [0, n).
func (g *Gen) Intn(n int) int { return g.r.IntN(n) }

// between returns a number in [lo, hi].
func (g *Gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

func (g *Gen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.r.IntN(16)]
	}
	return string(b)
}

// caseName names the i-th generated case of a criterion.
func (g *Gen) caseName(i int, what string) string {
	return fmt.Sprintf("seed %d #%d: %s", g.Seed, i+1, what)
}

// Words that exercise what fingerprints and comparisons get wrong: non-ASCII
// text (written as is), quotes, backslashes, newlines, tabs, control
// characters and HTML-special characters (never escaped as \u003c).
var genWords = []string{
	"replay", "journal", "branch", "fingerprint", "checkpoint", "resume", "event", "ok",
	"échec", "naïve", "日本語", "Ελληνικά", "🙂", "emoji 🚀", `"quoted"`, `back\slash`,
	"tab\there", "line\nbreak", "<b>&amp;</b>", "ctl\u0001char", "a/b", "~tilde",
}

// text returns a few random words.
func (g *Gen) text() string {
	n := g.between(1, 6)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = genWords[g.r.IntN(len(genWords))]
	}
	return strings.Join(ws, " ")
}

var genKeys = []string{"alpha", "beta", "Gamma", "_id", "z9", "path", "count", "Zulu", "a-b", "items"}

// value returns a random JSON value: integers (never floats, whose
// spelling differs between languages), strings, booleans, null, and
// objects whose members are in no particular order.
func (g *Gen) value(depth int) jsonv.Value {
	k := g.r.IntN(7)
	if depth >= 2 && k >= 5 {
		k = g.r.IntN(5)
	}
	switch k {
	case 0:
		return jsonv.Int(int64(g.r.IntN(2001) - 1000))
	case 1, 2:
		return jsonv.Str(g.text())
	case 3:
		return jsonv.BoolValue(g.r.IntN(2) == 0)
	case 4:
		return jsonv.NullValue()
	case 5:
		n := g.r.IntN(4)
		vs := make([]jsonv.Value, n)
		for i := range vs {
			vs[i] = g.value(depth + 1)
		}
		return jsonv.Arr(vs...)
	default:
		return g.object(depth + 1)
	}
}

func (g *Gen) object(depth int) jsonv.Value {
	keys := append([]string(nil), genKeys...)
	g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	n := g.r.IntN(4)
	ms := make([]jsonv.Member, n)
	for i := range ms {
		ms[i] = jsonv.M(keys[i], g.value(depth))
	}
	return jsonv.Obj(ms...)
}

// shape says what a generated session holds.
type shape struct {
	Streaming bool // some responses are streamed chunk by chunk
	Noise     bool // events replay ignores (metrics, approvals, agent messages)
	Interrupt bool // the run stops after tool.request, before its tool.result
	Runs      int  // runs in the session (resumed runs after the first); 0 means 1
}

// session writes the events of a generated session: a run of the
// reference runtime's shape (session.start, user.message, model turns with
// tool calls and results, session.stop) with the reference's conventions
// (evt-NNN ids, each event's parent the previous one, a fixed clock of one
// second per event, model.request counting the messages the model sees).
type session struct {
	g       *Gen
	id      string
	runID   string
	prov    jsonv.Value
	events  []jsonv.Value
	seq     int64
	roles   []string
	maxTurn int
}

// Stamp is the fixed clock: 2026-08-10T00:00:00Z plus pos seconds.
func Stamp(pos int) string {
	return time.Date(2026, 8, 10, 0, 0, pos, 0, time.UTC).Format(time.RFC3339)
}

func (s *session) emit(typ string, actor jsonv.Value, payload jsonv.Value) {
	pos := len(s.events)
	ms := []jsonv.Member{
		jsonv.M("trace_version", jsonv.Str("0.1.0")),
		jsonv.M("event_id", jsonv.Str(fmt.Sprintf("evt-%03d", pos))),
		jsonv.M("session_id", jsonv.Str(s.id)),
		jsonv.M("sequence", jsonv.Int(s.seq)),
		jsonv.M("timestamp", jsonv.Str(Stamp(pos))),
		jsonv.M("type", jsonv.Str(typ)),
		jsonv.M("actor", actor),
		jsonv.M("payload", payload),
		jsonv.M("provenance", s.prov),
		jsonv.M("redaction", jsonv.Obj(jsonv.M("status", jsonv.Str("clean")), jsonv.M("fields", jsonv.Arr()))),
	}
	if s.seq > 0 {
		ms = append(ms, jsonv.M("parent_event_id", member(s.events[pos-1], "event_id")))
	}
	s.events = append(s.events, jsonv.Obj(ms...))
	s.seq++
}

func actor(kind, id string) jsonv.Value {
	return jsonv.Obj(jsonv.M("kind", jsonv.Str(kind)), jsonv.M("id", jsonv.Str(id)))
}

const genAgent = "learner-agent"

var (
	harness  = actor("harness", genAgent)
	learner  = actor("user", "learner")
	model    = actor("model", "scripted-model-v1")
	genTools = []string{"echo", "read_file", "run_tests", "search"}
)

// newSession starts a session whose ids carry the criterion's tag.
func (g *Gen) newSession() *session {
	g.n++
	s := &session{g: g, id: fmt.Sprintf("session-%s-%d-%s", g.tag, g.n, g.hex(6))}
	s.newRun()
	return s
}

func (s *session) newRun() {
	g := s.g
	s.runID = fmt.Sprintf("run-%s-%s", g.tag, g.hex(8))
	ms := []jsonv.Member{
		jsonv.M("agent_id", jsonv.Str(genAgent)),
		jsonv.M("snapshot_id", jsonv.Str(fmt.Sprintf("exercise-seed-%d", g.Seed))),
		jsonv.M("surface", jsonv.Str("sdk")),
		jsonv.M("harness_mode", jsonv.Str("fake")),
		jsonv.M("run_id", jsonv.Str(s.runID)),
	}
	if g.r.IntN(2) == 0 {
		ms = append(ms, jsonv.M("experiment_id", jsonv.Str("exercise-generated")))
	}
	if g.r.IntN(2) == 0 {
		ms = append(ms, jsonv.M("model", jsonv.Str("scripted-model-v1")), jsonv.M("provider", jsonv.Str("local-fixture")))
	}
	s.prov = jsonv.Obj(ms...)
	s.seq = 0
}

// generate returns the events of a generated session of the given shape.
func (g *Gen) generate(sh shape) []jsonv.Value {
	s := g.newSession()
	runs := max(sh.Runs, 1)
	for r := 0; r < runs; r++ {
		last := r == runs-1
		if r > 0 {
			prev := s.runID
			s.newRun()
			s.emit("session.start", harness, jsonv.Obj(
				jsonv.M("max_turns", jsonv.Int(int64(s.maxTurn))), jsonv.M("tool_count", jsonv.Int(int64(len(genTools)))),
				jsonv.M("resumed", jsonv.BoolValue(true)), jsonv.M("resumes_run_id", jsonv.Str(prev))))
		} else {
			s.maxTurn = g.between(2, 8)
			s.emit("session.start", harness, jsonv.Obj(jsonv.M("max_turns", jsonv.Int(int64(s.maxTurn))), jsonv.M("tool_count", jsonv.Int(int64(len(genTools))))))
		}
		s.run(sh, last && sh.Interrupt)
	}
	return s.events
}

// run writes one run after its session.start: a user message and turns.
func (s *session) run(sh shape, interrupt bool) {
	g := s.g
	s.user(g.text())
	turns := g.between(1, 3)
	for t := 1; t <= turns; t++ {
		if sh.Noise && g.r.IntN(2) == 0 {
			s.noise()
		}
		s.emit("model.request", harness, jsonv.Obj(
			jsonv.M("turn", jsonv.Int(int64(t))),
			jsonv.M("message_count", jsonv.Int(int64(len(s.roles)))),
			jsonv.M("roles", jsonv.StrArr(s.roles)),
			jsonv.M("tools", jsonv.StrArr(genTools)),
		))
		lastTurn := t == turns
		var calls []jsonv.Value
		if !lastTurn || interrupt {
			for i := g.between(1, 2); i > 0; i-- {
				calls = append(calls, jsonv.Obj(
					jsonv.M("id", jsonv.Str("call-"+g.hex(4))),
					jsonv.M("name", jsonv.Str(genTools[g.r.IntN(len(genTools))])),
					jsonv.M("arguments", g.object(1)),
				))
			}
		}
		if sh.Streaming && g.r.IntN(2) == 0 {
			s.streamed(t, g.text())
		} else {
			s.emit("model.response", model, jsonv.Obj(
				jsonv.M("turn", jsonv.Int(int64(t))),
				jsonv.M("content", jsonv.Str(g.text())),
				jsonv.M("stop", jsonv.BoolValue(len(calls) == 0)),
				jsonv.M("tool_calls", jsonv.Arr(calls...)),
			))
		}
		s.roles = append(s.roles, "assistant")
		for i, c := range calls {
			s.emit("tool.request", model, jsonv.Obj(
				jsonv.M("tool_call_id", member(c, "id")),
				jsonv.M("tool", member(c, "name")),
				jsonv.M("arguments", member(c, "arguments")),
			))
			if interrupt && lastTurn && i == len(calls)-1 {
				return // stopped before the last call's result
			}
			if interrupt && lastTurn && g.r.IntN(2) == 0 {
				continue // this one is left open too
			}
			s.result(c)
		}
	}
	if sh.Noise && g.r.IntN(2) == 0 {
		s.noise()
	}
	reason := "completed"
	if g.r.IntN(4) == 0 {
		reason = "max-turns"
	}
	s.emit("session.stop", harness, jsonv.Obj(jsonv.M("reason", jsonv.Str(reason)), jsonv.M("turns", jsonv.Int(int64(turns)))))
}

func (s *session) user(content string) {
	s.emit("user.message", learner, jsonv.Obj(jsonv.M("content", jsonv.Str(content))))
	s.roles = append(s.roles, "user")
}

// streamed writes one response as chunks; only the last is final.
func (s *session) streamed(turn int, text string) {
	words := strings.SplitAfter(text, " ")
	acc := ""
	for i, w := range words {
		acc += w
		s.emit("model.response", model, jsonv.Obj(
			jsonv.M("turn", jsonv.Int(int64(turn))),
			jsonv.M("delta", jsonv.Str(w)),
			jsonv.M("accumulated", jsonv.Str(acc)),
			jsonv.M("final", jsonv.BoolValue(i == len(words)-1)),
			jsonv.M("tool_calls", jsonv.Arr()),
		))
	}
}

func (s *session) result(call jsonv.Value) {
	g := s.g
	name := member(call, "name").Text()
	var p jsonv.Value
	if g.r.IntN(4) == 0 {
		p = jsonv.Obj(
			jsonv.M("tool_call_id", member(call, "id")),
			jsonv.M("tool", jsonv.Str(name)),
			jsonv.M("ok", jsonv.BoolValue(false)),
			jsonv.M("error", jsonv.Str(g.text())),
			jsonv.M("error_type", jsonv.Str("ToolValidationError")),
		)
	} else {
		p = jsonv.Obj(
			jsonv.M("tool_call_id", member(call, "id")),
			jsonv.M("tool", jsonv.Str(name)),
			jsonv.M("ok", jsonv.BoolValue(true)),
			jsonv.M("result", g.object(1)),
			jsonv.M("truncated", jsonv.BoolValue(g.r.IntN(5) == 0)),
		)
	}
	s.emit("tool.result", actor("tool", name), p)
	s.roles = append(s.roles, "tool")
}

// noise writes an event that no view reads.
func (s *session) noise() {
	g := s.g
	switch g.r.IntN(3) {
	case 0:
		s.emit("metric.sample", harness, jsonv.Obj(jsonv.M("name", jsonv.Str("tokens")), jsonv.M("value", jsonv.Int(int64(g.r.IntN(5000))))))
	case 1:
		s.emit("approval.request", harness, jsonv.Obj(jsonv.M("tool", jsonv.Str("run_tests")), jsonv.M("reason", jsonv.Str(g.text()))))
	default:
		s.emit("agent.message", actor("agent", "helper"), jsonv.Obj(jsonv.M("content", jsonv.Str(g.text()))))
	}
}

// journal returns a generated single-run journal.
func (g *Gen) journal(sh shape) []jsonv.Value { return g.generate(sh) }

// withMember returns event with one member (a path of keys) replaced.
func withMember(event jsonv.Value, val jsonv.Value, path ...string) jsonv.Value {
	return setPath(event, path, val)
}

// hasStreaming reports whether a journal holds a streamed response (a
// model.response without content).
func hasStreaming(events []jsonv.Value) bool {
	for _, e := range events {
		if member(e, "type").Text() == "model.response" && !member(e, "payload").Has("content") {
			return true
		}
	}
	return false
}

// eventsValue is events as one JSON array.
func eventsValue(events []jsonv.Value) jsonv.Value {
	return jsonv.Arr(append([]jsonv.Value(nil), events...)...)
}
