package cassette

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/modelserver/tracelog"
	"github.com/tracecheck/tracecheck/modelserver/wire"
	"github.com/tracecheck/tracecheck/scenarios"
)

// Mode says what a Player does with a request.
type Mode string

// Modes.
const (
	Replay Mode = "replay" // answer from the cassette; a miss is an error (fail closed)
	Record Mode = "record" // answer from the cassette; forward a miss upstream and record it
	Live   Mode = "live"   // forward everything; the cassette is neither read nor written
)

// Options configure a Player.
type Options struct {
	Mode     Mode   // "" is Replay
	Upstream string // the real endpoint's base URL (Record, Live)
	// Trace receives the Trace of what the player saw, one Write per
	// exchange: model.request {turn, message_count, roles, tools} and
	// model.response {turn, status, source, recording}; nil records none.
	Trace io.Writer
	// Log receives one line per failed request (a miss, an upstream
	// failure); nil logs nothing.
	Log          io.Writer
	Client       *http.Client // nil is a client without timeout
	MaxBodyBytes int64        // 0 is modelserver.DefaultMaxBodyBytes
	// BodyTimeout bounds the reading of one body, from when its turn comes
	// (bodies are read one at a time) to its last byte; 0 is
	// modelserver.DefaultBodyTimeout.
	BodyTimeout time.Duration
	// MaxValues bounds the JSON values of a body (jsonv.CountValues), so
	// that the tree a request is matched by stays a small multiple of
	// what one request can hold (413 beyond); 0 is DefaultMaxValues.
	MaxValues int
	// KeepRejections is how many rejections are kept in full (the
	// report, the trace, Log); the rest are counted. 0 is
	// modelserver.DefaultKeepRejections.
	KeepRejections int
}

// DefaultMaxValues is the most JSON values a body may hold: five times the
// model server's item bound (a message is about five values), about 25 MB
// of tree.
const DefaultMaxValues = 5 * wire.MaxItems

// KindMiss is the kind of a rejected request no recording matches.
const KindMiss = "cassette_miss"

// MaxEventBytes bounds one server-sent event read from upstream.
const MaxEventBytes = 16 << 20

// Player serves a cassette. Create it with Open; Close it to close the
// cassette file.
type Player struct {
	path     string
	opt      Options
	upstream string

	// intake is held while a body is read and parsed, so that one body's
	// bytes and tree are in memory at a time, whatever the clients do.
	intake sync.Mutex
	mu     sync.Mutex
	recs   []*Recording
	played []bool
	file   *os.File
	cas    *tracelog.Log
	trace  *tracelog.Log
	report modelserver.Report
}

// provenance of the events a Player writes.
func provenance(mode Mode, upstream string) journal.Provenance {
	harness := "native"
	if mode == Replay {
		harness = "fake"
	}
	p := journal.Provenance{AgentID: "tracecheck", SnapshotID: "tracecheck-cassette", Surface: modelserver.Surface, HarnessMode: harness, RunID: "run-cassette"}
	if u, err := url.Parse(upstream); err == nil && u.Host != "" {
		host := u.Hostname()
		p.Provider = &host
	}
	return p
}

