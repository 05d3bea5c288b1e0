package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/store"
)

// cpSession writes a session of three runs (1,500, 10 and 500 events; the
// first run holds IDs that are not evt-%03d too) through a writer that
// checkpoints on Close, and returns the events and the store.
func cpSession(t testing.TB) (*store.Store, string, []journal.Event) {
	t.Helper()
	st, dir := openStore(t)
	var evs []journal.Event
	n := 0
	prev := ""
	for i, size := range []int{1500, 10, 500} {
		id := fmt.Sprintf("run-%d", i+1)
		r := newRun("s", id, &n)
		if prev == "" {
			evs = append(evs, r.next("session.start", start()))
		} else {
			evs = append(evs, r.next("session.start", resumeStart(prev)))
		}
		for r.seq < int64(size) {
			e := r.next("user.message", user(fmt.Sprintf("message %d é\n\"q\"", n)))
			if n%300 == 7 {
				e.EventID = fmt.Sprintf("custom-%d", n)
				r.last = e.EventID
			}
			evs = append(evs, e)
		}
		prev = id
	}
	w, err := st.OpenWriter("s", store.WriterOptions{Create: true, CheckpointMinEvents: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AppendEvents(evs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Path() + store.CheckpointExt); err != nil {
		t.Fatalf("no checkpoint after Close: %v", err)
	}
	return st, dir, evs
}

// tailEvents continues the last run of evs with n user messages.
func tailEvents(evs []journal.Event, n int) []journal.Event {
	last := evs[len(evs)-1]
	ids := len(evs)
	r := newRun("s", last.Provenance.RunID, &ids)
	r.seq, r.last = last.Sequence+1, last.EventID
	var out []journal.Event
	for range n {
		out = append(out, r.next("user.message", user("tail")))
	}
	return out
}

// editByte changes one letter inside the file at or after off: a letter
// of a message, so the line still parses.
func editByte(t testing.TB, path string, off int64) {
	t.Helper()
	data := readFile(t, path)
	i := bytes.Index(data[off:], []byte("message "))
	if i < 0 {
		t.Fatalf("no message text after offset %d", off)
	}
	data[off+int64(i)] = 'M'
	if err := os.WriteFile(path, data, 0o644); err != nil { // in place: same inode
		t.Fatal(err)
	}
}

// opened is what a writer saw on open and did afterwards: compared between
// an open from the checkpoint and an open of a copy without it.
type opened struct {
	err   string
	pos   store.Position
	runs  []store.Run
	next  string
	acks  []string
	bytes []byte
}

// exercise opens session s of st and retries old and recent events,
// conflicts, and appends new ones.
func exercise(t *testing.T, st *store.Store, evs []journal.Event, opts store.WriterOptions) (opened, store.CheckpointUse) {
	t.Helper()
	var o opened
	w, err := st.OpenWriter("s", opts)
	if err != nil {
		o.err = err.Error()
		return o, store.CheckpointUse{}
	}
	defer w.Close()
	o.pos, o.runs, o.next = w.Position(), w.Runs(), w.NextEventID()
	ack := func(a store.Ack, err error) {
		o.acks = append(o.acks, fmt.Sprintf("%s line %d offset %d dup %v err %v", a.EventID, a.Line, a.Offset, a.Duplicate, err))
	}
	// Retries: the first event, an old custom ID, an event before the
	// recent window, the last run's first event, the last event.
	for _, i := range []int{0, 7, 300, 1510, len(evs) - 1} {
		if i < len(evs) {
			ack(w.AppendEvent(&evs[i]))
			c := evs[i]
			c.Payload = user("changed")
			ack(w.AppendEvent(&c))
		}
	}
	acks, err := w.AppendEvents(tailEvents(evs, 3))
	for _, a := range acks {
		ack(a, nil)
	}
	ack(store.Ack{}, err)
	o.bytes = readFile(t, w.Path())
	return o, w.OpenedFrom()
}

// A writer opened from its checkpoint (and the tail after it) behaves
// exactly as one that reads the whole file; a checkpoint that does not
// match the file is detected and ignored.
func TestCheckpointOpen(t *testing.T) {
	tests := []struct {
		name string
		// change alters the session dir after the checkpoint was written;
		// it returns the events the file now holds.
		change func(t *testing.T, st *store.Store, path string, evs []journal.Event) []journal.Event
		used   bool // the checkpoint is used
		tail   int  // events read after it
		opts   store.WriterOptions
	}{
		{"up to date", nil, true, 0, store.WriterOptions{}},
		{"tail appended by a writer that did not checkpoint", func(t *testing.T, st *store.Store, path string, evs []journal.Event) []journal.Event {
			w := openWriter(t, st, "s", store.WriterOptions{NoCheckpoint: true})
			tail := tailEvents(evs, 40)
			if _, err := w.AppendEvents(tail); err != nil {
				t.Fatal(err)
			}
			w.Close()
			return append(evs, tail...)
		}, true, 40, store.WriterOptions{}},
		{"older checkpoint restored", func(t *testing.T, st *store.Store, path string, evs []journal.Event) []journal.Event {
			old := readFile(t, path+store.CheckpointExt)
			w := openWriter(t, st, "s", store.WriterOptions{CheckpointMinEvents: 1})
			tail := tailEvents(evs, 5)
			if _, err := w.AppendEvents(tail); err != nil {
				t.Fatal(err)
			}
			w.Close()
			if err := os.WriteFile(path+store.CheckpointExt, old, 0o644); err != nil {
				t.Fatal(err)
			}
			return append(evs, tail...)
		}, true, 5, store.WriterOptions{}},
		{"torn tail after it, repaired", func(t *testing.T, st *store.Store, path string, evs []journal.Event) []journal.Event {
			appendBytes(t, path, line(tailEvents(evs, 1)[0])[:50])
			return evs
		}, true, 0, store.WriterOptions{Repair: true}},
		{"torn tail after it, not repaired", func(t *testing.T, st *store.Store, path string, evs []journal.Event) []journal.Event {
			appendBytes(t, path, line(tailEvents(evs, 1)[0])[:50])
			return evs
		}, false, 0, store.WriterOptions{}},
		{"corrupt line after it", func(t *testing.T, st *store.Store, path string, evs []journal.Event) []journal.Event {
			appendBytes(t, path, []byte("{\"not\":\"an event\"}\n"))
			return evs
		}, false, 0, store.WriterOptions{}},
		{"duplicate of a covered event appended", func(t *testing.T, st *store.Store, path string, evs []journal.Event) []journal.Event {
			appendBytes(t, path, append(line(evs[3]), '\n'))
			return evs
		}, false, 0, store.WriterOptions{}},
		{"truncated to an earlier line", func(t *testing.T, st *store.Store, path string, evs []journal.Event) []journal.Event {
			data := readFile(t, path)
			cut := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
			if err := os.Truncate(path, int64(cut)); err != nil {
				t.Fatal(err)
			}
			return evs[:len(evs)-1]
		}, false, 0, store.WriterOptions{}},
		{"last line edited", func(t *testing.T, st *store.Store, path string, evs []journal.Event) []journal.Event {
			data := readFile(t, path)
			editByte(t, path, int64(bytes.LastIndexByte(data[:len(data)-1], '\n')+1))
			return nil
		}, false, 0, store.WriterOptions{}},
		{"first line edited", func(t *testing.T, st *store.Store, path string, evs []journal.Event) []journal.Event {
			data := readFile(t, path)
			data[bytes.Index(data, []byte(`"max_turns":8`))+12] = '9'
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			return nil
		}, false, 0, store.WriterOptions{}},
		{"sampled block edited", func(t *testing.T, st *store.Store, path string, evs []journal.Event) []journal.Event {
			size := int64(len(readFile(t, path)))
			editByte(t, path, 7*(size-4096)/15) // the start of the eighth sampled block
			return nil
		}, false, 0, store.WriterOptions{}},
		{"file replaced by a copy", func(t *testing.T, st *store.Store, path string, evs []journal.Event) []journal.Event {
			data := readFile(t, path)
			if err := os.WriteFile(path+".new", data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(path+".new", path); err != nil {
				t.Fatal(err)
			}
			return evs
		}, false, 0, store.WriterOptions{}},
		{"checkpoint damaged", func(t *testing.T, st *store.Store, path string, evs []journal.Event) []journal.Event {
			cp := readFile(t, path+store.CheckpointExt)
			cp[len(cp)/2] ^= 1
			if err := os.WriteFile(path+store.CheckpointExt, cp, 0o644); err != nil {
				t.Fatal(err)
			}
			return evs
		}, false, 0, store.WriterOptions{}},
		{"checkpoint is garbage", func(t *testing.T, st *store.Store, path string, evs []journal.Event) []journal.Event {
			if err := os.WriteFile(path+store.CheckpointExt, []byte("garbage"), 0o644); err != nil {
				t.Fatal(err)
			}
			return evs
		}, false, 0, store.WriterOptions{}},
		{"NoCheckpoint", nil, false, 0, store.WriterOptions{NoCheckpoint: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, _, evs := cpSession(t)
			path, _ := st.Path("s")
			if tt.change != nil {
				if got := tt.change(t, st, path, evs); got != nil {
					evs = got
				}
			}
			// The same file without its checkpoint, in another store.
			ref, refDir := openStore(t)
			if err := os.WriteFile(filepath.Join(refDir, filepath.Base(path)), readFile(t, path), 0o644); err != nil {
				t.Fatal(err)
			}
			want, _ := exercise(t, ref, evs, store.WriterOptions{Repair: tt.opts.Repair, NoCheckpoint: true})
			got, use := exercise(t, st, evs, tt.opts)
			if got.err != "" || want.err != "" {
				got.err = strings.ReplaceAll(got.err, filepath.Dir(path), "DIR")
				want.err = strings.ReplaceAll(want.err, refDir, "DIR")
				if got.err != want.err {
					t.Fatalf("open error\n got %s\nwant %s", got.err, want.err)
				}
				return
			}
			if use.Used != tt.used || (tt.used && use.TailLines != tt.tail) {
				t.Fatalf("OpenedFrom %+v, want used %v with a tail of %d", use, tt.used, tt.tail)
			}
			if !tt.used && tt.change != nil && use.Ignored == "" {
				t.Fatalf("OpenedFrom %+v: no reason given for ignoring the checkpoint", use)
			}
			t.Logf("%+v", use)
			if fmt.Sprint(got.pos, got.runs, got.next) != fmt.Sprint(want.pos, want.runs, want.next) {
				t.Fatalf("state\n got %v %v %s\nwant %v %v %s", got.pos, got.runs, got.next, want.pos, want.runs, want.next)
			}
			if g, w := strings.Join(got.acks, "\n"), strings.Join(want.acks, "\n"); g != w {
				t.Fatalf("acks\n got %s\nwant %s", g, w)
			}
			if !bytes.Equal(got.bytes, want.bytes) {
				t.Fatal("the two writers wrote different bytes")
			}
		})
	}
}

func appendBytes(t testing.TB, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// A checkpoint keeps the caller's projection, which must sit on a line
// boundary, and EachEvent reads from there.
func TestCheckpointProjection(t *testing.T) {
	st, _, evs := cpSession(t)
	w := openWriter(t, st, "s", store.WriterOptions{CheckpointMinEvents: 1})
	if p := w.Projection(); p != nil {
		t.Fatalf("projection %+v before any was set", p)
	}
	pos := w.Position()
	if err := w.SetProjection(&store.Projection{Key: "k", Lines: pos.Events, Offset: pos.Size - 1}); err == nil {
		t.Fatal("a projection off a line boundary was accepted")
	}
	if err := w.SetProjection(&store.Projection{Key: "k", Lines: pos.Events, Offset: pos.Size, Data: []byte("state")}); err != nil {
		t.Fatal(err)
	}
	tail := tailEvents(evs, 3)
	if _, err := w.AppendEvents(tail); err != nil {
		t.Fatal(err)
	}
	w.Close()

	w = openWriter(t, st, "s", store.WriterOptions{})
	p := w.Projection()
	if p == nil || p.Key != "k" || string(p.Data) != "state" || p.Lines != pos.Events || p.Offset != pos.Size {
		t.Fatalf("projection %+v", p)
	}
	if u := w.OpenedFrom(); !u.Used || u.TailLines != 0 || u.Lines != len(evs)+3 {
		t.Fatalf("OpenedFrom %+v", u)
	}
	var got []string
	if err := w.EachEvent(p.Offset, func(e *journal.Event) error {
		got = append(got, string(e.AppendGolden(nil)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := string(journal.EncodeGolden(tail)); strings.Join(got, "") != want {
		t.Fatalf("EachEvent read\n%s\nwant\n%s", strings.Join(got, ""), want)
	}
	if err := w.EachEvent(p.Offset-1, func(*journal.Event) error { return nil }); err == nil {
		t.Fatal("EachEvent from the middle of a line")
	}
	stop := errors.New("stop")
	if err := w.EachEvent(0, func(*journal.Event) error { return stop }); err != stop {
		t.Fatalf("EachEvent returned %v, want fn's error", err)
	}
}
