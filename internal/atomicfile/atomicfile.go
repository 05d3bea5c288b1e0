// Package atomicfile replaces a file atomically: the new content goes to a
// temporary file in the same directory, which is synced, closed, given its
// mode and renamed over the target; the directory is then synced so the
// rename itself is durable. A reader sees the old file or the new one,
// never a partial write, and a failed write leaves no temporary file.
//
// A writer killed mid-write cannot remove its temporary file. Temporary
// names carry the writer's process id (.<name>.tmp-<pid>-<random>), so
// RemoveStale, called before the next write, removes exactly the leftovers
// of writers that no longer run and never a live writer's file.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Write replaces path with data, atomically, and gives it mode perm.
func Write(path string, data []byte, perm fs.FileMode) error {
	return WriteFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc replaces path with what fill writes, atomically, and gives it
// mode perm. fill writes to a buffered writer, flushed before the sync; an
// error from fill abandons the write and is returned as is.
func WriteFunc(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPrefix(path)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	renamed := false
	defer func() {
		if !renamed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 1<<20)
	if err := fill(w); err != nil {
		return err
	}
	err = w.Flush()
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		err = tmp.Close()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	renamed = true
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("write %s: sync directory: %w", path, err)
	}
	return nil
}

// Rename renames oldpath over newpath (one atomic step when both are in
// one directory) and syncs newpath's directory, so that the rename is
// durable before Rename returns.
func Rename(oldpath, newpath string) error {
	if err := os.Rename(oldpath, newpath); err != nil {
		return err
	}
	if err := SyncDir(filepath.Dir(newpath)); err != nil {
		return fmt.Errorf("rename %s: sync directory: %w", newpath, err)
	}
	return nil
}

// SyncDir fsyncs a directory, making the entries created, renamed or
// removed in it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// CreateTemp creates a new, empty temporary file for path, in path's
// directory, named as Write names its temporaries
// (.<name>.tmp-<pid>-<random>), so that RemoveStale removes it once this
// process is gone. It is opened with flag plus O_CREATE|O_EXCL (never an
// existing file, never through a link) and mode perm. It is for a caller
// that puts the file into place itself, for instance with link(2), which
// unlike a rename never replaces an existing file; the caller removes the
// temporary name.
func CreateTemp(path string, flag int, perm fs.FileMode) (*os.File, error) {
	prefix := filepath.Join(filepath.Dir(path), tempPrefix(path)+strconv.Itoa(os.Getpid())+"-")
	for try := 0; ; try++ {
		name := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		f, err := os.OpenFile(name, flag|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 1000 {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("create a temporary file for %s: %w", path, err)
		}
		return f, nil
	}
}

// IsTemp reports whether name (a base name) is a temporary file of Write or
// WriteFunc, of any target; directory listings use it to skip them.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}

// RemoveStale removes the temporary files that writers of path left when
// they were killed: those whose process id no longer runs. It returns the
// names it removed; a temporary file of a live process is left alone.
func RemoveStale(path string) ([]string, error) {
	dir := filepath.Dir(path)
	prefix := tempPrefix(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || alive(pid) {
			continue
		}
		full := filepath.Join(dir, name)
		if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
			return removed, err
		}
		removed = append(removed, full)
	}
	return removed, nil
}

// alive reports whether process pid exists (signal 0 checks without
// sending; EPERM means it exists under another user).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
