package modelserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/modelserver/wire"
	"github.com/tracecheck/tracecheck/scenarios"
)

// faultAPIs are the three model APIs with a one-message request for each.
var faultAPIs = []struct {
	api  wire.API
	path string
	body func(stream bool) string
}{
	{wire.OpenAIChat, wire.PathChatCompletions, func(stream bool) string {
		return fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":%t}`, stream)
	}},
	{wire.OpenAIResponses, wire.PathResponses, func(stream bool) string {
		return fmt.Sprintf(`{"model":"m","input":"hi","stream":%t}`, stream)
	}},
	{wire.AnthropicMessages, wire.PathMessages, func(stream bool) string {
		return fmt.Sprintf(`{"model":"m","max_tokens":64,"messages":[{"role":"user","content":"hi"}],"stream":%t}`, stream)
	}},
}

// faultAnswer is the answer a faulted turn would give: chunks and a tool
// call, so that every stream has several events.
const faultAnswer = `"chunks":["Looking ","it up."],"tool_calls":[{"id":"call-1","name":"lookup","arguments":{"query":"events and more"}}]`

// faultScenario parses a scenario whose turns are turnsJSON: the faults go
// through the schema and the decoder as a scenario file's do.
func faultScenario(t *testing.T, turnsJSON string) *scenarios.Scenario {
	t.Helper()
	doc := `{"id":"faults","prompt":"p","tools":[{"name":"lookup","description":"Look up.","parameters":{"type":"object"},"handler":{"result":{"ok":true}}}],"turns":` + turnsJSON + `}`
	sc, err := scenarios.Parse("faults.json", []byte(doc))
	if err != nil {
		t.Fatalf("the fault scenario does not parse: %v", err)
	}
	return sc
}

// signalTrace is a trace writer that says when a fault was recorded.
type signalTrace struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	faults chan struct{}
}

func newSignalTrace() *signalTrace { return &signalTrace{faults: make(chan struct{}, 16)} }

func (s *signalTrace) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	if bytes.Contains(p, []byte(`"kind":"fault"`)) {
		s.faults <- struct{}{}
	}
	return len(p), nil
}

func (s *signalTrace) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.buf.Bytes()...)
}

// waitFault waits until the server has recorded a fault (it does before
// serving it).
func (s *signalTrace) waitFault(t *testing.T) {
	t.Helper()
	select {
	case <-s.faults:
	case <-time.After(time.Minute):
		t.Fatal("the server recorded no fault")
	}
}

// rawResponse is what a raw TCP client read of one HTTP/1.1 response.
type rawResponse struct {
	head   string   // status line and headers
	chunks [][]byte // a chunked body's chunks, in order
	ended  bool     // the chunked body's terminating "0\r\n\r\n" arrived
	body   []byte   // a body with Content-Length, as far as it arrived
	raw    []byte   // everything after the head
}

func (r rawResponse) header(name string) string {
	for _, line := range strings.Split(r.head, "\r\n")[1:] {
		if k, v, ok := strings.Cut(line, ": "); ok && strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// rawPost sends body to path over a fresh TCP connection and reads until
// the server closes it, then parses the response as it arrived.
func rawPost(t *testing.T, addr, path, body string) rawResponse {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute)) // a safety net: the server closes first
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\nContent-Type: application/json\r\nAnthropic-Version: 2023-06-01\r\nContent-Length: %d\r\n\r\n%s", path, addr, len(body), body)
	got, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server did not close the connection: %q", got)
	}
	head, rest, ok := bytes.Cut(got, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("no complete head in %q", got)
	}
	r := rawResponse{head: string(head), raw: rest}
	if r.header("Transfer-Encoding") != "chunked" {
		r.body = rest
		return r
	}
	for len(rest) > 0 {
		size, after, ok := bytes.Cut(rest, []byte("\r\n"))
		n, err := strconv.ParseInt(string(size), 16, 64)
		if !ok || err != nil {
			t.Fatalf("a broken chunk header in %q", rest)
		}
		if n == 0 {
			if string(after) != "\r\n" {
				t.Fatalf("bytes after the terminating chunk: %q", after)
			}
			r.ended = true
			return r
		}
		if int64(len(after)) < n+2 {
			t.Fatalf("a chunk cut short: %q (the server flushes whole events)", rest)
		}
		r.chunks = append(r.chunks, after[:n])
		rest = after[n+2:]
	}
	return r
}

