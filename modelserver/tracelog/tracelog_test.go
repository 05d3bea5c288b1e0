package tracelog

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	_ "github.com/sebdah/goldie/v2" // registers -update so `go test ./... -update` runs here too

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/scenarios"
)

// countingWriter counts Write calls and can fail.
type countingWriter struct {
	bytes.Buffer
	writes int
	fail   bool
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.fail {
		return 0, errors.New("disk full")
	}
	return w.Buffer.Write(p)
}

func entry(typ string) Entry {
	return Entry{Type: typ, Actor: journal.Actor{Kind: "harness", ID: "a"}, Payload: jsonv.Obj(jsonv.M("turn", jsonv.Int(1)))}
}

var prov = journal.Provenance{AgentID: "a", SnapshotID: "s", Surface: "model-http", HarnessMode: "fake", RunID: "run-1"}

// TestAppendOneWritePerExchange: an exchange is one write; the events form
// a valid journal; Continue goes on with the run.
func TestAppendOneWritePerExchange(t *testing.T) {
	w := &countingWriter{}
	l := New(w, "session-1", prov)
	l.Append(entry("model.request"), entry("model.response"), entry("model.response"))
	l.Append(entry("model.request"), entry("error"))
	if w.writes != 2 {
		t.Errorf("%d writes for 2 exchanges", w.writes)
	}
	j, err := journal.Read(bytes.NewReader(w.Bytes()), "trace")
	if err != nil {
		t.Fatal(err)
	}
	evs := j.Events()
	last := evs[len(evs)-1]
	if last.EventID != "evt-004" || last.Timestamp != "2026-08-10T00:00:04Z" || last.ParentEventID != "evt-003" {
		t.Errorf("last event %+v", last)
	}
	w2 := &countingWriter{}
	more, _ := Continue(w2, last).Append(entry("model.request"))
	if more[0].Sequence != 5 || more[0].EventID != "evt-005" || more[0].ParentEventID != "evt-004" || more[0].SessionID != "session-1" {
		t.Errorf("continued event %+v", more[0])
	}
	if _, err := journal.Read(bytes.NewReader(append(w.Bytes(), w2.Bytes()...)), "trace"); err != nil {
		t.Errorf("the continued journal: %v", err)
	}
}

// TestWriteErrorIsSticky: after a failed write nothing more is written.
func TestWriteErrorIsSticky(t *testing.T) {
	w := &countingWriter{fail: true}
	l := New(w, "session-1", prov)
	if _, err := l.Append(entry("model.request")); err == nil {
		t.Fatal("no error from a failing writer")
	}
	w.fail = false
	if _, err := l.Append(entry("model.request")); err == nil || w.writes != 1 || w.Len() != 0 {
		t.Errorf("after a failure: err %v, %d writes, %d bytes", err, w.writes, w.Len())
	}
	if l.Err() == nil {
		t.Error("Err() is nil")
	}
}

// TestRawPayloadIsThePayloadsBytes: an entry with AppendPayload writes the same line
// as the entry with that payload as a Value, whatever the strings around
// it hold.
func TestRawPayloadIsThePayloadsBytes(t *testing.T) {
	payload := jsonv.Obj(jsonv.M("turn", jsonv.Int(2)), jsonv.M("text", jsonv.Str(`a "quoted" ,"payload":{},"provenance": é`)))
	tricky := journal.Actor{Kind: "harness", ID: `x","payload":{},"provenance":`}
	var tree, raw bytes.Buffer
	New(&tree, `s,"payload":{},"provenance":`, prov).Append(Entry{Type: "model.request", Actor: tricky, Payload: payload}, entry("model.response"))
	New(&raw, `s,"payload":{},"provenance":`, prov).Append(Entry{Type: "model.request", Actor: tricky, AppendPayload: payload.AppendJSON}, entry("model.response"))
	if tree.String() != raw.String() {
		t.Errorf("raw payload:\n%s\nwant\n%s", raw.String(), tree.String())
	}
}

