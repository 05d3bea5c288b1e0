package store_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/store"
)

// entryKinds are the entries other than a regular file that can sit under
// a store file's name. make creates one at path; victim is a regular file
// outside the store that a followed link would reach.
var entryKinds = []struct {
	name string
	what string // how the error describes it
	make func(t *testing.T, path, victim string)
}{
	{"link to a file outside the store", "symbolic link", func(t *testing.T, path, victim string) { must(t, os.Symlink(victim, path)) }},
	{"dangling link", "symbolic link", func(t *testing.T, path, victim string) { must(t, os.Symlink(victim+".missing", path)) }},
	{"link to a directory", "symbolic link", func(t *testing.T, path, victim string) { must(t, os.Symlink(filepath.Dir(victim), path)) }},
	{"FIFO", "named pipe (FIFO)", func(t *testing.T, path, victim string) { must(t, unix.Mkfifo(path, 0o644)) }},
	{"directory", "directory", func(t *testing.T, path, victim string) { must(t, os.Mkdir(path, 0o755)) }},
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// victimFile writes a file outside the store that looks like a session
// with a torn tail, so that a repair through a link would truncate it.
func victimFile(t *testing.T) (string, []byte) {
	t.Helper()
	victim := filepath.Join(t.TempDir(), "victim")
	data := append(journal.EncodeGolden(twoRuns("v")[:3]), `{"torn`...)
	must(t, os.WriteFile(victim, data, 0o644))
	return victim, data
}

// untouched checks that the victim holds its bytes and that nothing was
// created beside it (a dangling link's target in particular).
func untouched(t *testing.T, victim string, data []byte) {
	t.Helper()
	if got := readFile(t, victim); !bytes.Equal(got, data) {
		t.Fatalf("the file outside the store changed:\n%q", got)
	}
	ents, _ := os.ReadDir(filepath.Dir(victim))
	if len(ents) != 1 {
		t.Fatalf("files appeared outside the store: %v", ents)
	}
}

// A session file that is a symbolic link, a FIFO or a directory is never
// opened, on any path (writer open with and without create and repair,
// check with and without repair, load, listing), and what a link points
// to is never read or written. Each path fails at once with ErrNotRegular
// naming the file and what it is.
func TestSessionFileNotRegular(t *testing.T) {
	for _, kind := range entryKinds {
		t.Run(kind.name, func(t *testing.T) {
			victim, data := victimFile(t)
			st, _ := openStore(t)
			path, _ := st.Path("v")
			kind.make(t, path, victim)
			for name, call := range map[string]func() error{
				"OpenWriter": func() error { _, err := st.OpenWriter("v", store.WriterOptions{}); return err },
				"OpenWriter create, repair": func() error {
					_, err := st.OpenWriter("v", store.WriterOptions{Create: true, Repair: true})
					return err
				},
				"Check":        func() error { _, err := st.Check("v", false); return err },
				"Check repair": func() error { _, err := st.Check("v", true); return err },
				"Load":         func() error { _, _, err := st.Load("v"); return err },
			} {
				err := call()
				if !errors.Is(err, store.ErrNotRegular) || !strings.Contains(err.Error(), path+": it is a "+kind.what+", not a regular file") {
					t.Errorf("%s: %v", name, err)
				}
			}
			// Listed, so that checking the whole store reports it too.
			if ids, err := st.Sessions(); err != nil || len(ids) != 1 || ids[0] != "v" {
				t.Errorf("Sessions: %v %v", ids, err)
			}
			untouched(t, victim, data)
		})
	}
}

// The attack, through the writer: a link planted under a
// session's name is refused, and appending to the session never reaches
// the file it points to.
func TestAppendThroughALinkIsRefused(t *testing.T) {
	victim, data := victimFile(t)
	st, _ := openStore(t)
	path, _ := st.Path("v")
	must(t, os.Symlink(victim, path))
	_, err := st.OpenWriter("v", store.WriterOptions{Create: true})
	if !errors.Is(err, store.ErrNotRegular) {
		t.Fatalf("OpenWriter: %v", err)
	}
	untouched(t, victim, data)
	if target, err := os.Readlink(path); err != nil || target != victim {
		t.Fatalf("the link itself changed: %q %v", target, err)
	}
}

// A checkpoint that is a link (to a file, or to /dev/zero), a FIFO, a
// directory or a huge sparse file is ignored without being read, with a
// message saying what it is, and the session opens from its file; the
// next checkpoint written replaces the entry itself, never what a link
// points to.
func TestCheckpointNotRegularOrTooLarge(t *testing.T) {
	kinds := append(entryKinds[:len(entryKinds):len(entryKinds)],
		struct {
			name string
			what string
			make func(t *testing.T, path, victim string)
		}{"link to /dev/zero", "symbolic link", func(t *testing.T, path, victim string) { must(t, os.Symlink("/dev/zero", path)) }},
		struct {
			name string
			what string
			make func(t *testing.T, path, victim string)
		}{"8 GB sparse file", "more than the 268435456 a checkpoint may hold", func(t *testing.T, path, victim string) {
			f, err := os.Create(path)
			must(t, err)
			must(t, f.Truncate(8<<30))
			must(t, f.Close())
		}},
	)
	evs := twoRuns("v")
	for _, kind := range kinds {
		t.Run(kind.name, func(t *testing.T) {
			victim, data := victimFile(t)
			st, _ := openStore(t)
			w := openWriter(t, st, "v", store.WriterOptions{Create: true})
			if _, err := w.AppendEvents(evs); err != nil {
				t.Fatal(err)
			}
			must(t, w.Close())
			cp := w.Path() + store.CheckpointExt
			kind.make(t, cp, victim)

			w, err := st.OpenWriter("v", store.WriterOptions{CheckpointMinEvents: 1})
			if err != nil {
				t.Fatal(err)
			}
			use := w.OpenedFrom()
			if use.Used || !strings.Contains(use.Ignored, kind.what) || w.Position().Events != len(evs) {
				t.Fatalf("opened %+v at %+v", use, w.Position())
			}
			_, err = w.WriteCheckpoint()
			w.Close()
			untouched(t, victim, data)
			if kind.what == "directory" {
				if err == nil {
					t.Fatal("a checkpoint was written over a directory")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Lstat(cp); err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("the checkpoint is not a regular file now: %v %v", fi.Mode(), err)
			}
			w = openWriter(t, st, "v", store.WriterOptions{})
			if !w.OpenedFrom().Used {
				t.Fatalf("the new checkpoint is not used: %+v", w.OpenedFrom())
			}
		})
	}
}

// A torn-tail side file name that is taken by a link (or a FIFO, or a
// directory) is skipped: the torn bytes go to the next free name, and
// nothing outside the store is touched.
func TestSideFileNotRegular(t *testing.T) {
	for _, kind := range entryKinds {
		t.Run(kind.name, func(t *testing.T) {
			victim, data := victimFile(t)
			st, dir := openStore(t)
			path, prefix := tornFile(t, dir, twoRuns("s")[:3], `{"half`)
			side := path + ".torn-" + strconv.Itoa(len(prefix))
			kind.make(t, side, victim)
			rep, err := st.Check("s", true)
			if err != nil || rep.SideFile != side+".1" {
				t.Fatalf("repair: %+v %v", rep, err)
			}
			if got := readFile(t, side+".1"); string(got) != `{"half` {
				t.Fatalf("side file %q", got)
			}
			untouched(t, victim, data)
		})
	}
}

// Checking a session whose file is a FIFO returns at once (no reader
// waits for a writer that never comes) and names the file.
func TestCheckFIFOSession(t *testing.T) {
	st, _ := openStore(t)
	path, _ := st.Path("f")
	must(t, unix.Mkfifo(path, 0o644))
	_, err := st.Check("f", false)
	if !errors.Is(err, store.ErrNotRegular) || !strings.HasPrefix(err.Error(), path+": it is a named pipe (FIFO)") {
		t.Fatalf("%v", err)
	}
}

// deadPID returns the process id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	must(t, cmd.Run())
	return cmd.Process.Pid
}

// The temporary files of killed writers (a checkpoint write, the creation
// of a session file) are removed when the session is next opened; a live
// writer's are left alone, and none is ever listed as a session.
func TestStaleTemporariesRemovedOnOpen(t *testing.T) {
	st, dir := openStore(t)
	evs := twoRuns("s")
	w := openWriter(t, st, "s", store.WriterOptions{Create: true})
	if _, err := w.AppendEvents(evs); err != nil {
		t.Fatal(err)
	}
	must(t, w.Close())
	dead, live := strconv.Itoa(deadPID(t)), strconv.Itoa(os.Getpid())
	stale := []string{".s.jsonl.checkpoint.tmp-" + dead + "-1", ".s.jsonl.tmp-" + dead + "-2"}
	keep := []string{".s.jsonl.checkpoint.tmp-" + live + "-3", ".other.jsonl.tmp-" + dead + "-4"}
	for _, name := range append(stale, keep...) {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte("partial"), 0o644))
	}
	if ids, err := st.Sessions(); err != nil || strings.Join(ids, ",") != "s" {
		t.Fatalf("Sessions: %v %v", ids, err)
	}
	openWriter(t, st, "s", store.WriterOptions{})
	for _, name := range stale {
		if _, err := os.Lstat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was not removed: %v", name, err)
		}
	}
	for _, name := range keep {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
}

