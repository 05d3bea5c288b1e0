// Package term answers whether a file is a terminal and reads single key
// presses from one: in key mode, a key reaches the program as soon as it is
// pressed (no Enter), is not echoed, and Ctrl-C and Ctrl-D arrive as the
// bytes 3 and 4 instead of a signal, so the caller can stop cleanly and
// the terminal is always given back as it was.
package term

import "os"

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return isTerminal(f.Fd()) }

// KeyMode puts the terminal f in key mode and returns the function that
// restores its previous mode.
func KeyMode(f *os.File) (restore func() error, err error) { return keyMode(f.Fd()) }