// Open opens the cassette at path for mode: Replay needs the file, Record
// creates it when missing and appends to it, Live does not touch it.
func Open(path string, opt Options) (*Player, error) {
	if opt.Mode == "" {
		opt.Mode = Replay
	}
	if opt.MaxBodyBytes <= 0 {
		opt.MaxBodyBytes = modelserver.DefaultMaxBodyBytes
	}
	if opt.BodyTimeout <= 0 {
		opt.BodyTimeout = modelserver.DefaultBodyTimeout
	}
	if opt.MaxValues <= 0 {
		opt.MaxValues = DefaultMaxValues
	}
	if opt.KeepRejections <= 0 {
		opt.KeepRejections = modelserver.DefaultKeepRejections
	}
	if opt.Client == nil {
		opt.Client = &http.Client{}
	}
	p := &Player{path: path, opt: opt}
	switch opt.Mode {
	case Replay:
	case Record, Live:
		u, err := url.Parse(opt.Upstream)
		if opt.Upstream == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("mode %s needs an upstream http(s) URL, not %s", opt.Mode, textsafe.Quote(SafeURL(opt.Upstream)))
		}
		p.upstream = strings.TrimSuffix(strings.TrimRight(opt.Upstream, "/"), "/v1")
	default:
		return nil, fmt.Errorf("mode must be replay, record or live, not %s", textsafe.Quote(string(opt.Mode)))
	}
	prov := provenance(opt.Mode, opt.Upstream)
	tprov := prov
	tprov.RunID = "run-cassette-http"
	p.trace = tracelog.New(opt.Trace, "session-cassette", tprov)
	if opt.Mode == Live {
		return p, nil
	}
	recs, last, err := Load(path)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist) && opt.Mode == Record:
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("cassette %s does not exist: record one with 'tracecheck model record --upstream URL --cassette FILE'", textsafe.Quote(path))
	default:
		return nil, fmt.Errorf("cassette: %w", err)
	}
	p.recs, p.played = recs, make([]bool, len(recs))
	p.report.Turns = len(recs)
	if opt.Mode == Record {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		p.file = f
		if last != nil {
			p.cas = tracelog.Continue(f, *last)
		} else {
			p.cas = tracelog.New(f, "session-cassette", prov)
		}
	}
	return p, nil
}

// Close closes the cassette file (Record).
func (p *Player) Close() error {
	if p.file == nil {
		return nil
	}
	return p.file.Close()
}

// Report says how the cassette was used: Turns are its recordings, Used
// those played or recorded, Rejected the misses and failures.
func (p *Player) Report() modelserver.Report {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.report
	r.Rejected = append([]modelserver.Rejection(nil), r.Rejected...)
	r.TraceErr = p.trace.Err()
	if r.TraceErr == nil && p.cas != nil {
		r.TraceErr = p.cas.Err()
	}
	return r
}

// ServeHTTP answers one request.
func (p *Player) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	av := r.Header.Get("anthropic-version")
	if r.URL.Path == wire.PathModels && r.Method == http.MethodGet && p.opt.Mode == Replay {
		w.Header().Set("Content-Type", wire.ContentJSON)
		w.Write(wire.Models(wire.APIOf(r.URL.Path, av), p.models(), scenarios.ClockStart))
		return
	}
	api, ok := wire.ForPath(r.URL.Path)
	if !ok || r.Method != http.MethodPost {
		if p.opt.Mode != Replay {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.forward(w, r, nil) // not a model exchange: passed on, not recorded
			return
		}
		p.fail(w, wire.APIOf(r.URL.Path, av), nil, modelserver.KindNotFound, &wire.Error{Status: 404, Type: wire.TypeNotFound,
			Message: fmt.Sprintf("Invalid URL (%s %s): a cassette answers POST %s and POST %s", r.Method, r.URL.Path, wire.PathChatCompletions, wire.PathMessages)})
		return
	}
	body, v, req, kind, e := p.read(w, r, api)
	if e != nil {
		p.fail(w, api, nil, kind, e)
		return
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	turn := p.report.Answered + p.report.Rejections() + 1
	key := Key(r.Method, r.URL.Path, v)
	if p.opt.Mode != Live {
		if i := p.unplayed(key); i >= 0 {
			rec := p.recs[i]
			p.played[i] = true
			p.report.Used++
			p.answered(turn, req, rec.Status, "cassette", rec.EventID)
			replay(w, rec)
			return
		}
	}
	if p.opt.Mode == Replay {
		p.failLocked(w, api, req, KindMiss, p.miss(r.Method, r.URL.Path, key, v))
		return
	}
	rec := &Recording{API: api, Method: r.Method, Path: r.URL.Path, Request: v, Key: key}
	if err := p.forward(w, r, rec, body); err != nil {
		p.rejectLocked(turn, api, req, modelserver.KindInvalidRequest, 502, "upstream: "+err.Error())
		return
	}
	source, id := "upstream", ""
	if p.opt.Mode == Record {
		rec.Turn = len(p.recs) + 1
		reqP, respP := rec.payloads(summary(turn, req), SafeHeaders(r.Header), SafeQuery(r.URL.RawQuery))
		entries := []tracelog.Entry{{Type: "model.request", Actor: journal.Actor{Kind: "harness", ID: "tracecheck"}, Payload: reqP.With("turn", jsonv.Int(int64(rec.Turn)))}}
		for _, rp := range respP {
			entries = append(entries, tracelog.Entry{Type: "model.response", Actor: modelActor(req), Payload: rp})
		}
		evs, _ := p.cas.Append(entries...)
		rec.EventID = evs[0].EventID
		p.recs, p.played = append(p.recs, rec), append(p.played, true)
		p.report.Turns++
		p.report.Used++
		source, id = "recorded", rec.EventID
	}
	p.answered(turn, req, rec.Status, source, id)
}

