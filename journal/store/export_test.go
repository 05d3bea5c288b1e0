package store

import "os"

// SetWriteFile replaces the write(2) of a batch for a test, returning a
// function that restores it.
func SetWriteFile(fn func(f *os.File, b []byte) (int, error)) (restore func()) {
	old := writeFile
	writeFile = fn
	return func() { writeFile = old }
}
