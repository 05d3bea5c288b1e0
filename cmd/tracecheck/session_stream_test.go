package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/bench/sessiongen"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
	"github.com/tracecheck/tracecheck/reducer"
)

// The history 'session resume' prints is read back from the session file
// a message at a time (writeResumed, appendMessage); these oracles are how
// it was printed from the whole history in memory, and the bytes must not
// change.

// oracleResumedValue is the whole object as one tree (the members around
// the history are resumedMembers').
func oracleResumedValue(r *reducer.Resumed) jsonv.Value {
	hist := make([]jsonv.Value, len(r.History))
	for i, m := range r.History {
		v := m.Wire()
		if len(m.ToolCalls) > 0 {
			calls := make([]jsonv.Value, len(m.ToolCalls))
			for k, c := range m.ToolCalls {
				calls[k] = c.Value()
			}
			v = v.With("tool_calls", jsonv.Arr(calls...))
		}
		hist[i] = v
	}
	head, torn := resumedMembers(r)
	return jsonv.Obj(append(head, jsonv.M("history", jsonv.Arr(hist...)), jsonv.M("repaired_torn_tail", torn))...)
}

func oracleDescribeMessage(m reducer.Message) string {
	var b strings.Builder
	b.WriteString(q(m.Role))
	if m.Name != "" || m.ToolCallID != "" {
		fmt.Fprintf(&b, " %s %s", q(m.Name), q(m.ToolCallID))
	}
	fmt.Fprintf(&b, ": %q", m.Content)
	for _, c := range m.ToolCalls {
		fmt.Fprintf(&b, " [call %s %s %s]", q(c.ID), q(c.Name), jsonText(c.ArgumentsValue().AppendJSON(nil)))
	}
	return b.String()
}

// textEvents writes a session of hand-written lines: every kind of
// message, strings with escapes, non-ASCII, control and bidirectional
// characters, arguments with nested objects, floats and members out of
// key order, a streamed response whose call a tool.request adds, and an
// unanswered call.
func textEvents() string {
	payloads := []struct{ typ, payload string }{
		{"session.start", `{"max_turns":8,"tool_count":2,"note":"caf\u00e9 \"q\""}`},
		{"user.message", `{"content":"Fix the tests \u2014 all of them.\n\tThen report; \u202eevil\u202c and \u0007bell"}`},
		{"model.request", `{"message_count":1,"roles":["user"]}`},
		{"model.response", `{"content":"Running them.","tool_calls":[{"id":"call-1","name":"bash","arguments":{"z":1.50,"a":[1e3,-0,{"k":"\u00e9"}],"cmd":"go test ./...  \u202e"}}]}`},
		{"tool.request", `{"tool_call_id":"call-1","tool":"bash","arguments":{"z":1.50,"a":[1e3,-0,{"k":"\u00e9"}],"cmd":"go test ./...  \u202e"}}`},
		{"tool.result", `{"tool_call_id":"call-1","tool":"bash","ok":true,"result":{"stdout":"ok\t3 passed\n","exit":0,"ratio":2.5e-1,"nested":{"b":[true,null],"a":"x"}}}`},
		{"model.request", `{"message_count":3}`},
		{"model.response", `{"delta":"Do","accumulated":"Do","final":false}`},
		{"model.response", `{"delta":"ne.","accumulated":"Done.","final":true,"tool_calls":[]}`},
		{"tool.request", `{"tool_call_id":"call-2","tool":"read","arguments":{"path":"a b/\u00e9.go"}}`},
		{"tool.result", `{"tool_call_id":"call-2","tool":"read","ok":false,"error":"no such file: \"a b\"","error_type":"FileNotFoundError"}`},
		{"tool.request", `{"tool_call_id":"call-3","tool":"bash"}`},
	}
	var b strings.Builder
	for i, p := range payloads {
		parent := ""
		if i > 0 {
			parent = fmt.Sprintf(`,"parent_event_id":"evt-%03d"`, i-1)
		}
		fmt.Fprintf(&b, `{"trace_version":"0.1.0","event_id":"evt-%03d","session_id":"session-s03-tool-dispatch","sequence":%d,"timestamp":"2026-08-12T00:00:00Z","type":%q,"actor":{"kind":"harness","id":"x"},"payload":%s,"provenance":{"agent_id":"reference-agent","snapshot_id":"s","surface":"sdk","harness_mode":"fake","run_id":"run-1"},"redaction":{"status":"clean","fields":[]}%s}`+"\n",
			i, i, p.typ, p.payload, parent)
	}
	return b.String()
}

func TestSessionResumeOutputUnchanged(t *testing.T) {
	var gen bytes.Buffer
	genOpts := sessiongen.Options{Session: "session-s03-tool-dispatch", Events: 300, Open: true}
	if _, _, err := sessiongen.Write(&gen, genOpts); err != nil {
		t.Fatal(err)
	}
	fixture := strings.Join(fixtureLines(t), "") + "\n"
	for _, tc := range []struct {
		name string
		data string
		cfg  reducer.HistoryConfig
	}{
		{"interrupted mid tool call", fixture, reducer.HistoryConfig{}},
		{"torn tail repaired", fixture + `{"trace_version":"0.1.0","ev`, reducer.HistoryConfig{}},
		{"escapes, streams and calls", textEvents(), reducer.HistoryConfig{}},
		{"compacted turns", gen.String(), genOpts.Config()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resume := func(stream bool) (*reducer.Resumed, []byte, string) {
				dir := t.TempDir()
				path := sessionFile(t, dir)
				if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
					t.Fatal(err)
				}
				st, err := store.Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				res, err := reducer.Resume(st, "session-s03-tool-dispatch", reducer.ResumeOptions{RunID: "run-2", Message: "And now? \u00e9\n",
					History: tc.cfg, Repair: true, StreamHistory: stream,
					Timestamp: func(int64) string { return "2026-08-13T00:00:00Z" }})
				if err != nil {
					t.Fatal(err)
				}
				after, _ := os.ReadFile(path)
				return res, after, dir
			}
			want, wantFile, wantDir := resume(false)
			got, gotFile, gotDir := resume(true)
			defer got.Transcript.Close()
			if !bytes.Equal(gotFile, wantFile) {
				t.Fatal("the two resumes appended different events")
			}
			var js bytes.Buffer
			if err := writeResumed(&js, got); err != nil {
				t.Fatal(err)
			}
			// The two stores are two directories: a repair's side file names its own.
			wantJSON := strings.ReplaceAll(string(oracleResumedValue(want).AppendJSON(nil)), wantDir, gotDir) + "\n"
			if js.String() != wantJSON {
				t.Errorf("--format json:\n got %s\nwant %s", js.String(), wantJSON)
			}
			n := 0
			err := got.Transcript.Each(func(i int, m reducer.Message) error {
				if g, w := string(appendMessage(nil, m)), oracleDescribeMessage(want.History[i]); g != w {
					t.Errorf("message %d:\n got %s\nwant %s", i+1, g, w)
				}
				n++
				return nil
			})
			if err != nil || n != len(want.History) || got.Transcript.Len() != n {
				t.Fatalf("%d messages of %d (%d): %v", n, len(want.History), got.Transcript.Len(), err)
			}
		})
	}
}
