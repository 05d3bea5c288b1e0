//go:build !unix

package procgroup

import (
	"os"
	"os/exec"
)

func set(cmd *exec.Cmd) {}

func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

func interrupt(cmd *exec.Cmd) { _ = cmd.Process.Signal(os.Interrupt) }
