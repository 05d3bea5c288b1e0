package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serveChild starts 'tracecheck model serve' with args as a child process
// (TestModelServeChild) and returns it with its URL; its stderr goes to
// stderr.
func serveChild(t *testing.T, stderr io.Writer, args ...string) (*exec.Cmd, string) {
	t.Helper()
	raw, _ := json.Marshal(append([]string{"model", "serve"}, args...))
	cmd := exec.Command(os.Args[0], "-test.run=^TestModelServeChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnvModel+"="+string(raw))
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL line: %v", err)
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("URL %q is not on loopback", url)
	}
	return cmd, url
}

// stopChild sends SIGINT and waits for the child's exit.
func stopChild(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
}

// repeated is head, then piece as often as fits in n bytes with tail.
func repeated(n int, head, piece, tail string) []byte {
	var b bytes.Buffer
	b.Grow(n)
	b.WriteString(head)
	for b.Len()+len(piece)+len(tail) <= n {
		b.WriteString(piece)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// parallel runs f(0) … f(n-1) at once and waits for them.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(i)
		}()
	}
	wg.Wait()
}

// TestModelServeMemoryBounded runs 'model serve' (default limits) as a
// child process and attacks it from loopback, one way after another, each
// bounded in count and ending by itself: bodies of 31 MiB sent by six
// clients at once that go away before their last byte; two bodies of
// 31 MiB of tiny messages at once; a body whose numbers are 3.6 times
// longer in the spelling the trace hashes; 600 requests with a path of
// 1 MiB; two of the costliest requests the server accepts (99,000
// messages of 300 bytes) at once. The server's peak RSS over its whole
// life (the kernel's high-water mark, from wait4) stays under 256 MiB,
// its standard error under 64 KiB, and it still answers. Before the
// limits, the first attack alone took it past 256 MiB, the second to
// 1.7 GB, the fourth to 1.1 GB with 600 MB of standard error.
func TestModelServeMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("sends about 1 GB over loopback")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads the peak RSS from Linux's wait4")
	}
	var stderr bytes.Buffer
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	cmd, url := serveChild(t, &stderr, "--scenario", "s03-tool-dispatch", "--trace", trace)
	addr := strings.TrimPrefix(url, "http://")
	const body = 31 << 20
	bound := time.Now().Add(5 * time.Minute) // a safety net: every attack ends by itself
	t0 := time.Now()
	phase := func(name string) { t.Logf("%s: %s", name, time.Since(t0).Round(time.Millisecond)); t0 = time.Now() }

	// Six bodies at once, each gone before its last byte.
	parallel(6, func(int) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		conn.SetDeadline(bound)
		fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", body+1)
		conn.Write(repeated(body, `{"model":"m","messages":[{"role":"user","content":"`, "x", ""))
	})
	client := &http.Client{Timeout: time.Until(bound)}
	postAll := func(n int, b []byte) []int {
		codes := make([]int, n)
		parallel(n, func(i int) {
			resp, err := client.Post(url+"/v1/chat/completions", "application/json", bytes.NewReader(b))
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes[i] = resp.StatusCode
		})
		return codes
	}
	phase("partial bodies")
	// Tiny messages, two bodies at once.
	if codes := postAll(2, repeated(body, `{"model":"m","messages":[`, `{"role":"user","content":"hello"},`, `{"role":"user","content":"end"}]}`)); codes[0] != 413 || codes[1] != 413 {
		t.Errorf("tiny messages: %v, want 413 (more than 100,000 messages)", codes)
	}
	phase("tiny messages")
	// Numbers that grow in Python's spelling.
	if codes := postAll(1, repeated(body, `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":[1e15`, ",1e15",
		`]}}]},{"role":"tool","tool_call_id":"c","content":"ok"}]}`)); codes[0] != 413 {
		t.Errorf("numbers: %v, want 413", codes)
	}
	phase("numbers")
	// 600 requests with a path of 1 MiB, eight at a time.
	path := "/" + strings.Repeat("p", 1<<20)
	parallel(8, func(int) {
		for range 600 / 8 {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			conn.SetDeadline(bound)
			fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path)
			bufio.NewReader(conn).ReadString('\n') // the status line (431); the server may close before reading the rest
			conn.Close()
		}
	})
	phase("long paths")
	// The costliest requests accepted: 99,000 messages of 300 bytes.
	var big bytes.Buffer
	big.WriteString(`{"model":"m","messages":[`)
	for i := range 99_000 {
		if i > 0 {
			big.WriteByte(',')
		}
		fmt.Fprintf(&big, `{"role":"user","content":"%06d%s"}`, i, strings.Repeat("é", 150))
	}
	big.WriteString(`]}`)
	if codes := postAll(2, big.Bytes()); codes[0] != 200 || codes[1] != 200 {
		t.Errorf("big requests: %v, want 200", codes)
	}
	phase("big requests")
	// Still answering.
	if resp, err := client.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)); err != nil || resp.StatusCode != 200 {
		t.Errorf("after the attacks: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	stopChild(t, cmd)

	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	peak := ru.Maxrss << 10 // KiB on Linux
	t.Logf("peak RSS %d MiB, standard error %d bytes", peak>>20, stderr.Len())
	if peak > 256<<20 {
		t.Errorf("the server's peak RSS was %d MiB, want under 256 MiB", peak>>20)
	}
	if stderr.Len() > 64<<10 {
		t.Errorf("%d bytes on standard error, want under 64 KiB:\n%.2000s", stderr.Len(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "answered 3 request(s): 2 of 2 turns used, 1 past the script, 9 rejected") {
		t.Errorf("the report line is missing or wrong:\n%.3000s", stderr.String())
	}
}

// TestModelServeRejectionsBounded: 600 rejected requests (a path of 60 KB,
// under the header limit) are all counted in the report, but --trace and
// standard error get only the first --keep-rejections (100 unless told)
// in full, each quoting the path cut short; the run fails as it always
// did. Before, each was written whole: 36 MB of trace and 36 MB of
// standard error.
func TestModelServeRejectionsBounded(t *testing.T) {
	for _, keep := range []int{0, 20} {
		t.Run(fmt.Sprintf("keep=%d", keep), func(t *testing.T) {
			var stderr bytes.Buffer
			trace := filepath.Join(t.TempDir(), "trace.jsonl")
			args := []string{"--scenario", "s03-tool-dispatch", "--trace", trace}
			kept := 100
			if keep > 0 {
				args, kept = append(args, "--keep-rejections", fmt.Sprint(keep)), keep
			}
			cmd, url := serveChild(t, &stderr, args...)
			client := &http.Client{Timeout: time.Minute}
			path := "/" + strings.Repeat("p", 60_000)
			parallel(8, func(int) {
				for range 600 / 8 {
					resp, err := client.Get(url + path)
					if err != nil {
						t.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
			stopChild(t, cmd)
			if code := cmd.ProcessState.ExitCode(); code != exitFailed {
				t.Errorf("exit %d, want %d (requests were rejected)", code, exitFailed)
			}
			data, err := os.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(data, []byte("\n")); n != kept || len(data) > kept<<10 {
				t.Errorf("the trace holds %d events in %d bytes, want the %d kept rejections in under %d KiB", n, len(data), kept, kept)
			}
			if code, out, errOut := runCmd(t, "", "validate", trace); code != exitOK {
				t.Errorf("validate: %s%s", out, errOut)
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if len(lines) != kept+2 || stderr.Len() > kept<<10 {
				t.Errorf("%d lines (%d bytes) on standard error, want %d rejections, a line saying the others are counted, and the report", len(lines), stderr.Len(), kept)
			}
			if !strings.Contains(stderr.String(), fmt.Sprintf("rejected more than %d requests: the others are counted, not written to the trace or logged", kept)) ||
				!strings.HasSuffix(lines[len(lines)-1], "answered 0 request(s): 0 of 2 turns used, 0 past the script, 600 rejected") {
				t.Errorf("standard error:\n%.3000s", stderr.String())
			}
			if !strings.Contains(lines[0], "GET /"+strings.Repeat("p", 63)+"… (60001 bytes) (no API serves it) 404") {
				t.Errorf("the first rejection does not quote the path cut short: %.300s", lines[0])
			}
		})
	}
}

// TestModelLimitsUsage: the limits are in --help with their flags, and a
// limit out of range is a usage error.
func TestModelLimitsUsage(t *testing.T) {
	for _, sub := range []string{"serve", "run"} {
		code, help, _ := runCmd(t, "", "model", sub, "--help")
		for _, want := range []string{"--max-connections connections", "--max-body bytes (32 MiB; 413)", "--body-timeout (30s; 408",
			"--keep-rejections (100)", "request headers of at most 64 KiB", "100,000 messages", "--max-body BYTES", "--body-timeout DURATION", "--max-connections N", "--keep-rejections N"} {
			if code != exitOK || !strings.Contains(strings.Join(strings.Fields(help), " "), want) {
				t.Errorf("model %s --help lacks %q", sub, want)
			}
		}
	}
	for _, tc := range []struct{ flag, value, want string }{
		{"--max-body", "0", "--max-body must be at least 1 byte"},
		{"--body-timeout", "0s", "--body-timeout must be positive"},
		{"--max-connections", "0", "--max-connections must be at least 1"},
		{"--keep-rejections", "0", "--keep-rejections must be at least 1"},
	} {
		code, _, stderr := runCmd(t, "", "model", "serve", "--scenario", "s03-tool-dispatch", tc.flag, tc.value)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s %s: exit %d %q", tc.flag, tc.value, code, stderr)
		}
	}
}
