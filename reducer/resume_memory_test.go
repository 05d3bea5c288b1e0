package reducer_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/bench/sessiongen"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/store"
	"github.com/tracecheck/tracecheck/reducer"
)

// A session whose events are built from text, so that a test can make one
// line of megabytes without a tree of it.
type textSession struct {
	b   strings.Builder
	seq int
}

func (s *textSession) event(typ, actor, payload string) {
	parent := ""
	if s.seq > 0 {
		parent = fmt.Sprintf(`,"parent_event_id":"evt-%03d"`, s.seq-1)
	}
	fmt.Fprintf(&s.b, `{"trace_version":"0.1.0","event_id":"evt-%03d","session_id":"session-mem","sequence":%d,"timestamp":"2026-08-12T00:00:00Z","type":%q,"actor":{"kind":%q,"id":"x"},"payload":%s,"provenance":{"agent_id":"reference-agent","snapshot_id":"s","surface":"sdk","harness_mode":"fake","run_id":"run-1"},"redaction":{"status":"clean","fields":[]}%s}`+"\n",
		s.seq, s.seq, typ, actor, payload, parent)
	s.seq++
}

// zeros is a JSON array of n/2 zeros: n bytes of text, a value per two.
func zeros(n int) string { return "[0" + strings.Repeat(",0", n/2-1) + "]" }