// A repair on a full disk fails, again and again, without leaving an
// empty side file per attempt; once there is room, the torn bytes go to
// the first name. A side file that a killed repair left holding a prefix
// of the torn bytes is completed, not abandoned for a new name.
func TestSideFileOnAFullDisk(t *testing.T) {
	st, dir := openStore(t)
	path, prefix := tornFile(t, dir, twoRuns("s")[:3], `{"half an event`)
	all := readFile(t, path)
	restore := store.SetWriteSideFile(func(f *os.File, b []byte) (int, error) {
		n, _ := f.Write(b[:len(b)/2]) // part of it fits
		return n, syscall.ENOSPC
	})
	for range 3 {
		if _, err := st.Check("s", true); !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("repair on a full disk: %v", err)
		}
		if _, err := st.OpenWriter("s", store.WriterOptions{Repair: true}); !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("writer repair on a full disk: %v", err)
		}
	}
	restore()
	if sides, _ := filepath.Glob(path + ".torn-*"); len(sides) != 0 {
		t.Fatalf("side files left by failed repairs: %v", sides)
	}
	if !bytes.Equal(readFile(t, path), all) {
		t.Fatal("a failed repair changed the session file")
	}

	side := path + ".torn-" + strconv.Itoa(len(prefix))
	must(t, os.WriteFile(side, []byte(`{"half`), 0o644)) // a killed repair's
	rep, err := st.Check("s", true)
	if err != nil || rep.SideFile != side {
		t.Fatalf("repair: %+v %v", rep, err)
	}
	if got := readFile(t, side); string(got) != `{"half an event` {
		t.Fatalf("side file %q", got)
	}
}

