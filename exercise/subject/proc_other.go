//go:build !unix

package subject

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}

// killGroup kills the subject itself: without process groups, what it
// started is left to the operating system.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
