// Package regularfile reads the small files tracecheck takes from a path
// the user gave (a scenario file, a case file, a trace a command wrote):
// only a regular file, and only up to a size the caller names. A path that
// names a directory, a FIFO or a device is refused before it is opened, so
// it can neither hang the reader nor fill its memory, and a file that grows
// past the bound while it is read is refused too.
package regularfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is why a path that is not a regular file is refused.
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError says a file holds more bytes than its reader accepts.
type TooLargeError struct {
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%d bytes, more than the %d it may hold", e.Size, e.Max)
}

// Read returns the content of the regular file at path, which may hold at
// most max bytes. Its errors are *fs.PathError values (Op "read" for the
// two refusals) whose Err is ErrNotRegular, a *TooLargeError, or what the
// system said (fs.ErrNotExist, fs.ErrPermission, ...).
func Read(path string, max int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	if info.Size() > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Size: info.Size(), Max: max}}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(data)) > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Size: int64(len(data)), Max: max}}
	}
	return data, nil
}
