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
// What a client can make the server hold is bounded whatever it sends
// (docs/model-server.md, "Limits"): Serve keeps at most
// Options.MaxConnections connections open (DefaultMaxConnections) with
// request headers of at most MaxHeaderBytes; a request's body is read only
// when its turn comes, one body at a time, within Options.BodyTimeout (408
// beyond) and Options.MaxBodyBytes (413 beyond), and decoded in place
// (package wire) with at most wire.MaxItems messages, parts, calls and
// tools; rejections are all counted, but only the first
// Options.KeepRejections are kept in the Report and written to the trace
// and the log, each quoting the request cut short (wire.Short).
//
// Listen refuses a non-loopback address unless asked; Run starts a server
// on a free loopback port and runs an agent command against it.
package modelserver

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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
	// DefaultBodyTimeout bounds the reading of one request body, from
	// when its turn comes to its last byte.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultMaxConnections bounds the connections Serve keeps open at
	// once (further ones wait to be accepted).
	DefaultMaxConnections = 64
	// DefaultKeepRejections is how many rejections are kept in full (the
	// Report, the trace, the log); the rest are counted.
	DefaultKeepRejections = 100
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
	// BodyTimeout bounds the reading of a whole request body, from when
	// the request's turn to be read comes (bodies are read one at a time)
	// to its last byte: a body that stalls or trickles in is refused with
	// 408 and its connection closed; 0 is DefaultBodyTimeout.
	BodyTimeout time.Duration
	// MaxConnections bounds the connections Serve (and Run) keep open to
	// this server at once; further ones wait to be accepted. 0 is
	// DefaultMaxConnections.
	MaxConnections int
	// KeepRejections is how many rejections are kept in full: in
	// Report.Rejected, as error events in the trace and as lines in Log.
	// The others are counted (Report.MoreRejected) and cost nothing
	// more; 0 is DefaultKeepRejections.
	KeepRejections int
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
	KindTooLarge       = "request_too_large" // the body past MaxBodyBytes, or more than wire.MaxItems items
	KindTimeout        = "request_timeout"   // the body not read within BodyTimeout
)

// Report says how a conversation went.
type Report struct {
	Turns     int // scripted turns
	Used      int // scripted turns answered, faulted turns included
	Answered  int // requests answered, ExhaustedText answers and faults served included
	Exhausted int // requests past the end of the script
	// Faults is how many scripted faults were served (each also counts in
	// Used and Answered; none is a rejection).
	Faults int
	// Rejected are the first rejections (Options.KeepRejections of them)
	// in full; MoreRejected counts the others. Rejections is the total.
	Rejected     []Rejection
	MoreRejected int
	TraceErr     error // the first failed trace write
}

// Unused is how many scripted turns no request got.
func (r Report) Unused() int { return r.Turns - r.Used }

// Rejections is how many requests were rejected, kept in Rejected or not.
func (r Report) Rejections() int { return len(r.Rejected) + r.MoreRejected }

// Reject counts rej: kept in full (and logged to log, when not nil) while
// fewer than keep rejections are, counted in MoreRejected after that, with
// one line to log the first time. It reports whether rej was kept, so
// that the caller writes it to its trace only then: the same bound for
// every endpoint.
func (r *Report) Reject(rej Rejection, keep int, log io.Writer) bool {
	if r.Rejections() < keep {
		r.Rejected = append(r.Rejected, rej)
		if log != nil {
			fmt.Fprintf(log, "rejected %s\n", rej)
		}
		return true
	}
	r.MoreRejected++
	if r.MoreRejected == 1 && log != nil {
		fmt.Fprintf(log, "rejected more than %d requests: the others are counted, not written to the trace or logged\n", keep)
	}
	return false
}

