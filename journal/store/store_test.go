package store_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
)

func TestFileName(t *testing.T) {
	tests := []struct {
		id, name string
	}{
		{"session-s07-session-replay", "session-s07-session-replay.jsonl"},
		{"a.b_c-D9", "a.b_c-D9.jsonl"},
		{"..", "%2E..jsonl"},
		{".hidden", "%2Ehidden.jsonl"},
		{"../../etc/passwd", "%2E.%2F..%2Fetc%2Fpasswd.jsonl"},
		{"a/b", "a%2Fb.jsonl"},
		{"100%", "100%25.jsonl"},
		{"sp ace", "sp%20ace.jsonl"},
		{"é", "%C3%A9.jsonl"},
		{"x.jsonl", "x.jsonl.jsonl"},
	}
	for _, tt := range tests {
		got, err := store.FileName(tt.id)
		if err != nil || got != tt.name {
			t.Errorf("FileName(%q) = %q, %v; want %q", tt.id, got, err, tt.name)
			continue
		}
		if strings.ContainsRune(got, '/') || strings.HasPrefix(got, ".") {
			t.Errorf("FileName(%q) = %q escapes the directory or hides", tt.id, got)
		}
		back, ok := store.SessionID(got)
		if !ok || back != tt.id {
			t.Errorf("SessionID(%q) = %q, %v; want %q", got, back, ok, tt.id)
		}
	}
	for _, bad := range []string{"", strings.Repeat("/", 100)} {
		if _, err := store.FileName(bad); !errors.Is(err, store.ErrInvalidSessionID) {
			t.Errorf("FileName(%q): got %v, want ErrInvalidSessionID", bad, err)
		}
	}
	// Names FileName never produces are not sessions.
	for _, name := range []string{"a.jsonl.torn-12", "a.jsonl.checkpoint", "a.jsonl.checkpoint.tmp", "%41.jsonl", "%2e.jsonl", ".x.jsonl", "x%2.jsonl", ".jsonl", "x.txt"} {
		if id, ok := store.SessionID(name); ok {
			t.Errorf("SessionID(%q) = %q, want not a session file", name, id)
		}
	}
}

// Every reference golden is a valid single-run session as it is, and
// appending its events one by one writes the same bytes.
func TestGoldensAreSessions(t *testing.T) {
	for _, path := range goldens(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data := readFile(t, path)
			id := sessionOf(t, data)
			st, dir := openStore(t)
			name, _ := store.FileName(id)
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := st.Check(id, false)
			if err != nil {
				t.Fatal(err)
			}
			n := bytes.Count(data, []byte("\n"))
			if rep.Events != n || len(rep.Runs) != 1 || rep.Runs[0].Events != n || rep.Torn != nil {
				t.Fatalf("report %+v, want one run of %d events", rep, n)
			}

			st2, _ := openStore(t)
			w := openWriter(t, st2, id, store.WriterOptions{Create: true})
			for i, l := range bytes.SplitAfter(data, []byte("\n")) {
				if len(l) == 0 {
					continue
				}
				ack, err := w.Append(bytes.TrimSuffix(l, []byte("\n")))
				if err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				if ack.Line != i+1 || ack.Duplicate {
					t.Fatalf("line %d: ack %+v", i+1, ack)
				}
			}
			if got := readFile(t, w.Path()); !bytes.Equal(got, data) {
				t.Fatalf("stored bytes differ from the golden")
			}
		})
	}
}

