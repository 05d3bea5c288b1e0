package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fifoReader makes a FIFO in a temporary directory with a reader on it;
// the function it returns, called after the command under test, closes
// the test's own writer end (which keeps the reader from waiting forever,
// whatever the command did) and returns what the reader got.
func fifoReader(t *testing.T) (string, func() string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	keep, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return path, func() string {
		keep.Close()
		return <-got
	}
}

// TestOutputIntoFIFOAndDevice: normalize -o and view -o onto a FIFO write
// into it what they print on standard output, and leave it a FIFO; onto
// /dev/null (tried only once the FIFO is known not to be replaced, so no
// version of the code can replace the system's /dev/null) they leave a
// character device; onto a directory they fail naming it.
func TestOutputIntoFIFOAndDevice(t *testing.T) {
	for _, cmd := range [][]string{{"normalize", s07}, {"view", s07}} {
		t.Run(cmd[0], func(t *testing.T) {
			_, want, _ := runCmd(t, "", cmd...)
			fifo, read := fifoReader(t)
			code, _, stderr := runCmd(t, "", append(cmd, "-o", fifo)...)
			got := read()
			if code != exitOK || got != want {
				t.Errorf("-o FIFO: exit %d, stderr %q; the reader got %d bytes, want the %d of standard output", code, stderr, len(got), len(want))
			}
			if info, err := os.Lstat(fifo); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
				t.Fatalf("-o FIFO replaced the FIFO (%v, %v): /dev/null is not tried", info.Mode(), err)
			}

			if code, _, stderr := runCmd(t, "", append(cmd, "-o", "/dev/null")...); code != exitOK {
				t.Errorf("-o /dev/null: exit %d, %s", code, stderr)
			}
			if info, err := os.Stat("/dev/null"); err != nil || info.Mode()&os.ModeCharDevice == 0 {
				t.Fatalf("/dev/null is no longer a character device: %v, %v", info.Mode(), err)
			}

			dir := t.TempDir()
			code, _, stderr = runCmd(t, "", append(cmd, "-o", dir)...)
			// Refused before any work, as a usage error.
			if code != exitUsage || !strings.Contains(stderr, dir) || !strings.Contains(stderr, "is a directory") {
				t.Errorf("-o DIR: exit %d, %q", code, stderr)
			}
		})
	}
}
