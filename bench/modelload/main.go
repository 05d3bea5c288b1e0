// Command modelload measures the scripted model server under a bounded
// local load: it serves a script on a loopback port (in this process, with
// its trace written to a temporary file), sends requests from -c clients
// (-n requests in all, or for -d when -n is 0), and prints requests per
// second and latency percentiles. Nothing leaves loopback; the load stops
// by itself.
//
//	go run ./bench/modelload -mode stream -c 8 -d 5s
//
// -server plain serves the same answer from a plain net/http handler
// instead (the body read to the end, the scripted server's answer written
// as it is: one Write with a Content-Length, or each event written and
// flushed): the floor the scripted server is held to (issue 25). -server
// pair runs -rounds rounds of both, in turn (the order alternating from
// round to round, a new scripted server and trace each round), and prints
// the median and range of the per-round ratios scripted / plain.
//
//	go run ./bench/modelload -server pair -mode stream -c 50 -n 5000 -rounds 7
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
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
	dur := flag.Duration("d", 5*time.Second, "how long to send requests (when -n is 0)")
	total := flag.Int("n", 0, "requests to send in all (0: send for -d)")
	turns := flag.Int("turns", 400000, "scripted turns, when -n is 0 (more than the requests sent); with -n, -n of them")
	server := flag.String("server", "model", "model (the scripted server), plain (a plain net/http handler with the same answer) or pair (both in turn, -rounds times)")
	rounds := flag.Int("rounds", 5, "rounds of -server pair")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	memprofile := flag.String("memprofile", "", "write an allocation profile of the whole run to this file")
	flag.Parse()
	if *memprofile != "" {
		defer func() {
			if f, err := os.Create(*memprofile); err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "modelload:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*server, *mode, *clients, *dur, *total, *turns, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "modelload:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

type result struct {
	rps                float64
	cpu                time.Duration // the process's (clients' and server's) CPU time
	n                  int
	elapsed            time.Duration
	p50, p90, p99, max time.Duration
}

func run(server, mode string, clients int, dur time.Duration, total, nturns, rounds int) error {
	switch mode {
	case "whole", "stream", "anthropic-stream":
	default:
		return fmt.Errorf("unknown -mode %q", mode)
	}
	switch server {
	case "model", "plain":
		r, err := measure(server, mode, clients, dur, total, nturns)
		if err != nil {
			return err
		}
		print(server, mode, clients, r)
		return nil
	case "pair":
	default:
		return fmt.Errorf("unknown -server %q", server)
	}
	var ratios, models, plains []float64
	for i := range rounds {
		order := []string{"model", "plain"}
		if i%2 == 1 {
			order = []string{"plain", "model"}
		}
		got := map[string]result{}
		for _, s := range order {
			r, err := measure(s, mode, clients, dur, total, nturns)
			if err != nil {
				return err
			}
			got[s] = r
			print(s, mode, clients, r)
		}
		models = append(models, got["model"].rps)
		plains = append(plains, got["plain"].rps)
		ratios = append(ratios, got["model"].rps/got["plain"].rps)
	}
	fmt.Printf("pair mode=%s clients=%d rounds=%d model_rps=%.0f (%.0f-%.0f) plain_rps=%.0f (%.0f-%.0f) model/plain=%.2f (%.2f-%.2f)\n",
		mode, clients, rounds, median(models), slices.Min(models), slices.Max(models),
		median(plains), slices.Min(plains), slices.Max(plains), median(ratios), slices.Min(ratios), slices.Max(ratios))
	return nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func print(server, mode string, clients int, r result) {
	fmt.Printf("server=%s mode=%s clients=%d requests=%d elapsed=%.2fs rps=%.0f cpu=%.2fs cpu_us_per_request=%.0f p50=%s p90=%s p99=%s max=%s\n",
		server, mode, clients, r.n, r.elapsed.Seconds(), r.rps, r.cpu.Seconds(), float64(r.cpu.Microseconds())/float64(r.n),
		r.p50.Round(time.Microsecond), r.p90.Round(time.Microsecond), r.p99.Round(time.Microsecond), r.max.Round(time.Microsecond))
}

// scripted starts the scripted server (its trace in a temporary file) and
// returns it, its URL and the request body to send.
func scripted(mode string, nturns int) (*modelserver.Server, *modelserver.Served, func(), error) {
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
		return nil, nil, nil, err
	}
	model := fakemodel.ID
	srv := modelserver.New(modelserver.Script{Turns: script, SessionID: "session-load", Model: model,
		Provenance: journal.Provenance{AgentID: "load", SnapshotID: "load", Surface: modelserver.Surface, HarnessMode: "fake", RunID: "run-load", Model: &model}},
		modelserver.Options{Trace: trace, MaxExchanges: 1 << 30})
	ln, err := modelserver.Listen(modelserver.DefaultAddr, false)
	if err != nil {
		trace.Close()
		os.Remove(trace.Name())
		return nil, nil, nil, err
	}
	served := modelserver.Serve(ln, srv)
	stop := func() {
		served.Shutdown(context.Background())
		trace.Close()
		os.Remove(trace.Name())
	}
	return srv, served, stop, nil
}

func request(mode, base string) (url, body string) {
	if mode == "anthropic-stream" {
		return base + "/v1/messages", `{"model":"m","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Look it up."}],"tools":[{"name":"lookup","input_schema":{"type":"object"}}]}`
	}
	return base + "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"Look it up."}],"tools":[{"type":"function","function":{"name":"lookup"}}],"stream":` + fmt.Sprint(mode == "stream") + `}`
}

// plainHandler answers every request with the scripted server's answer to
// the first one: the body read to the end, then the same headers and bytes
// (a streamed answer written and flushed an event at a time).
type plainHandler struct {
	header http.Header
	body   []byte
	events [][]byte
}

func (p *plainHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	h := w.Header()
	for k, v := range p.header {
		h[k] = v
	}
	if p.events == nil {
		w.Write(p.body)
		return
	}
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	for _, ev := range p.events {
		w.Write(ev)
		f.Flush()
	}
}

// plain starts a plain net/http server answering what the scripted server
// answers.
func plain(mode string) (string, func(), error) {
	_, served, stop, err := scripted(mode, 1)
	if err != nil {
		return "", nil, err
	}
	url, body := request(mode, served.URL)
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		stop()
		return "", nil, err
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	stop()
	if err != nil {
		return "", nil, err
	}
	p := &plainHandler{header: http.Header{}}
	for _, k := range []string{"Content-Type", "Content-Length", "Cache-Control", "X-Request-Id", "Request-Id"} {
		if v := resp.Header.Get(k); v != "" {
			p.header.Set(k, v)
		}
	}
	if mode == "whole" {
		p.body = answer
	} else {
		for ev := range bytes.SplitAfterSeq(answer, []byte("\n\n")) {
			if len(ev) > 0 {
				p.events = append(p.events, ev)
			}
		}
	}
	ln, err := modelserver.Listen(modelserver.DefaultAddr, false)
	if err != nil {
		return "", nil, err
	}
	served = modelserver.Serve(ln, p)
	return served.URL, func() { served.Shutdown(context.Background()) }, nil
}

func measure(server, mode string, clients int, dur time.Duration, total, nturns int) (result, error) {
	var base string
	var stop func()
	var srv *modelserver.Server
	var err error
	if server == "plain" {
		base, stop, err = plain(mode)
	} else {
		if total > 0 {
			// Just the turns the requests take: the script is the
			// server's heap, which the collector scans at each cycle (a
			// real scenario has a few dozen turns).
			nturns = total
		}
		var served *modelserver.Served
		srv, served, stop, err = scripted(mode, nturns)
		if served != nil {
			base = served.URL
		}
	}
	if err != nil {
		return result{}, err
	}
	defer stop()
	url, body := request(mode, base)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(dur)
	var left atomic.Int64
	left.Store(int64(total))
	more := func() bool {
		if total > 0 {
			return left.Add(-1) >= 0
		}
		return time.Now().Before(deadline)
	}
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	var failed error
	var mu sync.Mutex
	cpu0 := cpuTime()
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for more() {
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
	cpu := cpuTime() - cpu0
	if failed != nil {
		return result{}, failed
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(p*float64(len(all))))] }
	if srv != nil {
		rep := srv.Report()
		if rep.Exhausted > 0 {
			return result{}, fmt.Errorf("the script ran out after %d turns: raise -turns", rep.Used)
		}
		if rep.TraceErr != nil {
			return result{}, fmt.Errorf("writing the trace: %v", rep.TraceErr)
		}
	}
	return result{rps: float64(len(all)) / elapsed.Seconds(), cpu: cpu, n: len(all), elapsed: elapsed,
		p50: pct(0.50), p90: pct(0.90), p99: pct(0.99), max: all[len(all)-1]}, nil
}

// cpuTime is the process's CPU time so far (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
