// Command genagentlog writes large, deterministic agent session logs for
// the lint and import figures in BENCHMARKS.md: a Codex-style rollout of a
// given size (turns of turn_context, user message, reasoning, function
// call and output, assistant message and token count, with a compaction
// now and then) and a Claude Code-style transcript of a given number of
// lines with random UUID ids chained by parentUuid (replies split over
// lines sharing message.id, tool_use and tool_result pairs), a pi session
// (version 3 header, 8-hex-digit entry ids chained by parentId, assistant
// messages with text and toolCall blocks, toolResult messages, a
// compaction now and then) and a TypeScript harness session store
// (session_meta, then runs of turn_context, run_started, user message,
// function_call and function_call_output pairs, assistant message,
// run_succeeded, with a compaction_summary and history_compacted now and
// then). All four lint clean. Output goes to bench/out/ by convention
// (git-ignored).
//
//	go run ./bench/genagentlog -kind codex -size 2GB -o bench/out/codex-2g.jsonl
//	go run ./bench/genagentlog -kind claude -lines 1000000 -o bench/out/claude-1m.jsonl
//	go run ./bench/genagentlog -kind claude -size 100MB -o bench/out/claude-100m.jsonl
//	go run ./bench/genagentlog -kind pi -size 100MB -o bench/out/pi-100m.jsonl
//	go run ./bench/genagentlog -kind ts -size 100MB -o bench/out/ts-100m.jsonl
//
// -size bounds every kind; -lines bounds claude when -size is not given.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	kind := flag.String("kind", "codex", "codex, claude, pi or ts (the TypeScript harness)")
	size := flag.String("size", "1GB", "stop after about this many bytes (KB, MB, GB suffixes); claude: only when given")
	lines := flag.Int("lines", 1000000, "claude without -size: number of lines")
	out := flag.String("o", "", "output file (required)")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "genagentlog: -o is required")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genagentlog:", err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	g := &gen{w: w, rng: rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15)), t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	n, err := parseSize(*size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genagentlog:", err)
		os.Exit(2)
	}
	sizeGiven := false
	flag.Visit(func(f *flag.Flag) { sizeGiven = sizeGiven || f.Name == "size" })
	switch *kind {
	case "codex":
		g.codex(n)
	case "claude":
		if sizeGiven {
			g.claude(math.MaxInt, n)
		} else {
			g.claude(*lines, math.MaxInt64)
		}
	case "pi":
		g.pi(n)
	case "ts":
		g.harness(n)
	default:
		fmt.Fprintln(os.Stderr, "genagentlog: -kind must be codex, claude, pi or ts")
		os.Exit(2)
	}
	if err := w.Flush(); err == nil {
		err = f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genagentlog:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d lines, %d bytes\n", *out, g.lines, g.bytes)
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	for suf, m := range map[string]int64{"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30} {
		if strings.HasSuffix(s, suf) {
			s, mult = strings.TrimSuffix(s, suf), m
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad -size %q", s)
	}
	return int64(n * float64(mult)), nil
}

type gen struct {
	w     *bufio.Writer
	rng   *rand.Rand
	t     time.Time
	lines int
	bytes int64
}

func (g *gen) ts() string {
	g.t = g.t.Add(time.Duration(50+g.rng.IntN(2000)) * time.Millisecond)
	return g.t.Format("2006-01-02T15:04:05.000Z")
}

func (g *gen) line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	g.w.Write(b)
	g.w.WriteByte('\n')
	g.lines++
	g.bytes += int64(len(b) + 1)
}

var words = strings.Fields(`the agent reads a file then runs the tests and reports what failed; résumé naïve 数据 "quoted" back\slash tab	here
func main() { fmt.Println(x) } error: expected 3 got 4 at line 120 of parser.go ok PASS FAIL --- diff +++ @@ -1,4 +1,5 @@`)

func (g *gen) text(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[g.rng.IntN(len(words))])
		if g.rng.IntN(12) == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func (g *gen) uuid() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(g.rng.Uint32())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[c>>4], hex[c&15])
	}
	return string(out)
}

type obj = map[string]any