// printHistory reads a resume's history as 'session resume' prints it: a
// message at a time, its content quoted and its calls' arguments as text;
// probe is called after each message.
func printHistory(tb testing.TB, res *reducer.Resumed, probe func()) {
	tb.Helper()
	var line []byte
	err := res.Transcript.Each(func(i int, m reducer.Message) error {
		line = fmt.Appendf(line[:0], "%3d %s: ", i+1, m.Role)
		line = strconv.AppendQuote(line, m.Content)
		for _, c := range m.ToolCalls {
			line = append(c.AppendArguments(append(line, " [call "+c.ID+" "...)), ']')
		}
		probe()
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// heapMeter bounds the heap a step needs at its peak from above, whatever
// the collector does: at each probe (after every event a rebuild reads,
// every message printed, and the step's end) the heap since the previous
// probe was at most what was live then plus everything allocated since.
// It then collects, and measures what is live.
type heapMeter struct {
	base, live, total, peak uint64
}

func (m *heapMeter) start() {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	*m = heapMeter{base: ms.HeapAlloc, live: ms.HeapAlloc, total: ms.TotalAlloc}
}

func (m *heapMeter) probe() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.peak = max(m.peak, m.live+ms.TotalAlloc-m.total)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	m.live, m.total = ms.HeapAlloc, ms.TotalAlloc
}

// stop returns the peak and the heap still live, above the start's.
func (m *heapMeter) stop() (peak, retained uint64) {
	m.probe()
	peak = m.peak - min(m.peak, m.base)
	retained = m.live - min(m.live, m.base)
	return peak, retained
}

// TestResumeMemoryBoundedByLongestLine: resuming (and printing the
// history of) a session with one long line, whatever the history needs
// from it, allocates at most journal.MemoryPerLineByte bytes per byte of
// that line, plus the slack: no tree of a payload is built. The cases are
// issue 8's line (a tool result of millions of zeros, of which the history
// keeps a short error text), a user message of that length (the history
// keeps it all), a successful tool result of zeros (its content is their
// canonical text) and tool call arguments of zeros, left unanswered (the
// resume repairs the call; the history prints them). Opening the session
// for an append and writing its checkpoint stay within the same bound.
func TestResumeMemoryBoundedByLongestLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 8 MiB lines")
	}
	const L = 8 << 20
	for _, tc := range []struct {
		name string
		add  func(s *textSession)
	}{
		{"tool result of zeros", func(s *textSession) {
			s.event("tool.result", "tool", `{"data":`+zeros(L)+`}`)
		}},
		{"user message", func(s *textSession) {
			s.event("user.message", "user", `{"content":"`+strings.Repeat("a", L)+`"}`)
		}},
		{"successful tool result", func(s *textSession) {
			s.event("user.message", "user", `{"content":"go"}`)
			s.event("model.response", "model", `{"content":"","tool_calls":[{"id":"call-1","name":"bash","arguments":{}}]}`)
			s.event("tool.result", "tool", `{"tool_call_id":"call-1","tool":"bash","ok":true,"result":{"data":`+zeros(L)+`}}`)
		}},
		{"unanswered call's arguments", func(s *textSession) {
			s.event("user.message", "user", `{"content":"go"}`)
			s.event("model.response", "model", `{"content":"","tool_calls":[{"id":"call-1","name":"bash","arguments":{"data":`+zeros(L)+`}}]}`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s textSession
			s.event("session.start", "harness", `{"max_turns":8}`)
			tc.add(&s)
			data := []byte(s.b.String())
			st, _ := storeWith(t, "session-mem", data)
			s = textSession{}
			limit := uint64(journal.MemoryPerLineByte*L + memorySlack)
			var meter heapMeter
			defer reducer.SetRebuildProbe(meter.probe)()
			for _, step := range []struct {
				name string
				run  func() error
			}{
				{"open for an append", func() error {
					w, err := st.OpenWriter("session-mem", store.WriterOptions{NoCheckpoint: true})
					if err == nil {
						err = w.Close()
					}
					return err
				}},
				{"checkpoint", func() error {
					w, err := st.OpenWriter("session-mem", store.WriterOptions{CheckpointMinEvents: -1})
					if err != nil {
						return err
					}
					defer w.Close()
					_, _, err = reducer.CheckpointSession(w, reducer.HistoryConfig{})
					return err
				}},
				{"resume and print", func() error {
					res, err := reducer.Resume(st, "session-mem", reducer.ResumeOptions{RunID: "run-2", Message: "hi", Timestamp: fixedClock, StreamHistory: true})
					if err != nil {
						return err
					}
					defer res.Transcript.Close()
					printHistory(t, res, meter.probe)
					return nil
				}},
			} {
				meter.start()
				err := step.run()
				peak, retained := meter.stop()
				if err != nil {
					t.Fatalf("%s: %v", step.name, err)
				}
				t.Logf("%s: heap at most %.1f bytes per line byte, %d bytes retained", step.name, float64(peak)/L, retained)
				if peak > limit || retained > memorySlack {
					t.Errorf("%s: heap up to %d bytes (%.1f per line byte), %d still live; want at most %d and %d",
						step.name, peak, float64(peak)/L, retained, limit, memorySlack)
				}
			}
		})
	}
}

// TestResumeMemoryFlatInHistory: a session whose model-visible history is
// 40 MiB (160 uncompacted user messages of 256 KiB) resumes, prints its
// history and writes its checkpoint with a heap of at most
// journal.MemoryPerLineByte bytes per byte of its longest line plus the
// slack (which covers the 4 MiB of messages a history keeps in memory): the
// history is never held whole (beyond those 4 MiB its messages are
// references into the session file, read back one at a time). Before, a
// resume held all of it.
func TestResumeMemoryFlatInHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 40 MiB session")
	}
	const msgs, size = 160, 256 << 10
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	path, _ := st.Path("session-gen")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := sessiongen.Write(f, sessiongen.Options{Messages: msgs, MessageBytes: size}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var meter heapMeter
	defer reducer.SetRebuildProbe(meter.probe)()
	limit := uint64(journal.MemoryPerLineByte*size + memorySlack)

	meter.start()
	res, err := reducer.Resume(st, "session-gen", reducer.ResumeOptions{RunID: "run-2", Message: "hi", Timestamp: fixedClock, StreamHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = res.Transcript.Each(func(i int, m reducer.Message) error {
		n += len(m.Content)
		meter.probe()
		return nil
	})
	res.Transcript.Close()
	peak, _ := meter.stop()
	if err != nil || res.Transcript.Len() != msgs+1 || n != msgs*size+len("hi") {
		t.Fatalf("history of %d messages, %d bytes: %v", res.Transcript.Len(), n, err)
	}
	t.Logf("resume: %d bytes of history, heap at most %d bytes above the start", n, peak)
	if peak > limit {
		t.Errorf("resume: heap up to %d bytes above the start for a %d-byte history; want at most %d", peak, n, limit)
	}

	meter.start()
	w, err := st.OpenWriter("session-gen", store.WriterOptions{CheckpointMinEvents: -1})
	if err != nil {
		t.Fatal(err)
	}
	how, _, err := reducer.CheckpointSession(w, reducer.HistoryConfig{})
	w.Close()
	peak, _ = meter.stop()
	if err != nil || !how.TooLarge {
		t.Fatalf("checkpoint: %+v %v", how, err)
	}
	t.Logf("checkpoint: heap at most %d bytes above the start", peak)
	if peak > limit {
		t.Errorf("checkpoint: heap up to %d bytes above the start; want at most %d", peak, limit)
	}
}
