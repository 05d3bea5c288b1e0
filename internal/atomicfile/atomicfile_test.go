package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new" {
		t.Fatalf("read %q, %v; want %q", got, err, "new")
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", info.Mode().Perm())
	}
	assertOnly(t, dir, "f.txt")
}

func TestWriteFuncFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	os.WriteFile(path, []byte("old"), 0o644)
	boom := errors.New("boom")
	err := WriteFunc(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if err != boom {
		t.Fatalf("err %v, want %v", err, boom)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("file %q after a failed write, want %q", got, "old")
	}
	assertOnly(t, dir, "f.txt")
}

func TestWriteErrorNamesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "f.txt")
	err := Write(path, nil, 0o644)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err %v, want one naming %s", err, path)
	}
}

func assertOnly(t *testing.T, dir, name string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Name() != name {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only %s", names, name)
	}
}

func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "x.checkpoint")
	// A writer that was killed: a pid that cannot run (above pid_max).
	dead := filepath.Join(dir, ".x.checkpoint.tmp-2147483646-123")
	// A live writer: this very process.
	live := filepath.Join(dir, ".x.checkpoint.tmp-"+strconv.Itoa(os.Getpid())+"-456")
	// Another target's leftover and an unrelated file are not ours to touch.
	other := filepath.Join(dir, ".y.checkpoint.tmp-2147483646-1")
	plain := filepath.Join(dir, "x.checkpoint.tmp-2147483646-1")
	for _, p := range []string{dead, live, other, plain} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := RemoveStale(target)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != dead {
		t.Errorf("removed %q, want only %q", removed, dead)
	}
	for _, p := range []string{live, other, plain} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if !IsTemp(filepath.Base(live)) || IsTemp("x.checkpoint") {
		t.Error("IsTemp misjudges names")
	}
}

func TestRename(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "a.new"), filepath.Join(dir, "a")
	os.WriteFile(from, []byte("new"), 0o644)
	os.WriteFile(to, []byte("old"), 0o644)
	if err := Rename(from, to); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(to); err != nil || string(b) != "new" {
		t.Errorf("after Rename: %q, %v", b, err)
	}
	if _, err := os.Stat(from); !os.IsNotExist(err) {
		t.Errorf("the old name is still there: %v", err)
	}
	if err := Rename(from, to); err == nil {
		t.Error("renaming a missing file succeeded")
	}
}
