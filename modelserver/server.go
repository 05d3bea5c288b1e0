// Package modelserver is the HTTP face of the scripted model: it serves a
// scenario's scripted turns where agents look for a model, in the wire
// formats their SDKs speak (package wire: OpenAI Chat Completions, the
// OpenAI Responses API and Anthropic Messages, whole and streamed), and
// records what the agent sent as a Trace 0.1.0 journal.
//
// A Server answers POST /v1/chat/completions, POST /v1/responses (Codex's
// wire_api = "responses") and POST /v1/messages with the script's next
// turn, and GET /v1/models with the scripted model's id. A
// scripted conversation is sequential: requests are taken one at a time in
// the order they arrive (a concurrent request waits for the one before it
// to be answered), so an agent that sends one request at a time always gets
// turn 1, 2, 3 … in order. Each exchange appends to the trace, with one
// write, a model.request {turn, message_count, roles, tools} as the
// scenarios record it and the model.response payloads the scenario runner
// records for that turn (one per chunk of a streamed turn); a rejected
// request appends an error event {turn, kind, status, message} instead.
//
// A turn may script a fault (fakemodel.Fault) for an agent's crash, retry
// and resume paths: the connection broken mid-answer (the chunked body
// aborted without its end), the provider's error status with its retry
// headers, a stall, or data that is not valid JSON. A faulted turn is used
// like any other, so the agent's retry gets the next turn; its exchange
// records the model.request, then an error event {turn, kind: "fault",
// fault, ...} instead of model.response events, and the Report counts it
// in Faults, never as a rejection.
//
// Requests that break what the real APIs enforce are rejected as they
// would be (status and JSON error body of the API called): malformed
// bodies, missing fields, and a tool call left without its tool result.
// When the script is used up the server answers as the in-process scripted
// model does (fakemodel.ExhaustedText) or, with ExhaustedError, rejects the
// request with 400 (as inspect_ai's mockllm raises when its outputs run
// out).
//
// Listen refuses a non-loopback address unless asked; Run starts a server
// on a free loopback port and runs an agent command against it.
package modelserver

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/internal/placeholder"
	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver/tracelog"
	"github.com/tracecheck/tracecheck/modelserver/wire"
	"github.com/tracecheck/tracecheck/scenarios"
)

// Script is what a Server serves and how its trace is identified.
type Script struct {
	Turns      []fakemodel.Turn
	SessionID  string
	Provenance journal.Provenance // RunID included
	Model      string             // the id GET /v1/models lists and model events' actor.id
}

// Surface is the provenance surface of a trace recorded at the model
// endpoint.
const Surface = "model-http"

// ScriptOf is the script of a scenario's first run: its turns, its
// session, its provenance with surface "model-http" and run id
// run-<id>-http (the trace is another run of the session than the golden's).
func ScriptOf(sc *scenarios.Scenario) Script {
	prov := sc.Provenance
	prov.Surface = Surface
	prov.RunID = "run-" + sc.ID + "-http"
	model := fakemodel.ID
	if prov.Model != nil && *prov.Model != "" {
		model = *prov.Model
	}
	return Script{Turns: sc.Turns, SessionID: sc.SessionID, Provenance: prov, Model: model}
}

// ExhaustedPolicy is what a request past the end of the script gets.
type ExhaustedPolicy int

const (
	// ExhaustedAnswer answers fakemodel.ExhaustedText, as the in-process
	// scripted model does (the default).
	ExhaustedAnswer ExhaustedPolicy = iota
	// ExhaustedError rejects the request with 400 and error code
	// script_exhausted.
	ExhaustedError
)

// Defaults.
const (
	DefaultMaxExchanges = 10000
	DefaultMaxBodyBytes = 32 << 20
)

// Options tune a Server; the zero value is usable.
type Options struct {
	Exhausted ExhaustedPolicy
	// Trace receives the trace, one Write per exchange; nil records none.
	Trace io.Writer
	// MaxExchanges bounds the requests one server answers (a runaway agent
	// gets 400 after that); 0 is DefaultMaxExchanges.
	MaxExchanges int
	// MaxBodyBytes bounds a request body (413 beyond); 0 is
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Log receives one line per rejected request and per fault served;
	// nil logs nothing.
	Log io.Writer
	// Placeholders replace what varies from run to run (the agent's
	// workspace and home paths, today's date) in everything the trace
	// records, the message hashes included, so that two runs of one
	// scenario give the same trace; nil replaces nothing.
	Placeholders *placeholder.Set
}

