package modelserver_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tracecheck/tracecheck/internal/testenv"
	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/modelserver/wire"
)

// partialPost opens a connection to the server at url (http://HOST:PORT) and
// sends the head of a POST to path announcing a body of length bytes,
// then the first part of that body. Every read and write on it gives up
// after a minute: the test's bound, never its timing.
func partialPost(t *testing.T, url, path string, length int, part string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(time.Minute))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", path, length, part)
	return conn
}

// answer reads one HTTP answer from conn: its status and body, and
// whether the server closed the connection after it.
func answer(t *testing.T, conn net.Conn) (int, string, bool) {
	t.Helper()
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, err = br.ReadByte()
	// A server that closes a connection with bytes of the client's still
	// unread (a body that kept dripping in) makes the kernel answer with a
	// reset, not an end of file: closed either way.
	return resp.StatusCode, string(body), err == io.EOF || errors.Is(err, syscall.ECONNRESET)
}

// TestBodyDeadline: a body that stalls, or trickles in one byte at a time,
// is refused with 408 once BodyTimeout has passed since its turn to be
// read came, its connection is closed, and the request waiting behind it
// is then read and answered: a stalled client holds the intake for the
// deadline, not for ever. Before, a stalled body was waited for with no
// bound, and its connection stayed open.
func TestBodyDeadline(t *testing.T) {
	const timeout = 300 * time.Millisecond
	for _, drip := range []bool{false, true} {
		t.Run(fmt.Sprintf("drip=%v", drip), func(t *testing.T) {
			srv := modelserver.New(script(1), modelserver.Options{BodyTimeout: timeout})
			url := serve(t, srv)
			body := `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("x", 200) + `"}]}`
			stalled := partialPost(t, url, wire.PathChatCompletions, len(body), body[:10])
			done := make(chan struct{})
			var wg sync.WaitGroup
			if drip {
				// One byte every tenth of the deadline: the body would take
				// far longer than the deadline to arrive.
				wg.Add(1)
				go func() {
					defer wg.Done()
					tick := time.NewTicker(timeout / 10)
					defer tick.Stop()
					for i := 10; i < len(body)-1; i++ {
						select {
						case <-done:
							return
						case <-tick.C:
						}
						if _, err := stalled.Write([]byte{body[i]}); err != nil {
							return
						}
					}
				}()
			}
			start := time.Now()
			code, got, closed := answer(t, stalled)
			took := time.Since(start)
			close(done)
			wg.Wait()
			if code != 408 || !strings.Contains(got, "the request body was not read within 300ms") || !closed {
				t.Errorf("stalled body: %d %s (closed %v), want 408 and the connection closed", code, got, closed)
			}
			if drip && took > time.Duration(len(body)-11)*timeout/10 {
				t.Errorf("the dripping body was cut after %s: it had finished arriving", took)
			}
			// The next request is read and answered.
			if code, body := post(t, url+wire.PathChatCompletions, userOnly); code != 200 || !strings.Contains(body, "answer 1") {
				t.Errorf("the request after the stalled one: %d %s", code, body)
			}
			rep := srv.Report()
			if rep.Rejections() != 1 || rep.Rejected[0].Kind != modelserver.KindTimeout || rep.Rejected[0].Status != 408 || rep.Used != 1 {
				t.Errorf("report %+v", rep)
			}
		})
	}
}

// TestBodyAnnouncedTooLargeIsRefusedUnread: a request announcing a body
// past MaxBodyBytes gets 413 at once, before it sends a byte of it (before,
// the server read up to the limit first: a client that announced 64 MiB
// and sent nothing held its connection open).
func TestBodyAnnouncedTooLargeIsRefusedUnread(t *testing.T) {
	srv := modelserver.New(script(1), modelserver.Options{MaxBodyBytes: 1 << 20})
	url := serve(t, srv)
	conn := partialPost(t, url, wire.PathMessages, 64<<20, "")
	code, body, closed := answer(t, conn)
	if code != 413 || !strings.Contains(body, `"type":"request_too_large"`) || !closed {
		t.Errorf("%d %s (closed %v), want 413 and the connection closed", code, body, closed)
	}
	if rep := srv.Report(); rep.Rejections() != 1 || rep.Rejected[0].Kind != modelserver.KindTooLarge {
		t.Errorf("report %+v", rep)
	}
}