// faultServer serves a scenario; its trace is signalled.
func faultServer(t *testing.T, turnsJSON string) (*modelserver.Server, *faultServed, *signalTrace) {
	t.Helper()
	trace := newSignalTrace()
	srv := modelserver.New(modelserver.ScriptOf(faultScenario(t, turnsJSON)), modelserver.Options{Trace: trace})
	ln, err := modelserver.Listen(modelserver.DefaultAddr, false)
	if err != nil {
		t.Fatal(err)
	}
	served := &faultServed{}
	served.Served = modelserver.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.handlers.Add(1)
		defer served.handlers.Done()
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { served.Shutdown(context.Background()) })
	return srv, served, trace
}

// faultServed is a served server that a test may shut down before its
// cleanup does (Served.Shutdown is called once), and whose handlers'
// returns it can wait for.
type faultServed struct {
	*modelserver.Served
	once     sync.Once
	err      error
	handlers sync.WaitGroup
}

// waitHandlers waits until no handler runs (a stall's included).
func (s *faultServed) waitHandlers(t *testing.T, why string) {
	t.Helper()
	done := make(chan struct{})
	go func() { s.handlers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal(why)
	}
}

// within is the result of f, or a failure when f does not return.
func within(t *testing.T, why string, f func() error) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- f() }()
	select {
	case err := <-errc:
		return err
	case <-time.After(time.Minute):
		t.Fatal(why)
		return nil
	}
}

func (s *faultServed) Shutdown(ctx context.Context) error {
	s.once.Do(func() { s.err = s.Served.Shutdown(ctx) })
	return s.err
}

// normal is the complete answer of the unfaulted turn: its events, or its
// body.
func normal(t *testing.T, path, body string) ([][]byte, []byte) {
	t.Helper()
	_, served, _ := faultServer(t, `[{`+faultAnswer+`}]`)
	r := rawPost(t, strings.TrimPrefix(served.URL, "http://"), path, body)
	if r.header("Transfer-Encoding") == "chunked" && !r.ended {
		t.Fatalf("the unfaulted answer is not complete: %q", r.raw)
	}
	return r.chunks, r.body
}

func addr(s *faultServed) string { return strings.TrimPrefix(s.URL, "http://") }

