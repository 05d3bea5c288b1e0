package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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
