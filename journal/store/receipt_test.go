package store_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracecheck/tracecheck/journal/store"
)

// uuidLines returns the lines of events [from, to) of one run whose event
// IDs are UUID-like (the hex of a SHA-256 of the event's number), as agents
// that number events with UUIDs write them.
func uuidLines(session string, from, to int) [][]byte {
	id := func(i int) string {
		h := sha256.Sum256(fmt.Appendf(nil, "%s/%d", session, i))
		return fmt.Sprintf("%x-%x-4%x-8%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])[:36]
	}
	n := from
	r := newRun(session, "run-1", &n)
	r.seq = int64(from)
	if from > 0 {
		r.last = id(from - 1)
	}
	var out [][]byte
	for i := from; i < to; i++ {
		typ, payload := "user.message", user(fmt.Sprintf("message %d", i))
		if i == 0 {
			typ, payload = "session.start", start()
		}
		e := r.next(typ, payload)
		e.EventID = id(i)
		r.last = e.EventID
		out = append(out, line(e))
	}
	return out
}

// appendUUIDs appends events [from, to) with a writer that writes no
// checkpoint (CheckpointMinEvents -1), in batches of 500.
func appendUUIDs(t *testing.T, st *store.Store, session string, from, to int, opts store.WriterOptions) {
	t.Helper()
	w, err := st.OpenWriter(session, opts)
	if err != nil {
		t.Fatal(err)
	}
	lines := uuidLines(session, from, to)
	for len(lines) > 0 {
		n := min(500, len(lines))
		if _, err := w.AppendBatch(lines[:n]); err != nil {
			t.Fatal(err)
		}
		lines = lines[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReceiptVouchesForTheTail: the events a writer appended after a
// checkpoint are vouched for when the next writer opens the session, so it
// does not read the checkpoint's older IDs back for a false maybe of
// their fingerprints (one new ID in 4,096: with 20,000 new IDs the open
// without the receipt does read them back; the IDs are fixed, so this
// holds on every run). Without the receipt, or with any byte of it or of
// the tail changed, the tail is checked in full and the session still
// opens at the same position.
func TestReceiptVouchesForTheTail(t *testing.T) {
	st, dir := openStore(t)
	const session, prior, tail = "s", 2000, 20000
	appendUUIDs(t, st, session, 0, prior, store.WriterOptions{Create: true, CheckpointMinEvents: 1})
	appendUUIDs(t, st, session, prior, prior+tail, store.WriterOptions{CheckpointMinEvents: -1})
	path := filepath.Join(dir, session+store.Ext)
	receipt := path + store.ReceiptExt
	good := readFile(t, receipt)

	open := func(name string, wantVouched int, wantReadBack bool) {
		t.Helper()
		w, err := st.OpenWriter(session, store.WriterOptions{CheckpointMinEvents: -1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer w.Close()
		use := w.OpenedFrom()
		if !use.Used || use.Lines != prior || use.TailLines != tail || use.TailVouched != wantVouched {
			t.Fatalf("%s: opened %+v, want the checkpoint of %d events and %d tail lines, %d vouched", name, use, prior, tail, wantVouched)
		}
		if p := w.Position(); p.Events != prior+tail || p.NextSequence != prior+tail {
			t.Fatalf("%s: position %+v", name, p)
		}
		if readBack := w.FrozenIDBytes() == 0; readBack != wantReadBack {
			t.Fatalf("%s: older IDs read back: %v, want %v", name, readBack, wantReadBack)
		}
	}
	open("with the receipt", tail, false)
	open("with the receipt of a writer that appended nothing", tail, false)

	for _, c := range []struct {
		name  string
		alter func(b []byte) []byte
	}{
		{"no receipt", nil},
		{"a bit flipped in the receipt", func(b []byte) []byte { b[len(b)/2] ^= 1; return b }},
		{"a truncated receipt", func(b []byte) []byte { return b[:len(b)-1] }},
		{"a receipt with a byte more", func(b []byte) []byte { return append(b, 0) }},
	} {
		if c.alter == nil {
			os.Remove(receipt)
		} else if err := os.WriteFile(receipt, c.alter(bytes.Clone(good)), 0o644); err != nil {
			t.Fatal(err)
		}
		open(c.name, 0, true)
	}

	// The tail's bytes changed (a message edited in place, the line still
	// valid): the receipt no longer vouches for it.
	if err := os.WriteFile(receipt, good, 0o644); err != nil {
		t.Fatal(err)
	}
	data := readFile(t, path)
	i := bytes.LastIndex(data, []byte(fmt.Sprintf("message %d", prior+tail-1)))
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{'M'}, int64(i)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	open("an edited tail", 0, true)
}

// TestReceiptOfAnotherCheckpoint: a new checkpoint makes the receipt of the
// old one useless (it names the checkpoint it built on), and a writer that
// rewrites the checkpoint leaves no tail to vouch for.
func TestReceiptOfAnotherCheckpoint(t *testing.T) {
	st, dir := openStore(t)
	const session = "s"
	appendUUIDs(t, st, session, 0, 100, store.WriterOptions{Create: true, CheckpointMinEvents: 1})
	appendUUIDs(t, st, session, 100, 200, store.WriterOptions{CheckpointMinEvents: -1})
	path := filepath.Join(dir, session+store.Ext)
	old := readFile(t, path+store.ReceiptExt)
	w := openWriter(t, st, session, store.WriterOptions{CheckpointMinEvents: 1})
	if _, err := w.WriteCheckpoint(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	appendUUIDs(t, st, session, 200, 250, store.WriterOptions{CheckpointMinEvents: -1})
	if err := os.WriteFile(path+store.ReceiptExt, old, 0o644); err != nil {
		t.Fatal(err)
	}
	w = openWriter(t, st, session, store.WriterOptions{CheckpointMinEvents: -1})
	if use := w.OpenedFrom(); !use.Used || use.Lines != 200 || use.TailLines != 50 || use.TailVouched != 0 {
		t.Fatalf("opened %+v with the receipt of the previous checkpoint", use)
	}
}

// TestReceiptNeverWritesThroughALink: a receipt name that is a hard link
// to the session file (or a symbolic link to anything) is replaced by the
// writer's receipt, never written through: the session file keeps every
// byte.
func TestReceiptNeverWritesThroughALink(t *testing.T) {
	for _, kind := range []string{"hard", "symbolic"} {
		t.Run(kind, func(t *testing.T) {
			st, dir := openStore(t)
			const session = "s"
			appendUUIDs(t, st, session, 0, 100, store.WriterOptions{Create: true, CheckpointMinEvents: 1})
			path := filepath.Join(dir, session+store.Ext)
			victim := filepath.Join(dir, "victim")
			if err := os.WriteFile(victim, []byte("keep me\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			link := os.Link
			target := path
			if kind == "symbolic" {
				link, target = os.Symlink, victim
			}
			if err := link(target, path+store.ReceiptExt); err != nil {
				t.Fatal(err)
			}
			before := readFile(t, path)
			appendUUIDs(t, st, session, 100, 110, store.WriterOptions{CheckpointMinEvents: -1})
			after := readFile(t, path)
			if !bytes.HasPrefix(after, before) || bytes.Count(after, []byte("\n")) != 110 {
				t.Fatalf("the session file changed under its receipt's name: %d bytes before, %d after", len(before), len(after))
			}
			if got := readFile(t, victim); string(got) != "keep me\n" {
				t.Fatalf("the link's target was written: %q", got)
			}
			fi, err := os.Lstat(path + store.ReceiptExt)
			if err != nil || !fi.Mode().IsRegular() || os.SameFile(fi, mustStat(t, path)) {
				t.Fatalf("the receipt is not a file of its own: %v %v", fi, err)
			}
			w := openWriter(t, st, session, store.WriterOptions{CheckpointMinEvents: -1})
			if use := w.OpenedFrom(); use.TailVouched != 10 {
				t.Fatalf("opened %+v: the new receipt does not vouch for the tail", use)
			}
		})
	}
}

func mustStat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// TestCloseLeavesALargeCheckpointForASmallTail: Close rewrites a checkpoint
// once the tail bytes the opens since it have read, with the tail the next
// open reads, reach a CheckpointTailRatio-th of its size (the rent-or-buy rule of
// Writer.checkpointDue), and not before: until then the checkpoint keeps
// its bytes and the receipt covers the tail, and counts what was read.
func TestCloseLeavesALargeCheckpointForASmallTail(t *testing.T) {
	st, dir := openStore(t)
	const session = "s"
	appendUUIDs(t, st, session, 0, 3000, store.WriterOptions{Create: true, CheckpointMinEvents: 1})
	path := filepath.Join(dir, session+store.Ext)
	cp := readFile(t, path+store.CheckpointExt)
	covered := int64(len(readFile(t, path)))
	var read int64 // tail bytes read by the opens so far
	for n := 3000; ; n++ {
		read += int64(len(readFile(t, path))) - covered // the appender's open
		appendUUIDs(t, st, session, n, n+1, store.WriterOptions{CheckpointMinEvents: 1})
		tail := int64(len(readFile(t, path))) - covered
		due := (read+tail)*store.CheckpointTailRatio >= int64(len(cp))
		if rewritten := !bytes.Equal(readFile(t, path+store.CheckpointExt), cp); rewritten != due {
			t.Fatalf("after %d events (tail %d bytes, %d read, checkpoint %d): rewritten %v, want %v", n+1, tail, read, len(cp), rewritten, due)
		}
		w := openWriter(t, st, session, store.WriterOptions{CheckpointMinEvents: -1})
		use := w.OpenedFrom()
		w.Close()
		if due {
			if !use.Used || use.Lines != n+1 || use.TailLines != 0 {
				t.Fatalf("opened %+v after the rewrite", use)
			}
			if n == 3000 {
				t.Fatal("rewritten at the first close: the test shows nothing")
			}
			return
		}
		if !use.Used || use.TailLines != n+1-3000 || use.TailVouched != n+1-3000 {
			t.Fatalf("opened %+v after %d events", use, n+1)
		}
		read += tail // that open
	}
}

// TestNextEventIDsNeverReadBack: numbering new events in a session opened
// from a checkpoint of UUIDs never reads the older IDs back: an ID that
// only that read could prove free is skipped (a false maybe of the
// checkpoint's fingerprints, about one in 4,096; the IDs are fixed, so the
// test meets some on every run), and every ID given is free.
func TestNextEventIDsNeverReadBack(t *testing.T) {
	st, _ := openStore(t)
	const session, prior, want = "s", 3000, 50000
	appendUUIDs(t, st, session, 0, prior, store.WriterOptions{Create: true, CheckpointMinEvents: 1})
	w := openWriter(t, st, session, store.WriterOptions{CheckpointMinEvents: -1})
	ids := w.NextEventIDs(want)
	if w.FrozenIDBytes() == 0 {
		t.Fatal("numbering read the older IDs back")
	}
	var skipped []string
	next := prior
	for _, id := range ids {
		for ; fmt.Sprintf("evt-%03d", next) != id; next++ {
			skipped = append(skipped, fmt.Sprintf("evt-%03d", next))
			if next > prior+2*want {
				t.Fatalf("%q is not a next ID", id)
			}
		}
		next++
	}
	if len(skipped) == 0 {
		t.Fatal("no ID skipped: the test never meets a false maybe")
	}
	for _, id := range skipped {
		if w.HasEventID(id) {
			t.Fatalf("skipped %q is stored", id)
		}
	}
	if w.FrozenIDBytes() != 0 {
		t.Fatal("telling a skipped ID apart did not need the older IDs: it was no false maybe")
	}
	t.Logf("%d IDs, %d skipped: %v", len(ids), len(skipped), skipped)
}

// TestCheckpointIndexReadInPlace: whatever the length of what comes before
// it (a projection of 0 to 8 bytes shifts it), the ID index's words are
// written 8-byte aligned in the checkpoint and read so, and the index uses
// them where they were read.
func TestCheckpointIndexReadInPlace(t *testing.T) {
	for n := range 9 {
		st, _ := openStore(t)
		appendUUIDs(t, st, "s", 0, 300, store.WriterOptions{Create: true, CheckpointMinEvents: -1})
		w := openWriter(t, st, "s", store.WriterOptions{CheckpointMinEvents: -1})
		p := w.Position()
		if err := w.SetProjection(&store.Projection{Key: "k", Lines: p.Events, Offset: p.Size, Data: bytes.Repeat([]byte{'x'}, n)}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.WriteCheckpoint(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		w = openWriter(t, st, "s", store.WriterOptions{CheckpointMinEvents: -1})
		if !w.OpenedFrom().Used || !w.IDWordsInPlace() {
			t.Fatalf("projection of %d bytes: opened %+v, words in place %v", n, w.OpenedFrom(), w.IDWordsInPlace())
		}
		w.Close()
	}
}
