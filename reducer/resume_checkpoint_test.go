package reducer_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/store"
	"github.com/tracecheck/tracecheck/reducer"
)

// genSession writes a generated session of the given turns (the last one
// left open mid-tool-call when open) as session id's file in a new store.
func genSession(t testing.TB, id string, turns int, open bool) (*store.Store, string, *sessionGen) {
	t.Helper()
	var data []byte
	g := newSessionGen(id, func(e *journal.Event) { data = e.AppendGolden(data) })
	g.start(t)
	for i := range turns {
		g.turn(t, open && i == turns-1)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path, _ := st.Path(id)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return st, path, g
}

// appendTurns appends turns to the session with a writer that keeps the
// projection where it was (its Close checkpoints the store state only)
// or, with noCheckpoint, writes no checkpoint (a writer that died).
func appendTurns(t testing.TB, st *store.Store, g *sessionGen, turns int, open, noCheckpoint bool) {
	t.Helper()
	min := 1
	if noCheckpoint {
		min = -1
	}
	w, err := st.OpenWriter(g.session, store.WriterOptions{CheckpointMinEvents: min})
	if err != nil {
		t.Fatal(err)
	}
	var evs []journal.Event
	emit := g.emit
	g.emit = func(e *journal.Event) { evs = append(evs, *e) }
	for i := range turns {
		g.turn(t, open && i == turns-1)
	}
	g.emit = emit
	if _, err := w.AppendEvents(evs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func checkpointSession(t testing.TB, st *store.Store, id string, cfg reducer.HistoryConfig) reducer.SessionHistory {
	t.Helper()
	w, err := st.OpenWriter(id, store.WriterOptions{CheckpointMinEvents: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	how, _, err := reducer.CheckpointSession(w, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return how
}

// resumed is a resume's outcome, comparable between two stores.
func resumedText(res *reducer.Resumed, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "run %s after %s offset %d\n", res.RunID, res.PreviousRunID, res.Offset)
	for _, c := range res.Repaired {
		fmt.Fprintf(&b, "repaired %s %s\n", c.ID, c.Name)
	}
	b.Write(journal.EncodeGolden(res.Appended))
	for _, a := range res.Acks {
		fmt.Fprintf(&b, "ack %+v\n", a)
	}
	b.WriteString(wire(res.History))
	return b.String()
}

// Resuming from a checkpoint gives exactly what resuming from event zero
// gives, whatever lies between the checkpoint and the end; a checkpoint
// that does not match the file, or was made with another history
// configuration, is ignored.
func TestResumeFromCheckpoint(t *testing.T) {
	const id = "session-long"
	otherCfg := genConfig
	otherCompactor := *genConfig.Compactor
	otherCompactor.TriggerChars = 99999 // replays the same, but is another configuration
	otherCfg.Compactor = &otherCompactor
	tests := []struct {
		name string
		// after runs once the checkpoint is written.
		after          func(t *testing.T, st *store.Store, path string, g *sessionGen)
		cfg            reducer.HistoryConfig // of the checkpoint
		open           bool                  // the checkpointed session ends mid-call
		fromProjection bool                  // the resume reads only the events after the projection
	}{
		{name: "up to date", cfg: genConfig, fromProjection: true},
		{name: "mid-call at the checkpoint", cfg: genConfig, open: true, fromProjection: true},
		{name: "turns appended after it, store checkpoint updated", cfg: genConfig, fromProjection: true,
			after: func(t *testing.T, st *store.Store, path string, g *sessionGen) {
				appendTurns(t, st, g, 8, false, false)
			}},
		{name: "turns appended by a writer that died", cfg: genConfig, fromProjection: true,
			after: func(t *testing.T, st *store.Store, path string, g *sessionGen) { appendTurns(t, st, g, 8, false, true) }},
		{name: "interrupted mid-call after it", cfg: genConfig, fromProjection: true,
			after: func(t *testing.T, st *store.Store, path string, g *sessionGen) { appendTurns(t, st, g, 8, true, true) }},
		{name: "made with another history configuration", cfg: otherCfg, fromProjection: false},
		{name: "file edited", cfg: genConfig, fromProjection: false,
			after: func(t *testing.T, st *store.Store, path string, g *sessionGen) {
				data := read(t, path)
				i := bytes.LastIndex(data, []byte("Step "))
				data[i] = 's'
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "file truncated", cfg: genConfig, fromProjection: false,
			after: func(t *testing.T, st *store.Store, path string, g *sessionGen) {
				data := read(t, path)
				if err := os.Truncate(path, int64(bytes.LastIndexByte(data[:len(data)-1], '\n')+1)); err != nil {
					t.Fatal(err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, path, g := genSession(t, id, 200, tt.open)
			if how := checkpointSession(t, st, id, tt.cfg); how.FromProjection || how.Read != g.n {
				t.Fatalf("first checkpoint: %+v", how)
			}
			covered := g.n
			if tt.after != nil {
				tt.after(t, st, path, g)
			}
			// The same file, without a checkpoint, in another store.
			ref, refPath := storeWith(t, id, read(t, path))
			opts := reducer.ResumeOptions{History: genConfig, Message: "Carry on.", Timestamp: fixedClock}
			for round := range 2 {
				opts.RunID = fmt.Sprintf("run-resume-%d", round)
				want := resumedText(reducer.Resume(ref, id, opts))
				res, err := reducer.Resume(st, id, opts)
				if got := resumedText(res, err); got != want {
					t.Fatalf("round %d: from the checkpoint\n%s\nfrom event zero\n%s", round, got, want)
				}
				if err != nil {
					return
				}
				if !bytes.Equal(read(t, path), read(t, refPath)) {
					t.Fatalf("round %d: the two sessions differ", round)
				}
				lines := bytes.Count(read(t, refPath), []byte("\n")) - len(res.Appended)
				wantFrom, wantRead := tt.fromProjection, lines
				if wantFrom {
					wantRead = lines - covered
				}
				if round == 1 { // the first resume left its history as the projection
					wantFrom, wantRead = true, 0
				}
				if res.Rebuilt.FromProjection != wantFrom || res.Rebuilt.Read != wantRead {
					t.Fatalf("round %d: rebuilt %+v, want from projection %v reading %d events", round, res.Rebuilt, wantFrom, wantRead)
				}
			}
		})
	}
}

// The history rebuilt from a projection equals History over every event,
// at every turn of a session that compacts.
func TestCheckpointSessionHistoryEqualsHistory(t *testing.T) {
	const id = "session-long"
	st, _, g := genSession(t, id, 3, false)
	for step := range 12 {
		appendTurns(t, st, g, 1+step%3, step%4 == 3, false)
		if step%4 == 3 { // close the open call so the session goes on
			w, err := st.OpenWriter(id, store.WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := reducer.ResumeWriter(w, reducer.ResumeOptions{History: genConfig, RunID: fmt.Sprintf("run-%d", step), Timestamp: fixedClock}); err != nil {
				t.Fatal(err)
			}
			w.Close()
			evs, _, err := st.Load(id)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range evs[g.n:] {
				g.observe(t, &e)
			}
		}
		how := checkpointSession(t, st, id, genConfig)
		if !how.FromProjection && step > 0 {
			t.Fatalf("step %d: %+v", step, how)
		}
		evs, _, err := st.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		want, err := reducer.History(evs, genConfig)
		if err != nil {
			t.Fatal(err)
		}
		w, err := st.OpenWriter(id, store.WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := reducer.ResumeWriter(w, reducer.ResumeOptions{History: genConfig, RunID: fmt.Sprintf("run-probe-%d", step), Timestamp: fixedClock})
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		// The probe resume appended its marker (and repairs): its history
		// starts with the rebuilt one.
		if got := wire(plan.History[:len(want)]); got != wire(want) {
			t.Fatalf("step %d: history from the projection\n%s\nfrom every event\n%s", step, got, wire(want))
		}
		for i := range plan.Appended {
			g.observe(t, &plan.Appended[i])
		}
	}
}
