//go:build unix

package cases

import (
	"os/exec"
	"syscall"
)

// inGroup starts cmd in a process group of its own, and makes its
// cancellation (a timeout) kill that whole group: what the command started
// goes with it.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
