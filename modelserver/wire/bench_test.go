package wire

import (
	"fmt"
	"strings"
	"testing"
)

// agentBody is an Anthropic request shaped like a coding agent's after n
// tool round trips: a prompt of 60 words, a tool_use with an object input
// and a tool_result of 80 escaped lines each, and 20 tools.
func agentBody(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"model":"m","max_tokens":100,"system":[{"type":"text","text":"You are a coding agent."}],"messages":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"user","content":[{"type":"text","text":"%s"}]},{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"c%d","name":"bash","input":{"cmd":"ls -la %d","timeout":1.5}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c%d","content":"%s"}]}`,
			strings.Repeat("word ", 60), i, i, i, strings.Repeat(`line\n`, 80))
	}
	b.WriteString(`,{"role":"user","content":"go on"}],"tools":[`)
	for i := range 20 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool%d","description":"d","input_schema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}}`, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkDecode decodes agent requests of 13 KB and 315 KB (BENCHMARKS.md,
// "The scripted model server under hostile clients").
func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{10, 300} {
		body := agentBody(n)
		b.Run(fmt.Sprintf("%dKB", len(body)>>10), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, e := Decode(AnthropicMessages, body); e != nil {
					b.Fatal(e)
				}
			}
		})
	}
}

// BenchmarkDecodeSmall decodes bench/modelload's request: a Chat
// Completions request of one message and one tool, where what costs is
// the walk, not the bytes.
func BenchmarkDecodeSmall(b *testing.B) {
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"Look it up."}],"tools":[{"type":"function","function":{"name":"lookup"}}],"stream":false}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, e := Decode(OpenAIChat, body); e != nil {
			b.Fatal(e)
		}
	}
}