// read reads and parses a request's body, one request at a time: within
// the size, time and value bounds, or the rejection's kind and error.
func (p *Player) read(w http.ResponseWriter, r *http.Request, api wire.API) ([]byte, jsonv.Value, *wire.Request, string, *wire.Error) {
	p.intake.Lock()
	defer p.intake.Unlock()
	body, kind, e := modelserver.ReadBody(w, r, p.opt.MaxBodyBytes, p.opt.BodyTimeout)
	if e != nil {
		return nil, jsonv.Value{}, nil, kind, e
	}
	if n := jsonv.CountValues(body); n > p.opt.MaxValues {
		return nil, jsonv.Value{}, nil, modelserver.KindTooLarge, &wire.Error{Status: 413, Type: wire.TypeTooLarge,
			Message: fmt.Sprintf("the request body holds up to %d JSON values, more than the %d a cassette matches", n, p.opt.MaxValues)}
	}
	v, err := jsonv.Parse(body)
	if err != nil {
		return nil, jsonv.Value{}, nil, modelserver.KindInvalidRequest, wire.Invalid("", "the request body is not valid JSON (%v): send one JSON object", err)
	}
	req, _ := wire.Decode(api, body) // the summary only: the upstream or the recording decides
	if req == nil {
		req = &wire.Request{API: api, Body: v}
	}
	return body, v, req, "", nil
}

func modelActor(req *wire.Request) journal.Actor {
	id := req.Model
	if id == "" {
		id = "upstream"
	}
	return journal.Actor{Kind: "model", ID: id}
}

// models lists the model names the recordings asked for.
func (p *Player) models() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range p.recs {
		if m, _ := r.Request.Get("model"); m.Kind() == jsonv.String && !seen[m.Text()] {
			seen[m.Text()] = true
			out = append(out, m.Text())
		}
	}
	return out
}

// unplayed is the index of the first recording of key not played yet, or -1.
func (p *Player) unplayed(key string) int {
	for i, r := range p.recs {
		if !p.played[i] && r.Key == key {
			return i
		}
	}
	return -1
}

// summary is the model.request payload the scenarios record.
func summary(turn int, req *wire.Request) jsonv.Value {
	tools := req.Tools
	if tools == nil {
		tools = []string{}
	}
	return jsonv.Obj(
		jsonv.M("turn", jsonv.Int(int64(turn))),
		jsonv.M("message_count", jsonv.Int(int64(len(req.Messages)))),
		jsonv.M("roles", jsonv.StrArr(req.Roles())),
		jsonv.M("tools", jsonv.StrArr(tools)),
	)
}

// answered counts an answered exchange and writes it to the trace.
func (p *Player) answered(turn int, req *wire.Request, status int, source, recording string) {
	p.report.Answered++
	resp := []jsonv.Member{
		jsonv.M("turn", jsonv.Int(int64(turn))),
		jsonv.M("status", jsonv.Int(int64(status))),
		jsonv.M("source", jsonv.Str(source)),
	}
	if recording != "" {
		resp = append(resp, jsonv.M("recording", jsonv.Str(recording)))
	}
	p.trace.Append(
		tracelog.Entry{Type: "model.request", Actor: journal.Actor{Kind: "harness", ID: "tracecheck"}, Payload: summary(turn, req)},
		tracelog.Entry{Type: "model.response", Actor: modelActor(req), Payload: jsonv.Obj(resp...)},
	)
}

