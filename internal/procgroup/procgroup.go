// Package procgroup runs the programs tracecheck tests (exercise
// subjects, command cases, agents) so that nothing they start outlives
// them, and says how a command ended.
//
// What each system gets:
//
//   - Linux: the command starts in a process group of its own, and its
//     environment carries a run token of its own (TokenVar), which every
//     process it starts inherits, whatever session or group it moves to.
//     When the command is killed or has exited (Kill, KillTree, Run), the
//     group is killed and then every process /proc shows with the token
//     (a daemon that called setsid() and whose parent exited included),
//     each stopped before any is killed, pass after pass until a pass
//     finds none; KillTree adds every descendant of the still-live
//     command. With Contain (tracecheck's main calls it) tracecheck is a
//     child subreaper: what such a process leaves when its parent exits
//     becomes tracecheck's child, and the sweep reaps what it killed. A
//     process escapes only when it both leaves the group (setsid,
//     setpgid) and runs with an environment without the token (env -i,
//     or a program that builds its children's environment afresh), when
//     tracecheck may not read its environment (a set-user-ID program,
//     another user's), or when it is started by something outside the
//     command's tree (a service manager, at, a D-Bus activation). One
//     that left the group, was orphaned and exited by itself before the
//     sweep stays a zombie child of tracecheck until tracecheck exits:
//     nothing tells it apart from a child os/exec still waits for.
//   - Other Unix systems (macOS, the BSDs): the process group alone. A
//     process that left the group is not found; no token is set.
//   - Windows: the command alone is killed; what it started is left to
//     the system.
package procgroup

import (
	"errors"
	"os/exec"
	"syscall"
)

// Set makes cmd start in a process group of its own and, on Linux, gives
// it a run token of its own in cmd.Env (starting from this process's
// environment when cmd.Env is nil). Call it after cmd.Env is set and
// before cmd.Start.
func Set(cmd *exec.Cmd) {
	set(cmd)
	mark(cmd)
}

// Kill kills every process of cmd's group (cmd itself where there are no
// groups) and, on Linux, every process that carries cmd's run token, and
// reaps those of them that became this process's children. The group
// outlives its leader while a member runs, so it is killed even after cmd
// exited: call Kill after Wait too. A command not started is left alone.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		kill(cmd)
		sweep(cmd, false)
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