// Server serves one script. Create it with New.
type Server struct {
	script Script
	opt    Options

	// intake is held by the one request whose body is being read and
	// decoded and whose turn is being taken: a waiting request holds no
	// body. (A mutex, not a channel: a channel hands the intake to the
	// next request on the same processor, behind the streamed answer the
	// last one is still writing.)
	intake sync.Mutex
	// body is the buffer request bodies are read into, under the intake
	// (a body is done with when its request is decoded: the Request
	// copies what it keeps); kept while it is small.
	body []byte

	mu     sync.Mutex
	model  *fakemodel.Model
	log    *tracelog.Log
	report Report
	rec    record // under mu
	// digests are the last request's message digests, under mu.
	digests digests

	// stop is closed by Stop (or when an http.Server serving this one
	// shuts down): stalls end at once.
	stop     chan struct{}
	stopOnce sync.Once
	watchMu  sync.Mutex
	watched  map[*http.Server]bool
	// lastWatched is the http.Server last seen registered in watched.
	lastWatched atomic.Pointer[http.Server]
}

// record is the exchange being written to the trace, under Server.mu: its
// entries and their payload writers are kept from one exchange to the
// next, so that recording one allocates nothing.
type record struct {
	turn    int
	req     *wire.Request
	answer  fakemodel.Turn
	entries []tracelog.Entry
	// request appends req's model.request payload; responses[i] appends
	// answer's model.response payload i. Made once, not per exchange.
	request   func([]byte) []byte
	responses []func([]byte) []byte
}

// write writes entries to log as one exchange and lets go of what the
// exchange referred to.
func (r *record) write(log *tracelog.Log) {
	log.Write(r.entries...)
	clear(r.entries)
	r.entries = r.entries[:0]
	r.req, r.answer = nil, fakemodel.Turn{}
}

// New returns a server for script.
func New(script Script, opt Options) *Server {
	if opt.MaxExchanges <= 0 {
		opt.MaxExchanges = DefaultMaxExchanges
	}
	if opt.MaxBodyBytes <= 0 {
		opt.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opt.BodyTimeout <= 0 {
		opt.BodyTimeout = DefaultBodyTimeout
	}
	if opt.MaxConnections <= 0 {
		opt.MaxConnections = DefaultMaxConnections
	}
	if opt.KeepRejections <= 0 {
		opt.KeepRejections = DefaultKeepRejections
	}
	trace := opt.Trace
	if trace != nil && opt.Placeholders != nil {
		trace = placeholderWriter{trace, opt.Placeholders}
	}
	s := &Server{
		script:  script,
		opt:     opt,
		model:   fakemodel.New(script.Turns),
		log:     tracelog.New(trace, script.SessionID, script.Provenance),
		report:  Report{Turns: len(script.Turns)},
		stop:    make(chan struct{}),
		watched: map[*http.Server]bool{},
	}
	s.rec.request = func(b []byte) []byte { return s.appendRequestPayload(b, s.rec.turn, s.rec.req) }
	return s
}

// MaxConnections is Options.MaxConnections: how many connections Serve
// and Run keep open to s at once.
func (s *Server) MaxConnections() int { return s.opt.MaxConnections }

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
			Status: 404, Type: wire.TypeNotFound, Message: fmt.Sprintf("Invalid URL (%s %s): this server answers %s", wire.Short(r.Method), wire.Short(r.URL.Path), servedList),
		})
		return
	}
	if r.Method != http.MethodPost {
		s.reject(w, api, nil, KindNotFound, methodNotAllowed(r))
		return
	}
	s.intake.Lock()
	taken, ok := s.exchange(w, r, api)
	s.intake.Unlock()
	if ok {
		s.answer(w, r, taken)
	}
}

// servedList names the endpoints in a 404's message.
var servedList = strings.Join([]string{
	"POST " + wire.PathChatCompletions, "POST " + wire.PathResponses, "POST " + wire.PathMessages,
	"POST " + wire.PathCountTokens, "GET " + wire.PathModels, "HEAD /",
}, ", ")

// decodeOptions are what r's headers say about reading its body.
func decodeOptions(r *http.Request) wire.DecodeOptions {
	// Header.Values("anthropic-beta") canonicalizes the key into a new
	// string on every request; this is its canonical form.
	return wire.DecodeOptions{MidConversationSystem: wire.AnthropicBetaAllowsSystem(r.Header["Anthropic-Beta"])}
}