// miss is the error of a request no unplayed recording matches: it names
// the nearest recording (fewest differing leaves of the canonical request;
// the earliest on a tie) and the first JSON pointer where they differ.
func (p *Player) miss(method, path, key string, sent jsonv.Value) *wire.Error {
	head := fmt.Sprintf("cassette miss: no recording in %s matches %s %s (key %s)", p.path, method, path, key[:12])
	e := &wire.Error{Status: 400, Type: wire.TypeInvalidRequest, Code: "cassette_miss"}
	if len(p.recs) == 0 {
		e.Message = head + ": the cassette holds no recording; record one with 'tracecheck model record'"
		return e
	}
	for i, r := range p.recs {
		if r.Key == key && p.played[i] {
			e.Message = fmt.Sprintf("%s: it is the request of exchange %d (event %s, line %d), already played; the cassette holds no other recording of it", head, r.Turn, r.EventID, r.Line)
			return e
		}
	}
	canon := Canonical(sent)
	var best *Recording
	var bestD difference
	for _, samePath := range []bool{true, false} {
		for _, r := range p.recs {
			if samePath != (r.Method == method && r.Path == path) {
				continue
			}
			var d difference
			compare(Canonical(r.Request), canon, "", &d)
			if best == nil || d.count < bestD.count {
				best, bestD = r, d
			}
		}
		if best != nil {
			break
		}
	}
	where := ""
	if best.Method != method || best.Path != path {
		where = fmt.Sprintf(" (a %s %s request)", best.Method, best.Path)
	}
	e.Param = bestD.pointer
	e.Message = fmt.Sprintf("%s; nearest: exchange %d (event %s, line %d)%s, %s", head, best.Turn, best.EventID, best.Line, where, bestD.describe())
	return e
}

// fail rejects a request that never reached the lock.
func (p *Player) fail(w http.ResponseWriter, api wire.API, req *wire.Request, kind string, e *wire.Error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failLocked(w, api, req, kind, e)
}

func (p *Player) failLocked(w http.ResponseWriter, api wire.API, req *wire.Request, kind string, e *wire.Error) {
	e.Message = modelserver.CutMessage(e.Message)
	p.rejectLocked(p.report.Answered+p.report.Rejections()+1, api, req, kind, e.Status, e.Message)
	body := e.Body(api)
	w.Header().Set("Content-Type", wire.ContentJSON)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.Status)
	w.Write(body)
}

// rejectLocked counts a failed request and, while fewer than
// Options.KeepRejections are kept, writes it to the trace and logs it.
func (p *Player) rejectLocked(turn int, api wire.API, req *wire.Request, kind string, status int, msg string) {
	msg = modelserver.CutMessage(msg)
	rej := modelserver.Rejection{Turn: turn, API: api, Status: status, Kind: kind, Message: msg}
	if !p.report.Reject(rej, p.opt.KeepRejections, p.opt.Log) {
		return
	}
	var entries []tracelog.Entry
	if req != nil {
		entries = append(entries, tracelog.Entry{Type: "model.request", Actor: journal.Actor{Kind: "harness", ID: "tracecheck"}, Payload: summary(turn, req)})
	}
	entries = append(entries, tracelog.Entry{Type: "error", Actor: journal.Actor{Kind: "model", ID: "cassette"}, Payload: jsonv.Obj(
		jsonv.M("turn", jsonv.Int(int64(turn))),
		jsonv.M("kind", jsonv.Str(kind)),
		jsonv.M("status", jsonv.Int(int64(status))),
		jsonv.M("message", jsonv.Str(msg)),
	)})
	p.trace.Append(entries...)
}

// replay writes a recording's answer: the body, or each chunk flushed on
// its own, byte for byte.
func replay(w http.ResponseWriter, rec *Recording) {
	if rec.ContentType != "" {
		w.Header().Set("Content-Type", rec.ContentType)
	}
	if !rec.Streamed {
		w.Header().Set("Content-Length", strconv.Itoa(len(rec.Body)))
		w.WriteHeader(rec.Status)
		w.Write(rec.Body)
		return
	}
	w.WriteHeader(rec.Status)
	f, _ := w.(http.Flusher)
	for _, c := range rec.Chunks {
		if _, err := w.Write(c); err != nil {
			return
		}
		if f != nil {
			f.Flush()
		}
	}
}

