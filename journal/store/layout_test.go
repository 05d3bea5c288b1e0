package store_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
)

// Whatever layout an event arrives in, the store writes jsonv's AppendJSON
// of its parse (the golden layout); a line already in that layout is
// written as received.
func TestStoredLayout(t *testing.T) {
	ev := twoRuns("s")[0]
	base := string(line(ev))
	payload := `{"max_turns":8,"tool_count":1}`
	if !strings.Contains(base, payload) {
		t.Fatalf("base line %s", base)
	}
	withPayload := func(p string) string { return strings.Replace(base, payload, p, 1) }
	tests := []struct {
		name, line string
	}{
		{"golden", base},
		{"payload escapes", withPayload(`{"t":"a\nb\"c\\d\u0001é😀"}`)},
		{"payload non-golden escapes", withPayload(`{"t":"\u00e9\/\u000a\ud83d\ude00"}`)},
		{"payload whitespace", withPayload(`{ "t" : [1, 2] }`)},
		{"payload numbers", withPayload(`{"a":-0,"b":1.50,"c":1e5,"d":-0.0,"e":12345678901234567890}`)},
		{"payload golden numbers", withPayload(`{"a":0,"b":1.5,"c":100000.0,"d":-0.0,"e":1e+16}`)},
		{"envelope whitespace", strings.Replace(base, `"sequence":0,`, `"sequence" : 0 ,`, 1)},
		{"envelope escape", strings.Replace(base, `"session.start"`, `"session\u002estart"`, 1)},
		{"float sequence", strings.Replace(base, `"sequence":0,`, `"sequence":0.0,`, 1)},
		{"member order", strings.Replace(strings.Replace(base, `"trace_version":"0.1.0",`, ``, 1), `}}`, `},"trace_version":"0.1.0"}`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := jsonv.Parse([]byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			want := append(v.AppendJSON(nil), '\n')
			st, _ := openStore(t)
			w := openWriter(t, st, "s", store.WriterOptions{Create: true})
			if _, err := w.Append([]byte(tt.line)); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, w.Path()); !bytes.Equal(got, want) {
				t.Fatalf("stored %s\nwant   %s", got, want)
			}
			// A retry in the received layout is the same event.
			if ack, err := w.Append([]byte(tt.line)); err != nil || !ack.Duplicate {
				t.Fatalf("retry: %+v, %v", ack, err)
			}
		})
	}
}

// Event IDs that are not evt-%03d of a position (other names, far numbers,
// padded numbers) are indexed too: duplicates, conflicts and parents work
// the same, before and after reopening.
func TestOtherEventIDs(t *testing.T) {
	ids := []string{"evt-000", "a-1", "evt-99999999999", "evt-0005", "evt-1", "evt-001"}
	n := 0
	r := newRun("s", "run-1", &n)
	var evs []journal.Event
	for i, id := range ids {
		e := r.next("user.message", user("m"))
		e.EventID = id
		if i > 0 {
			e.ParentEventID = ids[i-1]
		}
		r.last = id
		evs = append(evs, e)
	}
	st, _ := openStore(t)
	w := openWriter(t, st, "s", store.WriterOptions{Create: true})
	if _, err := w.AppendEvents(evs); err != nil {
		t.Fatal(err)
	}
	for reopen := range 2 {
		if reopen == 1 {
			w.Close()
			w = openWriter(t, st, "s", store.WriterOptions{})
		}
		for i := range evs {
			ack, err := w.AppendEvent(&evs[i])
			if err != nil || !ack.Duplicate || ack.Line != i+1 || ack.EventID != ids[i] {
				t.Fatalf("retry of %s: %+v, %v", ids[i], ack, err)
			}
			if !w.HasEventID(ids[i]) {
				t.Fatalf("HasEventID(%s) false", ids[i])
			}
			c := evs[i]
			c.Payload = user("changed")
			if _, err := w.AppendEvent(&c); !errors.Is(err, store.ErrConflict) {
				t.Fatalf("conflict on %s: %v", ids[i], err)
			}
		}
		for _, id := range []string{"evt-002", "a-2", "evt-01", "evt-005"} {
			if w.HasEventID(id) {
				t.Fatalf("HasEventID(%s) true", id)
			}
		}
	}
}
