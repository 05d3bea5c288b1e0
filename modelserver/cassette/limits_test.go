package cassette_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tracecheck/tracecheck/internal/testenv"
	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/modelserver/cassette"
)

// missingCassette is a player in replay mode over the committed s03
// cassette (read only): a request none of its recordings match is a
// miss.
func missingCassette(t *testing.T, opt cassette.Options) *cassette.Player {
	t.Helper()
	p, err := cassette.Open(filepath.Join("..", "..", "testdata", "modelserver", "cassette-s03.jsonl"), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestCassetteBodyOfTinyValuesIsRefused: a body of many tiny values, well
// within the size limit, is refused with 413 before it is parsed into a
// tree (before, a 27 MB body of 950,000 tiny messages was parsed whole:
// about 1.1 GB allocated, 240 MB of it live, per request in flight), and
// the live heap does not grow with it.
func TestCassetteBodyOfTinyValuesIsRefused(t *testing.T) {
	p := missingCassette(t, cassette.Options{})
	url := serve(t, p)
	var b strings.Builder
	b.WriteString(`{"model":"m","messages":[`)
	for i := range 200_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"role":"user","content":"x"}`)
	}
	b.WriteString(`]}`)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, body := send(t, url, b.String(), nil)
	runtime.ReadMemStats(&after)
	if code != 413 || !strings.Contains(body, "more than the 500000 a cassette matches") {
		t.Errorf("%d %.300s, want 413", code, body)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("refusing a %d-byte body allocated %d MB", b.Len(), grew>>20)
	}
	if rep := p.Report(); rep.Rejections() != 1 || rep.Rejected[0].Kind != modelserver.KindTooLarge {
		t.Errorf("report %+v", rep)
	}
}

// TestCassetteRejectionsAreBounded: 300 misses are all counted, but only
// the first KeepRejections are kept, traced and logged (before, every one
// was kept and written, without bound).
func TestCassetteRejectionsAreBounded(t *testing.T) {
	var trace, log testenv.CountingWriter
	p := missingCassette(t, cassette.Options{Trace: &trace, Log: &log, KeepRejections: 10})
	url := serve(t, p)
	for i := range 300 {
		if code, _ := send(t, url, fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"%d"}]}`, i), nil); code != 400 {
			t.Fatalf("request %d: status %d, want 400 (a miss)", i, code)
		}
	}
	rep := p.Report()
	if rep.Rejections() != 300 || len(rep.Rejected) != 10 || rep.MoreRejected != 290 {
		t.Errorf("rejections %d (kept %d, more %d), want 300 (kept 10)", rep.Rejections(), len(rep.Rejected), rep.MoreRejected)
	}
	if rep.Rejected[9].Turn != 10 {
		t.Errorf("the tenth rejection is turn %d", rep.Rejected[9].Turn)
	}
	t.Logf("log %d bytes, trace %d bytes", log.Count(), trace.Count())
	if log.Count() > 64<<10 || trace.Count() > 64<<10 {
		t.Errorf("log of %d bytes, trace of %d bytes for 10 kept rejections", log.Count(), trace.Count())
	}
}

// TestCassetteBodyDeadline: a body that stalls is refused with 408 when
// BodyTimeout has passed and its connection closed; before, the player
// waited for it with no bound.
func TestCassetteBodyDeadline(t *testing.T) {
	p := missingCassette(t, cassette.Options{BodyTimeout: 300 * time.Millisecond})
	url := serve(t, p)
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute)) // the test's bound, never its timing
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\"")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, err = br.ReadByte()
	if resp.StatusCode != 408 || !strings.Contains(string(body), "not read within 300ms") || err != io.EOF {
		t.Errorf("%d %s (read after: %v), want 408 and the connection closed", resp.StatusCode, body, err)
	}
}