func TestMultiRunSession(t *testing.T) {
	st, _ := openStore(t)
	w := openWriter(t, st, "s", store.WriterOptions{Create: true})
	evs := twoRuns("s")
	acks, err := w.AppendEvents(evs)
	if err != nil {
		t.Fatal(err)
	}
	if got := ackIDs(acks); got != "evt-000,evt-001,evt-002,evt-003" {
		t.Fatalf("acks %s", got)
	}
	pos := w.Position()
	if pos.RunID != "run-2" || pos.NextSequence != 2 || pos.LastEventID != "evt-003" || pos.Events != 4 {
		t.Fatalf("position %+v", pos)
	}
	if id := w.NextEventID(); id != "evt-004" {
		t.Fatalf("NextEventID %s", id)
	}
	w.Close()
	validates(t, w.Path())
	rep, err := st.Check("s", false)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Run{{RunID: "run-1", FirstLine: 1, Events: 2}, {RunID: "run-2", FirstLine: 3, Events: 2, ResumesRunID: "run-1"}}
	if len(rep.Runs) != 2 || rep.Runs[0] != want[0] || rep.Runs[1] != want[1] {
		t.Fatalf("runs %+v, want %+v", rep.Runs, want)
	}
	loaded, runs, err := st.Load("s")
	if err != nil || len(loaded) != 4 || len(runs) != 2 {
		t.Fatalf("Load: %d events, %d runs, %v", len(loaded), len(runs), err)
	}
}

// Every rejected event writes nothing and leaves the writer usable.
func TestAppendRejects(t *testing.T) {
	base := twoRuns("s")[:2] // run-1: evt-000 start, evt-001 user
	mod := func(f func(e *journal.Event)) []byte {
		n := 2
		e := newRun("s", "run-1", &n).next("user.message", user("x"))
		e.Sequence = 2
		e.ParentEventID = "evt-001"
		f(&e)
		return line(e)
	}
	n3 := 2
	r2 := newRun("s", "run-2", &n3)
	tests := []struct {
		name string
		line []byte
		code journal.Code
		kind error
	}{
		{"schema", []byte(`{"trace_version":"0.1.0"}`), journal.Schema, store.ErrRejected},
		{"invalid json", []byte(`{"trace_version":`), jsonv.ErrInvalidJSON, store.ErrRejected},
		{"blank", []byte(`  `), journal.BlankLine, store.ErrRejected},
		{"embedded newline", append(append([]byte(nil), line(base[0])[:10]...), append([]byte("\n"), line(base[0])[10:]...)...), store.EmbeddedNewline, store.ErrRejected},
		{"other session", mod(func(e *journal.Event) { e.SessionID = "t" }), store.WrongSession, store.ErrRejected},
		{"sequence gap", mod(func(e *journal.Event) { e.Sequence = 5 }), journal.SequenceGap, store.ErrRejected},
		{"parent not earlier", mod(func(e *journal.Event) { e.ParentEventID = "evt-999" }), journal.ParentNotEarlier, store.ErrRejected},
		{"conflicting id", mod(func(e *journal.Event) { e.EventID = "evt-001" }), store.EventIDConflict, store.ErrConflict},
		{"new run without marker", line(r2.next("user.message", user("y"))), store.ResumeMarker, store.ErrRejected},
		{"marker names wrong run", mod(func(e *journal.Event) {
			*e = newRun("s", "run-2", new(int)).next("session.start", resumeStart("run-0"))
			e.EventID = "evt-002"
		}), store.ResumeMarker, store.ErrRejected},
		{"marker not resumed", mod(func(e *journal.Event) {
			*e = newRun("s", "run-2", new(int)).next("session.start", start())
			e.EventID = "evt-002"
		}), store.ResumeMarker, store.ErrRejected},
	}
	st, _ := openStore(t)
	w := openWriter(t, st, "s", store.WriterOptions{Create: true})
	if _, err := w.AppendEvents(base); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, w.Path())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ack, err := w.Append(tt.line)
			var se *store.Error
			if !errors.As(err, &se) || !errors.Is(err, tt.kind) || se.Code() != tt.code {
				t.Fatalf("got %+v, %v; want %v with code %s", ack, err, tt.kind, tt.code)
			}
			if got := readFile(t, w.Path()); !bytes.Equal(got, before) {
				t.Fatal("a rejected event changed the file")
			}
		})
	}
	// The writer still takes the next good event.
	if _, err := w.Append(mod(func(*journal.Event) {})); err != nil {
		t.Fatalf("after rejections: %v", err)
	}

	// A run that ended takes no more events; the first run cannot resume.
	st2, _ := openStore(t)
	w2 := openWriter(t, st2, "s", store.WriterOptions{Create: true})
	if _, err := w2.Append(line(newRun("s", "run-1", new(int)).next("session.start", resumeStart("run-0")))); !errors.Is(err, store.ErrRejected) {
		t.Fatalf("first run resuming: %v", err)
	}
	if _, err := w2.AppendEvents(twoRuns("s")); err != nil {
		t.Fatal(err)
	}
	late := newRun("s", "run-1", new(int))
	late.seq = 2
	e := late.next("user.message", user("late"))
	e.EventID, e.ParentEventID = "evt-010", ""
	if _, err := w2.Append(line(e)); !errors.Is(err, store.ErrRejected) || !strings.Contains(err.Error(), string(store.RunEnded)) {
		t.Fatalf("event of an ended run: %v", err)
	}
}