// Rejection is one request the server refused.
type Rejection struct {
	Turn int // the turn it would have been
	// API is the API the request was judged by; "" for a path no API
	// serves, which Route names (METHOD PATH).
	API     wire.API
	Route   string
	Status  int
	Kind    string // ErrorKind*
	Message string
}

// String is the rejection on one line, safe to print: a message that
// holds a control, bidi or invalid character (it quotes the request) is
// printed quoted by textsafe.Quote, else as it is.
func (r Rejection) String() string {
	judged := string(r.API)
	if judged == "" {
		judged = SafeText(r.Route) + " (no API serves it)"
	}
	return fmt.Sprintf("turn %d: %s %d %s: %s", r.Turn, judged, r.Status, r.Kind, SafeText(r.Message))
}

// SafeText is s when the only reasons textsafe.Quote would quote it are
// its quote marks and spaces (messages are sentences quoting JSON), else
// textsafe.Quote(s).
func SafeText(s string) string {
	probe := strings.NewReplacer(`"`, "x", " ", "x").Replace(s)
	if probe != "" && textsafe.Plain(probe) {
		return s
	}
	return textsafe.Quote(s)
}

// Kinds of rejected requests, as the trace's error events name them.
const (
	KindInvalidRequest = "invalid_request" // the API would reject it (malformed, missing field, tool protocol)
	KindNotFound       = "not_found"       // a path or method the server does not serve
	KindExhausted      = "script_exhausted"
	KindTooMany        = "too_many_requests"
	KindTooLarge       = "request_too_large"
)

// Report says how a conversation went.
type Report struct {
	Turns     int // scripted turns
	Used      int // scripted turns answered, faulted turns included
	Answered  int // requests answered, ExhaustedText answers and faults served included
	Exhausted int // requests past the end of the script
	// Faults is how many scripted faults were served (each also counts in
	// Used and Answered; none is a rejection).
	Faults   int
	Rejected []Rejection
	TraceErr error // the first failed trace write
}

// Unused is how many scripted turns no request got.
func (r Report) Unused() int { return r.Turns - r.Used }

// Server serves one script. Create it with New.
type Server struct {
	script Script
	opt    Options

	mu     sync.Mutex
	model  *fakemodel.Model
	log    *tracelog.Log
	report Report

	// stop is closed by Stop (or when an http.Server serving this one
	// shuts down): stalls end at once.
	stop     chan struct{}
	stopOnce sync.Once
	watchMu  sync.Mutex
	watched  map[*http.Server]bool
}

// New returns a server for script.
func New(script Script, opt Options) *Server {
	if opt.MaxExchanges <= 0 {
		opt.MaxExchanges = DefaultMaxExchanges
	}
	if opt.MaxBodyBytes <= 0 {
		opt.MaxBodyBytes = DefaultMaxBodyBytes
	}
	trace := opt.Trace
	if trace != nil && opt.Placeholders != nil {
		trace = placeholderWriter{trace, opt.Placeholders}
	}
	return &Server{
		script:  script,
		opt:     opt,
		model:   fakemodel.New(script.Turns),
		log:     tracelog.New(trace, script.SessionID, script.Provenance),
		report:  Report{Turns: len(script.Turns)},
		stop:    make(chan struct{}),
		watched: map[*http.Server]bool{},
	}
}

// Report returns how the conversation has gone so far.
func (s *Server) Report() Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.report
	r.Rejected = append([]Rejection(nil), r.Rejected...)
	r.TraceErr = s.log.Err()
	return r
}

// placeholderWriter writes each exchange (one Write of whole JSON lines)
// with the placeholders' values replaced.
type placeholderWriter struct {
	w   io.Writer
	set *placeholder.Set
}