func (g *gen) codex(limit int64) {
	rec := func(typ string, payload obj) { g.line(obj{"timestamp": g.ts(), "type": typ, "payload": payload}) }
	sid := g.uuid()
	rec("session_meta", obj{"id": sid, "timestamp": g.t.Format(time.RFC3339), "cwd": "/work/project", "originator": "codex_cli_rs", "cli_version": "0.77.0", "source": "cli", "model_provider": "openai"})
	for turn := 0; g.bytes < limit; turn++ {
		rec("turn_context", obj{"cwd": "/work/project", "approval_policy": "on-request", "sandbox_policy": obj{"type": "workspace-write"}, "model": "gpt-5-codex", "turn_id": g.uuid()})
		rec("response_item", obj{"type": "message", "role": "user", "content": []obj{{"type": "input_text", "text": g.text(200 + g.rng.IntN(400))}}})
		for c := 0; c < 1+g.rng.IntN(4); c++ {
			rec("response_item", obj{"type": "reasoning", "summary": []obj{{"type": "summary_text", "text": g.text(100 + g.rng.IntN(200))}}, "encrypted_content": g.text(300)})
			id := "call_" + strconv.Itoa(turn) + "_" + strconv.Itoa(c)
			args, _ := json.Marshal(obj{"command": []string{"bash", "-lc", g.text(40)}})
			rec("response_item", obj{"type": "function_call", "name": "shell", "arguments": string(args), "call_id": id})
			rec("response_item", obj{"type": "function_call_output", "call_id": id, "output": g.text(500 + g.rng.IntN(4000))})
		}
		rec("response_item", obj{"type": "message", "role": "assistant", "content": []obj{{"type": "output_text", "text": g.text(300 + g.rng.IntN(800))}}})
		rec("event_msg", obj{"type": "token_count", "info": obj{"total_token_usage": obj{"input_tokens": 1000 * turn, "output_tokens": 100 * turn, "total_tokens": 1100 * turn}}})
		if turn%200 == 199 {
			rec("compacted", obj{"message": g.text(2000)})
		}
	}
}

func (g *gen) claude(n int, limit int64) {
	sid := g.uuid()
	parent := any(nil)
	msg := 0
	entry := func(typ string, message obj, extra obj) {
		id := g.uuid()
		e := obj{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/work/project", "sessionId": sid,
			"version": "2.0.75", "gitBranch": "main", "type": typ, "message": message, "uuid": id, "timestamp": g.ts()}
		for k, v := range extra {
			e[k] = v
		}
		g.line(e)
		parent = id
	}
	for g.lines < n && g.bytes < limit {
		entry("user", obj{"role": "user", "content": g.text(100 + g.rng.IntN(300))}, nil)
		for c := 0; c < 1+g.rng.IntN(3) && g.lines < n-3; c++ {
			msg++
			mid := fmt.Sprintf("msg_%024d", msg)
			model := obj{"id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": nil,
				"usage": obj{"input_tokens": 10, "output_tokens": 5}}
			// One reply, several lines sharing message.id: text, then the tool use.
			m1 := copyObj(model)
			m1["content"] = []obj{{"type": "text", "text": g.text(100 + g.rng.IntN(300))}}
			entry("assistant", m1, obj{"requestId": "req_" + mid})
			tid := "toolu_" + g.uuid()
			m2 := copyObj(model)
			m2["content"] = []obj{{"type": "tool_use", "id": tid, "name": "Bash", "input": obj{"command": g.text(40)}}}
			entry("assistant", m2, obj{"requestId": "req_" + mid})
			entry("user", obj{"role": "user", "content": []obj{{"type": "tool_result", "tool_use_id": tid, "content": g.text(200 + g.rng.IntN(1200))}}}, nil)
		}
		if g.lines < n {
			msg++
			entry("assistant", obj{"id": fmt.Sprintf("msg_%024d", msg), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
				"content": []obj{{"type": "text", "text": g.text(200 + g.rng.IntN(600))}}, "stop_reason": "end_turn"}, nil)
		}
	}
}

// hex8 is a pi entry id: 8 hexadecimal digits, drawn again when taken
// (as pi's generateId does).
func (g *gen) hex8(used map[uint32]bool) string {
	for {
		if x := g.rng.Uint32(); !used[x] {
			used[x] = true
			return fmt.Sprintf("%08x", x)
		}
	}
}

