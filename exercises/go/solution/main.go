// Command solution is a reference solution of the tracecheck exercises in Go
// (standard library only): a subject that reads one JSON request per line on
// stdin and writes one JSON response per line on stdout (docs/protocol.md).
//
//	go build -o /tmp/subject ./exercises/go/solution
//	tracecheck conform -- /tmp/subject
//
// (`tracecheck conform -- go run ./exercises/go/solution` works too; the first
// request then waits for the compiler.) Exercises A-F are those of the
// curriculum's lesson s07, R is resume from chapter 20 of the TypeScript
// harness; `tracecheck exercise show X` states each.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"
)

// obj is a JSON object as encoding/json decodes it (numbers as json.Number).
type obj = map[string]any

// opError is a refused request.
type opError struct{ msg, code string }

func (e *opError) Error() string { return e.msg }

func fail(code, format string, a ...any) error {
	return &opError{msg: fmt.Sprintf(format, a...), code: code}
}

func str(m obj, key string) string {
	s, _ := m[key].(string)
	return s
}

func sub(m obj, key string) obj {
	o, _ := m[key].(obj)
	return o
}

func integer(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

func events(req obj, key string) []obj {
	raw, _ := req[key].([]any)
	out := make([]obj, len(raw))
	for i, e := range raw {
		out[i], _ = e.(obj)
	}
	return out
}

// --- A. The journal -----------------------------------------------------

type checker struct {
	session, run string
	next         int64
	seen         map[string]bool
}

func newChecker(first obj) *checker {
	return &checker{session: str(first, "session_id"), run: str(sub(first, "provenance"), "run_id"), seen: map[string]bool{}}
}

// check applies the invariants to the next event, in tracecheck's order.
func (c *checker) check(e obj, where string) error {
	if s := str(e, "session_id"); s != c.session {
		return fail("MIXED_SESSION", "%s: session_id %q is not the journal's %q", where, s, c.session)
	}
	if r := str(sub(e, "provenance"), "run_id"); r != c.run {
		return fail("MIXED_RUN", "%s: run_id %q is not the journal's %q", where, r, c.run)
	}
	if seq, ok := integer(e["sequence"]); !ok || seq != c.next {
		return fail("SEQUENCE_GAP", "%s: sequence %v where %d was expected", where, e["sequence"], c.next)
	}
	c.next++
	if p, has := e["parent_event_id"]; has && !c.seen[fmt.Sprint(p)] {
		return fail("PARENT_NOT_EARLIER", "%s: parent_event_id %v names no earlier event", where, p)
	}
	id := str(e, "event_id")
	if c.seen[id] {
		return fail("DUPLICATE_EVENT_ID", "%s: event_id %q appears earlier", where, id)
	}
	c.seen[id] = true
	return nil
}

func checkJournal(evs []obj) error {
	if len(evs) == 0 {
		return fail("EMPTY_JOURNAL", "a session journal needs at least one event")
	}
	c := newChecker(evs[0])
	for i, e := range evs {
		if err := c.check(e, fmt.Sprintf("events[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

// --- B and C. Replay ------------------------------------------------------

type view struct {
	AppliedSequences  []json.Number `json:"applied_sequences"`
	UserMessages      []string      `json:"user_messages"`
	AssistantMessages []string      `json:"assistant_messages"`
	ToolResults       []any         `json:"tool_results"`
	StopReason        *string       `json:"stop_reason"`
}

type state struct {
	SessionID string `json:"session_id"`
	RunID     string `json:"run_id"`
	view
	Fingerprint *string `json:"fingerprint"`
}

func newView() view {
	return view{AppliedSequences: []json.Number{}, UserMessages: []string{}, AssistantMessages: []string{}, ToolResults: []any{}}
}

// text is Python's str() of a payload member for the values traces hold.
func text(p obj, key, def string) string {
	v, ok := p[key]
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case nil:
		if !ok {
			return def
		}
		return "None"
	}
	return def
}

// apply folds one event into the view: the lesson's reducer with the
// final-event rule for streamed responses.
func (v *view) apply(e obj) {
	v.AppliedSequences = append(v.AppliedSequences, e["sequence"].(json.Number))
	p := sub(e, "payload")
	switch str(e, "type") {
	case "user.message":
		v.UserMessages = append(v.UserMessages, text(p, "content", ""))
	case "model.response":
		if _, ok := p["content"]; ok {
			v.AssistantMessages = append(v.AssistantMessages, text(p, "content", ""))
		} else if p["final"] == true {
			v.AssistantMessages = append(v.AssistantMessages, text(p, "accumulated", ""))
		}
	case "tool.result":
		v.ToolResults = append(v.ToolResults, p)
	case "session.stop":
		r := text(p, "reason", "unknown")
		v.StopReason = &r
	}
}

// compact is Python's json.dumps(v, ensure_ascii=False, sort_keys=True,
// separators=(",", ":")): encoding/json sorts map keys and writes
// json.Number as is; HTML escaping must be off.
func compact(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

func fingerprint(evs []obj) string {
	sum := sha256.Sum256(compact(evs))
	return hex.EncodeToString(sum[:])
}

func selectEvents(evs []obj, through *int64, name string) ([]obj, error) {
	if err := checkJournal(evs); err != nil {
		return nil, err
	}
	if through == nil {
		return evs, nil
	}
	if *through < 0 || *through >= int64(len(evs)) {
		return nil, fail("OUT_OF_RANGE", "%s %d is outside the journal (sequences 0..%d)", name, *through, len(evs)-1)
	}
	return evs[:*through+1], nil
}

func replay(evs []obj, through *int64) (*state, error) {
	sel, err := selectEvents(evs, through, "through")
	if err != nil {
		return nil, err
	}
	st := &state{SessionID: str(sel[0], "session_id"), RunID: str(sub(sel[0], "provenance"), "run_id"), view: newView()}
	for _, e := range sel {
		st.apply(e)
	}
	fp := fingerprint(sel)
	st.Fingerprint = &fp
	return st, nil
}

func optInt(req obj, key string) *int64 {
	n, ok := integer(req[key])
	if !ok {
		return nil
	}
	return &n
}

func opReplay(req obj) (obj, error) {
	st, err := replay(events(req, "events"), optInt(req, "through"))
	return obj{"state": st}, err
}

// --- D. Branches ------------------------------------------------------------

func opBranch(req obj) (obj, error) {
	evs, fork, id := events(req, "events"), optInt(req, "fork_sequence"), str(req, "branch_id")
	if err := checkJournal(evs); err != nil {
		return nil, err
	}
	if strings.TrimSpace(id) == "" {
		return nil, fail("BLANK_BRANCH_ID", "branch_id must be non-empty")
	}
	sel, err := selectEvents(evs, fork, "fork_sequence")
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(sel))
	for i, e := range sel {
		ids[i] = str(e, "event_id")
	}
	return obj{"branch": obj{
		"branch_id":           id,
		"parent_session_id":   str(sel[0], "session_id"),
		"parent_run_id":       str(sub(sel[0], "provenance"), "run_id"),
		"fork_sequence":       *fork,
		"inherited_event_ids": ids,
		"parent_fingerprint":  fingerprint(sel),
	}}, nil
}

// --- E. Duplicate delivery ---------------------------------------------------
//
//	stored event_id?  same event?  answer
//	no                -            store it, then "appended"
//	yes               yes          store nothing, "duplicate"
//	yes               no           store nothing, CONFLICT
//
// "Same" compares canonical encodings (sorted keys), not bytes. The answer is
// written only once the event is stored.

type store map[string]map[string]string // session_id -> event_id -> canonical event

func (s store) append(req obj) (obj, error) {
	session, e := str(req, "session_id"), sub(req, "event")
	if str(e, "session_id") != session {
		return nil, fail("WRONG_SESSION", "the event's session_id is not %q", session)
	}
	if s[session] == nil {
		s[session] = map[string]string{}
	}
	id, canon := str(e, "event_id"), string(compact(e))
	if stored, ok := s[session][id]; ok {
		if stored == canon {
			return obj{"result": "duplicate"}, nil
		}
		return nil, fail("CONFLICT", "event_id %q is already stored with different content", id)
	}
	s[session][id] = canon
	return obj{"result": "appended"}, nil
}

// --- F. Checkpoints ---------------------------------------------------------

const reducerVersion = "go-solution-replay/1"

type checkpoint struct {
	ReducerVersion    string   `json:"reducer_version"`
	SourceSequence    int64    `json:"source_sequence"`
	SourceFingerprint string   `json:"source_fingerprint"`
	SessionID         string   `json:"session_id"`
	RunID             string   `json:"run_id"`
	EventIDs          []string `json:"event_ids"`
	Projection        view     `json:"projection"`
}

func opCheckpoint(req obj) (obj, error) {
	evs, through := events(req, "events"), optInt(req, "through")
	st, err := replay(evs, through)
	if err != nil {
		return nil, err
	}
	cp := checkpoint{ReducerVersion: reducerVersion, SourceSequence: *through, SourceFingerprint: *st.Fingerprint,
		SessionID: st.SessionID, RunID: st.RunID, Projection: st.view}
	for _, e := range evs[:*through+1] {
		cp.EventIDs = append(cp.EventIDs, str(e, "event_id"))
	}
	return obj{"checkpoint": cp}, nil
}

func opReplayFromCheckpoint(req obj) (obj, error) {
	var cp checkpoint
	dec := json.NewDecoder(bytes.NewReader(compact(req["checkpoint"])))
	dec.UseNumber()
	if err := dec.Decode(&cp); err != nil || cp.ReducerVersion != reducerVersion {
		return nil, fail("STALE_CHECKPOINT", "the checkpoint was made by another reducer: replay from event zero")
	}
	c := &checker{session: cp.SessionID, run: cp.RunID, next: cp.SourceSequence + 1, seen: map[string]bool{}}
	for _, id := range cp.EventIDs {
		c.seen[id] = true
	}
	st := &state{SessionID: cp.SessionID, RunID: cp.RunID, view: cp.Projection}
	for i, e := range events(req, "tail") {
		if err := c.check(e, fmt.Sprintf("tail[%d]", i)); err != nil {
			return nil, err
		}
		st.apply(e)
	}
	// The fingerprint covers every event from zero; the checkpoint keeps only
	// the prefix's digest. (Go could keep the SHA-256 state with
	// encoding.BinaryMarshaler; this solution answers null, as the protocol
	// allows.)
	return obj{"state": st}, nil
}

// --- R. Resume (chapter 20 of the TypeScript harness) -----------------------

const (
	interruptedError = "Error [SESSION_RESUME_INTERRUPTED]: This tool call did not finish before the previous run " +
		"on this session ended, so no output was recorded. Treat it as not executed and decide whether to retry it."
	interruptedErrorType = "SessionResumeInterrupted"
)

type message struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	Name       string `json:"name,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	calls      []call
}

type call struct{ id, name string }

// pySpaced is Python's json.dumps(v, ensure_ascii=False, sort_keys=True) with
// its default separators ", " and ": ".
func pySpaced(v any) string {
	switch v := v.(type) {
	case obj:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = string(compact(k)) + ": " + pySpaced(v[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = pySpaced(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return string(compact(v))
}

// histText is a history message's text: a string, or a number's spelling;
// anything else is "".
func histText(p obj, key string) string {
	switch v := p[key].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

func toolMessage(p obj) message {
	var v any = obj{"ok": false, "error": p["error"], "error_type": p["error_type"]}
	if p["ok"] == true {
		v = p["result"]
	}
	return message{Role: "tool", Content: pySpaced(v), Name: histText(p, "tool"), ToolCallID: histText(p, "tool_call_id")}
}

func rebuildHistory(evs []obj) ([]message, error) {
	var hist []message
	open := -1 // the current turn's assistant message
	for _, e := range evs {
		p := sub(e, "payload")
		switch t := str(e, "type"); t {
		case "user.message":
			hist = append(hist, message{Role: "user", Content: histText(p, "content")})
			open = -1
		case "model.request":
			open = -1
		case "model.response":
			var content string
			if _, ok := p["content"]; ok {
				content = histText(p, "content")
			} else if p["final"] == true {
				content = histText(p, "accumulated")
			} else {
				continue
			}
			m := message{Role: "assistant", Content: content}
			calls, _ := p["tool_calls"].([]any)
			for _, c := range calls {
				co, _ := c.(obj)
				m.calls = append(m.calls, call{id: histText(co, "id"), name: histText(co, "name")})
			}
			hist = append(hist, m)
			open = len(hist) - 1
		case "tool.request":
			id := histText(p, "tool_call_id")
			if open < 0 {
				return nil, fail("HISTORY", "tool call %q follows no assistant message", id)
			}
			if !slices.ContainsFunc(hist[open].calls, func(c call) bool { return c.id == id }) {
				hist[open].calls = append(hist[open].calls, call{id: id, name: histText(p, "tool")})
			}
		case "tool.result":
			hist = append(hist, toolMessage(p))
		case "context.compact", "context.prune":
			return nil, fail("HISTORY", "%s cannot be replayed by this subject", t)
		}
	}
	return hist, nil
}

func unanswered(hist []message) []call {
	type entry struct {
		c        call
		answered bool
	}
	var calls []entry
	for _, m := range hist {
		switch m.Role {
		case "assistant":
			for _, c := range m.calls {
				calls = append(calls, entry{c: c})
			}
		case "tool":
			for i := range calls {
				if !calls[i].answered && calls[i].c.id == m.ToolCallID {
					calls[i].answered = true
					break
				}
			}
		}
	}
	var out []call
	for _, e := range calls {
		if !e.answered {
			out = append(out, e.c)
		}
	}
	return out
}

func opResume(req obj) (obj, error) {
	session, evs, run, msg := str(req, "session_id"), events(req, "events"), str(req, "run_id"), str(req, "message")
	if len(evs) == 0 {
		return nil, fail("NOT_FOUND", "session not found: %s (nothing was created)", session)
	}
	taken := map[string]bool{}
	start, userActor := obj{}, any(obj{"kind": "user", "id": "user"})
	for _, e := range evs {
		if str(sub(e, "provenance"), "run_id") == run {
			return nil, fail("RUN_EXISTS", "run %q is already in the session", run)
		}
		taken[str(e, "event_id")] = true
		switch str(e, "type") {
		case "session.start":
			if p := sub(e, "payload"); p != nil {
				start = p
			}
		case "user.message":
			userActor = e["actor"]
		}
	}
	hist, err := rebuildHistory(evs)
	if err != nil {
		return nil, err
	}
	repairs := unanswered(hist)

	last := evs[len(evs)-1]
	prov := obj{}
	for k, v := range sub(last, "provenance") {
		prov[k] = v
	}
	prov["run_id"] = run
	harness := obj{"kind": "harness", "id": str(prov, "agent_id")}
	payload := obj{}
	for k, v := range start {
		if k != "resumed" && k != "resumes_run_id" {
			payload[k] = v
		}
	}
	payload["resumed"], payload["resumes_run_id"] = true, str(sub(last, "provenance"), "run_id")
	clock, err := time.Parse(time.RFC3339, str(last, "timestamp"))
	if err != nil {
		clock = time.Now().UTC().Truncate(time.Second)
	}

	var appended []obj
	pos := len(evs)
	emit := func(typ string, actor any, p obj) {
		for taken[fmt.Sprintf("evt-%03d", pos)] {
			pos++
		}
		e := obj{
			"trace_version": "0.1.0",
			"event_id":      fmt.Sprintf("evt-%03d", pos),
			"session_id":    session,
			"sequence":      len(appended),
			"timestamp":     clock.Add(time.Duration(len(appended)+1) * time.Second).UTC().Format(time.RFC3339),
			"type":          typ,
			"actor":         actor,
			"payload":       p,
			"provenance":    prov,
			"redaction":     obj{"status": "clean", "fields": []string{}},
		}
		if len(appended) > 0 {
			e["parent_event_id"] = appended[len(appended)-1]["event_id"]
		}
		pos++
		appended = append(appended, e)
	}
	emit("session.start", harness, payload)
	for _, c := range repairs {
		p := obj{"tool_call_id": c.id, "tool": c.name, "ok": false, "error": interruptedError, "error_type": interruptedErrorType}
		emit("tool.result", harness, p)
		hist = append(hist, toolMessage(p))
	}
	if msg != "" {
		emit("user.message", userActor, obj{"content": msg})
		hist = append(hist, message{Role: "user", Content: msg})
	}
	return obj{"appended": appended, "history": hist}, nil
}

// --- The protocol loop ----------------------------------------------------

var ops = []string{"journal", "replay", "branch", "append", "checkpoint", "replay_from_checkpoint", "resume"}

func main() {
	st := store{}
	handlers := map[string]func(obj) (obj, error){
		"hello": func(obj) (obj, error) {
			return obj{"protocol": 1, "name": "go reference solution", "language": "go", "ops": ops}, nil
		},
		"journal":                func(r obj) (obj, error) { return obj{}, checkJournal(events(r, "events")) },
		"replay":                 opReplay,
		"branch":                 opBranch,
		"append":                 st.append,
		"checkpoint":             opCheckpoint,
		"replay_from_checkpoint": opReplayFromCheckpoint,
		"resume":                 opResume,
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n') // one request per line; stdin ends at the end of the run
		if len(bytes.TrimSpace(line)) > 0 {
			out.Write(compact(answer(handlers, line)))
			out.WriteByte('\n')
			out.Flush() // answer now: tracecheck waits for this line
		}
		if err != nil {
			return
		}
	}
}

func answer(handlers map[string]func(obj) (obj, error), line []byte) obj {
	var req obj
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return obj{"id": 0, "ok": false, "error": obj{"message": "not a JSON request: " + err.Error()}}
	}
	h := handlers[str(req, "op")]
	if h == nil {
		return obj{"id": req["id"], "ok": false, "error": obj{"message": fmt.Sprintf("op %q is not supported", str(req, "op")), "code": "UNSUPPORTED_OP"}}
	}
	res, err := h(req)
	if err != nil {
		e := obj{"message": err.Error()}
		if oe, ok := err.(*opError); ok && oe.code != "" {
			e["code"] = oe.code
		}
		return obj{"id": req["id"], "ok": false, "error": e}
	}
	res["id"], res["ok"] = req["id"], true
	return res
}