// Exercise E of the curriculum's lesson s07: the duplicate-delivery table.
//
//	stored event_id?  same event?  result
//	no                -            written, fsynced, then acknowledged
//	yes               yes          nothing written, acknowledged as a duplicate
//	yes               no           rejected (ErrConflict), nothing written
func TestExerciseE_DuplicateDelivery(t *testing.T) {
	evs := twoRuns("s")[:2]
	orig := line(evs[1])
	reordered := []byte(strings.Replace(string(orig), `"type":"user.message",`, ``, 1))
	reordered = append(reordered[:len(reordered)-1], []byte(` , "type" : "user.message" }`)...)
	escaped := bytes.Replace(orig, []byte(`"first"`), []byte(`"\u0066irst"`), 1)
	changed := func(f func(e *journal.Event)) []byte {
		e := evs[1]
		f(&e)
		return line(e)
	}
	tests := []struct {
		name      string
		retry     []byte
		duplicate bool // acknowledged as a duplicate; else rejected with ErrConflict
	}{
		{"byte-identical retry", orig, true},
		{"same event, other member order and whitespace", reordered, true},
		{"same event, other string escapes", escaped, true},
		{"different payload", changed(func(e *journal.Event) { e.Payload = user("other") }), false},
		{"different timestamp", changed(func(e *journal.Event) { e.Timestamp = "2026-08-10T00:00:09Z" }), false},
		{"different type", changed(func(e *journal.Event) { e.Type = "agent.message" }), false},
		{"different sequence", changed(func(e *journal.Event) { e.Sequence = 7 }), false},
		{"number spelling", []byte(strings.Replace(string(orig), `"sequence":1`, `"sequence":1.0`, 1)), false},
	}
	for _, reopen := range []bool{false, true} {
		for _, tt := range tests {
			name := tt.name
			if reopen {
				name += " after reopen"
			}
			t.Run(name, func(t *testing.T) {
				st, _ := openStore(t)
				w := openWriter(t, st, "s", store.WriterOptions{Create: true})
				if _, err := w.AppendEvents(evs); err != nil {
					t.Fatal(err)
				}
				if reopen {
					w.Close()
					w = openWriter(t, st, "s", store.WriterOptions{})
				}
				before := readFile(t, w.Path())
				ack, err := w.Append(tt.retry)
				if tt.duplicate {
					if err != nil || !ack.Duplicate || ack.EventID != "evt-001" || ack.Line != 2 || ack.Offset != int64(len(line(evs[0]))+1) {
						t.Fatalf("got %+v, %v; want a duplicate ack of line 2", ack, err)
					}
				} else if !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), "already stored at line 2") {
					t.Fatalf("got %+v, %v; want ErrConflict naming line 2", ack, err)
				}
				if got := readFile(t, w.Path()); !bytes.Equal(got, before) {
					t.Fatal("the retry changed the file")
				}
			})
		}
	}
	// Within one batch: a new event, then its own retry, then a conflict.
	st, _ := openStore(t)
	w := openWriter(t, st, "s", store.WriterOptions{Create: true})
	acks, err := w.AppendBatch([][]byte{line(evs[0]), line(evs[0]), line(evs[1]), changed(func(e *journal.Event) { e.Payload = user("x") })})
	if got := ackIDs(acks); got != "evt-000,evt-000(dup),evt-001" || !errors.Is(err, store.ErrConflict) {
		t.Fatalf("batch: acks %s, %v", got, err)
	}
	if got := readFile(t, w.Path()); !bytes.Equal(got, journal.EncodeGolden(evs)) {
		t.Fatalf("batch wrote %q", got)
	}
}

