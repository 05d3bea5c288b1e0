// Command modelattack measures what hostile clients make `tracecheck model
// serve` hold: it starts the server (the binary given by -bin) on a free
// loopback port, runs one attack against it, stops it with SIGINT, and
// prints the server's peak RSS (the kernel's high-water mark of the whole
// process, from wait4), the bytes it wrote to --trace and to standard
// error, and what the clients got. Every connection goes to 127.0.0.1 (the
// URL the server prints is checked), the counts are bounded by the flags,
// and each attack stops by itself within -guard.
//
//	go build -o /tmp/tracecheck ./cmd/tracecheck
//	go run ./bench/modelattack -bin /tmp/tracecheck -attack stalled
//
// Attacks:
//
//	stalled     -conns connections each send -body bytes of a body one byte
//	            longer, then stall until the guard
//	flood       -parallel clients, -rounds times, POST a body of -body
//	            bytes made of tiny messages (34 bytes each)
//	numbers     one POST of -body bytes whose tool-call arguments are the
//	            number 1e15 over and over (the text a trace hashes is
//	            Python's spelling, 1000000000000000.0: 3.6 times the body)
//	parts       one POST of -body bytes whose content is millions of {}
//	big         -parallel clients, -rounds times, POST a request the server
//	            accepts that is as costly as one can be: -body bytes of
//	            99,000 messages of about 320 bytes of text each
//	drip        one connection sends a body one byte every -every
//	rejections  -gets GETs, 8 at a time, each with a path of -path bytes
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

type config struct {
	bin, attack, scenario string
	args                  []string
	guard                 time.Duration
	conns, parallel       int
	rounds, gets          int
	body, path            int
	every                 time.Duration
}

func main() {
	var c config
	var extra string
	flag.StringVar(&c.bin, "bin", "", "the tracecheck binary to attack (required)")
	flag.StringVar(&c.attack, "attack", "stalled", "stalled, flood, numbers, parts, big, drip or rejections")
	flag.StringVar(&c.scenario, "scenario", "s03-tool-dispatch", "the scenario served")
	flag.StringVar(&extra, "args", "", "more flags for 'model serve', space-separated (e.g. \"--body-timeout 5s\")")
	flag.DurationVar(&c.guard, "guard", 60*time.Second, "the attack's bound: every client stops by then")
	flag.IntVar(&c.conns, "conns", 40, "stalled: connections")
	flag.IntVar(&c.parallel, "parallel", 4, "flood: clients at once")
	flag.IntVar(&c.rounds, "rounds", 1, "flood: requests per client")
	flag.IntVar(&c.gets, "gets", 600, "rejections: requests")
	flag.IntVar(&c.body, "body", 31<<20, "stalled, flood, numbers, parts: body bytes")
	flag.IntVar(&c.path, "path", 1<<20, "rejections: path bytes")
	flag.DurationVar(&c.every, "every", 5*time.Second, "drip: time between bytes")
	flag.Parse()
	c.args = strings.Fields(extra)
	if c.bin == "" {
		fmt.Fprintln(os.Stderr, "modelattack: -bin is required")
		os.Exit(2)
	}
	if c.conns > 1000 || c.parallel > 64 || c.rounds > 100 || c.gets > 100000 || c.body > 1<<30 || c.path > 8<<20 || c.guard > 10*time.Minute {
		fmt.Fprintln(os.Stderr, "modelattack: a count past its bound (conns 1000, parallel 64, rounds 100, gets 100000, body 1 GiB, path 8 MiB, guard 10m)")
		os.Exit(2)
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "modelattack:", err)
		os.Exit(1)
	}
}

// outcomes counts what the clients got, by a short name.
type outcomes struct {
	mu sync.Mutex
	n  map[string]int
}

func (o *outcomes) add(what string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.n == nil {
		o.n = map[string]int{}
	}
	o.n[what]++
}

