package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/store"
)

// TestRetriesOfOldEvents: a writer keeps the offsets of its last lines and
// of every 64th line before them, and finds the others by reading from
// the mark before; a retry of any event it read or wrote, however old,
// is still acknowledged as a duplicate at its own line and offset, and a
// conflicting one still names its line. Checked on a session of 5,000
// events written in batches of 1,500 (the batch being built slides the
// window too), in the writer that wrote them and in one that read them,
// and inside a batch that retries its own earlier lines.
func TestRetriesOfOldEvents(t *testing.T) {
	st, _ := openStore(t)
	id := "session-offsets"
	n := 0
	r := newRun(id, "run-1", &n)
	evs := []journal.Event{r.next("session.start", start())}
	for len(evs) < 5000 {
		evs = append(evs, r.next("user.message", user(fmt.Sprintf("message %d %s", len(evs), string(make([]byte, len(evs)%7))))))
	}
	w := openWriter(t, st, id, store.WriterOptions{Create: true, NoCheckpoint: true})
	var acks []store.Ack
	for i := 0; i < len(evs); i += 1500 {
		batch := lines(evs[i:min(i+1500, len(evs))])
		// The batch's first line again at its end: a retry of a line not
		// yet written, whose offset may have left the window already.
		batch = append(batch, batch[0])
		a, err := w.AppendBatch(batch)
		if err != nil {
			t.Fatal(err)
		}
		if last, first := a[len(a)-1], a[0]; !last.Duplicate || last.Line != first.Line || last.Offset != first.Offset {
			t.Fatalf("retry inside the batch: %+v, first %+v", last, first)
		}
		acks = append(acks, a[:len(a)-1]...)
	}
	check := func(w *store.Writer) {
		t.Helper()
		for _, i := range []int{0, 1, 63, 64, 65, 100, 127, 128, 1000, 2047, 2048, 2999, 3905, 3906, 4999} {
			a, err := w.Append(line(evs[i]))
			if err != nil || !a.Duplicate || a.Line != acks[i].Line || a.Offset != acks[i].Offset {
				t.Fatalf("retry of event %d: %+v %v, stored as %+v", i, a, err, acks[i])
			}
			changed := evs[i]
			changed.Timestamp = "2030-01-01T00:00:00Z"
			_, err = w.Append(line(changed))
			if !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), fmt.Sprintf("already stored at line %d ", acks[i].Line)) {
				t.Fatalf("conflict with event %d: %v", i, err)
			}
		}
		if got := w.Position().Events; got != len(evs) {
			t.Fatalf("%d events after retries, want %d", got, len(evs))
		}
	}
	check(w) // the writer that wrote them
	w.Close()
	w = openWriter(t, st, id, store.WriterOptions{NoCheckpoint: true})
	check(w) // one that read them
	w.Close()
}