func (p placeholderWriter) Write(b []byte) (int, error) {
	if _, err := p.w.Write(p.set.JSON(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// ServeHTTP routes a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.watchShutdown(r)
	if r.URL.Path == "/" && (r.Method == http.MethodHead || r.Method == http.MethodGet) {
		// Clients check or warm the connection with HEAD / or GET / (Claude
		// Code sends a HEAD / before its first request): answered, never a
		// turn and never a rejection.
		w.Header().Set("Content-Type", wire.ContentJSON)
		body := []byte("{\"ok\":true,\"server\":\"tracecheck scripted model\"}\n")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if r.Method == http.MethodGet {
			w.Write(body)
		}
		return
	}
	if r.URL.Path == wire.PathCountTokens {
		s.countTokens(w, r)
		return
	}
	if r.URL.Path == wire.PathModels {
		if r.Method != http.MethodGet {
			s.reject(w, wire.APIOf(r.URL.Path, r.Header.Get("anthropic-version")), nil, KindNotFound, methodNotAllowed(r))
			return
		}
		api := wire.APIOf(r.URL.Path, r.Header.Get("anthropic-version"))
		w.Header().Set("Content-Type", wire.ContentJSON)
		w.Write(wire.Models(api, []string{s.script.Model}, scenarios.ClockStart))
		return
	}
	api, ok := wire.ForPath(r.URL.Path)
	if !ok {
		s.rejectUnserved(w, r, &wire.Error{
			Status: 404, Type: wire.TypeNotFound, Message: fmt.Sprintf("Invalid URL (%s %s): this server answers %s", r.Method, r.URL.Path, servedList),
		})
		return
	}
	if r.Method != http.MethodPost {
		s.reject(w, api, nil, KindNotFound, methodNotAllowed(r))
		return
	}
	body, ok := s.readBody(w, r, api)
	if !ok {
		return
	}
	s.exchange(w, r, api, body, decodeOptions(r))
}

// servedList names the endpoints in a 404's message.
var servedList = strings.Join([]string{
	"POST " + wire.PathChatCompletions, "POST " + wire.PathResponses, "POST " + wire.PathMessages,
	"POST " + wire.PathCountTokens, "GET " + wire.PathModels, "HEAD /",
}, ", ")

// decodeOptions are what r's headers say about reading its body.
func decodeOptions(r *http.Request) wire.DecodeOptions {
	return wire.DecodeOptions{MidConversationSystem: wire.AnthropicBetaAllowsSystem(r.Header.Values("anthropic-beta"))}
}

// readBody reads a request body within the size limit; a failure is
// rejected (and false returned).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, api wire.API) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.reject(w, api, nil, KindTooLarge, &wire.Error{Status: 413, Type: wire.TypeTooLarge, Message: fmt.Sprintf("request body larger than %d bytes", s.opt.MaxBodyBytes)})
			return nil, false
		}
		s.reject(w, api, nil, KindInvalidRequest, wire.Invalid("", "reading the request body: %v", err))
		return nil, false
	}
	return body, true
}

// countTokens answers POST /v1/messages/count_tokens: the request is
// checked as a Messages request would be and answered with a count (a
// quarter of the body's bytes, deterministic), never taking a turn.
func (s *Server) countTokens(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		s.reject(w, wire.AnthropicMessages, nil, KindNotFound, methodNotAllowed(r))
		return
	}
	body, ok := s.readBody(w, r, wire.AnthropicMessages)
	if !ok {
		return
	}
	if _, werr := wire.DecodeCountTokens(body, decodeOptions(r)); werr != nil {
		s.reject(w, wire.AnthropicMessages, nil, KindInvalidRequest, werr)
		return
	}
	out := fmt.Appendf(nil, "{\"input_tokens\":%d}\n", len(body)/4)
	w.Header().Set("Content-Type", wire.ContentJSON)
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.Write(out)
}

func methodNotAllowed(r *http.Request) *wire.Error {
	return &wire.Error{Status: 405, Type: wire.TypeNotFound, Message: fmt.Sprintf("method %s is not allowed on %s", r.Method, r.URL.Path)}
}

