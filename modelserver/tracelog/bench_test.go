package tracelog

import (
	"io"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

func benchEntries() []Entry {
	es := []Entry{{Type: "model.request", Actor: journal.Actor{Kind: "harness", ID: "load"}, AppendPayload: func(b []byte) []byte {
		return append(b, `{"turn":1,"message_count":1,"roles":["user"],"tools":["lookup"],"messages":[{"role":"user","sha256":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","bytes":11}]}`...)
	}}}
	for i := 0; i < 5; i++ {
		es = append(es, Entry{Type: "model.response", Actor: journal.Actor{Kind: "model", ID: "fake-model"}, Payload: jsonv.Obj(jsonv.M("turn", jsonv.Int(1)), jsonv.M("delta", jsonv.Str("Observe ")), jsonv.M("index", jsonv.Int(int64(i))))})
	}
	return es
}

func BenchmarkAppendExchange(b *testing.B) {
	m := "fake-model"
	l := New(io.Discard, "session-load", journal.Provenance{AgentID: "load", SnapshotID: "load", Surface: "model-http", HarnessMode: "fake", RunID: "run-load", Model: &m})
	es := benchEntries()
	b.ReportAllocs()
	for b.Loop() {
		l.Append(es...)
	}
}

func BenchmarkWriteExchange(b *testing.B) {
	m := "fake-model"
	l := New(io.Discard, "session-load", journal.Provenance{AgentID: "load", SnapshotID: "load", Surface: "model-http", HarnessMode: "fake", RunID: "run-load", Model: &m})
	es := benchEntries()
	b.ReportAllocs()
	for b.Loop() {
		l.Write(es...)
	}
}
