// Package atomicfile replaces a file atomically: the new content goes to a
// temporary file in the same directory, which is synced, closed, given its
// mode and renamed over the target; the directory is then synced so the
// rename itself is durable. A reader sees the old file or the new one,
// never a partial write, and a failed write leaves no temporary file.
// WriteOutput, for a path the user named as an output, replaces only a
// regular file: a device or a FIFO (/dev/null, /dev/stdout) is written
// into, and a directory or a socket is refused.
//
// A writer killed mid-write cannot remove its temporary file. Temporary
// names carry the writer's process id (.<name>.tmp-<pid>-<random>), so
// RemoveStale, called before the next write, removes exactly the leftovers
// of writers that no longer run and never a live writer's file.
package atomicfile

import (
	"bufio"
	"bytes"
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

	"github.com/tracecheck/tracecheck/internal/textsafe"
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
//
// It is for a file the program owns (a store's checkpoint, a golden, an
// artifact): whatever entry sits under path, a link, a FIFO or a device
// included, is replaced by the new file, and a link is never followed. A
// path the user named as an output goes through WriteOutput instead.
func WriteFunc(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	return replace(path, path, perm, fill)
}

// WriteOutput writes what fill writes to path, a file the user named as
// an output (-o OUT), as WriteFunc does when path is a regular file or
// missing: replaced or created atomically, with mode perm. Nothing else
// is ever replaced. A symbolic link stays: the regular file it names is
// replaced (a link to nothing is refused, as cp refuses it). A character
// device or a FIFO (/dev/null, a terminal, a pipe, /dev/stdout onto
// either) is written into, as cp would: opened write-only, never created,
// truncated or chmod-ed, and given what fill wrote once fill has returned
// without an error (so a failed fill writes nothing there either; until
// then it is held in memory). A FIFO's open waits for its reader, as cp's
// does. A directory, a socket or a block device is refused with an error
// naming path.
func WriteOutput(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	target, into, err := destination(path)
	if err != nil {
		return err
	}
	if into {
		return writeInto(path, fill)
	}
	return replace(path, target, perm, fill)
}

// destination says how WriteOutput writes path: replaced atomically at
// target (path itself, or the regular file a symbolic link path resolves
// to), or written into (into: a device, a FIFO, or a regular file behind a
// link the file system cannot spell out, as /proc/self/fd/1 onto a deleted
// file).
func destination(path string) (target string, into bool, err error) {
	link, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("write %s: %w", textsafe.Quote(path), err)
	}
	info := link
	isLink := link.Mode()&fs.ModeSymlink != 0
	if isLink {
		if info, err = os.Stat(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", false, refuse(path, "is a symbolic link to a missing file: it is not written through")
			}
			return "", false, fmt.Errorf("write %s: %w", textsafe.Quote(path), err)
		}
	}
	m := info.Mode()
	switch {
	case m.IsRegular() && !isLink:
		return path, false, nil
	case m.IsRegular():
		if real, err := filepath.EvalSymlinks(path); err == nil {
			if ri, err := os.Stat(real); err == nil && os.SameFile(info, ri) {
				return real, false, nil
			}
		}
		return path, true, nil
	case m&fs.ModeCharDevice != 0, m&fs.ModeNamedPipe != 0:
		return path, true, nil
	case m.IsDir():
		return "", false, refuse(path, "is a directory")
	case m&fs.ModeSocket != 0:
		return "", false, refuse(path, "is a socket")
	case m&fs.ModeDevice != 0:
		return "", false, refuse(path, "is a block device")
	default:
		return "", false, refuse(path, "is not a regular file, a character device or a FIFO")
	}
}

// refuse is the error of a path WriteOutput neither replaces nor writes.
func refuse(path, what string) error {
	return fmt.Errorf("write %s: it %s: only a regular file is replaced (or a missing one created), only a character device or a FIFO written into", textsafe.Quote(path), what)
}

// writeInto writes what fill writes into path, which exists and is not
// replaced: opened write-only without O_CREATE (a regular file behind a
// link is truncated first, a device or a FIFO is not), once fill is done.
func writeInto(path string, fill func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := fill(&buf); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", textsafe.Quote(path), err)
	}
	info, err := f.Stat()
	if err == nil && info.Mode().IsRegular() {
		err = f.Truncate(0)
	} else if err == nil && info.Mode()&(fs.ModeCharDevice|fs.ModeNamedPipe) == 0 {
		err = fmt.Errorf("it became a %v while it was opened", info.Mode().Type())
	}
	if err == nil {
		_, err = f.Write(buf.Bytes())
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", textsafe.Quote(path), err)
	}
	return nil
}

// replace writes what fill writes to a temporary file beside target and
// renames it over target; errors name path, the name the caller gave.
func replace(path, target string, perm fs.FileMode, fill func(io.Writer) error) error {
	dir := filepath.Dir(target)
	tmp, err := os.CreateTemp(dir, tempPrefix(target)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", textsafe.Quote(path), err)
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
		err = os.Rename(tmp.Name(), target)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", textsafe.Quote(path), err)
	}
	renamed = true
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("write %s: sync directory: %w", textsafe.Quote(path), err)
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