// TestFaultDisconnect: on each API, a streamed answer is cut after
// after_chunks events (each flushed as one chunk): the connection closes
// without the chunked body's terminating chunk and without the final
// event; a whole answer is cut after its headers and half its body. The
// turn is used: the next request gets the next turn.
func TestFaultDisconnect(t *testing.T) {
	for _, a := range faultAPIs {
		for _, after := range []int{0, 3, 100000} {
			t.Run(fmt.Sprintf("%s/stream/after_chunks=%d", a.api, after), func(t *testing.T) {
				events, _ := normal(t, a.path, a.body(true))
				_, served, _ := faultServer(t, fmt.Sprintf(`[{%s,"fault":{"kind":"disconnect","after_chunks":%d}},{"content":"second"}]`, faultAnswer, after))
				r := rawPost(t, addr(served), a.path, a.body(true))
				if !strings.HasPrefix(r.head, "HTTP/1.1 200 OK") || r.header("Content-Type") != wire.ContentSSE {
					t.Errorf("head %q: want a 200 event stream", r.head)
				}
				if r.ended || bytes.Contains(r.raw, []byte("0\r\n\r\n")) {
					t.Errorf("the terminating chunk arrived: %q", r.raw)
				}
				// The client asked for Connection: close (rawPost does); an answer
				// that says so is one whose end Node's fetch takes for complete.
				if c := r.header("Connection"); c != "" {
					t.Errorf("the broken answer says Connection: %s", c)
				}
				want := events[:min(after, len(events)-1)]
				if diff := cmp.Diff(strs(want), strs(r.chunks)); diff != "" {
					t.Errorf("the events sent before the disconnect (-want +got):\n%s", diff)
				}
				for _, final := range []string{"[DONE]", "message_stop", "response.completed"} {
					if bytes.Contains(r.raw, []byte(final)) {
						t.Errorf("the final event %s was sent", final)
					}
				}
				_, body := post(t, served.URL+a.path, a.body(false))
				if !strings.Contains(body, "second") {
					t.Errorf("the request after the fault got %s, want the next turn", body)
				}
			})
		}
		t.Run(string(a.api)+"/whole", func(t *testing.T) {
			_, full := normal(t, a.path, a.body(false))
			_, served, _ := faultServer(t, `[{`+faultAnswer+`,"fault":{"kind":"disconnect"}},{"content":"second"}]`)
			r := rawPost(t, addr(served), a.path, a.body(false))
			if cl := r.header("Content-Length"); cl != strconv.Itoa(len(full)) || r.header("Connection") != "" {
				t.Errorf("Content-Length %q, Connection %q: want the whole body's %d and no Connection header", cl, r.header("Connection"), len(full))
			}
			if string(r.body) != string(full[:len(full)/2]) {
				t.Errorf("body %q, want the first half of %q", r.body, full)
			}
			if _, body := post(t, served.URL+a.path, a.body(false)); !strings.Contains(body, "second") {
				t.Errorf("the request after the fault got %s, want the next turn", body)
			}
		})
	}
}

func strs(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
}

// TestDisconnectIsAnIncompleteBodyToGo: Go's own client reads a cut
// stream as an unexpected EOF, not as an answer that ended.
func TestDisconnectIsAnIncompleteBodyToGo(t *testing.T) {
	for _, stream := range []bool{true, false} {
		_, served, _ := faultServer(t, `[{`+faultAnswer+`,"fault":{"kind":"disconnect","after_chunks":2}}]`)
		resp, err := http.Post(served.URL+wire.PathMessages, "application/json", strings.NewReader(faultAPIs[2].body(stream)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("stream %t: reading the body: %v, want an unexpected EOF", stream, err)
		}
	}
}

// noHijack is a ResponseWriter that can flush but not be hijacked (as
// over HTTP/2).
type noHijack struct{ http.ResponseWriter }

func (n noHijack) Flush() { n.ResponseWriter.(http.Flusher).Flush() }

// TestFaultWithoutHijacker: where the connection cannot be hijacked, a
// disconnect and a stall abort the handler instead, and the chunked body
// still never ends.
func TestFaultWithoutHijacker(t *testing.T) {
	for _, f := range []string{`{"kind":"disconnect","after_chunks":2}`, `{"kind":"stall","for":"10ms","after_chunks":2}`} {
		events, _ := normal(t, wire.PathMessages, faultAPIs[2].body(true))
		srv := modelserver.New(modelserver.ScriptOf(faultScenario(t, `[{`+faultAnswer+`,"fault":`+f+`}]`)), modelserver.Options{})
		url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { srv.ServeHTTP(noHijack{w}, r) }))
		r := rawPost(t, strings.TrimPrefix(url, "http://"), wire.PathMessages, faultAPIs[2].body(true))
		if r.ended || r.header("Transfer-Encoding") != "chunked" {
			t.Errorf("%s: head %q, body %q: want a chunked body that never ends", f, r.head, r.raw)
		}
		if diff := cmp.Diff(strs(events[:2]), strs(r.chunks)); diff != "" {
			t.Errorf("%s: the events sent (-want +got):\n%s", f, diff)
		}
	}
}