// A batch stops at its first rejected event: what came before is durable
// and acknowledged, nothing after it is written.
func TestAppendBatchStopsAtRejection(t *testing.T) {
	st, _ := openStore(t)
	w := openWriter(t, st, "s", store.WriterOptions{Create: true})
	evs := twoRuns("s")
	bad := evs[3]
	bad.Sequence = 9
	acks, err := w.AppendBatch([][]byte{line(evs[0]), line(evs[1]), line(evs[2]), line(bad), line(evs[3])})
	if len(acks) != 3 || !errors.Is(err, store.ErrRejected) || !strings.Contains(err.Error(), "evt-003") {
		t.Fatalf("acks %s, err %v", ackIDs(acks), err)
	}
	if got := readFile(t, w.Path()); !bytes.Equal(got, journal.EncodeGolden(evs[:3])) {
		t.Fatalf("file %q", got)
	}
	if _, err := w.AppendEvent(&evs[3]); err != nil {
		t.Fatal(err)
	}
}

func TestNotFoundCreatesNothing(t *testing.T) {
	st, dir := openStore(t)
	for name, call := range map[string]func() error{
		"OpenWriter": func() error { _, err := st.OpenWriter("nope", store.WriterOptions{}); return err },
		"Check":      func() error { _, err := st.Check("nope", true); return err },
		"Load":       func() error { _, _, err := st.Load("nope"); return err },
	} {
		err := call()
		if !errors.Is(err, store.ErrNotFound) || err.Error() != "session not found: nope" {
			t.Errorf("%s: %v", name, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("files were created: %v", ents)
	}
}

// A writer that accepts no event leaves no session file: the file is
// created with its first accepted event. A file without events made
// outside the store is an empty session, not an error.
func TestNoFileUntilTheFirstEvent(t *testing.T) {
	st, dir := openStore(t)
	evs := twoRuns("s")
	w := openWriter(t, st, "s", store.WriterOptions{Create: true})
	if !w.Created() {
		t.Fatal("Created() is false for a missing session")
	}
	if pos := w.Position(); pos.Events != 0 || pos.Size != 0 {
		t.Fatalf("position %+v", pos)
	}
	// A rejected first event (a run may not start by resuming), then
	// nothing at all: no file.
	if _, err := w.Append(line(evs[2])); !errors.Is(err, store.ErrRejected) {
		t.Fatalf("rejected first event: %v", err)
	}
	if acks, err := w.AppendBatch(nil); err != nil || len(acks) != 0 {
		t.Fatalf("empty batch: %v %v", acks, err)
	}
	if evs, err := w.Events(); err != nil || len(evs) != 0 {
		t.Fatalf("Events: %v %v", evs, err)
	}
	w.Close()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("files were left: %v", ents)
	}
	if ids, err := st.Sessions(); err != nil || len(ids) != 0 {
		t.Fatalf("Sessions %v, %v", ids, err)
	}

	// The first accepted event creates it, holding that event.
	w = openWriter(t, st, "s", store.WriterOptions{Create: true})
	acks, err := w.AppendBatch([][]byte{line(evs[0]), line(evs[0]), line(evs[1])})
	if err != nil || ackIDs(acks) != "evt-000,evt-000(dup),evt-001" {
		t.Fatalf("first batch: %s %v", ackIDs(acks), err)
	}
	// A retry after the creation is compared with the stored line.
	if a, err := w.Append(line(evs[1])); err != nil || !a.Duplicate {
		t.Fatalf("retry: %+v %v", a, err)
	}
	path, _ := st.Path("s")
	if got := readFile(t, path); !bytes.Equal(got, journal.EncodeGolden(evs[:2])) {
		t.Fatalf("file %q", got)
	}
	w.Close()
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("a temporary file was left: %v", ents)
	}

	// A file made empty outside the store is an empty session.
	empty, _ := st.Path("e")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := st.Check("e", false)
	if err != nil || rep.Events != 0 || len(rep.Runs) != 0 {
		t.Fatalf("%+v, %v", rep, err)
	}
	w = openWriter(t, st, "e", store.WriterOptions{})
	if w.Created() {
		t.Fatal("Created() for an existing file")
	}
}

