// Package procgroup starts a command in a process group of its own, kills
// the whole group, so that what a program under test started (a shell's
// children, an interpreter's workers) goes with it, and says how the
// command ended. Where the operating system has no process groups, the
// command alone is killed and what it started is left to the system.
package procgroup

import (
	"errors"
	"os/exec"
	"syscall"
)

// Set makes cmd start in a process group of its own; call it before
// cmd.Start.
func Set(cmd *exec.Cmd) { set(cmd) }

// Kill kills every process of cmd's group (cmd itself where there are no
// groups). The group outlives its leader while a member runs, so it is
// killed even after cmd exited. A command not started is left alone.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		kill(cmd)
	}
}

// Exit reads how a command that ran ended from the error of its Run or
// Wait: its exit code and, when a signal ended it, the signal's name. ok is
// false when err is not about the command's exit (it did not start, or
// waiting for it failed).
func Exit(err error) (code int, signal string, ok bool) {
	if err == nil {
		return 0, "", true
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		return 0, "", false
	}
	if ws, isWS := exitErr.Sys().(syscall.WaitStatus); isWS && ws.Signaled() {
		signal = ws.Signal().String()
	}
	return exitErr.ExitCode(), signal, true
}

// Interrupt sends SIGINT to cmd's process group (os.Interrupt to cmd where
// there are no groups). A command not started is left alone.
func Interrupt(cmd *exec.Cmd) {
	if cmd.Process != nil {
		interrupt(cmd)
	}
}