// A checkpoint the reader would refuse is never written: a projection that
// makes it too large is left out (and said so), a state too large without
// one is ErrTooLarge and leaves the previous checkpoint as it was, and a
// projection over MaxProjectionBytes is refused when it is set.
func TestCheckpointNeverTooLarge(t *testing.T) {
	st, _ := openStore(t)
	w := openWriter(t, st, "s", store.WriterOptions{Create: true, CheckpointMinEvents: -1})
	if _, err := w.AppendEvents(twoRuns("s")); err != nil {
		t.Fatal(err)
	}
	cw, err := w.WriteCheckpoint()
	if err != nil || !cw.Written || cw.Projection {
		t.Fatalf("first checkpoint: %+v %v", cw, err)
	}
	size := int64(len(readFile(t, cw.Path)))
	pos := w.Position()
	huge := make([]byte, store.MaxProjectionBytes+1)
	if err := w.SetProjection(&store.Projection{Key: "k", Lines: pos.Events, Offset: pos.Size, Data: huge}); !errors.Is(err, store.ErrTooLarge) {
		t.Fatalf("a projection over the limit: %v", err)
	}

	defer store.SetCheckpointLimit(size + 100)()
	must(t, w.SetProjection(&store.Projection{Key: "k", Lines: pos.Events, Offset: pos.Size, Data: make([]byte, 200)}))
	cw, err = w.WriteCheckpoint()
	if err != nil || !cw.Written || cw.Projection || !cw.ProjectionDropped {
		t.Fatalf("a projection that does not fit: %+v %v", cw, err)
	}
	kept := readFile(t, cw.Path)
	if int64(len(kept)) > size+100 {
		t.Fatalf("a checkpoint of %d bytes was written", len(kept))
	}

	store.SetCheckpointLimit(size - 1)
	cw, err = w.WriteCheckpoint()
	if !errors.Is(err, store.ErrTooLarge) || cw.Written {
		t.Fatalf("a state that does not fit: %+v %v", cw, err)
	}
	if !bytes.Equal(readFile(t, cw.Path), kept) {
		t.Fatal("the previous checkpoint changed")
	}
	// The reader refuses a file over the limit without reading it.
	w.Close()
	w = openWriter(t, st, "s", store.WriterOptions{})
	if use := w.OpenedFrom(); use.Used || !strings.Contains(use.Ignored, "more than the") {
		t.Fatalf("opened %+v", use)
	}
}
