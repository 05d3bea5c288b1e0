package modelserver

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver/wire"
)

// This file serves a turn's scripted fault (fakemodel.Fault), after the
// exchange is recorded:
//
//   - disconnect: the headers and the first AfterChunks events of the
//     stream, each flushed as one chunk (a whole answer: the headers, its
//     whole Content-Length, and half of its body), then the connection is
//     closed: the chunked body never gets its terminating zero-length
//     chunk, so the client reads an incomplete body, never a clean end;
//   - status: the API's error answer (wire.StatusError) with its retry
//     headers (wire.RetryHeaders) and x-should-retry when scripted;
//   - stall: the headers (and AfterChunks events), or with BeforeHeaders
//     nothing, then a wait for For, for the client to go away or for the
//     server's stop, whichever comes first; then the connection is closed
//     as for a disconnect;
//   - malformed: the first AfterChunks events, then the next event that a
//     client parses with its data cut short (wire.MalformedEvent), then a
//     clean end of the stream and of the connection (Connection: close);
//     a whole answer's body cut short (wire.MalformedBody). The end is
//     clean so that the client's parser, not its transport, meets the
//     fault.
//
// A disconnect and a stall write their response on the hijacked
// connection, byte for byte the server's own: net/http would add
// "Connection: close" to an answer written while it shuts down (or to a
// client that asked for it), and with that header Node's fetch (undici)
// takes the connection's end for the end of the body, terminating chunk
// or not: the broken answer would read as a complete one. Without a
// Hijacker (HTTP/2) they abort the handler instead (panic
// http.ErrAbortHandler: net/http closes the connection without the
// terminating chunk).
//
// The answer's last event (OpenAI's data: [DONE], Anthropic's
// message_stop, the Responses API's response.completed) is never sent
// by a disconnect or a stall, whatever AfterChunks says.

// KindFault is the kind of the error event that records a served fault.
const KindFault = "fault"

// Stop ends every stall in progress, and any later one, at once (their
// connections are closed unanswered). A Server calls it itself when an
// http.Server serving it shuts down (http.Server.RegisterOnShutdown), so
// that a scripted stall neither holds Shutdown up nor outlives it; call it
// before closing a server that does not run Shutdown (httptest.Server.Close).
func (s *Server) Stop() { s.stopOnce.Do(func() { close(s.stop) }) }

// watchShutdown makes the shutdown of the http.Server that serves r stop
// this Server's stalls (registered once per http.Server).
func (s *Server) watchShutdown(r *http.Request) {
	hs, ok := r.Context().Value(http.ServerContextKey).(*http.Server)
	if !ok || hs == nil || s.lastWatched.Load() == hs { // every request asks; one server serves them all
		return
	}
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if !s.watched[hs] {
		s.watched[hs] = true
		hs.RegisterOnShutdown(s.Stop)
	}
	s.lastWatched.Store(hs)
}