// readBody reads a request body within the size limit and the body
// timeout (the caller holds the intake); a failure is rejected (and false
// returned).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, api wire.API) ([]byte, bool) {
	body, kind, e := readBody(w, r, s.opt.MaxBodyBytes, s.opt.BodyTimeout, s.body[:0])
	if cap(body) <= maxKeptBody {
		s.body = body[:0]
	}
	if e != nil {
		s.reject(w, api, nil, kind, e)
		return nil, false
	}
	return body, true
}

// maxKeptBody bounds the body buffer a Server keeps for the next request:
// a large body's is let go.
const maxKeptBody = 64 << 10

// ReadBody reads r's body, at most limit bytes, within timeout from now:
// the one way every endpoint reads a request (the scripted server, the
// cassette player). A body announced larger than limit is refused unread.
// On failure it returns the rejection's kind and error (413 too large,
// 408 too slow, 400 unreadable) and has set "Connection: close", as the
// rest of the body is never read; the caller answers with them.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration) ([]byte, string, *wire.Error) {
	body, kind, e := readBody(w, r, limit, timeout, nil)
	if e != nil {
		return nil, kind, e
	}
	return body, "", nil
}

// readBody is ReadBody into buf (its capacity; a new buffer when that is
// too small). The buffer read into is returned on failure too, for the
// caller to use again.
func readBody(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration, buf []byte) ([]byte, string, *wire.Error) {
	tooLarge := func() ([]byte, string, *wire.Error) {
		w.Header().Set("Connection", "close")
		return buf, KindTooLarge, &wire.Error{Status: 413, Type: wire.TypeTooLarge, Message: fmt.Sprintf("request body larger than %d bytes", limit)}
	}
	if r.ContentLength > limit {
		return tooLarge()
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(timeout)) // an error: a writer without deadlines (a test's), read as it is
	want := int64(512)
	if r.ContentLength > 0 {
		want = r.ContentLength + 1 // the +1 reads the EOF without growing
	}
	if int64(cap(buf)) < want {
		buf = make([]byte, 0, want)
	}
	rd := r.Body
	if r.ContentLength < 0 {
		// A body of unannounced length (chunked) is cut at the limit; one
		// announced within it ends there (net/http reads no further).
		rd = http.MaxBytesReader(w, r.Body, limit)
	}
	body, err := readAll(rd, buf[:0])
	buf = body
	if err == nil {
		// The deadline stays until the handler returns (net/http sets
		// the connection's next one then) unless the answer may take its
		// time: a streamed answer or a fault ends it first (endBodyDeadline).
		return body, "", nil
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return tooLarge()
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close")
		return buf, KindTimeout, &wire.Error{Status: 408, Type: wire.TypeInvalidRequest,
			Message: fmt.Sprintf("the request body was not read within %s (%d bytes had arrived)", timeout, len(body))}
	}
	w.Header().Set("Connection", "close")
	return buf, KindInvalidRequest, wire.Invalid("", "reading the request body: %v", err)
}

// endBodyDeadline ends the read deadline readBody set, before an answer
// that may outlast it: a stall, or a streamed answer to a slow reader.
// (Past the deadline net/http's read of the connection's next bytes, which
// watches for a client that goes away, fails and cancels the request's
// context, which those answers take for the client gone.) A whole answer
// is written at once and leaves the deadline to net/http, which sets the
// connection's next one when the handler returns.
func endBodyDeadline(w http.ResponseWriter) {
	http.NewResponseController(w).SetReadDeadline(time.Time{})
}

// readAll is io.ReadAll into buf, which holds the whole body when the
// request announced its length.
func readAll(rd io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// countTokens answers POST /v1/messages/count_tokens: the request is
// checked as a Messages request would be and answered with a count (a
// quarter of the body's bytes, deterministic), never taking a turn.
func (s *Server) countTokens(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		s.reject(w, wire.AnthropicMessages, nil, KindNotFound, methodNotAllowed(r))
		return
	}
	s.intake.Lock()
	out, ok := s.countBody(w, r)
	s.intake.Unlock()
	if !ok {
		return
	}
	w.Header().Set("Content-Type", wire.ContentJSON)
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.Write(out)
}

