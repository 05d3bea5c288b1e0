package store_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/store"
)

// AppendGroup validates the whole group before writing: when any line is
// rejected nothing is written, and the writer stands exactly where it
// stood, down to the state a checkpoint records. Appending the group's
// good lines afterwards gives what appending them in the first place
// gives.
func TestAppendGroupAllOrNothing(t *testing.T) {
	evs := twoRuns("s") // run-1: evt-000, evt-001; run-2: evt-002, evt-003
	n := 4
	r3 := newRun("s", "run-3", &n)
	run3 := []journal.Event{r3.next("session.start", resumeStart("run-2")), r3.next("user.message", user("third"))}
	gap := run3[1]
	gap.Sequence = 5
	gap.EventID = "evt-009"
	m := 4
	r2 := newRun("s", "run-2", &m)
	r2.seq, r2.last = 2, "evt-003"
	more := []journal.Event{r2.next("user.message", user("a")), r2.next("user.message", user("b"))}
	conflict := evs[1]
	conflict.Payload = user("changed")
	tooLong := more[1]
	tooLong.Payload = user(strings.Repeat("x", journal.DefaultMaxLineBytes))
	firstGap := evs[1]
	firstGap.Sequence, firstGap.EventID = 5, "evt-009"

	tests := []struct {
		name   string
		stored []journal.Event
		good   []journal.Event // the group's lines before the bad one
		bad    journal.Event
		code   journal.Code
	}{
		{"a new run whose third event is rejected", evs, run3, gap, journal.SequenceGap},
		{"the current run continued, then a line too long", evs, more[:1], tooLong, journal.LineTooLong},
		{"a retry, a new event, then a conflict", evs, []journal.Event{evs[3], more[0]}, conflict, store.EventIDConflict},
		{"the first run of a session not created yet", nil, evs[:2], firstGap, journal.SequenceGap},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, dir := openStore(t)
			w := openWriter(t, st, "s", store.WriterOptions{Create: true, CheckpointMinEvents: -1})
			if len(tc.stored) > 0 {
				if _, err := w.AppendEvents(tc.stored); err != nil {
					t.Fatal(err)
				}
			}
			path := w.Path()
			before := fileState(t, path)
			pos, runs := w.Position(), w.Runs()

			group := append(append([]journal.Event(nil), tc.good...), tc.bad)
			for range 2 { // a retry fails the same way and writes nothing either
				acks, err := w.AppendGroup(lines(group))
				var se *store.Error
				if acks != nil || !errors.As(err, &se) || se.Code() != tc.code {
					t.Fatalf("AppendGroup: acks %s, err %v", ackIDs(acks), err)
				}
				if got := fileState(t, path); got != before {
					t.Fatalf("the file changed: %s", got)
				}
				if p, r := w.Position(), w.Runs(); p != pos || len(r) != len(runs) || (len(r) > 0 && r[len(r)-1] != runs[len(runs)-1]) {
					t.Fatalf("the writer moved: %+v %+v, was %+v %+v", p, r, pos, runs)
				}
				for _, e := range tc.good {
					if w.HasEventID(e.EventID) && !has(tc.stored, e.EventID) {
						t.Fatalf("%s is still known", e.EventID)
					}
					if w.HasRun(e.Provenance.RunID) && !hasRun(tc.stored, e.Provenance.RunID) {
						t.Fatalf("run %s is still known", e.Provenance.RunID)
					}
				}
			}
			if tc.stored == nil {
				if ents, _ := readDir(dir); ents != "" {
					t.Fatalf("a rejected first group created %s", ents)
				}
			}
			// The current run's checker forgot the group's IDs: an event
			// naming one as its parent is refused.
			if len(tc.stored) > 0 && tc.good[len(tc.good)-1].EventID == "evt-004" {
				orphan := more[0]
				orphan.EventID, orphan.ParentEventID = "evt-007", "evt-004"
				if _, err := w.AppendEvent(&orphan); !errors.Is(err, store.ErrRejected) {
					t.Fatalf("an event whose parent was taken back: %v", err)
				}
			}

			acks, err := w.AppendGroup(lines(tc.good))
			if err != nil || len(acks) != len(tc.good) {
				t.Fatalf("the good lines: %s %v", ackIDs(acks), err)
			}
			want := journal.EncodeGolden(append(append([]journal.Event(nil), tc.stored...), fresh(tc.stored, tc.good)...))
			if got := readFile(t, path); !bytes.Equal(got, want) {
				t.Fatalf("file:\n%s\nwant:\n%s", got, want)
			}
			// What the writer holds is what a writer reading the file
			// holds: their checkpoints are byte for byte the same.
			cp1 := checkpointBytes(t, w)
			w.Close()
			w2 := openWriter(t, st, "s", store.WriterOptions{NoCheckpoint: true, CheckpointMinEvents: -1})
			w2.Close()
			w3 := openWriter(t, st, "s", store.WriterOptions{NoCheckpoint: true, CheckpointMinEvents: -1})
			if cp2 := checkpointBytes(t, w3); !bytes.Equal(cp1, cp2) {
				t.Fatal("the writer's state after a taken-back group differs from the file's")
			}
		})
	}
}

func lines(evs []journal.Event) [][]byte {
	out := make([][]byte, len(evs))
	for i := range evs {
		out[i] = line(evs[i])
	}
	return out
}

func has(evs []journal.Event, id string) bool {
	for _, e := range evs {
		if e.EventID == id {
			return true
		}
	}
	return false
}

func hasRun(evs []journal.Event, run string) bool {
	for _, e := range evs {
		if e.Provenance.RunID == run {
			return true
		}
	}
	return false
}

// fresh returns the events of evs whose IDs stored does not hold.
func fresh(stored, evs []journal.Event) []journal.Event {
	var out []journal.Event
	for _, e := range evs {
		if !has(stored, e.EventID) {
			out = append(out, e)
		}
	}
	return out
}

func fileState(t *testing.T, path string) string {
	t.Helper()
	b, err := readOptional(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkpointBytes writes w's checkpoint and returns it.
func checkpointBytes(t *testing.T, w *store.Writer) []byte {
	t.Helper()
	cw, err := w.WriteCheckpoint()
	if err != nil || !cw.Written {
		t.Fatalf("WriteCheckpoint: %+v %v", cw, err)
	}
	return readFile(t, cw.Path)
}

// An event refused because its line would be too long leaves the run as
// it was: the same event ID and sequence, with a shorter payload, are
// accepted next.
func TestLineTooLongTakesNothing(t *testing.T) {
	st, _ := openStore(t)
	w := openWriter(t, st, "s", store.WriterOptions{Create: true})
	evs := twoRuns("s")
	if _, err := w.AppendEvents(evs); err != nil {
		t.Fatal(err)
	}
	n := 4
	r := newRun("s", "run-2", &n)
	r.seq, r.last = 2, "evt-003"
	next := r.next("user.message", user("short"))
	long := next
	long.Payload = user(strings.Repeat("x", journal.DefaultMaxLineBytes))
	if _, err := w.AppendEvent(&long); !errors.Is(err, store.ErrRejected) || !strings.Contains(err.Error(), "LINE_TOO_LONG") {
		t.Fatalf("too long: %v", err)
	}
	if a, err := w.AppendEvent(&next); err != nil || a.EventID != "evt-004" {
		t.Fatalf("the same event, shorter: %+v %v", a, err)
	}
}
