package store

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// A checkpoint whose bytes were altered, even with a recomputed trailer
// (so that decoding goes on; the ID index's bytes are covered by their
// CRC-32C, which the trailer hashes), never makes OpenWriter panic, and the
// position it opens at (events, size, last event, run, next sequence and
// ID) is the file's: the checkpoint is ignored or still describes it.
func TestCheckpointAlteredBytes(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.OpenWriter("s", WriterOptions{Create: true, CheckpointMinEvents: 1})
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	for i := range 40 {
		e := journal.Event{TraceVersion: journal.TraceVersion, EventID: fmt.Sprintf("evt-%03d", i), SessionID: "s", Sequence: int64(i),
			Timestamp: "2026-08-10T00:00:00Z", Type: "user.message", Actor: journal.Actor{Kind: "user", ID: "user"},
			Payload:    jsonv.Obj(jsonv.M("content", jsonv.Str("hi"))),
			Provenance: journal.Provenance{AgentID: "a", SnapshotID: "s", Surface: "sdk", HarnessMode: "fake", RunID: "run-1"},
			Redaction:  journal.CleanRedaction()}
		if i > 0 {
			e.ParentEventID = fmt.Sprintf("evt-%03d", i-1)
		}
		lines = append(lines, e.Value().AppendJSON(nil))
	}
	if _, err := w.AppendBatch(lines); err != nil {
		t.Fatal(err)
	}
	if err := w.SetProjection(&Projection{Key: "k", Lines: 40, Offset: w.Position().Size, Data: []byte("data")}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	path := filepath.Join(dir, "s.jsonl"+CheckpointExt)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	body := good[:len(good)-sha256.Size]
	data, err := os.ReadFile(filepath.Join(dir, "s.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	try := func(b []byte) {
		sum := checkpointTrailer(b) // zero when b cannot be one
		if err := os.WriteFile(path, append(append([]byte(nil), b...), sum[:]...), 0o644); err != nil {
			t.Fatal(err)
		}
		w, err := st.OpenWriter("s", WriterOptions{CheckpointMinEvents: -1})
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		defer w.Close()
		if p := w.Position(); p.Events != 40 || p.Size != int64(len(data)) || p.RunID != "run-1" || p.NextSequence != 40 || p.LastEventID != "evt-039" || w.NextEventID() != "evt-040" {
			t.Fatalf("altered checkpoint %x accepted with position %+v", b, p)
		}
	}
	for i := len(checkpointMagic); i < len(body); i++ {
		try(body[:i])
		for _, bit := range []byte{1, 0x80} {
			b := append([]byte(nil), body...)
			b[i] ^= bit
			try(b)
		}
	}
}
