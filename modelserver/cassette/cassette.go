// Package cassette records a model endpoint's exchanges and replays them:
// tracecheck's VCR for agents that talk to a real model.
//
// A cassette is a Trace 0.1.0 file (it passes tracecheck validate): one run
// whose exchanges are, in order, a model.request event holding the
// request and a model.response event holding the answer, or, for a
// streamed answer, one model.response per server-sent event, verbatim, in
// the order they arrived (their timing is not kept: a replay sends them
// back to back). The model.request payload is
//
//	{turn, message_count, roles, tools,             as the scenarios record them
//	 api, method, path, query, key, headers, request}
//
// where request is the body as sent, key its match key (Key; informational:
// it is recomputed on load), headers the request headers worth keeping
// (SafeHeaders: never an API key, token, secret or cookie) and query the
// URL query without secret parameters (SafeQuery; the same rule, SafeURL,
// keeps them out of every trace, log line and error message). A whole answer's model.response is
// {turn, status, content_type, body}; a stream's are {turn, status,
// content_type, index, chunk, final}. A body or chunk that is not UTF-8
// text is stored as body_base64 or chunk_base64.
//
// A Player serves a cassette in one of three modes: Replay answers every
// request from its recording and fails closed on a miss, with an error that
// names the nearest recording and the first JSON pointer where the
// requests differ; Record replays what is recorded and forwards a miss to
// the upstream endpoint, passing its answer on as it arrives and appending
// the exchange to the cassette; Live forwards everything and leaves the
// cassette alone. Requests match by Key: the SHA-256 of the method, the
// path and the canonical request JSON without the Volatile members.
package cassette

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver/wire"
)

// Recording is one recorded exchange.
type Recording struct {
	Turn        int    // its number in the cassette, from 1
	EventID     string // its model.request event
	Line        int    // the line of that event in the file (0 for one recorded in this process)
	API         wire.API
	Method      string
	Path        string
	Request     jsonv.Value
	Key         string
	Status      int
	ContentType string
	Body        []byte   // a whole answer
	Chunks      [][]byte // a streamed answer, one server-sent event each
	Streamed    bool
}

// secretPart matches the names of headers and query parameters never
// written to a cassette nor printed: any name holding one of these words.
var secretPart = regexp.MustCompile(`(?i)auth|key|token|secret|cookie|session|password|credential|signature`)

// secretNames are the query parameter names that are secrets whole
// (compared lower-cased): API keys, OAuth tokens and codes, AWS and Azure
// SAS signatures.
var secretNames = map[string]bool{
	"sig": true, "signature": true, "x-amz-signature": true,
	"token": true, "access_token": true,
	"key": true, "api-key": true, "api_key": true, "apikey": true,
	"code": true, "client_secret": true, "password": true,
}

// secretSuffixes end the names of secret parameters (lower-cased).
var secretSuffixes = []string{"_token", "-token", "secret"}

// Secret says whether a header or query parameter name names a secret,
// whatever its case: one of secretNames, a name ending in _token, -token
// or secret, or one holding auth, key, token, secret, cookie, session,
// password, credential or signature.
func Secret(name string) bool {
	n := strings.ToLower(name)
	if secretNames[n] || secretPart.MatchString(n) {
		return true
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// keptHeaders are the request headers a cassette keeps (when not secret):
// the ones that select an API version or feature.
var keptHeaders = []string{"Content-Type", "Anthropic-Version", "Anthropic-Beta", "Openai-Beta"}

// SafeHeaders is the part of h a cassette keeps: the API version and
// feature headers, never one whose name looks secret.
func SafeHeaders(h http.Header) jsonv.Value {
	var ms []jsonv.Member
	for _, k := range keptHeaders {
		if v := h.Values(k); len(v) > 0 && !Secret(k) {
			ms = append(ms, jsonv.M(strings.ToLower(k), jsonv.Str(strings.Join(v, ", "))))
		}
	}
	return jsonv.Obj(ms...)
}

// SafeQuery is a raw query without the parameters whose names are Secret;
// a query that does not parse is dropped whole. It is the one redaction
// of a query: SafeURL uses it for everything tracecheck prints.
func SafeQuery(raw string) string {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return ""
	}
	for k := range q {
		if Secret(k) {
			q.Del(k)
		}
	}
	return q.Encode()
}

// SafeURL is raw fit to print or store: its query through SafeQuery, its
// user name, password and fragment dropped. What does not parse as a URL
// is cut at its query (and its user information, when it has any).
// Every URL a cassette writes to a trace, a log line, an error body or the
// cassette goes through it.
func SafeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		s, _, _ := strings.Cut(raw, "#")
		s, _, _ = strings.Cut(s, "?")
		if scheme, rest, ok := strings.Cut(s, "://"); ok {
			host, path, _ := strings.Cut(rest, "/")
			if i := strings.LastIndex(host, "@"); i >= 0 {
				host = host[i+1:]
			}
			s = scheme + "://" + host
			if strings.Contains(rest, "/") {
				s += "/" + path
			}
		}
		return s
	}
	u.User = nil
	u.Fragment, u.RawFragment = "", ""
	u.RawQuery, u.ForceQuery = SafeQuery(u.RawQuery), false
	return u.String()
}