func (o *outcomes) String() string {
	var ks []string
	for k, v := range o.n {
		ks = append(ks, fmt.Sprintf("%s×%d", k, v))
	}
	sort.Strings(ks)
	return strings.Join(ks, " ")
}

func run(c config) error {
	dir, err := os.MkdirTemp("", "modelattack-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	trace, stderrPath := filepath.Join(dir, "trace.jsonl"), filepath.Join(dir, "stderr")
	stderr, err := os.Create(stderrPath)
	if err != nil {
		return err
	}
	defer stderr.Close()
	cmd := exec.Command(c.bin, append([]string{"model", "serve", "--scenario", c.scenario, "--trace", trace}, c.args...)...)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return fmt.Errorf("no URL from the server: %v", err)
	}
	url := strings.TrimSpace(line)
	addr, ok := strings.CutPrefix(url, "http://127.0.0.1:")
	if !ok {
		return fmt.Errorf("the server is not on 127.0.0.1: %q", url)
	}
	addr = "127.0.0.1:" + addr

	var got outcomes
	start := time.Now()
	deadline := start.Add(c.guard)
	switch c.attack {
	case "stalled":
		stalled(c, addr, deadline, &got)
	case "flood":
		flood(c, url, deadline, &got, tinyMessages(c.body))
	case "numbers":
		flood(c, url, deadline, &got, numberArguments(c.body))
	case "parts":
		flood(c, url, deadline, &got, emptyParts(c.body))
	case "big":
		flood(c, url, deadline, &got, bigMessages(c.body))
	case "drip":
		drip(c, addr, deadline, &got)
	case "rejections":
		rejections(c, addr, deadline, &got)
	default:
		return fmt.Errorf("unknown attack %q", c.attack)
	}
	elapsed := time.Since(start)

	cmd.Process.Signal(os.Interrupt)
	stopped := make(chan error, 1)
	go func() { stopped <- cmd.Wait() }()
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-stopped
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	peak := int64(0)
	if ru != nil {
		peak = ru.Maxrss / 1024 // KiB on Linux
	}
	traceBytes, stderrBytes := size(trace), size(stderrPath)
	last := lastLine(stderrPath)
	fmt.Printf("attack=%s args=%q peak_rss=%dMiB trace=%s stderr=%s elapsed=%.1fs exit=%d clients: %s\n  server's last line: %s\n",
		c.attack, strings.Join(c.args, " "), peak, human(traceBytes), human(stderrBytes), elapsed.Seconds(), cmd.ProcessState.ExitCode(), got.String(), last)
	return nil
}

func size(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

func human(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fKiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

// lastLine is the last line of a file, cut to 200 bytes.
func lastLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > 64<<10 {
		f.Seek(-64<<10, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	l := lines[len(lines)-1]
	if len(l) > 200 {
		l = l[:200] + "…"
	}
	return l
}

// status reads the status line of an answer on conn ("408", or what went
// wrong).
func status(conn net.Conn) string {
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return "no-answer-by-the-guard"
		}
		return "closed"
	}
	if f := strings.Fields(line); len(f) >= 2 {
		return f[1]
	}
	return "garbled"
}

// stalled opens c.conns connections that each send all but the last byte
// of a body and wait.
func stalled(c config, addr string, deadline time.Time, got *outcomes) {
	body := bytes.Repeat([]byte("x"), c.body)
	copy(body, `{"model":"m","messages":[{"role":"user","content":"`)
	var wg sync.WaitGroup
	for range c.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.DialTimeout("tcp", addr, time.Until(deadline))
			if err != nil {
				got.add("dial-failed")
				return
			}
			defer conn.Close()
			conn.SetDeadline(deadline)
			fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, len(body)+1)
			if _, err := conn.Write(body); err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					got.add("body-unread-by-the-guard")
				} else {
					got.add(status(conn))
				}
				return
			}
			got.add(status(conn))
		}()
	}
	wg.Wait()
}