// TestFaultStatus: the provider's error answer, status, body and headers,
// whole or streamed alike; retry_after gives retry-after (whole seconds,
// rounded up) and retry-after-ms, and on a 429 the API's rate limit
// headers; should_retry gives x-should-retry.
func TestFaultStatus(t *testing.T) {
	tests := []struct {
		fault   string
		api     wire.API
		status  int
		body    string
		headers map[string]string // "" value: must be absent
	}{
		{`{"kind":"status","status":429,"retry_after":1}`, wire.OpenAIChat, 429,
			`{"error":{"message":"Rate limit reached for requests (a scripted fault of tracecheck's model server). Please try again in 1s.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			map[string]string{"retry-after": "1", "retry-after-ms": "1000", "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1s", "x-request-id": "req_tracecheck_001", "x-should-retry": ""}},
		{`{"kind":"status","status":429,"retry_after":0.25}`, wire.OpenAIResponses, 429,
			`{"error":{"message":"Rate limit reached for requests (a scripted fault of tracecheck's model server). Please try again in 0.25s.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			map[string]string{"retry-after": "1", "retry-after-ms": "250", "x-ratelimit-reset-requests": "250ms"}},
		{`{"kind":"status","status":500}`, wire.OpenAIChat, 500,
			`{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`,
			map[string]string{"retry-after": "", "retry-after-ms": ""}},
		{`{"kind":"status","status":503,"retry_after":2,"should_retry":true}`, wire.OpenAIResponses, 503,
			`{"error":{"message":"The server is overloaded or not ready yet.","type":"server_error","param":null,"code":null}}`,
			map[string]string{"retry-after": "2", "retry-after-ms": "2000", "x-should-retry": "true", "x-ratelimit-remaining-requests": ""}},
		{`{"kind":"status","status":529,"retry_after":3}`, wire.AnthropicMessages, 529,
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			map[string]string{"retry-after": "3", "retry-after-ms": "3000", "request-id": "req_tracecheck_001", "anthropic-ratelimit-requests-remaining": ""}},
		{`{"kind":"status","status":429,"retry_after":1.5}`, wire.AnthropicMessages, 429,
			`{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your organization's rate limit (a scripted fault of tracecheck's model server)."}}`,
			map[string]string{"retry-after": "2", "retry-after-ms": "1500", "anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-remaining": "0"}},
		{`{"kind":"status","status":500}`, wire.AnthropicMessages, 500,
			`{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`, nil},
		{`{"kind":"status","status":400,"should_retry":true,"message":"try me again"}`, wire.AnthropicMessages, 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"try me again"}}`, map[string]string{"x-should-retry": "true"}},
	}
	for _, tc := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/%d/stream=%t", tc.api, tc.status, stream), func(t *testing.T) {
				_, served, trace := faultServer(t, `[{"content":"x","fault":`+tc.fault+`},{"content":"second"}]`)
				var a = faultAPIs[0]
				for _, fa := range faultAPIs {
					if fa.api == tc.api {
						a = fa
					}
				}
				req, _ := http.NewRequest("POST", served.URL+a.path, strings.NewReader(a.body(stream)))
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != tc.status || string(body) != tc.body+"\n" || resp.Header.Get("Content-Type") != wire.ContentJSON {
					t.Errorf("got %d %s %s\nwant %d %s", resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.status, tc.body)
				}
				for k, v := range tc.headers {
					if got := resp.Header.Get(k); got != v {
						t.Errorf("header %s: %q, want %q", k, got, v)
					}
				}
				if tc.status == 429 && tc.api == wire.AnthropicMessages {
					reset, err := time.Parse(time.RFC3339, resp.Header.Get("anthropic-ratelimit-requests-reset"))
					if err != nil || reset.Before(time.Now().Add(-time.Minute)) {
						t.Errorf("anthropic-ratelimit-requests-reset %q: want an RFC 3339 time from now on (%v)", resp.Header.Get("anthropic-ratelimit-requests-reset"), err)
					}
				}
				trace.waitFault(t)
				if _, body := post(t, served.URL+a.path, a.body(false)); !strings.Contains(body, "second") {
					t.Errorf("the request after the fault got %s, want the next turn", body)
				}
			})
		}
	}
}

// TestFaultStall: the headers (and, streamed, after_chunks events) are
// sent, then nothing; the stall ends when its time is up, when the
// client goes away, or when the server shuts down or is stopped, each
// time closing the connection without completing the answer.
func TestFaultStall(t *testing.T) {
	for _, a := range faultAPIs {
		t.Run(string(a.api)+"/stream/times-out", func(t *testing.T) {
			events, _ := normal(t, a.path, a.body(true))
			_, served, _ := faultServer(t, `[{`+faultAnswer+`,"fault":{"kind":"stall","for":"20ms","after_chunks":1}}]`)
			r := rawPost(t, addr(served), a.path, a.body(true))
			if r.ended || !strings.HasPrefix(r.head, "HTTP/1.1 200") || r.header("Connection") != "" {
				t.Errorf("head %q, body %q: want a 200 stream that never ends", r.head, r.raw)
			}
			if diff := cmp.Diff(strs(events[:1]), strs(r.chunks)); diff != "" {
				t.Errorf("the events sent before the stall (-want +got):\n%s", diff)
			}
		})
		t.Run(string(a.api)+"/whole/times-out", func(t *testing.T) {
			_, full := normal(t, a.path, a.body(false))
			_, served, _ := faultServer(t, `[{`+faultAnswer+`,"fault":{"kind":"stall","for":"20ms"}}]`)
			r := rawPost(t, addr(served), a.path, a.body(false))
			if r.header("Content-Length") != strconv.Itoa(len(full)) || len(r.body) != 0 {
				t.Errorf("head %q, body %q: want the headers of the whole answer and no body", r.head, r.body)
			}
		})
		t.Run(string(a.api)+"/before-headers/times-out", func(t *testing.T) {
			_, served, _ := faultServer(t, `[{`+faultAnswer+`,"fault":{"kind":"stall","for":"20ms","before_headers":true}}]`)
			conn, err := net.Dial("tcp", addr(served))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(time.Minute))
			body := a.body(true)
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", a.path, len(body), body)
			if got, err := io.ReadAll(conn); len(got) != 0 || err != nil {
				t.Errorf("read %q, %v: want nothing, then the connection closed", got, err)
			}
		})
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/stream=%t/shutdown-ends-it", a.api, stream), func(t *testing.T) {
				_, served, trace := faultServer(t, `[{`+faultAnswer+`,"fault":{"kind":"stall","for":"1h","after_chunks":1}}]`)
				resp, err := http.Post(served.URL+a.path, "application/json", strings.NewReader(a.body(stream)))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				trace.waitFault(t)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if err := served.Shutdown(ctx); err != nil {
					t.Fatalf("Shutdown during a 1h stall: %v, want it to end the stall and return", err)
				}
				served.waitHandlers(t, "the 1h stall outlived Shutdown")
				err = within(t, "the stalled body is still open after Shutdown", func() error { _, err := io.ReadAll(resp.Body); return err })
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("reading the stalled body after Shutdown: %v, want an unexpected EOF", err)
				}
			})
		}
		t.Run(string(a.api)+"/before-headers/shutdown-ends-it", func(t *testing.T) {
			_, served, trace := faultServer(t, `[{`+faultAnswer+`,"fault":{"kind":"stall","for":"1h","before_headers":true}}]`)
			errc := make(chan error, 1)
			go func() {
				resp, err := http.Post(served.URL+a.path, "application/json", strings.NewReader(a.body(true)))
				if err == nil {
					resp.Body.Close()
				}
				errc <- err
			}()
			trace.waitFault(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := served.Shutdown(ctx); err != nil {
				t.Fatalf("Shutdown during a 1h stall: %v", err)
			}
			served.waitHandlers(t, "the 1h stall outlived Shutdown")
			if err := within(t, "the stalled request is still waiting after Shutdown", func() error { return <-errc }); err == nil {
				t.Error("the stalled request got an answer")
			}
		})
	}

	t.Run("the client going away ends it", func(t *testing.T) {
		trace := newSignalTrace()
		srv := modelserver.New(modelserver.ScriptOf(faultScenario(t, `[{"content":"x","fault":{"kind":"stall","for":"1h"}}]`)), modelserver.Options{Trace: trace})
		answered := make(chan struct{})
		url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer close(answered) // one request
			srv.ServeHTTP(w, r)
		}))
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", url+wire.PathChatCompletions, strings.NewReader(faultAPIs[0].body(true)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		cancel() // the client goes away while the server stalls
		resp.Body.Close()
		select {
		case <-answered:
		case <-time.After(time.Minute):
			t.Fatal("the 1h stall went on after the client went away")
		}
	})

	t.Run("Stop ends it", func(t *testing.T) {
		trace := newSignalTrace()
		srv := modelserver.New(modelserver.ScriptOf(faultScenario(t, `[{"content":"x","fault":{"kind":"stall","for":"1h","before_headers":true}}]`)), modelserver.Options{Trace: trace})
		ts := httptest.NewServer(srv) // Close runs no Shutdown hooks: Stop is the way
		errc := make(chan error, 1)
		go func() {
			resp, err := http.Post(ts.URL+wire.PathMessages, "application/json", strings.NewReader(faultAPIs[2].body(false)))
			if err == nil {
				resp.Body.Close()
			}
			errc <- err
		}()
		trace.waitFault(t)
		srv.Stop()
		ts.Close()
		if err := within(t, "the stalled request is still waiting after Stop", func() error { return <-errc }); err == nil {
			t.Error("the stalled request got an answer")
		}
	})
}

// TestFaultMalformed: a stream's events up to after_chunks, then one
// whose data is the next event's JSON cut short, then a clean end of the
// stream (its terminating chunk) and of the connection; a whole answer's
// body cut short.
func TestFaultMalformed(t *testing.T) {
	for _, a := range faultAPIs {
		for _, after := range []int{0, 1, 2, 100000} {
			t.Run(fmt.Sprintf("%s/stream/after_chunks=%d", a.api, after), func(t *testing.T) {
				events, _ := normal(t, a.path, a.body(true))
				_, served, _ := faultServer(t, fmt.Sprintf(`[{%s,"fault":{"kind":"malformed","after_chunks":%d}}]`, faultAnswer, after))
				r := rawPost(t, addr(served), a.path, a.body(true))
				if !r.ended || r.header("Connection") != "close" {
					t.Errorf("head %q, ended %t: want a stream that ends cleanly with Connection: close", r.head, r.ended)
				}
				if len(r.chunks) == 0 {
					t.Fatal("no event")
				}
				at := len(r.chunks) - 1
				if want := wantMalformedAt(events, after); at != want {
					t.Errorf("the malformed event is event %d, want %d", at, want)
				}
				if diff := cmp.Diff(strs(events[:at]), strs(r.chunks[:at])); diff != "" {
					t.Errorf("the events before the malformed one (-want +got):\n%s", diff)
				}
				bad := string(r.chunks[at])
				prefix, data, ok := strings.Cut(bad, "data: ")
				if !ok || !strings.HasSuffix(data, "\n\n") || json.Valid([]byte(strings.TrimSpace(data))) {
					t.Errorf("event %q: want an SSE event whose data is not valid JSON", bad)
				}
				if want := string(events[at]); !strings.HasPrefix(want, prefix+"data: "+strings.TrimSuffix(data, "\n\n")) {
					t.Errorf("event %q: want a cut of %q", bad, want)
				}
			})
		}
		t.Run(string(a.api)+"/whole", func(t *testing.T) {
			_, full := normal(t, a.path, a.body(false))
			_, served, _ := faultServer(t, `[{`+faultAnswer+`,"fault":{"kind":"malformed"}}]`)
			r := rawPost(t, addr(served), a.path, a.body(false))
			if r.header("Content-Length") != strconv.Itoa(len(r.body)) || r.header("Connection") != "close" {
				t.Errorf("head %q: want the malformed body's Content-Length and Connection: close", r.head)
			}
			if json.Valid(r.body) || !bytes.HasPrefix(full, bytes.TrimSuffix(r.body, []byte("\n"))) {
				t.Errorf("body %q: want a cut of %q that is not valid JSON", r.body, full)
			}
		})
	}
}

// wantMalformedAt is the event a malformed stream cuts: the first from
// the after-th on that clients parse (JSON data, not Anthropic's ping,
// which the SDK skips), else the last one before.
func wantMalformedAt(events [][]byte, after int) int {
	parsed := func(ev []byte) bool {
		return !bytes.HasPrefix(ev, []byte("event: ping\n")) && bytes.Contains(ev, []byte("data: {"))
	}
	after = min(after, len(events)-1)
	for i := after; i < len(events); i++ {
		if parsed(events[i]) {
			return i
		}
	}
	for i := after - 1; i >= 0; i-- {
		if parsed(events[i]) {
			return i
		}
	}
	return -1
}

// TestFaultTrace: a faulted turn is recorded as its model.request and an
// error event {turn, kind: "fault", fault, ...}, no model.response; it is
// used (the retry gets the next turn), counted in Report.Faults, and not
// a rejection: a run that served faults has no problem for it.
func TestFaultTrace(t *testing.T) {
	var log bytes.Buffer
	trace := newSignalTrace()
	sc := faultScenario(t, `[
		{"content":"x","fault":{"kind":"status","status":529,"retry_after":0.5,"should_retry":true}},
		{"chunks":["a","b"],"fault":{"kind":"disconnect","after_chunks":1}},
		{"content":"x","fault":{"kind":"stall","for":"10ms","before_headers":true}},
		{"content":"x","fault":{"kind":"malformed"}},
		{"content":"done","stop":true}
	]`)
	srv := modelserver.New(modelserver.ScriptOf(sc), modelserver.Options{Trace: trace, Log: &log})
	url := serve(t, srv) + wire.PathMessages
	for i := range 5 {
		resp, err := http.Post(url, "application/json", strings.NewReader(faultAPIs[2].body(i == 1)))
		if err == nil {
			io.ReadAll(resp.Body)
			resp.Body.Close()
		}
	}
	var got []string
	for _, e := range modelEvents(t, trace.Bytes()) {
		got = append(got, e)
	}
	j := trace.Bytes()
	var errs []string
	for _, line := range strings.Split(strings.TrimSpace(string(j)), "\n") {
		var ev struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		json.Unmarshal([]byte(line), &ev)
		if ev.Type == "error" {
			errs = append(errs, string(ev.Payload))
		}
	}
	want := []string{
		`{"turn":1,"kind":"fault","fault":"status","status":529,"retry_after":0.5,"should_retry":true}`,
		`{"turn":2,"kind":"fault","fault":"disconnect","after_chunks":1}`,
		`{"turn":3,"kind":"fault","fault":"stall","for":"10ms","after_chunks":0,"before_headers":true}`,
		`{"turn":4,"kind":"fault","fault":"malformed","after_chunks":0}`,
	}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("the error events (-want +got):\n%s", diff)
	}
	var types []string
	for _, e := range got {
		typ, _, _ := strings.Cut(e, " ")
		types = append(types, typ)
	}
	if diff := cmp.Diff([]string{"model.request", "model.request", "model.request", "model.request", "model.request", "model.response"}, types); diff != "" {
		t.Errorf("the model events (-want +got):\n%s", diff)
	}
	if !strings.Contains(got[len(got)-1], `"turn":5,"content":"done"`) {
		t.Errorf("the last answer %s, want turn 5's", got[len(got)-1])
	}
	rep := srv.Report()
	if rep.Faults != 4 || rep.Used != 5 || rep.Answered != 5 || len(rep.Rejected) != 0 || rep.Unused() != 0 {
		t.Errorf("report %+v: want 4 faults, 5 turns used, none rejected", rep)
	}
	res := modelserver.RunResult{Report: rep}
	if p := res.Problems(); len(p) != 0 {
		t.Errorf("a run that served scripted faults has problems: %q", p)
	}
	if !strings.Contains(log.String(), "served fault: turn 1: anthropic.messages status 529, retry after 500ms\n") {
		t.Errorf("the log %q does not name the first fault", log.String())
	}
}

// TestFaultSchema: a fault takes only its kind's members, with their
// types and ranges.
func TestFaultSchema(t *testing.T) {
	tests := []struct{ fault, pointer string }{
		{`{"kind":"explode"}`, "/turns/0/fault/kind"},
		{`{"after_chunks":1}`, "/turns/0/fault"},
		{`{"kind":"status"}`, "/turns/0/fault"},
		{`{"kind":"status","status":200}`, "/turns/0/fault/status"},
		{`{"kind":"status","status":429,"retry_after":-1}`, "/turns/0/fault/retry_after"},
		{`{"kind":"status","status":429,"after_chunks":1}`, "/turns/0/fault"},
		{`{"kind":"disconnect","status":500}`, "/turns/0/fault"},
		{`{"kind":"disconnect","after_chunks":-1}`, "/turns/0/fault/after_chunks"},
		{`{"kind":"stall"}`, "/turns/0/fault"},
		{`{"kind":"stall","for":"30"}`, "/turns/0/fault/for"},
		{`{"kind":"stall","for":"1m30s"}`, "/turns/0/fault/for"},
		{`{"kind":"malformed","for":"1s"}`, "/turns/0/fault"},
	}
	for _, tc := range tests {
		doc := `{"id":"faults","prompt":"p","turns":[{"content":"x","fault":` + tc.fault + `}]}`
		_, err := scenarios.Parse("faults.json", []byte(doc))
		var fe scenarios.FileErrors
		if !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a schema violation", tc.fault, err)
			continue
		}
		found := false
		for _, e := range fe {
			found = found || strings.HasPrefix(e.Pointer, tc.pointer)
		}
		if !found {
			t.Errorf("%s: %v, want a violation at %s", tc.fault, err, tc.pointer)
		}
	}
	sc := faultScenario(t, `[{"content":"x","fault":{"kind":"stall","for":"1.5m","after_chunks":2,"before_headers":true}},{"fault":{"kind":"status","status":503,"retry_after":0.25,"should_retry":false,"message":"m"}}]`)
	f, g := sc.Turns[0].Fault, sc.Turns[1].Fault
	if f == nil || f.Kind != "stall" || f.For != 90*time.Second || f.AfterChunks != 2 || !f.BeforeHeaders {
		t.Errorf("the stall decoded as %+v", f)
	}
	if g == nil || g.Kind != "status" || g.Status != 503 || g.RetryAfter == nil || *g.RetryAfter != 250*time.Millisecond ||
		g.ShouldRetry == nil || *g.ShouldRetry || g.Message != "m" {
		t.Errorf("the status fault decoded as %+v", g)
	}
	if sc.Turns[0].Content != "x" {
		t.Errorf("a faulted turn's answer is kept: %+v", sc.Turns[0])
	}
}
