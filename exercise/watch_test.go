package exercise

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

func TestDirStateChanged(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap := func() DirState {
		t.Helper()
		s, err := SnapshotDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	write("subject.py", "print(1)")
	write("pkg/util.py", "x = 1")
	base := snap()
	tests := []struct {
		name string
		do   func()
		want []string
	}{
		{"nothing", func() {}, nil},
		{"hidden, node_modules and __pycache__ do not count", func() {
			write(".swp", "x")
			write(".git/HEAD", "x")
			write("node_modules/m.js", "x")
			write("__pycache__/s.pyc", "x")
		}, nil},
		{"an edit", func() { write("subject.py", "print(22)") }, []string{"subject.py"}},
		{"a new file", func() { write("pkg/new.py", "") }, []string{"pkg/new.py", "subject.py"}},
		{"a removed file", func() { os.Remove(filepath.Join(dir, "pkg", "util.py")) }, []string{"pkg/new.py", "pkg/util.py", "subject.py"}},
	}
	for _, tt := range tests {
		tt.do()
		got := base.Changed(snap())
		for i := range got {
			got[i], _ = filepath.Rel(dir, got[i])
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: changed %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestSnapshotDirTooManyFiles(t *testing.T) {
	dir := t.TempDir()
	for i := range MaxWatchedFiles + 1 {
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var tm *TooManyFilesError
	if _, err := SnapshotDir(dir); !errors.As(err, &tm) {
		t.Errorf("%d files: %v, want TooManyFilesError", MaxWatchedFiles+1, err)
	}
}