// Write writes each line straight; it must write what Append writes, for
// New and Continue logs (runs crossing a day of the clock and the second
// where its time.Duration wraps), payloads as Values, as text or absent, more
// types and actors than Write keeps written, actors with and without a
// parent, strings that need escapes.
func TestWriteMatchesAppend(t *testing.T) {
	model := "m \"q\" é"
	prov := journal.Provenance{AgentID: "a\n", SnapshotID: "s", Surface: "openai-chat", HarnessMode: "fake", RunID: "run-1", Model: &model}
	r := rand.New(rand.NewPCG(25, 4))
	entry := func() Entry {
		e := Entry{Type: []string{"model.request", "model.response", "error"}[r.IntN(3)], Actor: journal.Actor{Kind: "model", ID: []string{"m\t1", "m2"}[r.IntN(2)]}}
		if r.IntN(3) == 0 {
			e.Actor.ParentID = "p"
		}
		switch r.IntN(3) {
		case 0:
			e.Payload = jsonv.Obj(jsonv.M("turn", jsonv.Int(r.Int64N(9))), jsonv.M("text", jsonv.Str("é \"x\"\n")))
		case 1:
			e.AppendPayload = func(b []byte) []byte { return append(b, `{"turn":1,"messages":[]}`...) }
		}
		return e
	}
	last := journal.Event{SessionID: "sess \"2\"", Sequence: 41, EventID: "evt-041", Provenance: prov}
	lastOther := journal.Event{SessionID: "s", Sequence: 6, EventID: "an id", Provenance: prov}
	// Runs that cross a day of the clock, the second past which Write
	// computes stamps as Stamp does, and the one past which the clock's
	// time.Duration wraps.
	dayEnd := journal.Event{SessionID: "s", Sequence: 86400 - 200, EventID: "evt-086200", Provenance: prov}
	slow := journal.Event{SessionID: "s", Sequence: 1<<33 - 300, EventID: "evt-x", Provenance: prov}
	wrap := journal.Event{SessionID: "s", Sequence: math.MaxInt64/int64(time.Second) - 300, EventID: "evt-y", Provenance: prov}
	for _, mk := range []func(w io.Writer) *Log{
		func(w io.Writer) *Log { return New(w, "session-1", prov) },
		func(w io.Writer) *Log { return Continue(w, last) },
		func(w io.Writer) *Log { return Continue(w, lastOther) },
		func(w io.Writer) *Log { return Continue(w, dayEnd) },
		func(w io.Writer) *Log { return Continue(w, slow) },
		func(w io.Writer) *Log { return Continue(w, wrap) },
	} {
		var a, b bytes.Buffer
		la, lb := mk(&a), mk(&b)
		for n := 0; n < 300; n++ {
			es := make([]Entry, 1+r.IntN(4))
			for i := range es {
				es[i] = entry()
			}
			if _, err := la.Append(es...); err != nil {
				t.Fatal(err)
			}
			if err := lb.Write(es...); err != nil {
				t.Fatal(err)
			}
			if n%7 == 3 { // the two may be mixed
				es := []Entry{entry()}
				la.Append(es...)
				lb.Append(es...)
			}
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			al, bl := bytes.Split(a.Bytes(), []byte("\n")), bytes.Split(b.Bytes(), []byte("\n"))
			for i := range min(len(al), len(bl)) {
				if !bytes.Equal(al[i], bl[i]) {
					t.Fatalf("line %d:\nWrite:  %s\nAppend: %s", i+1, bl[i], al[i])
				}
			}
			t.Fatalf("Write wrote %d lines, Append %d", len(bl), len(al))
		}
	}
}

// TestAppendStampIsStamp: the hand-written timestamp is the layout's, at
// the clock start, across minute, hour, day, month and year boundaries and
// far out.
func TestAppendStampIsStamp(t *testing.T) {
	for _, n := range []int64{0, 1, 59, 60, 3599, 3600, 86399, 86400, 31 * 86400, 143 * 86400, 365 * 86400, 1 << 31, 250 * 365 * 86400, -1, -86400} {
		if got, want := string(appendStamp(nil, n)), scenarios.Stamp(n); got != want {
			t.Errorf("appendStamp(%d) = %s, want %s", n, got, want)
		}
	}
}
