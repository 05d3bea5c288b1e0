// Package term answers whether a file is a terminal and reads single key
// presses from one: in key mode, a key reaches the program as soon as it is
// pressed (no Enter) and is not echoed, so typed characters never mix into
// the program's output. KeyMode also turns the terminal's signal keys off:
// Ctrl-C and Ctrl-D arrive as the bytes 3 and 4 instead of a signal, so
// the caller can stop cleanly. KeyModeWithSignals leaves them on (Ctrl-C
// still interrupts, even while the program is busy and reads no key).
//
// Either way the terminal is given back as it was: by the restore function
// (call it on every way out; calling it again does nothing), and, until
// then, when the process gets SIGINT, SIGTERM, SIGHUP or SIGQUIT: the mode
// is restored first, then the signal is delivered again as it would have
// been without key mode (by default it ends the process). A signal the
// process was started with ignored stays ignored.
package term

import "os"

// IsTerminal reports whether f is a terminal. (It leaves f as it is: a
// file the runtime polls stays so, and a Close still ends a pending Read.)
func IsTerminal(f *os.File) bool { return isTerminal(f) }

// KeyMode puts the terminal f in key mode, with its signal keys off, and
// returns the function that restores its previous mode.
func KeyMode(f *os.File) (restore func() error, err error) { return keyMode(f, false) }

// KeyModeWithSignals puts the terminal f in key mode with its signal keys
// on (Ctrl-C sends SIGINT, Ctrl-\ SIGQUIT) and returns the function that
// restores its previous mode.
func KeyModeWithSignals(f *os.File) (restore func() error, err error) { return keyMode(f, true) }

// OpenPTY opens a new pseudo-terminal pair through /dev/ptmx: the master
// side (what a terminal emulator holds: write to it to type, read from it
// to see what is displayed) and the slave side (the program's terminal).
// Neither becomes the caller's controlling terminal.
func OpenPTY() (master, slave *os.File, err error) { return openPTY() }