// countBody reads and checks a count_tokens body (under the intake) and
// returns the answer.
func (s *Server) countBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, ok := s.readBody(w, r, wire.AnthropicMessages)
	if !ok {
		return nil, false
	}
	if _, werr := wire.DecodeCountTokens(body, decodeOptions(r)); werr != nil {
		s.reject(w, wire.AnthropicMessages, nil, kindOf(werr), werr)
		return nil, false
	}
	return fmt.Appendf(nil, "{\"input_tokens\":%d}\n", len(body)/4), true
}

// kindOf is the rejection kind of a decoding error: too large (413) or
// invalid.
func kindOf(e *wire.Error) string {
	if e.Status == 413 {
		return KindTooLarge
	}
	return KindInvalidRequest
}

func methodNotAllowed(r *http.Request) *wire.Error {
	return &wire.Error{Status: 405, Type: wire.TypeNotFound, Message: fmt.Sprintf("method %s is not allowed on %s", wire.Short(r.Method), wire.Short(r.URL.Path))}
}

// taken is a request whose turn is taken and recorded, to be answered.
type taken struct {
	api  wire.API
	req  *wire.Request
	turn int
	t    fakemodel.Turn
}

// exchange takes one model request (the caller holds the intake): read,
// decode and check it, take the next turn and record the exchange. It
// returns what answer writes or serves (the turn's fault), which the
// caller does after leaving the intake (a slow reader, or a stall, delays
// nobody else); false when the request was rejected (already answered).
func (s *Server) exchange(w http.ResponseWriter, r *http.Request, api wire.API) (taken, bool) {
	body, ok := s.readBody(w, r, api)
	if !ok {
		return taken{}, false
	}
	req, werr := wire.DecodeWith(api, body, decodeOptions(r))
	body = nil // the request keeps what it needs
	if werr != nil {
		s.reject(w, api, req, kindOf(werr), werr) // req is set when only the tool-call protocol is broken
		return taken{}, false
	}
	s.mu.Lock()
	turn := s.report.Answered + 1
	if s.report.Answered+s.report.Rejections() >= s.opt.MaxExchanges {
		s.mu.Unlock()
		s.reject(w, api, req, KindTooMany, wire.Invalid("", "this server answers at most %d requests", s.opt.MaxExchanges))
		return taken{}, false
	}
	exhausted := s.model.Remaining() == 0
	if exhausted && s.opt.Exhausted == ExhaustedError {
		s.mu.Unlock()
		e := wire.Invalid("", "the script has no turn left: all %d scripted turns were answered (request %d)", len(s.script.Turns), turn)
		e.Code = KindExhausted
		s.reject(w, api, req, KindExhausted, e)
		return taken{}, false
	}
	t := s.model.Take()
	s.report.Answered++
	if exhausted {
		s.report.Exhausted++
	} else {
		s.report.Used++
	}
	s.recordRequest(turn, req)
	if t.Fault != nil {
		s.report.Faults++
		s.rec.entries = append(s.rec.entries, tracelog.Entry{Type: "error", Actor: s.modelActor(), Payload: faultPayload(turn, t.Fault)})
	} else {
		s.rec.answer = t
		for i := range t.ResponseCount() {
			if i == len(s.rec.responses) {
				s.rec.responses = append(s.rec.responses, func(b []byte) []byte { return s.rec.answer.AppendResponsePayload(b, s.rec.turn, i) })
			}
			s.rec.entries = append(s.rec.entries, tracelog.Entry{Type: "model.response", Actor: s.modelActor(), AppendPayload: s.rec.responses[i]})
		}
	}
	s.rec.write(s.log)
	if t.Fault != nil && s.opt.Log != nil {
		fmt.Fprintf(s.opt.Log, "served fault: turn %d: %s %s\n", turn, api, describeFault(t.Fault))
	}
	s.mu.Unlock()
	return taken{api: api, req: req, turn: turn, t: t}, true
}

