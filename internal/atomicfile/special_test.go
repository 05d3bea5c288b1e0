package atomicfile

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func writeOutput(path string, data []byte, perm os.FileMode) error {
	return WriteOutput(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// fifoReader makes a FIFO in a temporary directory and starts a reader on
// it. The returned function, called after the write under test, closes the
// test's own writer end (held so that the reader is never left waiting,
// whatever the write did) and returns what the reader got.
func fifoReader(t *testing.T) (string, func() string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(path) // waits for the writer below
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f) // until every writer has closed
		got <- string(b)
	}()
	keep, err := os.OpenFile(path, os.O_WRONLY, 0) // meets the reader's open
	if err != nil {
		t.Fatal(err)
	}
	return path, func() string {
		keep.Close()
		return <-got
	}
}

// TestWriteIntoFIFO: an output FIFO is written into, as cp would, and stays a
// FIFO; it is not replaced by a regular file.
func TestWriteIntoFIFO(t *testing.T) {
	path, read := fifoReader(t)
	err := writeOutput(path, []byte("through the pipe\n"), 0o600)
	got := read()
	if err != nil {
		t.Fatal(err)
	}
	if got != "through the pipe\n" {
		t.Errorf("the reader got %q", got)
	}
	if info, err := os.Lstat(path); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", info.Mode(), err)
	}
	assertOnly(t, filepath.Dir(path), "fifo")
}

// TestWriteThroughLinkToFIFO: a symbolic link to a FIFO (as /dev/stdout
// is, onto a pipe) is written through: neither the link nor the FIFO is
// replaced.
func TestWriteThroughLinkToFIFO(t *testing.T) {
	fifo, read := fifoReader(t)
	link := filepath.Join(t.TempDir(), "stdout")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	err := WriteOutput(link, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, "via the link")
		return err
	})
	got := read()
	if err != nil || got != "via the link" {
		t.Errorf("write through a link: %v, reader got %q", err, got)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", info.Mode(), err)
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", info.Mode(), err)
	}
}

// TestFailedFillWritesNothingIntoFIFO: what fill wrote before it failed
// does not reach the FIFO (normalize -o writes only a valid trace).
func TestFailedFillWritesNothingIntoFIFO(t *testing.T) {
	path, read := fifoReader(t)
	boom := io.ErrUnexpectedEOF
	err := WriteOutput(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if got := read(); err != boom || got != "" {
		t.Errorf("err %v, reader got %q; want %v and nothing", err, got, boom)
	}
}

// TestWriteIntoDevNull: a character device is written into. The test runs
// only once a FIFO is known to be written into (not replaced), so that no
// version of the code can make it replace the system's /dev/null.
func TestWriteIntoDevNull(t *testing.T) {
	path, read := fifoReader(t)
	writeOutput(path, []byte("x"), 0o644)
	read()
	if info, err := os.Lstat(path); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("a FIFO is replaced by a write (%v, %v): /dev/null is not tried", info.Mode(), err)
	}
	if info, err := os.Stat("/dev/null"); err != nil || info.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("/dev/null is no character device here: %v, %v", info.Mode(), err)
	}
	if err := writeOutput("/dev/null", []byte("discarded"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat("/dev/null")
	if err != nil || info.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a character device: %v, %v", info.Mode(), err)
	}
	if info.Mode().Perm() != 0o666 {
		t.Errorf("/dev/null's mode became %v", info.Mode().Perm())
	}
}

// TestWriteRefusesDirectorySocketAndDanglingLink: a directory, a socket
// and a symbolic link to nothing are neither replaced nor written; the
// error names the path and says what it is.
func TestWriteRefusesDirectorySocketAndDanglingLink(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "out.html")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	for path, what := range map[string]string{sub: "is a directory", sock: "is a socket", dangling: "is a symbolic link to a missing file"} {
		before, _ := os.Lstat(path)
		err := writeOutput(path, []byte("x"), 0o644)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), what) {
			t.Errorf("Write(%s): %v; want an error naming it and saying it %s", path, err, what)
		}
		if after, _ := os.Lstat(path); after == nil || after.Mode() != before.Mode() {
			t.Errorf("%s changed", path)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); !os.IsNotExist(err) {
		t.Errorf("the dangling link was written through: %v", err)
	}
	es, _ := os.ReadDir(dir)
	if len(es) != 3 {
		t.Errorf("%d entries left in the directory, want the 3 made", len(es))
	}
}

// TestWriteThroughLinkToRegularFile: a symbolic link to a regular file
// stays a link; the file it names is replaced atomically.
func TestWriteThroughLinkToRegularFile(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.txt"), filepath.Join(dir, "link.txt")
	os.WriteFile(real, []byte("old"), 0o644)
	if err := os.Symlink("real.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := writeOutput(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("the linked file holds %q", b)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", info.Mode(), err)
	}
}

// TestWriteFuncReplacesEntry: a file the program owns is replaced whatever
// entry sits under its name: a FIFO is replaced, never opened (so no
// reader is needed), and a link is replaced, not followed.
func TestWriteFuncReplacesEntry(t *testing.T) {
	dir := t.TempDir()
	fifo, link, victim := filepath.Join(dir, "fifo"), filepath.Join(dir, "link"), filepath.Join(dir, "victim")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(victim, []byte("keep"), 0o644)
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link} {
		if err := Write(p, []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
		if info, err := os.Lstat(p); err != nil || !info.Mode().IsRegular() {
			t.Errorf("%s is not replaced by a regular file: %v, %v", p, info.Mode(), err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the link was followed: its target holds %q", b)
	}
}