// Two writers that both found the session missing: the first append
// creates the file under the first writer's lock; the second writer then
// finds it and is refused while the first holds it, and once the first is
// done it appends after what the first wrote.
func TestTwoWritersCreating(t *testing.T) {
	st, _ := openStore(t)
	evs := twoRuns("s")
	w1 := openWriter(t, st, "s", store.WriterOptions{Create: true})
	w2 := openWriter(t, st, "s", store.WriterOptions{Create: true})
	if _, err := w1.Append(line(evs[0])); err != nil {
		t.Fatal(err)
	}
	if _, err := w2.Append(line(evs[0])); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second creator while the first holds the lock: %v", err)
	}
	w1.Close()
	acks, err := w2.AppendBatch([][]byte{line(evs[0]), line(evs[1])})
	if err != nil || ackIDs(acks) != "evt-000(dup),evt-001" || w2.Created() {
		t.Fatalf("second creator after the first: %s %v (created %v)", ackIDs(acks), err, w2.Created())
	}
	path, _ := st.Path("s")
	if got := readFile(t, path); !bytes.Equal(got, journal.EncodeGolden(evs[:2])) {
		t.Fatalf("file %q", got)
	}
}

func TestLockOneWriter(t *testing.T) {
	st, _ := openStore(t)
	w := openWriter(t, st, "s", store.WriterOptions{Create: true})
	if _, err := w.AppendEvent(&twoRuns("s")[0]); err != nil {
		t.Fatal(err)
	}
	_, err := st.OpenWriter("s", store.WriterOptions{Create: true})
	if !errors.Is(err, store.ErrLocked) || !strings.Contains(err.Error(), "locked by another writer") {
		t.Fatalf("second writer: %v", err)
	}
	if _, err := st.Check("s", false); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("check during a write: %v", err)
	}
	w.Close()
	if _, err := w.Append(line(twoRuns("s")[0])); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("append after close: %v", err)
	}
	w2 := openWriter(t, st, "s", store.WriterOptions{})
	if _, err := w2.AppendEvent(&twoRuns("s")[1]); err != nil {
		t.Fatal(err)
	}
}

