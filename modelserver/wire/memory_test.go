package wire

import (
	"bytes"
	"runtime"
	"testing"
)

// allocated is the bytes allocated while f ran: an upper bound on the
// heap f needed at its peak, whatever the collector did.
func allocated(f func()) uint64 {
	runtime.GC()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// repeat is head, then piece as many times as fits in n bytes with tail.
func repeat(n int, head, piece, tail string) []byte {
	var b bytes.Buffer
	b.Grow(n)
	b.WriteString(head)
	for b.Len()+len(piece)+len(tail) <= n {
		b.WriteString(piece)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// TestDecodeMemoryFollowsTheBody: decoding a body shaped to cost a
// tree-building parser memory (millions of tiny values: 2 bytes of input
// each, 100 bytes of tree) allocates a small multiple of the body, or is
// refused early (413) for its item count or its text. Before the body was
// read in place, a body of tiny messages decoded to about 27 times its
// size and one of zeros to about 50 times.
func TestDecodeMemoryFollowsTheBody(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 8 MiB bodies")
	}
	if raceEnabled {
		t.Skip("the race detector changes what allocates")
	}
	const n = 8 << 20
	msgs := `{"model":"m","messages":[`
	for _, tc := range []struct {
		name   string
		api    API
		body   []byte
		status int // 0: decoded
		factor float64
	}{
		{"zeros in an unread member", OpenAIChat, repeat(n, `{"model":"m","metadata":{"x":[0`, ",0", `]},"messages":[{"role":"user","content":"hi"}]}`), 0, 1.5},
		{"zeros in tool arguments", AnthropicMessages, repeat(n, `{"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"f","input":[0`, ",0",
			`]}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":"ok"}]}]}`), 0, 4},
		{"one long string", OpenAIChat, repeat(n, msgs+`{"role":"user","content":"`, "x", `"}]}`), 0, 3},
		{"tiny messages", OpenAIChat, repeat(n, msgs, `{"role":"user","content":"hello"},`, `{"role":"user","content":"end"}]}`), 413, 2},
		{"tiny Responses items", OpenAIResponses, repeat(n, `{"model":"m","input":[`, `{"role":"user","content":"hi"},`, `{"role":"user","content":"end"}]}`), 413, 2},
		{"empty parts", OpenAIChat, repeat(n, msgs+`{"role":"user","content":[{}`, ",{}", `]}]}`), 413, 2},
		{"numbers longer in Python's spelling", OpenAIChat, repeat(n, msgs+`{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":[1e15`, ",1e15",
			`]}}]},{"role":"tool","tool_call_id":"c","content":"ok"}]}`), 413, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var req *Request
			var e *Error
			got := allocated(func() { req, e = Decode(tc.api, tc.body) })
			limit := uint64(tc.factor*float64(len(tc.body))) + 4<<20
			t.Logf("%d-byte body: allocated %d bytes (%.2f per body byte)", len(tc.body), got, float64(got)/float64(len(tc.body)))
			if got > limit {
				t.Errorf("allocated %d bytes for a %d-byte body (%.1f per byte), want at most %d", got, len(tc.body), float64(got)/float64(len(tc.body)), limit)
			}
			switch {
			case tc.status == 0 && e != nil:
				t.Errorf("refused: %d %s", e.Status, e.Message)
			case tc.status != 0 && (e == nil || e.Status != tc.status):
				t.Errorf("got %v, want status %d", e, tc.status)
			case tc.status == 0 && len(req.Messages) == 0:
				t.Errorf("no messages decoded")
			}
		})
	}
}
