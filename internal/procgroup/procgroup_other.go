//go:build !unix

package procgroup

import "os/exec"

func set(cmd *exec.Cmd) {}

func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
