// Package hostile writes valid Trace 0.1.0 journals shaped to cost a reader
// memory rather than time: very long lines whose payload is one huge array
// of zeros, and files of very many one-event runs. The memory tests of
// packages journal and reducer and `go run ./bench/genhostile` (the figures
// in BENCHMARKS.md) use it, so no large input is ever committed.
//
// The package depends on nothing but the standard library.
package hostile

import (
	"bufio"
	"fmt"
	"io"
)

// envelope is the reference layout around a payload; %d is the sequence,
// %s the event type, the run id and the payload in that order.
const envelope = `{"trace_version":"0.1.0","event_id":"evt-%03d","session_id":"session-hostile","sequence":%d,"timestamp":"2026-08-10T00:00:00Z","type":"%s","actor":{"kind":"tool","id":"echo"},"payload":`

const tail = `,"provenance":{"agent_id":"reference-agent","snapshot_id":"reference-agent-2026-08-10-python","surface":"sdk","harness_mode":"fake","run_id":"%s"},"redaction":{"status":"clean","fields":[]}}`

// BigLines writes n events of one run, each a line of exactly lineBytes
// bytes (newline excluded; at least 512) whose payload is {"data":[0,0,…]}:
// two bytes of input per JSON value, the cheapest way to ask a tree-building
// parser for memory. typ is the event type (tool.result keeps the payload in
// the replay view).
func BigLines(w io.Writer, n, lineBytes int, typ string) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	for i := 0; i < n; i++ {
		head := fmt.Sprintf(envelope, i, i, typ)
		end := fmt.Sprintf(tail, "run-hostile")
		fill := lineBytes - len(head) - len(end) - len(`{"data":[0]}`)
		if fill < 0 || fill%2 != 0 {
			fill-- // an odd fill cannot be made of ",0" pairs: one space is legal
		}
		if fill < 0 {
			return fmt.Errorf("hostile: line of %d bytes is too short", lineBytes)
		}
		bw.WriteString(head)
		bw.WriteString(`{"data":[0`)
		for j := 0; j < fill/2; j++ {
			bw.WriteString(",0")
		}
		if fill%2 != 0 {
			bw.WriteByte(' ')
		}
		bw.WriteString("]}")
		bw.WriteString(end)
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Runs writes n one-event runs of one session, each with its own run id
// (run-0, run-1, …), in the reference layout: a file that is valid for
// `tracecheck validate`, which checks it run by run.
func Runs(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	for i := 0; i < n; i++ {
		fmt.Fprintf(bw, envelope, 0, 0, "session.start")
		bw.WriteString(`{}`)
		fmt.Fprintf(bw, tail, fmt.Sprintf("run-%d", i))
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	return bw.Flush()
}
