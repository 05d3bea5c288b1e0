// Command modelload measures the scripted model server under a bounded
// local load: it serves a script on a loopback port (in this process, with
// its trace written to a temporary file), sends requests from -c clients
// for -d, and prints requests per second and latency percentiles. Nothing
// leaves loopback; the load stops by itself.
//
//	go run ./bench/modelload -mode stream -c 8 -d 5s
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/reducer"
)

func main() {
	mode := flag.String("mode", "whole", "whole (OpenAI JSON answer), stream (OpenAI server-sent events) or anthropic-stream")
	clients := flag.Int("c", 8, "concurrent clients")
	dur := flag.Duration("d", 5*time.Second, "how long to send requests")
	turns := flag.Int("turns", 400000, "scripted turns (more than the requests sent)")
	flag.Parse()
	if err := run(*mode, *clients, *dur, *turns); err != nil {
		fmt.Fprintln(os.Stderr, "modelload:", err)
		os.Exit(1)
	}
}

func run(mode string, clients int, dur time.Duration, nturns int) error {
	turn := fakemodel.Turn{Content: "I will look it up.", ToolCalls: []reducer.ToolCall{{ID: "call-1", Name: "lookup",
		Arguments: jsonv.Obj(jsonv.M("query", jsonv.Str("observe events, not hidden state")))}}}
	if mode != "whole" {
		turn = fakemodel.Turn{Chunks: []string{"Observe ", "events, ", "not hidden state."}, ToolCalls: turn.ToolCalls}
	}
	script := make([]fakemodel.Turn, nturns)
	for i := range script {
		script[i] = turn
	}
	trace, err := os.CreateTemp("", "modelload-*.jsonl")
	if err != nil {
		return err
	}
	defer os.Remove(trace.Name())
	defer trace.Close()
	model := fakemodel.ID
	srv := modelserver.New(modelserver.Script{Turns: script, SessionID: "session-load", Model: model,
		Provenance: journal.Provenance{AgentID: "load", SnapshotID: "load", Surface: modelserver.Surface, HarnessMode: "fake", RunID: "run-load", Model: &model}},
		modelserver.Options{Trace: trace, MaxExchanges: 1 << 30})
	ln, err := modelserver.Listen(modelserver.DefaultAddr, false)
	if err != nil {
		return err
	}
	served := modelserver.Serve(ln, srv)
	defer served.Shutdown(context.Background())

	url, body := served.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"Look it up."}],"tools":[{"type":"function","function":{"name":"lookup"}}],"stream":`+fmt.Sprint(mode == "stream")+`}`
	if mode == "anthropic-stream" {
		url, body = served.URL+"/v1/messages", `{"model":"m","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Look it up."}],"tools":[{"name":"lookup","input_schema":{"type":"object"}}]}`
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	deadline := time.Now().Add(dur)
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	var failed error
	var mu sync.Mutex
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				t0 := time.Now()
				resp, err := client.Post(url, "application/json", strings.NewReader(body))
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				if err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
					return
				}
				lat[c] = append(lat[c], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if failed != nil {
		return failed
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(p*float64(len(all))))] }
	rep := srv.Report()
	if rep.Exhausted > 0 {
		return fmt.Errorf("the script ran out after %d turns: raise -turns", rep.Used)
	}
	fmt.Printf("mode=%s clients=%d requests=%d elapsed=%.2fs rps=%.0f p50=%s p90=%s p99=%s max=%s\n",
		mode, clients, len(all), elapsed.Seconds(), float64(len(all))/elapsed.Seconds(),
		pct(0.50).Round(time.Microsecond), pct(0.90).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), all[len(all)-1].Round(time.Microsecond))
	return nil
}