// tornFile writes a session of good events followed by torn bytes.
func tornFile(t *testing.T, dir string, good []journal.Event, torn string) (string, []byte) {
	t.Helper()
	name, _ := store.FileName("s")
	path := filepath.Join(dir, name)
	prefix := journal.EncodeGolden(good)
	if err := os.WriteFile(path, append(append([]byte(nil), prefix...), torn...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, prefix
}

func TestTornTail(t *testing.T) {
	evs := twoRuns("s")
	full := string(line(evs[3]))
	tests := []struct {
		name string
		torn string
	}{
		{"half an event", full[:len(full)/2]},
		{"a whole event without its newline", full}, // never acknowledged: the fsync covers the newline
		{"zero bytes of a lost page", "\x00\x00\x00\x00"},
		{"one byte", "{"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, dir := openStore(t)
			path, prefix := tornFile(t, dir, evs[:3], tt.torn)
			all := readFile(t, path)

			// Reported, not repaired, without repair.
			_, err := st.OpenWriter("s", store.WriterOptions{})
			var se *store.Error
			if !errors.As(err, &se) || !errors.Is(err, store.ErrTornTail) || se.Line != 4 || se.Offset != int64(len(prefix)) {
				t.Fatalf("OpenWriter: %v", err)
			}
			if !strings.Contains(err.Error(), ":4: TORN_TAIL") {
				t.Fatalf("message does not name line 4: %v", err)
			}
			rep, err := st.Check("s", false)
			if !errors.Is(err, store.ErrTornTail) || rep.Torn == nil || rep.Events != 3 {
				t.Fatalf("Check: %+v, %v", rep, err)
			}
			if !bytes.Equal(readFile(t, path), all) {
				t.Fatal("a check without repair changed the file")
			}

			// Repaired: side file, truncation, and appending goes on.
			rep, err = st.Check("s", true)
			if err != nil {
				t.Fatal(err)
			}
			side := path + ".torn-" + itoa(len(prefix))
			if rep.SideFile != side || rep.Events != 3 || rep.Size != int64(len(prefix)) {
				t.Fatalf("report %+v", rep)
			}
			if got := readFile(t, side); string(got) != tt.torn {
				t.Fatalf("side file holds %q", got)
			}
			if got := readFile(t, path); !bytes.Equal(got, prefix) {
				t.Fatalf("repaired file %q", got)
			}
			w := openWriter(t, st, "s", store.WriterOptions{})
			if _, err := w.AppendEvent(&evs[3]); err != nil {
				t.Fatal(err)
			}
			w.Close()
			if got := readFile(t, path); !bytes.Equal(got, journal.EncodeGolden(evs)) {
				t.Fatalf("after repair and append: %q", got)
			}
			validates(t, path)
			if ids, _ := st.Sessions(); len(ids) != 1 {
				t.Fatalf("the side file is listed as a session: %v", ids)
			}
		})
	}
}

func itoa(n int) string { return string(jsonv.Int(int64(n)).AppendJSON(nil)) }

// Repair through OpenWriter, twice at the same offset with different torn
// bytes: the first side file is kept, the second goes beside it.
func TestTornTailRepairOnOpenKeepsEverySideFile(t *testing.T) {
	evs := twoRuns("s")
	st, dir := openStore(t)
	path, prefix := tornFile(t, dir, evs[:2], "{\"trace")
	w := openWriter(t, st, "s", store.WriterOptions{Repair: true})
	if r := w.Repaired(); r == nil || r.SideFile != path+".torn-"+itoa(len(prefix)) || r.Torn.Line != 3 {
		t.Fatalf("Repaired() = %+v", r)
	}
	w.Close()
	if err := os.WriteFile(path, append(append([]byte(nil), prefix...), "{\"other"...), 0o644); err != nil {
		t.Fatal(err)
	}
	w = openWriter(t, st, "s", store.WriterOptions{Repair: true})
	w.Close()
	if got := string(readFile(t, path+".torn-"+itoa(len(prefix)))); got != "{\"trace" {
		t.Fatalf("first side file %q", got)
	}
	if got := string(readFile(t, path+".torn-"+itoa(len(prefix))+".1")); got != "{\"other" {
		t.Fatalf("second side file %q", got)
	}
	// A side file already holding the same bytes (a repair that stopped
	// before truncating) is reused.
	if err := os.WriteFile(path, append(append([]byte(nil), prefix...), "{\"other"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Check("s", true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".torn-" + itoa(len(prefix)) + ".2"); !os.IsNotExist(err) {
		t.Fatalf("a third side file was made: %v", err)
	}
}

// Corruption anywhere but a torn tail is an error naming the line, with or
// without repair, and the file is left as it is.
func TestCorruptionIsNeverRepaired(t *testing.T) {
	evs := twoRuns("s")
	good := journal.EncodeGolden(evs)
	lines := bytes.SplitAfter(good, []byte("\n"))
	join := func(ls ...[]byte) []byte { return bytes.Join(ls, nil) }
	gap := evs[1]
	gap.Sequence = 3
	tests := []struct {
		name string
		data []byte
		line int
		code journal.Code
	}{
		{"bad json in the middle", join(lines[0], []byte("{oops\n"), lines[2], lines[3]), 2, jsonv.ErrInvalidJSON},
		{"blank line in the middle", join(lines[0], []byte("\n"), lines[1], lines[2]), 2, journal.BlankLine},
		{"bad last line with its newline", join(lines[0], lines[1], []byte("{\"trace\n")), 3, jsonv.ErrInvalidJSON},
		{"sequence gap", join(lines[0], append(line(gap), '\n'), lines[2]), 2, journal.SequenceGap},
		{"duplicate event", join(lines[0], lines[1], lines[1]), 3, journal.DuplicateEventID},
		{"bad middle line and a torn tail", join(lines[0], []byte("{oops\n"), lines[2], []byte("{\"tr")), 2, jsonv.ErrInvalidJSON},
		{"other session", join(lines[0], bytes.Replace(lines[1], []byte(`"session_id":"s"`), []byte(`"session_id":"t"`), 1)), 2, store.WrongSession},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, dir := openStore(t)
			name, _ := store.FileName("s")
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, repair := range []bool{false, true} {
				_, err := st.Check("s", repair)
				var se *store.Error
				if !errors.As(err, &se) || !errors.Is(err, store.ErrCorrupt) || se.Line != tt.line || se.Code() != tt.code {
					t.Fatalf("Check(repair=%v): %v; want CORRUPT %s at line %d", repair, err, tt.code, tt.line)
				}
				if !strings.Contains(err.Error(), name+":"+itoa(tt.line)+":") {
					t.Fatalf("message does not name the line: %v", err)
				}
				_, err = st.OpenWriter("s", store.WriterOptions{Repair: repair})
				if !errors.Is(err, store.ErrCorrupt) {
					t.Fatalf("OpenWriter(repair=%v): %v", repair, err)
				}
			}
			if !bytes.Equal(readFile(t, path), tt.data) {
				t.Fatal("the corrupt file was changed")
			}
			if m, _ := filepath.Glob(path + ".torn-*"); len(m) != 0 {
				t.Fatalf("side files made: %v", m)
			}
		})
	}
}

func TestEventsRereadsTheFile(t *testing.T) {
	st, _ := openStore(t)
	w := openWriter(t, st, "s", store.WriterOptions{Create: true})
	evs := twoRuns("s")
	if _, err := w.AppendEvents(evs); err != nil {
		t.Fatal(err)
	}
	got, err := w.Events()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(journal.EncodeGolden(got), journal.EncodeGolden(evs)) {
		t.Fatal("Events() differs from what was appended")
	}
}

// A failed write breaks the writer: nothing in the batch is acknowledged,
// every later call fails, and reopening recovers what is on disk.
func TestFailedWriteBreaksTheWriter(t *testing.T) {
	st, _ := openStore(t)
	w := openWriter(t, st, "s", store.WriterOptions{Create: true})
	evs := twoRuns("s")
	if _, err := w.AppendEvent(&evs[0]); err != nil {
		t.Fatal(err)
	}
	diskFull := errors.New("no space left on device")
	restore := store.SetWriteFile(func(f *os.File, b []byte) (int, error) {
		n, _ := f.Write(b[:len(b)/2])
		return n, diskFull
	})
	acks, err := w.AppendEvents(evs[1:2])
	restore()
	if len(acks) != 0 || !errors.Is(err, store.ErrIO) || !errors.Is(err, diskFull) {
		t.Fatalf("acks %s, err %v", ackIDs(acks), err)
	}
	if _, err := w.AppendEvent(&evs[1]); !errors.Is(err, store.ErrBroken) {
		t.Fatalf("after a failed write: %v", err)
	}
	w.Close()
	if _, err := st.OpenWriter("s", store.WriterOptions{}); !errors.Is(err, store.ErrTornTail) {
		t.Fatalf("reopen without repair: %v", err)
	}
	w = openWriter(t, st, "s", store.WriterOptions{Repair: true})
	if pos := w.Position(); pos.Events != 1 {
		t.Fatalf("after repair: %+v", pos)
	}
	if _, err := w.AppendEvents(evs[1:]); err != nil {
		t.Fatal(err)
	}
	validates(t, w.Path())
}