// exchange answers one model request: decode and check it, take the next
// turn, record the exchange, then write the answer or serve the turn's
// fault (outside the lock: a slow reader, or a stall, delays nobody else).
func (s *Server) exchange(w http.ResponseWriter, r *http.Request, api wire.API, body []byte, opt wire.DecodeOptions) {
	req, werr := wire.DecodeWith(api, body, opt)
	if werr != nil {
		s.reject(w, api, req, KindInvalidRequest, werr) // req is set when only the tool-call protocol is broken
		return
	}
	s.mu.Lock()
	turn := s.report.Answered + 1
	if s.report.Answered+len(s.report.Rejected) >= s.opt.MaxExchanges {
		s.mu.Unlock()
		s.reject(w, api, req, KindTooMany, wire.Invalid("", "this server answers at most %d requests", s.opt.MaxExchanges))
		return
	}
	exhausted := s.model.Remaining() == 0
	if exhausted && s.opt.Exhausted == ExhaustedError {
		s.mu.Unlock()
		e := wire.Invalid("", "the script has no turn left: all %d scripted turns were answered (request %d)", len(s.script.Turns), turn)
		e.Code = KindExhausted
		s.reject(w, api, req, KindExhausted, e)
		return
	}
	t := s.model.Respond(nil, req.Tools)
	s.report.Answered++
	if exhausted {
		s.report.Exhausted++
	} else {
		s.report.Used++
	}
	entries := []tracelog.Entry{s.requestEntry(turn, req)}
	if t.Fault != nil {
		s.report.Faults++
		entries = append(entries, tracelog.Entry{Type: "error", Actor: s.modelActor(), Payload: faultPayload(turn, t.Fault)})
	} else {
		for _, p := range t.ResponsePayloads(turn) {
			entries = append(entries, tracelog.Entry{Type: "model.response", Actor: s.modelActor(), Payload: p})
		}
	}
	s.log.Append(entries...)
	if t.Fault != nil && s.opt.Log != nil {
		fmt.Fprintf(s.opt.Log, "served fault: turn %d: %s %s\n", turn, api, describeFault(t.Fault))
	}
	s.mu.Unlock()

	id := "chatcmpl-tracecheck-" + pad(turn)
	if api == wire.AnthropicMessages {
		id = "msg_tracecheck_" + pad(turn)
	}
	if api == wire.OpenAIResponses {
		id = "resp_tracecheck_" + pad(turn) // its items: msg_tracecheck_001_0, fc_tracecheck_001_1, ...
	}
	resp := wire.Render(req, wire.Answer{ID: id, Created: scenarios.ClockStart.Unix() + int64(turn), Model: req.Model, Turn: t})
	if t.Fault != nil {
		s.serveFault(w, r, api, resp, turn, t.Fault)
		return
	}
	write(w, resp, api, turn)
}

func pad(n int) string { return fmt.Sprintf("%03d", n) }

// write sends a rendered response: a body, or each event flushed on its
// own so the client reads real deltas.
func write(w http.ResponseWriter, resp wire.Response, api wire.API, turn int) {
	h := w.Header()
	h.Set("Content-Type", resp.ContentType)
	requestID(h, api, turn)
	if resp.Events == nil {
		h.Set("Content-Length", strconv.Itoa(len(resp.Body)))
		w.Write(resp.Body)
		return
	}
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	for _, ev := range resp.Events {
		if _, err := w.Write(ev); err != nil {
			return // the client went away; the exchange is recorded as answered
		}
		if f != nil {
			f.Flush()
		}
	}
}

// requestID sets the request id header of the API: Anthropic's
// request-id, OpenAI's x-request-id.
func requestID(h http.Header, api wire.API, turn int) {
	if api == wire.AnthropicMessages {
		h.Set("request-id", "req_tracecheck_"+pad(turn))
	} else {
		h.Set("x-request-id", "req_tracecheck_"+pad(turn))
	}
}

func (s *Server) requestEntry(turn int, req *wire.Request) tracelog.Entry {
	tools := req.Tools
	if tools == nil {
		tools = []string{}
	}
	return tracelog.Entry{
		Type:  "model.request",
		Actor: journal.Actor{Kind: "harness", ID: s.script.Provenance.AgentID},
		Payload: jsonv.Obj(
			jsonv.M("turn", jsonv.Int(int64(turn))),
			jsonv.M("message_count", jsonv.Int(int64(len(req.Messages)))),
			jsonv.M("roles", jsonv.StrArr(req.Roles())),
			jsonv.M("tools", jsonv.StrArr(tools)),
			jsonv.M("messages", jsonv.Arr(s.messageDigests(req.Messages)...)),
		),
	}
}

