// Package procgroup starts a command in a process group of its own and
// kills the whole group, so that what a program under test started (a
// shell's children, an interpreter's workers) goes with it. Where the
// operating system has no process groups, the command alone is killed and
// what it started is left to the system.
package procgroup

import "os/exec"

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
