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
// the mark before (or, for IDs its index reads back from the file, from
// the index); a retry of any event it read or wrote, however old, is still
// acknowledged as a duplicate at its own line and offset, and a
// conflicting one still names its line. Checked for each ID style on a
// session of 5,000 events written in batches of 1,500 (the batch being
// built slides the window too), in the writer that wrote them, in one that
// read them and in one opened from the checkpoint (whose index knows the
// older IDs only by their fingerprints and reads them back from the file),
// and inside a batch that retries its own earlier lines.
func TestRetriesOfOldEvents(t *testing.T) {
	for _, style := range []string{"evt-%03d", "evt-%07d", "uuid"} {
		t.Run(strings.ReplaceAll(style, "%", ""), func(t *testing.T) { retriesOfOldEvents(t, style) })
	}
}

// restyle gives the events of the helpers' runs (IDs evt-%03d of their
// number) IDs of another style.
func restyle(evs []journal.Event, style string) {
	id := func(old string) string {
		if old == "" || style == "evt-%03d" {
			return old
		}
		var k int
		fmt.Sscanf(old, "evt-%d", &k)
		if style == "uuid" {
			return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(k)*2654435761, k%65536, k%4096, (k*7)%4096, k*1000003)
		}
		return fmt.Sprintf(style, k)
	}
	for i := range evs {
		evs[i].EventID, evs[i].ParentEventID = id(evs[i].EventID), id(evs[i].ParentEventID)
	}
}

func retriesOfOldEvents(t *testing.T, style string) {
	st, _ := openStore(t)
	id := "session-offsets"
	n := 0
	r := newRun(id, "run-1", &n)
	evs := []journal.Event{r.next("session.start", start())}
	for len(evs) < 5000 {
		evs = append(evs, r.next("user.message", user(fmt.Sprintf("message %d %s", len(evs), string(make([]byte, len(evs)%7))))))
	}
	restyle(evs, style)
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
	if _, err := w.WriteCheckpoint(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	w = openWriter(t, st, id, store.WriterOptions{CheckpointMinEvents: -1})
	if !w.OpenedFrom().Used {
		t.Fatalf("the checkpoint was not used: %+v", w.OpenedFrom())
	}
	check(w) // one opened from the checkpoint
	w.Close()
}

// TestParentsStayInTheirRun: the current run's checker asks the session's
// index about parents and keeps no IDs of its own, so an index lookup must
// still say "not earlier" for a parent in an earlier run of the session,
// in the writer that wrote both runs and in one opened from a checkpoint.
func TestParentsStayInTheirRun(t *testing.T) {
	for _, style := range []string{"evt-%03d", "uuid"} {
		t.Run(strings.ReplaceAll(style, "%", ""), func(t *testing.T) {
			st, _ := openStore(t)
			id := "session-runs"
			n := 0
			r1 := newRun(id, "run-1", &n)
			evs := []journal.Event{r1.next("session.start", start()), r1.next("user.message", user("a"))}
			r2 := newRun(id, "run-2", &n)
			evs = append(evs, r2.next("session.start", resumeStart("run-1")), r2.next("user.message", user("b")))
			next := r2.next("user.message", user("c"))
			evs = append(evs, next)
			restyle(evs, style)
			w := openWriter(t, st, id, store.WriterOptions{Create: true, CheckpointMinEvents: 1})
			if _, err := w.AppendBatch(lines(evs[:4])); err != nil {
				t.Fatal(err)
			}
			try := func(w *store.Writer) {
				t.Helper()
				bad := evs[4]
				bad.ParentEventID = evs[1].EventID // run 1's
				if _, err := w.Append(line(bad)); !errors.Is(err, &journal.Error{Code: journal.ParentNotEarlier}) {
					t.Fatalf("a parent in the run before: %v", err)
				}
				good := evs[4]
				good.ParentEventID = evs[2].EventID // this run's first
				good.EventID += "-x"
				if _, err := w.Append(line(good)); err != nil {
					t.Fatalf("a parent in this run: %v", err)
				}
			}
			try(w)
			w.Close()
			w = openWriter(t, st, id, store.WriterOptions{CheckpointMinEvents: -1})
			if !w.OpenedFrom().Used {
				t.Fatalf("the checkpoint was not used: %+v", w.OpenedFrom())
			}
			evs[4].Sequence++ // after the event the first try added
			evs[4].EventID += "-y"
			try(w)
			w.Close()
		})
	}
}