// flood posts body c.rounds times from each of c.parallel clients.
func flood(c config, url string, deadline time.Time, got *outcomes, body []byte) {
	client := &http.Client{Timeout: time.Until(deadline)}
	var wg sync.WaitGroup
	for range c.parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range c.rounds {
				if time.Now().After(deadline) {
					return
				}
				resp, err := client.Post(url+"/v1/chat/completions", "application/json", bytes.NewReader(body))
				if err != nil {
					got.add("error")
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				got.add(fmt.Sprint(resp.StatusCode))
			}
		}()
	}
	wg.Wait()
}

// tinyMessages is an OpenAI request of n bytes: 34-byte user messages.
func tinyMessages(n int) []byte {
	head, msg, tail := `{"model":"m","messages":[`, `{"role":"user","content":"hello"},`, `{"role":"user","content":"end"}]}`
	var b bytes.Buffer
	b.WriteString(head)
	for b.Len()+len(msg)+len(tail) <= n {
		b.WriteString(msg)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// numberArguments is an OpenAI request of about n bytes: one assistant
// tool call whose arguments (a JSON array, not a string) are 1e15 over
// and over, answered by a tool message.
func numberArguments(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"f","arguments":[1e15`)
	tail := `]}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`
	for b.Len()+5+len(tail) <= n {
		b.WriteString(",1e15")
	}
	b.WriteString(tail)
	return b.Bytes()
}

// bigMessages is an OpenAI request of about n bytes: 99,000 user messages
// of equal length, each text different from the last.
func bigMessages(n int) []byte {
	const count = 99_000
	per := max(n/count-32, 8)
	var b bytes.Buffer
	b.Grow(n + 1<<20)
	b.WriteString(`{"model":"m","messages":[`)
	text := bytes.Repeat([]byte("é"), per/2)
	for i := range count {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"user","content":"%06d%s"}`, i, text)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// emptyParts is an OpenAI request of about n bytes: one user message whose
// content is {} parts.
func emptyParts(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"m","messages":[{"role":"user","content":[{}`)
	tail := `]}]}`
	for b.Len()+3+len(tail) <= n {
		b.WriteString(",{}")
	}
	b.WriteString(tail)
	return b.Bytes()
}

// drip sends a 1000-byte body one byte every c.every, and reports how long
// the server kept the connection open.
func drip(c config, addr string, deadline time.Time, got *outcomes) {
	conn, err := net.DialTimeout("tcp", addr, time.Until(deadline))
	if err != nil {
		got.add("dial-failed")
		return
	}
	defer conn.Close()
	conn.SetDeadline(deadline)
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n", addr)
	start := time.Now()
	answered := make(chan string, 1)
	go func() { answered <- status(conn) }()
	tick := time.NewTicker(c.every)
	defer tick.Stop()
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	for sent := 0; sent < 1000; sent++ {
		if _, err := conn.Write([]byte("x")); err != nil {
			break
		}
		select {
		case st := <-answered:
			got.add(fmt.Sprintf("%s-after-%.0fs-%dB", st, time.Since(start).Seconds(), sent+1))
			return
		case <-tick.C:
		case <-ctx.Done():
			got.add(fmt.Sprintf("open-after-%.0fs", time.Since(start).Seconds()))
			return
		}
	}
	got.add(<-answered)
}

// rejections sends c.gets GETs with a c.path-byte path, 8 at a time.
func rejections(c config, addr string, deadline time.Time, got *outcomes) {
	path := "/" + strings.Repeat("p", c.path-1)
	work := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				conn, err := net.DialTimeout("tcp", addr, time.Until(deadline))
				if err != nil {
					got.add("dial-failed")
					continue
				}
				conn.SetDeadline(deadline)
				fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, addr)
				got.add(status(conn))
				conn.Close()
			}
		}()
	}
	for range c.gets {
		if time.Now().After(deadline) {
			break
		}
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
}
