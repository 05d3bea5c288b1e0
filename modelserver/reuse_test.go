package modelserver_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/tracecheck/tracecheck/modelserver"
)

// chatBody is a Chat Completions request of one user message.
func chatBody(text string, stream bool) string {
	return fmt.Sprintf(`{"model":"m","stream":%v,"messages":[{"role":"user","content":%q}]}`, stream, text)
}

// sentDigests are the sha256 and chars of the first message of each
// model.request in trace, in order.
func sentDigests(t *testing.T, trace []byte) []string {
	t.Helper()
	var out []string
	for line := range bytes.Lines(trace) {
		var ev struct {
			Type    string
			Payload struct {
				Messages []struct {
					SHA256 string
					Chars  int
				}
			}
		}
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == "model.request" {
			m := ev.Payload.Messages[0]
			out = append(out, fmt.Sprintf("%s %d", m.SHA256, m.Chars))
		}
	}
	return out
}

func digestOf(text string) string {
	sum := sha256.Sum256([]byte(text))
	return fmt.Sprintf("%s %d", hex.EncodeToString(sum[:]), len([]rune(text)))
}

// TestBodyBufferIsNotShared: the server reads every body into the buffer
// of the one before, so each request must see its own bytes only: a short
// body after a long one (with and without Content-Length), a malformed
// body shorter than the one before (its error's offset is its own end), a
// count_tokens body, whole and streamed answers, in turn.
func TestBodyBufferIsNotShared(t *testing.T) {
	var trace lockedBuffer
	base := serve(t, modelserver.New(script(10), modelserver.Options{Trace: &trace}))
	long := strings.Repeat("a long message é ", 200)
	var want []string
	send := func(body string, chunked bool, wantStatus int, wantIn string) {
		t.Helper()
		var rd io.Reader = strings.NewReader(body)
		if chunked {
			rd = io.MultiReader(rd) // no length known: sent chunked
		}
		req, err := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", rd)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != wantStatus || !strings.Contains(string(got), wantIn) {
			t.Fatalf("%.40q: %d %s, want %d with %q", body, resp.StatusCode, got, wantStatus, wantIn)
		}
	}
	for _, chunked := range []bool{false, true} {
		send(chatBody(long, false), chunked, 200, `"answer `)
		want = append(want, digestOf(long))
		send(chatBody("b", true), chunked, 200, `data: [DONE]`)
		want = append(want, digestOf("b"))
		bad := `{"model":"m","messages":[`
		send(bad, chunked, 400, fmt.Sprintf("offset %d", len(bad)))
		send(chatBody(long, true), chunked, 200, `data: [DONE]`)
		want = append(want, digestOf(long))
		count := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
		_, got := do(t, http.MethodPost, base+"/v1/messages/count_tokens", count, nil)
		if w := fmt.Sprintf(`{"input_tokens":%d}`, len(count)/4); !strings.Contains(got, w) {
			t.Fatalf("count_tokens after a long body: %s, want %s", got, w)
		}
		send(chatBody("", false), chunked, 200, `"answer `)
		want = append(want, digestOf(""))
	}
	if got := sentDigests(t, trace.Bytes()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("trace digests\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestConcurrentBodiesStayTheirOwn: requests of bodies of different
// lengths sent at once (run it with -race) each record their own message
// and get a whole answer of their own turn.
func TestConcurrentBodiesStayTheirOwn(t *testing.T) {
	const n = 40
	var trace lockedBuffer
	base := serve(t, modelserver.New(script(n), modelserver.Options{Trace: &trace}))
	var wg sync.WaitGroup
	want := map[string]bool{}
	for i := range n {
		text := strings.Repeat(fmt.Sprintf("m%d ", i), 1+(i*37)%90)
		want[digestOf(text)] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, got := post(t, base+"/v1/chat/completions", chatBody(text, i%2 == 0))
			if code != 200 || !strings.Contains(got, "answer ") {
				t.Errorf("request %d: %d %s", i, code, got)
			}
		}()
	}
	wg.Wait()
	got := sentDigests(t, trace.Bytes())
	if len(got) != n {
		t.Fatalf("%d requests in the trace, want %d", len(got), n)
	}
	for _, d := range got {
		if !want[d] {
			t.Errorf("trace records %s, which no request sent", d)
		}
		delete(want, d)
	}
}