// serveFault serves f in place of resp, the answer rendered for the turn.
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, api wire.API, resp wire.Response, turn int, f *fakemodel.Fault) {
	h := w.Header()
	requestID(h, api, turn)
	// cut is how many events a disconnect or a stall sends: never the last.
	cut := max(min(f.AfterChunks, len(resp.Events)-1), 0)
	switch f.Kind {
	case fakemodel.FaultStatus:
		status := f.Status
		if status < 400 || status > 599 {
			status = 500
		}
		retryAfter := time.Duration(-1)
		if f.RetryAfter != nil {
			retryAfter = max(*f.RetryAfter, 0)
		}
		for _, hd := range wire.RetryHeaders(api, status, retryAfter, time.Now()) {
			h.Set(hd.Name, hd.Value)
		}
		if f.ShouldRetry != nil {
			h.Set("x-should-retry", strconv.FormatBool(*f.ShouldRetry))
		}
		body := wire.StatusError(api, status, f.Message, retryAfter).Body(api)
		h.Set("Content-Type", wire.ContentJSON)
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		w.Write(body)

	case fakemodel.FaultDisconnect:
		b := breakable(w, r)
		defer b.abort()
		if resp.Events == nil {
			b.head(resp, false)
			b.body(resp.Body[:len(resp.Body)/2])
			return
		}
		b.head(resp, true)
		for _, ev := range resp.Events[:cut] {
			b.chunk(ev)
		}

	case fakemodel.FaultStall:
		b := breakable(w, r)
		defer b.abort()
		if !f.BeforeHeaders {
			b.head(resp, resp.Events != nil)
			for _, ev := range resp.Events[:cut] {
				b.chunk(ev)
			}
		}
		t := time.NewTimer(f.For)
		defer t.Stop()
		select {
		case <-t.C:
		case <-b.gone():
		case <-s.stop:
		}

	case fakemodel.FaultMalformed:
		h.Set("Connection", "close")
		if resp.Events == nil {
			body := wire.MalformedBody(resp.Body)
			h.Set("Content-Type", resp.ContentType)
			h.Set("Content-Length", strconv.Itoa(len(body)))
			w.Write(body)
			return
		}
		at, bad := malformedAt(resp.Events, max(f.AfterChunks, 0))
		h.Set("Content-Type", resp.ContentType)
		h.Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		for _, ev := range append(resp.Events[:at:at], bad) {
			if _, err := w.Write(ev); err != nil {
				return
			}
			rc.Flush()
		}

	default:
		e := &wire.Error{Status: 500, Type: wire.TypeAPIError, Message: fmt.Sprintf("tracecheck: turn %d scripts a fault of unknown kind %q", turn, f.Kind)}
		body := e.Body(api)
		h.Set("Content-Type", wire.ContentJSON)
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(e.Status)
		w.Write(body)
	}
}

// malformedAt is the index of the event a malformed stream cuts short and
// that event cut: the first from the after-th on that a client parses
// (wire.MalformedEvent), or when none is left, the last before it.
func malformedAt(events [][]byte, after int) (int, []byte) {
	after = min(after, len(events)-1)
	for i := after; i < len(events); i++ {
		if bad, ok := wire.MalformedEvent(events[i]); ok {
			return i, bad
		}
	}
	for i := after - 1; i >= 0; i-- {
		if bad, ok := wire.MalformedEvent(events[i]); ok {
			return i, bad
		}
	}
	return 0, []byte("data: {\n\n") // no event carries JSON (never rendered)
}

// brokenAnswer is an answer that will not complete: its head and its
// pieces are written and flushed one by one, then abort breaks the
// connection.
type brokenAnswer struct {
	w  http.ResponseWriter
	rc *http.ResponseController
	r  *http.Request
	// On a hijacked connection: the connection, its buffered writer, and a
	// channel closed when the client closes its side.
	conn net.Conn
	bw   *bufio.Writer
	left chan struct{}
}

// breakable hijacks the connection of w (net/http's ResponseWriter
// otherwise).
func breakable(w http.ResponseWriter, r *http.Request) *brokenAnswer {
	b := &brokenAnswer{w: w, rc: http.NewResponseController(w), r: r}
	conn, brw, err := b.rc.Hijack()
	if err != nil {
		return b
	}
	b.conn, b.bw, b.left = conn, brw.Writer, make(chan struct{})
	go func() {
		// The request was read whole: what the client sends now is at most
		// its next request, and a read ends when it closes the connection
		// or abort does.
		io.Copy(io.Discard, brw.Reader)
		close(b.left)
	}()
	return b
}

// head sends the status line and headers of a 200 answer like resp: an
// event stream (chunked) or a whole body with its whole Content-Length.
func (b *brokenAnswer) head(resp wire.Response, stream bool) {
	h := b.w.Header().Clone()
	h.Set("Content-Type", resp.ContentType)
	if stream {
		h.Set("Cache-Control", "no-cache")
	} else {
		h.Set("Content-Length", strconv.Itoa(len(resp.Body)))
	}
	if b.conn == nil {
		maps.Copy(b.w.Header(), h)
		b.w.WriteHeader(http.StatusOK)
		b.rc.Flush()
		return
	}
	h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	if stream {
		h.Set("Transfer-Encoding", "chunked")
	}
	b.bw.WriteString("HTTP/1.1 200 OK\r\n")
	h.Write(b.bw)
	b.bw.WriteString("\r\n")
	b.bw.Flush()
}

