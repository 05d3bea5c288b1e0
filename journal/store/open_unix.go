//go:build unix

package store

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// FileTypeError is the cause of an ErrNotRegular error: the store opens
// session files, checkpoints and torn-tail side files only when they are
// regular files, and never through a symbolic link, so that nothing in the
// store directory can make it read or write a file elsewhere, wait on a
// FIFO, or read a device.
type FileTypeError struct {
	// Type says what the name is: "a symbolic link", "a named pipe (FIFO)",
	// "a directory", "a character device", "a block device", "a socket".
	Type string
}

func (e *FileTypeError) Error() string {
	return "it is " + e.Type + ", not a regular file (the store opens only regular files and never follows a link)"
}

// openFile opens path (flag as os.OpenFile's) when its last component is a
// regular file: O_NOFOLLOW refuses a symbolic link, and O_NONBLOCK makes
// opening a FIFO return at once instead of waiting for its other end; the
// type is then checked on the open descriptor (no race with a rename), and
// O_NONBLOCK is cleared again. Anything but a regular file is a
// *fs.PathError whose Err is a *FileTypeError. With O_CREATE|O_EXCL the
// new file is regular by construction.
func openFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(path, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		if err == unix.EISDIR { // a directory opened for writing
			return nil, &fs.PathError{Op: "open", Path: path, Err: &FileTypeError{Type: "a directory"}}
		}
		if err == unix.ELOOP {
			// ELOOP with O_NOFOLLOW: the last component is a link (or
			// the path holds too many links, which Lstat tells apart).
			if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return nil, &fs.PathError{Op: "open", Path: path, Err: &FileTypeError{Type: "a symbolic link"}}
			}
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	if t := st.Mode & unix.S_IFMT; t != unix.S_IFREG {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: &FileTypeError{Type: typeName(t)}}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

func typeName(t uint32) string {
	switch t {
	case unix.S_IFLNK:
		return "a symbolic link"
	case unix.S_IFIFO:
		return "a named pipe (FIFO)"
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFCHR:
		return "a character device"
	case unix.S_IFBLK:
		return "a block device"
	case unix.S_IFSOCK:
		return "a socket"
	}
	return "of an unknown type"
}
