//go:build unix

package subject

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the subject in a process group of its own.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills every process of the subject's group; the group outlives
// its leader while a member runs, so it is killed even after the subject
// exited.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