// TestBodiesAreReadInArrivalOrder: requests are read, and take their
// turns, one at a time in the order they came to be read: once the server
// reads a body (Expect: 100-continue shows when), a request that comes
// after it waits, holding no body, even with its body complete, and gets
// the next turn.
func TestBodiesAreReadInArrivalOrder(t *testing.T) {
	srv := modelserver.New(script(2), modelserver.Options{})
	url := serve(t, srv)
	first, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	first.SetDeadline(time.Now().Add(time.Minute))
	fmt.Fprintf(first, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", wire.PathChatCompletions, len(userOnly))
	br := bufio.NewReader(first)
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 100") {
		t.Fatalf("no 100 Continue: %q %v", line, err)
	}
	br.ReadString('\n') // the blank line after it
	// The first request is being read. A second one, complete, waits.
	second := make(chan string, 1)
	go func() {
		resp, err := http.Post(url+wire.PathChatCompletions, "application/json", strings.NewReader(userOnly))
		if err != nil {
			second <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		second <- string(b)
	}()
	first.Write([]byte(userOnly))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "answer 1") {
		t.Errorf("the first request got %s, want turn 1", b)
	}
	if got := <-second; !strings.Contains(got, "answer 2") {
		t.Errorf("the second request got %s, want turn 2", got)
	}
}

// liveHeap is the live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestRejectionsAreBounded: 600 requests for a path of 60 KB (just under
// Serve's header limit) are all counted, but only the first
// KeepRejections are kept and written, each quoting the path cut short:
// the trace, the log and the live heap stay small whatever the flood.
// Before, every rejection was kept and written in full: 600 such requests
// held 72 MB and wrote 36 MB of trace and 36 MB of log.
func TestRejectionsAreBounded(t *testing.T) {
	var trace, log testenv.CountingWriter
	srv := modelserver.New(script(1), modelserver.Options{Trace: &trace, Log: &log})
	url := serve(t, srv)
	path := "/" + strings.Repeat("p", 60_000)
	before := liveHeap()
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 8}}
	var wg sync.WaitGroup
	work := make(chan struct{})
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				resp, err := client.Get(url + path)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 404 {
					t.Errorf("status %d, want 404", resp.StatusCode)
				}
			}
		}()
	}
	for range 600 {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	grew := int64(liveHeap()) - int64(before)
	rep := srv.Report()
	t.Logf("600 rejections: live heap +%d bytes, trace %d bytes, log %d bytes", grew, trace.Count(), log.Count())
	if rep.Rejections() != 600 || len(rep.Rejected) != modelserver.DefaultKeepRejections || rep.MoreRejected != 500 {
		t.Errorf("rejections %d (kept %d, more %d), want 600 (kept %d)", rep.Rejections(), len(rep.Rejected), rep.MoreRejected, modelserver.DefaultKeepRejections)
	}
	for _, r := range rep.Rejected {
		if len(r.Route) > 200 || len(r.Message) > 600 || !strings.Contains(r.Route, "… (60001 bytes)") {
			t.Fatalf("a kept rejection of %d+%d bytes: %.300s", len(r.Route), len(r.Message), r)
		}
	}
	if trace.Count() > 100<<10 || log.Count() > 100<<10 {
		t.Errorf("trace %d bytes, log %d bytes: want at most 100 KiB each", trace.Count(), log.Count())
	}
	if grew > 4<<20 {
		t.Errorf("the live heap grew by %d bytes for 600 rejections", grew)
	}
	// The run's failure message is the one it always was, with the count.
	if p := (&modelserver.RunResult{Report: rep}).Problems(); len(p) == 0 || !strings.HasPrefix(p[0], "the server rejected 600 request(s); the first: turn 1: GET /ppp") {
		t.Errorf("problems %q", p)
	}
}

// TestLongPathsAreCutInRejections: a handler served with net/http's
// default header limit (1 MB) still keeps and writes a rejection's path
// cut short.
func TestLongPathsAreCutInRejections(t *testing.T) {
	var trace, log testenv.CountingWriter
	srv := modelserver.New(script(1), modelserver.Options{Trace: &trace, Log: &log})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	for _, method := range []string{"GET", "POST", strings.Repeat("M", 100_000)} {
		req, _ := http.NewRequest(method, hs.URL+"/"+strings.Repeat("q", 400_000), nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 || len(b) > 2<<10 {
			t.Errorf("%.20s: %d, a body of %d bytes", method, resp.StatusCode, len(b))
		}
	}
	if trace.Count() > 10<<10 || log.Count() > 10<<10 {
		t.Errorf("trace %d bytes, log %d bytes for three rejections", trace.Count(), log.Count())
	}
}