// answer writes the answer to a taken request, or serves its turn's
// fault.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, tk taken) {
	prefix := "chatcmpl-tracecheck-"
	if tk.api == wire.AnthropicMessages {
		prefix = "msg_tracecheck_"
	}
	if tk.api == wire.OpenAIResponses {
		prefix = "resp_tracecheck_" // its items: msg_tracecheck_001_0, fc_tracecheck_001_1, ...
	}
	var id [32]byte
	a := wire.Answer{ID: string(appendPad(append(id[:0], prefix...), tk.turn)), Created: scenarios.ClockStart.Unix() + int64(tk.turn), Model: tk.req.Model, Turn: tk.t}
	if tk.t.Fault != nil {
		endBodyDeadline(w)
		s.serveFault(w, r, tk.api, wire.Render(tk.req, a), tk.turn, tk.t.Fault)
		return
	}
	pooled := answerBufs.Get().(*[]byte)
	resp, buf := wire.RenderInto(*pooled, tk.req, a)
	if resp.Events != nil {
		endBodyDeadline(w)
	}
	write(w, resp, tk.api, tk.turn)
	if buf != nil && cap(buf) <= maxKeptAnswer {
		*pooled = buf[:0]
	}
	answerBufs.Put(pooled)
}

// answerBufs are the buffers answers are rendered into (wire.RenderInto),
// each used again once its answer is written (outside the intake, so one
// per answer being written).
var answerBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxKeptAnswer bounds an answer buffer put back in answerBufs.
const maxKeptAnswer = 64 << 10

// pad is n as "%03d" spells it.
func pad(n int) string { return string(appendPad(nil, n)) }

// appendPad appends n as "%03d" spells it.
func appendPad(b []byte, n int) []byte {
	switch {
	case n >= 0 && n < 1000:
		return append(b, '0'+byte(n/100), '0'+byte(n/10%10), '0'+byte(n%10))
	case n >= 1000:
		return jsonv.AppendInt(b, int64(n))
	}
	return fmt.Appendf(b, "%03d", n)
}

// write sends a rendered response: a body, or each event flushed on its
// own so the client reads real deltas.
func write(w http.ResponseWriter, resp wire.Response, api wire.API, turn int) {
	// Keys already in canonical form, assigned without Set's
	// canonicalization: these headers are set on every answer.
	// The values in one slice and the request id and length in one
	// string: two allocations for the headers of every answer.
	h := w.Header()
	vals := make([]string, 3)
	var text [48]byte
	b := appendPad(append(text[:0], "req_tracecheck_"...), turn)
	idEnd := len(b)
	if resp.Events == nil {
		b = jsonv.AppendInt(b, int64(len(resp.Body)))
	}
	both := string(b)
	vals[0], vals[1] = resp.ContentType, both[:idEnd]
	h["Content-Type"] = vals[0:1:1]
	h[requestIDKey(api)] = vals[1:2:2]
	if resp.Events == nil {
		vals[2] = both[idEnd:]
		h["Content-Length"] = vals[2:3:3]
		w.Write(resp.Body)
		return
	}
	vals[2] = "no-cache"
	h["Cache-Control"] = vals[2:3:3]
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
	h[requestIDKey(api)] = []string{"req_tracecheck_" + pad(turn)}
}

// requestIDKey is the request id header of api, in canonical form.
func requestIDKey(api wire.API) string {
	if api == wire.AnthropicMessages {
		return "Request-Id"
	}
	return "X-Request-Id"
}

// recordRequest starts the exchange's record (the caller holds s.mu) with
// the model.request of req, the request for turn.
func (s *Server) recordRequest(turn int, req *wire.Request) {
	s.rec.turn, s.rec.req = turn, req
	s.rec.entries = append(s.rec.entries[:0], tracelog.Entry{
		Type:          "model.request",
		Actor:         journal.Actor{Kind: "harness", ID: s.script.Provenance.AgentID},
		AppendPayload: s.rec.request,
	})
}