func (g *gen) pi(limit int64) {
	g.line(obj{"type": "session", "version": 3, "id": g.uuid(), "timestamp": g.ts(), "cwd": "/work/project"})
	parent := any(nil)
	used := map[uint32]bool{}
	entry := func(e obj) string {
		id := g.hex8(used)
		e["id"], e["parentId"], e["timestamp"] = id, parent, g.ts()
		g.line(e)
		parent = id
		return id
	}
	entry(obj{"type": "model_change", "provider": "anthropic", "modelId": "claude-sonnet-4-5"})
	entry(obj{"type": "thinking_level_change", "thinkingLevel": "off"})
	usage := obj{"input": 1200, "output": 80, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1280,
		"cost": obj{"input": 0.0036, "output": 0.0012, "cacheRead": 0, "cacheWrite": 0, "total": 0.0048}}
	assistant := func(content []obj, stop string) {
		entry(obj{"type": "message", "message": obj{"role": "assistant", "content": content, "api": "anthropic-messages",
			"provider": "anthropic", "model": "claude-sonnet-4-5", "usage": usage, "stopReason": stop, "timestamp": g.t.UnixMilli()}})
	}
	for turn := 0; g.bytes < limit; turn++ {
		entry(obj{"type": "message", "message": obj{"role": "user", "content": []obj{{"type": "text", "text": g.text(100 + g.rng.IntN(300))}}, "timestamp": g.t.UnixMilli()}})
		for c := 0; c < 1+g.rng.IntN(3); c++ {
			id := "toolu_" + strconv.Itoa(turn) + "_" + strconv.Itoa(c)
			assistant([]obj{{"type": "text", "text": g.text(50 + g.rng.IntN(200))},
				{"type": "toolCall", "id": id, "name": "bash", "arguments": obj{"command": g.text(40)}}}, "toolUse")
			entry(obj{"type": "message", "message": obj{"role": "toolResult", "toolCallId": id, "toolName": "bash",
				"content": []obj{{"type": "text", "text": g.text(200 + g.rng.IntN(1200))}}, "isError": g.rng.IntN(10) == 0, "timestamp": g.t.UnixMilli()}})
		}
		assistant([]obj{{"type": "text", "text": g.text(200 + g.rng.IntN(600))}}, "stop")
		if turn%200 == 199 {
			kept := parent
			entry(obj{"type": "compaction", "summary": g.text(2000), "firstKeptEntryId": kept, "tokensBefore": 150000})
		}
	}
}

func (g *gen) harness(limit int64) {
	rec := func(typ string, payload obj) { g.line(obj{"timestamp": g.ts(), "type": typ, "payload": payload}) }
	sid := g.uuid()
	policy := obj{"approvalPolicy": "on-request", "sandboxMode": "workspace_write"}
	rec("session_meta", obj{"id": sid, "timestamp": g.t.Format(time.RFC3339), "cwd": "/work/project", "source": "api_agent_stream",
		"modelProvider": "openai-compatible", "model": "gpt-5", "baseURL": "https://example.invalid/v1", "wireApi": "openai-chat-completions", "policy": policy})
	for turn := 0; g.bytes < limit; turn++ {
		run := g.uuid()
		rec("turn_context", obj{"turnId": run, "model": "gpt-5", "wireApi": "openai-chat-completions", "approvalPolicy": "on-request", "sandboxMode": "workspace_write"})
		rec("agent_event", obj{"type": "run_started", "runId": run, "sessionId": sid, "resumed": false, "policy": policy})
		rec("response_item", obj{"type": "message", "role": "user", "content": g.text(100 + g.rng.IntN(300))})
		for c := 0; c < 1+g.rng.IntN(3); c++ {
			id := "call_" + strconv.Itoa(turn) + "_" + strconv.Itoa(c)
			args, _ := json.Marshal(obj{"command": g.text(40)})
			rec("response_item", obj{"type": "function_call", "callId": id, "name": "shell", "argumentsJson": string(args)})
			rec("agent_event", obj{"type": "tool_started", "toolCallId": id, "toolName": "shell", "argumentsJson": string(args)})
			rec("response_item", obj{"type": "function_call_output", "callId": id, "toolName": "shell",
				"output": obj{"stdout": g.text(200 + g.rng.IntN(1200)), "exitCode": 0}, "isError": false})
		}
		answer := g.text(200 + g.rng.IntN(600))
		rec("response_item", obj{"type": "message", "role": "assistant", "content": answer})
		rec("agent_event", obj{"type": "run_succeeded", "result": obj{"answer": answer[:min(len(answer), 80)]}})
		if turn%200 == 199 {
			rec("response_item", obj{"type": "compaction_summary", "content": g.text(2000)})
			rec("agent_event", obj{"type": "history_compacted", "removedItems": 800})
		}
	}
}

func copyObj(m obj) obj {
	c := make(obj, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	return c
}
