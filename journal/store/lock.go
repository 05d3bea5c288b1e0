//go:build unix

package store

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"

	"github.com/tracecheck/tracecheck/internal/atomicfile"
)

// errWouldBlock is returned by lock when another open file holds a
// conflicting lock.
var errWouldBlock = errors.New("lock held elsewhere")

// lock takes an flock(2) on f without waiting: exclusive for a writer,
// shared for a reader. The lock lasts until f is closed.
func lock(f *os.File, exclusive bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := raw.Control(func(fd uintptr) {
		for {
			lerr = unix.Flock(int(fd), how|unix.LOCK_NB)
			if lerr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if lerr == unix.EWOULDBLOCK {
		return errWouldBlock
	}
	return lerr
}

// syncDir fsyncs a directory, making the entries created in it durable
// (atomicfile.SyncDir).
func syncDir(dir string) error { return atomicfile.SyncDir(dir) }