// appendRequestPayload appends the model.request payload, {turn,
// message_count, roles, tools, messages}, as JSON text: a request of many
// messages costs the bytes of its record in the trace's line, not a tree
// of it. Each message's text is dropped once digested.
func (s *Server) appendRequestPayload(b []byte, turn int, req *wire.Request) []byte {
	b = slices.Grow(b, 128+len(req.Tools)*16+len(req.Messages)*160)
	b = append(b, `{"turn":`...)
	b = jsonv.AppendInt(b, int64(turn))
	b = append(b, `,"message_count":`...)
	b = jsonv.AppendInt(b, int64(len(req.Messages)))
	b = append(b, `,"roles":[`...)
	for i, m := range req.Messages {
		b = appendStr(b, i, m.Role)
	}
	b = append(b, `],"tools":[`...)
	for i, t := range req.Tools {
		b = appendStr(b, i, t)
	}
	b = append(b, `],"messages":[`...)
	s.digests.keep(len(req.Messages))
	for i := range req.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		m := &req.Messages[i]
		b = appendDigest(b, m, s.digests.of(i, m.Text, s.opt.Placeholders))
		m.Text = ""
	}
	return append(b, "]}"...)
}

// appendStr appends s as a JSON string (jsonv's spelling), after a comma
// unless it is element 0.
func appendStr(b []byte, i int, s string) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	return jsonv.Str(s).AppendJSON(b)
}

func (s *Server) modelActor() journal.Actor { return journal.Actor{Kind: "model", ID: s.script.Model} }

// rejectUnserved rejects a request for a path no API serves: the
// rejection names the route (cut short), not an API, and the error body
// takes the shape of the API the client most likely meant.
func (s *Server) rejectUnserved(w http.ResponseWriter, r *http.Request, e *wire.Error) {
	s.rejectAs(w, wire.APIOf(r.URL.Path, r.Header.Get("anthropic-version")), "", wire.Short(r.Method)+" "+wire.Short(r.URL.Path), nil, KindNotFound, e)
}

// reject records a refused request (its model.request when it was decoded,
// then an error event) and answers e in api's shape.
func (s *Server) reject(w http.ResponseWriter, api wire.API, req *wire.Request, kind string, e *wire.Error) {
	s.rejectAs(w, api, api, "", req, kind, e)
}

// MaxMessageBytes bounds the message of a rejection (its error body, its
// trace event, its log line): the parts that quote the request are cut
// short where they are quoted (wire.Short); this catches the rest.
const MaxMessageBytes = 2 << 10

// CutMessage is msg within MaxMessageBytes.
func CutMessage(msg string) string {
	if len(msg) <= MaxMessageBytes {
		return msg
	}
	cut := MaxMessageBytes
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", msg[:cut], len(msg))
}

// rejectAs is reject with the error body in shape's form, the rejection
// judged by api ("" for none: then route names what was asked). Every
// rejection is counted; the first Options.KeepRejections are kept in the
// report and written to the trace and the log, the others cost a count.
func (s *Server) rejectAs(w http.ResponseWriter, shape, api wire.API, route string, req *wire.Request, kind string, e *wire.Error) {
	e.Message = CutMessage(e.Message)
	s.mu.Lock()
	turn := s.report.Answered + 1
	rej := Rejection{Turn: turn, API: api, Route: route, Status: e.Status, Kind: kind, Message: e.Message}
	if s.report.Reject(rej, s.opt.KeepRejections, s.opt.Log) {
		s.rec.entries = s.rec.entries[:0]
		if req != nil {
			s.recordRequest(turn, req)
		}
		s.rec.entries = append(s.rec.entries, tracelog.Entry{Type: "error", Actor: s.modelActor(), Payload: jsonv.Obj(
			jsonv.M("turn", jsonv.Int(int64(turn))),
			jsonv.M("kind", jsonv.Str(kind)),
			jsonv.M("status", jsonv.Int(int64(e.Status))),
			jsonv.M("message", jsonv.Str(e.Message)),
		)})
		s.rec.write(s.log)
	}
	s.mu.Unlock()

	body := e.Body(shape)
	w.Header().Set("Content-Type", wire.ContentJSON)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.Status)
	w.Write(body)
}