// PreviewRunes is how much of a message's text a trace's preview shows.
const PreviewRunes = 48

// messageDigests describe each message of a request for the trace: its
// role, the calls it makes or answers, and the SHA-256 and a short
// preview of its text with the placeholders applied, so that a changed
// tool output or prompt is a difference in the trace while what varies per
// run is not.
func (s *Server) messageDigests(msgs []wire.Message) []jsonv.Value {
	out := make([]jsonv.Value, len(msgs))
	for i, m := range msgs {
		text := s.opt.Placeholders.Text(m.Text)
		sum := sha256.Sum256([]byte(text))
		ms := []jsonv.Member{jsonv.M("role", jsonv.Str(m.Role))}
		if len(m.ToolCalls) > 0 {
			ms = append(ms, jsonv.M("calls", jsonv.StrArr(m.ToolCalls)))
		}
		if m.Answers != "" {
			ms = append(ms, jsonv.M("answers", jsonv.Str(m.Answers)))
		}
		ms = append(ms,
			jsonv.M("sha256", jsonv.Str(hex.EncodeToString(sum[:]))),
			jsonv.M("chars", jsonv.Int(int64(utf8.RuneCountInString(text)))),
			jsonv.M("preview", jsonv.Str(preview(text))),
		)
		out[i] = jsonv.Obj(ms...)
	}
	return out
}

// preview is the start of text, at most PreviewRunes runes, "…" when cut.
func preview(text string) string {
	n := 0
	for i := range text {
		if n == PreviewRunes {
			return strings.ToValidUTF8(text[:i], "") + "…"
		}
		n++
	}
	return strings.ToValidUTF8(text, "")
}

func (s *Server) modelActor() journal.Actor { return journal.Actor{Kind: "model", ID: s.script.Model} }

// rejectUnserved rejects a request for a path no API serves: the
// rejection names the route, not an API, and the error body takes the
// shape of the API the client most likely meant.
func (s *Server) rejectUnserved(w http.ResponseWriter, r *http.Request, e *wire.Error) {
	s.rejectAs(w, wire.APIOf(r.URL.Path, r.Header.Get("anthropic-version")), "", r.Method+" "+r.URL.Path, nil, KindNotFound, e)
}

// reject records a refused request (its model.request when it was decoded,
// then an error event) and answers e in api's shape.
func (s *Server) reject(w http.ResponseWriter, api wire.API, req *wire.Request, kind string, e *wire.Error) {
	s.rejectAs(w, api, api, "", req, kind, e)
}

// rejectAs is reject with the error body in shape's form, the rejection
// judged by api ("" for none: then route names what was asked).
func (s *Server) rejectAs(w http.ResponseWriter, shape, api wire.API, route string, req *wire.Request, kind string, e *wire.Error) {
	s.mu.Lock()
	turn := s.report.Answered + 1
	rej := Rejection{Turn: turn, API: api, Route: route, Status: e.Status, Kind: kind, Message: e.Message}
	s.report.Rejected = append(s.report.Rejected, rej)
	var entries []tracelog.Entry
	if req != nil {
		entries = append(entries, s.requestEntry(turn, req))
	}
	entries = append(entries, tracelog.Entry{Type: "error", Actor: s.modelActor(), Payload: jsonv.Obj(
		jsonv.M("turn", jsonv.Int(int64(turn))),
		jsonv.M("kind", jsonv.Str(kind)),
		jsonv.M("status", jsonv.Int(int64(e.Status))),
		jsonv.M("message", jsonv.Str(e.Message)),
	)})
	s.log.Append(entries...)
	if s.opt.Log != nil {
		fmt.Fprintf(s.opt.Log, "rejected %s\n", rej)
	}
	s.mu.Unlock()

	body := e.Body(shape)
	w.Header().Set("Content-Type", wire.ContentJSON)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.Status)
	w.Write(body)
}
