//go:build unix

package store

import (
	"os"
	"syscall"
)

// fileID returns the device and inode of an open file: a checkpoint names
// the file it was made from, so a file replaced under the same name (a
// restore, a copy, a rewrite through rename) is not trusted.
func fileID(f *os.File) (dev, ino uint64, size int64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, 0, err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		dev, ino = uint64(st.Dev), uint64(st.Ino)
	}
	return dev, ino, fi.Size(), nil
}