// hopHeaders are not forwarded (RFC 9110 section 7.6.1), nor are the ones
// the transport sets itself.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Host", "Content-Length", "Accept-Encoding"}

// forward sends r (with body) upstream and passes the answer on to w as it
// arrives, keeping it in rec when rec is not nil. An error before anything
// was written is answered 502 here; the caller records nothing then.
//
// The error never holds the target URL's secrets: see safeError.
func (p *Player) forward(w http.ResponseWriter, r *http.Request, rec *Recording, body ...[]byte) error {
	target := p.upstream + r.URL.Path
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	return safeError(p.send(w, r, target, rec, body...), target)
}

// safeError is err with the URLs it names passed through SafeURL: the
// URL of a *url.Error (what http.Client.Do and url.Parse return), and
// target wherever else it appears in the message.
func safeError(err error, target string) error {
	if err == nil {
		return nil
	}
	if ue, ok := err.(*url.Error); ok {
		c := *ue
		c.URL = SafeURL(ue.URL)
		err = &c
	}
	if safe := SafeURL(target); safe != target && strings.Contains(err.Error(), target) {
		return errors.New(strings.ReplaceAll(err.Error(), target, safe))
	}
	return err
}

// send is forward to target, whose error message may name target whole.
func (p *Player) send(w http.ResponseWriter, r *http.Request, target string, rec *Recording, body ...[]byte) error {
	var b io.Reader = r.Body
	if len(body) > 0 {
		b = bytes.NewReader(body[0])
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, target, b)
	if err != nil {
		return err
	}
	out.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	out.Header.Set("Accept-Encoding", "identity") // the answer is stored as it came
	resp, err := p.opt.Client.Do(out)
	if err != nil {
		api := wire.APIOf(r.URL.Path, r.Header.Get("anthropic-version"))
		body := (&wire.Error{Status: 502, Type: wire.TypeAPIError, Message: "tracecheck could not reach the upstream: " + safeError(err, target).Error()}).Body(api)
		w.Header().Set("Content-Type", wire.ContentJSON)
		w.WriteHeader(http.StatusBadGateway)
		w.Write(body)
		return err
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	if ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	if rec != nil {
		rec.Status, rec.ContentType = resp.StatusCode, ct
	}
	if !strings.HasPrefix(ct, "text/event-stream") {
		data, err := io.ReadAll(io.LimitReader(resp.Body, p.opt.MaxBodyBytes))
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(resp.StatusCode)
		w.Write(data)
		if rec != nil {
			rec.Body = data
		}
		return err
	}
	w.WriteHeader(resp.StatusCode)
	f, _ := w.(http.Flusher)
	return splitEvents(resp.Body, func(ev []byte) error {
		if rec != nil {
			rec.Streamed = true
			rec.Chunks = append(rec.Chunks, ev)
		}
		w.Write(ev)
		if f != nil {
			f.Flush()
		}
		return nil
	})
}

// splitEvents calls fn with each server-sent event of r, verbatim: its
// lines up to and including the blank line that ends it (what is left at
// the end of the stream, if anything, is the last event).
func splitEvents(r io.Reader, fn func([]byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var ev []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			ev = append(ev, line...)
			if len(ev) > MaxEventBytes {
				return fmt.Errorf("a server-sent event longer than %d bytes", MaxEventBytes)
			}
			continue
		}
		ev = append(ev, line...)
		if len(ev) > MaxEventBytes {
			return fmt.Errorf("a server-sent event longer than %d bytes", MaxEventBytes)
		}
		if err == nil && (string(line) == "\n" || string(line) == "\r\n") {
			if ferr := fn(ev); ferr != nil {
				return ferr
			}
			ev = nil
			continue
		}
		if err != nil {
			if len(ev) > 0 {
				if ferr := fn(ev); ferr != nil {
					return ferr
				}
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
