package modelserver_test

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/reducer"
)

// discardWriter is the least a ResponseWriter can be, so that the
// benchmark's figure is the handler's own work (net/http's share is the
// same for any handler: bench/modelload measures the whole).
type discardWriter struct {
	h    http.Header
	code int
	n    int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
func (w *discardWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }
func (w *discardWriter) Flush()                      {}

// SetReadDeadline is there for http.ResponseController, as net/http's
// writer has it.
func (w *discardWriter) SetReadDeadline(time.Time) error { return nil }

// BenchmarkServeHTTP is one exchange of bench/modelload's load (its
// script and request) through Server.ServeHTTP, the trace written to a
// file as modelload writes it: CPU and allocations per request of the
// handler alone.
func BenchmarkServeHTTP(b *testing.B) {
	for _, mode := range []string{"whole", "stream"} {
		b.Run(mode, func(b *testing.B) {
			turn := fakemodel.Turn{Content: "I will look it up.", ToolCalls: []reducer.ToolCall{{ID: "call-1", Name: "lookup",
				Arguments: jsonv.Obj(jsonv.M("query", jsonv.Str("observe events, not hidden state")))}}}
			if mode == "stream" {
				turn = fakemodel.Turn{Chunks: []string{"Observe ", "events, ", "not hidden state."}, ToolCalls: turn.ToolCalls}
			}
			const turns = 1 << 16
			script := make([]fakemodel.Turn, turns)
			for i := range script {
				script[i] = turn
			}
			trace, err := os.Create(filepath.Join(b.TempDir(), "trace.jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			defer trace.Close()
			model := fakemodel.ID
			newServer := func() *modelserver.Server {
				return modelserver.New(modelserver.Script{Turns: script, SessionID: "session-load", Model: model,
					Provenance: journal.Provenance{AgentID: "load", SnapshotID: "load", Surface: modelserver.Surface, HarnessMode: "fake", RunID: "run-load", Model: &model}},
					modelserver.Options{Trace: trace, MaxExchanges: 1 << 30})
			}
			srv := newServer()
			body := `{"model":"m","messages":[{"role":"user","content":"Look it up."}],"tools":[{"type":"function","function":{"name":"lookup"}}],"stream":` + map[bool]string{true: "true", false: "false"}[mode == "stream"] + `}`
			u, _ := url.Parse("http://127.0.0.1/v1/chat/completions")
			rd := strings.NewReader(body)
			req := &http.Request{Method: http.MethodPost, URL: u, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(rd), ContentLength: int64(len(body)), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Host: u.Host}
			w := &discardWriter{}
			served := 0
			b.ReportAllocs()
			for b.Loop() {
				if served == turns {
					srv, served = newServer(), 0
				}
				rd.Reset(body)
				w.h, w.code, w.n = http.Header{}, 0, 0
				srv.ServeHTTP(w, req)
				served++
				if w.code != 0 && w.code != 200 || w.n == 0 {
					b.Fatalf("status %d, %d bytes", w.code, w.n)
				}
			}
			if rep := srv.Report(); rep.TraceErr != nil || rep.Rejections() > 0 {
				b.Fatal(rep.TraceErr, rep.Rejected)
			}
		})
	}
}
