package regularfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(small, 3); err != nil || string(got) != "{}\n" {
		t.Errorf("Read(small, 3) = %q, %v", got, err)
	}
	var tl *TooLargeError
	if _, err := Read(small, 2); !errors.As(err, &tl) || tl.Size != 3 || tl.Max != 2 {
		t.Errorf("Read(small, 2): %v, want a TooLargeError of 3 bytes over 2", err)
	}
	for _, p := range []string{dir, fifo, "/dev/zero"} {
		var pe *fs.PathError
		if _, err := Read(p, 1<<20); !errors.Is(err, ErrNotRegular) || !errors.As(err, &pe) || pe.Path != p {
			t.Errorf("Read(%s): %v, want ErrNotRegular naming it", p, err)
		}
	}
	if _, err := Read(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read(missing): %v, want fs.ErrNotExist", err)
	}
}