// chunk sends one event of a stream, as one chunk, flushed.
func (b *brokenAnswer) chunk(ev []byte) {
	if b.conn == nil {
		b.body(ev)
		return
	}
	fmt.Fprintf(b.bw, "%x\r\n", len(ev))
	b.bw.Write(ev)
	b.bw.WriteString("\r\n")
	b.bw.Flush()
}

// body sends bytes of a whole body, flushed.
func (b *brokenAnswer) body(p []byte) {
	if b.conn == nil {
		b.w.Write(p)
		b.rc.Flush()
		return
	}
	b.bw.Write(p)
	b.bw.Flush()
}

// gone is closed when the client goes away.
func (b *brokenAnswer) gone() <-chan struct{} {
	if b.conn == nil {
		return b.r.Context().Done()
	}
	return b.left
}

// abort closes the connection without completing the answer.
func (b *brokenAnswer) abort() {
	if b.conn == nil {
		panic(http.ErrAbortHandler) // net/http closes it, logging nothing
	}
	b.conn.Close()
	<-b.left
}

// faultPayload is the payload of the error event that records f served at
// turn: {turn, kind: "fault", fault, ...} with the members the kind takes,
// as scripted.
func faultPayload(turn int, f *fakemodel.Fault) jsonv.Value {
	ms := []jsonv.Member{
		jsonv.M("turn", jsonv.Int(int64(turn))),
		jsonv.M("kind", jsonv.Str(KindFault)),
		jsonv.M("fault", jsonv.Str(f.Kind)),
	}
	switch f.Kind {
	case fakemodel.FaultDisconnect, fakemodel.FaultMalformed:
		ms = append(ms, jsonv.M("after_chunks", jsonv.Int(int64(f.AfterChunks))))
	case fakemodel.FaultStatus:
		ms = append(ms, jsonv.M("status", jsonv.Int(int64(f.Status))))
		if f.RetryAfter != nil {
			ms = append(ms, jsonv.M("retry_after", secondsValue(*f.RetryAfter)))
		}
		if f.ShouldRetry != nil {
			ms = append(ms, jsonv.M("should_retry", jsonv.BoolValue(*f.ShouldRetry)))
		}
		if f.Message != "" {
			ms = append(ms, jsonv.M("message", jsonv.Str(f.Message)))
		}
	case fakemodel.FaultStall:
		ms = append(ms, jsonv.M("for", jsonv.Str(f.For.String())), jsonv.M("after_chunks", jsonv.Int(int64(f.AfterChunks))))
		if f.BeforeHeaders {
			ms = append(ms, jsonv.M("before_headers", jsonv.BoolValue(true)))
		}
	}
	return jsonv.Obj(ms...)
}

// secondsValue is d in seconds: an integer when whole.
func secondsValue(d time.Duration) jsonv.Value {
	if d%time.Second == 0 {
		return jsonv.Int(int64(d / time.Second))
	}
	return jsonv.Float(d.Seconds())
}

// describeFault is f in a few words, for the log.
func describeFault(f *fakemodel.Fault) string {
	switch f.Kind {
	case fakemodel.FaultDisconnect:
		return fmt.Sprintf("disconnect after %d chunk(s)", f.AfterChunks)
	case fakemodel.FaultStatus:
		if f.RetryAfter != nil {
			return fmt.Sprintf("status %d, retry after %s", f.Status, *f.RetryAfter)
		}
		return fmt.Sprintf("status %d", f.Status)
	case fakemodel.FaultStall:
		if f.BeforeHeaders {
			return fmt.Sprintf("stall for %s before the headers", f.For)
		}
		return fmt.Sprintf("stall for %s after %d chunk(s)", f.For, f.AfterChunks)
	case fakemodel.FaultMalformed:
		return fmt.Sprintf("malformed after %d chunk(s)", f.AfterChunks)
	}
	return "fault " + strconv.Quote(f.Kind)
}
