package reducer_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
	"github.com/tracecheck/tracecheck/reducer"
)

// bigCallSession is a session whose last turn requested one tool call with
// an ID and a name so long that the model.response line is just under the
// line limit: the synthesized result, which carries both plus the error
// text, cannot be stored.
func bigCallSession(t *testing.T) []byte {
	t.Helper()
	fixture := read(t, "../journal/store/testdata/interrupted-mid-tool-call.jsonl")
	var evs []journal.Event
	for _, l := range bytes.SplitAfter(bytes.TrimSuffix(fixture, []byte("\n")), []byte("\n"))[:2] {
		_, e, jerr := journal.DecodeLine(bytes.TrimSuffix(l, []byte("\n")))
		if jerr != nil {
			t.Fatal(jerr)
		}
		evs = append(evs, e)
	}
	resp := evs[1]
	resp.EventID, resp.ParentEventID, resp.Sequence, resp.Type = "evt-002", evs[1].EventID, 2, "model.response"
	resp.Actor = journal.Actor{Kind: "model", ID: "scripted-model-v1"}
	id := strings.Repeat("i", 8<<20)
	call := func(name string) jsonv.Value {
		return jsonv.Obj(jsonv.M("content", jsonv.Str("")), jsonv.M("tool_calls", jsonv.Arr(jsonv.Obj(
			jsonv.M("id", jsonv.Str(id)), jsonv.M("name", jsonv.Str(name)), jsonv.M("arguments", jsonv.Obj())))))
	}
	resp.Payload = call("")
	room := journal.DefaultMaxLineBytes - 16 - len(resp.Value().AppendJSON(nil))
	resp.Payload = call(strings.Repeat("n", room))
	return journal.EncodeGolden(append(evs, resp))
}

// A resume is all or nothing: when the session rejects any of its events
// (a repair result over the line limit; a timestamp past year 9999 for a
// later event), nothing is written, not even the resume marker, and
// retrying does not pile up runs. The error says nothing was written and
// wraps the store's rejection.
func TestResumeAllOrNothing(t *testing.T) {
	farClock := func(seq int64) string { // seq 0 is fine, seq 1 is year 10000
		return time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Add(time.Duration(seq) * time.Second).Format(time.RFC3339)
	}
	tests := []struct {
		name string
		data func(t *testing.T) []byte
		opts reducer.ResumeOptions
		code journal.Code
	}{
		{"a repair result over the line limit", bigCallSession, reducer.ResumeOptions{Message: "Again?", Timestamp: fixedClock}, journal.LineTooLong},
		{"a timestamp the schema refuses", func(t *testing.T) []byte { return read(t, "../journal/store/testdata/interrupted-mid-tool-call.jsonl") },
			reducer.ResumeOptions{Message: "Again?", Timestamp: farClock}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data(t)
			st, path := storeWith(t, "session-s03-tool-dispatch", data)
			for i := range 3 {
				opts := tc.opts
				if i == 2 {
					opts.RunID = "run-again" // a caller retrying under another run ID
				}
				_, err := reducer.Resume(st, "session-s03-tool-dispatch", opts)
				var re *reducer.ResumeError
				var se *store.Error
				if !errors.As(err, &re) || !errors.Is(err, store.ErrRejected) || !errors.As(err, &se) ||
					(tc.code != "" && se.Code() != tc.code) || !strings.Contains(err.Error(), "nothing was written") {
					t.Fatalf("try %d: %v", i, err)
				}
				if !bytes.Equal(read(t, path), data) {
					t.Fatalf("try %d wrote to the session", i)
				}
			}
			rep, err := st.Check("session-s03-tool-dispatch", false)
			if err != nil || len(rep.Runs) != 1 {
				t.Fatalf("check: %+v %v", rep, err)
			}
		})
	}
}

// A history larger than a checkpoint keeps is not kept (and, without a
// compactor, not rebuilt past that size): the checkpoint holds the store
// state only, and a resume rebuilds the history from the file, giving what
// a resume without any checkpoint gives.
func TestCheckpointHistoryTooLarge(t *testing.T) {
	defer reducer.SetProjectionLimit(2000)()
	data := read(t, "../journal/store/testdata/interrupted-mid-tool-call.jsonl")
	var outs []string
	for _, checkpoint := range []bool{true, false} {
		st, path := storeWith(t, "session-s03-tool-dispatch", data)
		// Grow the history past the limit: resumes, each adding a long
		// user message.
		for i := range 4 {
			_, err := reducer.Resume(st, "session-s03-tool-dispatch", reducer.ResumeOptions{
				RunID: "run-" + string(rune('a'+i)), Message: strings.Repeat("m", 900), Timestamp: fixedClock})
			if err != nil {
				t.Fatal(err)
			}
		}
		if checkpoint {
			w, err := st.OpenWriter("session-s03-tool-dispatch", store.WriterOptions{CheckpointMinEvents: -1})
			if err != nil {
				t.Fatal(err)
			}
			how, cw, err := reducer.CheckpointSession(w, reducer.HistoryConfig{})
			w.Close()
			total := bytes.Count(read(t, path), []byte("\n"))
			if err != nil || !how.TooLarge || how.Read >= total || !cw.Written || cw.Projection {
				t.Fatalf("checkpoint: %+v %+v %v (%d events)", how, cw, err, total)
			}
		}
		res, err := reducer.Resume(st, "session-s03-tool-dispatch", reducer.ResumeOptions{RunID: "run-z", Message: "Last?", Timestamp: fixedClock})
		if err != nil {
			t.Fatal(err)
		}
		if checkpoint && (res.Rebuilt.FromProjection || !res.Checkpoint.Used) {
			t.Fatalf("resume: rebuilt %+v, opened %+v", res.Rebuilt, res.Checkpoint)
		}
		outs = append(outs, wire(res.History)+string(read(t, path)))
	}
	if outs[0] != outs[1] {
		t.Fatal("the resume after a checkpoint without history differs from one without a checkpoint")
	}
}