// text stores b under key when it is UTF-8 text, else under key_base64.
func text(key string, b []byte) jsonv.Member {
	if utf8.Valid(b) {
		return jsonv.M(key, jsonv.Str(string(b)))
	}
	return jsonv.M(key+"_base64", jsonv.Str(base64.StdEncoding.EncodeToString(b)))
}

// untext reads what text stored.
func untext(p jsonv.Value, key string) ([]byte, bool) {
	if v, ok := p.Get(key); ok && v.Kind() == jsonv.String {
		return []byte(v.Text()), true
	}
	if v, ok := p.Get(key + "_base64"); ok && v.Kind() == jsonv.String {
		b, err := base64.StdEncoding.DecodeString(v.Text())
		return b, err == nil
	}
	return nil, false
}

// FileError is a problem in a cassette: the file, the line, what is wrong.
type FileError struct {
	File string
	Line int
	Msg  string
}

func (e *FileError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Load reads the recordings of the cassette at path, checking it as a
// single-run Trace journal first. It also returns the last event, from
// which new recordings continue the run.
func Load(path string) ([]*Recording, *journal.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	j, err := journal.Read(f, path)
	if err != nil {
		return nil, nil, err
	}
	var out []*Recording
	var cur *Recording
	events := j.Events()
	for i := range events {
		ev := &events[i]
		line := i + 1
		bad := func(format string, a ...any) error {
			return &FileError{File: path, Line: line, Msg: fmt.Sprintf("event %s: ", ev.EventID) + fmt.Sprintf(format, a...)}
		}
		p := ev.Payload
		switch ev.Type {
		case "model.request":
			r, err := decodeRequest(p)
			if err != nil {
				return nil, nil, bad("%v", err)
			}
			r.Turn, r.EventID, r.Line = len(out)+1, ev.EventID, line
			cur = r
			out = append(out, r)
		case "model.response":
			if cur == nil {
				return nil, nil, bad("a model.response before any model.request")
			}
			if err := addResponse(cur, p); err != nil {
				return nil, nil, bad("%v", err)
			}
		default:
			return nil, nil, bad("a cassette holds only model.request and model.response events, not %s", ev.Type)
		}
	}
	for _, r := range out {
		if r.Status == 0 {
			return nil, nil, &FileError{File: path, Line: r.Line, Msg: fmt.Sprintf("event %s: the request has no model.response after it", r.EventID)}
		}
	}
	last := events[len(events)-1]
	return out, &last, nil
}

func decodeRequest(p jsonv.Value) (*Recording, error) {
	str := func(k string) string { v, _ := p.Get(k); return v.Text() }
	r := &Recording{API: wire.API(str("api")), Method: str("method"), Path: str("path")}
	if r.Method == "" || r.Path == "" {
		return nil, fmt.Errorf("model.request payload needs method and path strings")
	}
	req, ok := p.Get("request")
	if !ok {
		return nil, fmt.Errorf("model.request payload has no request")
	}
	r.Request = req
	r.Key = Key(r.Method, r.Path, req)
	return r, nil
}

func addResponse(r *Recording, p jsonv.Value) error {
	status, _ := p.Get("status")
	n, ok := status.Int64()
	if !ok || n < 100 || n > 599 {
		return fmt.Errorf("model.response payload needs an HTTP status (100-599)")
	}
	ct, _ := p.Get("content_type")
	if r.Status == 0 {
		r.Status, r.ContentType = int(n), ct.Text()
	}
	if b, ok := untext(p, "body"); ok {
		if r.Body != nil || r.Streamed {
			return fmt.Errorf("a second answer for the request of turn %d", r.Turn)
		}
		r.Body = b
		return nil
	}
	chunk, ok := untext(p, "chunk")
	if !ok {
		return fmt.Errorf("model.response payload needs body or chunk")
	}
	if r.Body != nil {
		return fmt.Errorf("a chunk after the whole answer of turn %d", r.Turn)
	}
	r.Streamed = true
	r.Chunks = append(r.Chunks, chunk)
	return nil
}

// payloads are the payloads of r's cassette events: its model.request
// (summary's members first) and its model.response(s).
func (r *Recording) payloads(summary jsonv.Value, headers jsonv.Value, query string) (jsonv.Value, []jsonv.Value) {
	ms := append([]jsonv.Member{}, summary.Members()...)
	ms = append(ms,
		jsonv.M("api", jsonv.Str(string(r.API))),
		jsonv.M("method", jsonv.Str(r.Method)),
		jsonv.M("path", jsonv.Str(r.Path)),
		jsonv.M("query", jsonv.Str(query)),
		jsonv.M("key", jsonv.Str(r.Key)),
		jsonv.M("headers", headers),
		jsonv.M("request", r.Request),
	)
	turn := jsonv.M("turn", jsonv.Int(int64(r.Turn)))
	status := jsonv.M("status", jsonv.Int(int64(r.Status)))
	ct := jsonv.M("content_type", jsonv.Str(r.ContentType))
	var resp []jsonv.Value
	if !r.Streamed {
		resp = append(resp, jsonv.Obj(turn, status, ct, text("body", r.Body)))
	}
	for i, c := range r.Chunks {
		resp = append(resp, jsonv.Obj(turn, status, ct,
			jsonv.M("index", jsonv.Int(int64(i))),
			text("chunk", c),
			jsonv.M("final", jsonv.BoolValue(i == len(r.Chunks)-1)),
		))
	}
	return jsonv.Obj(ms...), resp
}
