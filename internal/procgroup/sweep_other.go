//go:build !linux

package procgroup

import "os/exec"

// Contain does nothing here: only Linux has child subreapers.
func Contain() error { return nil }

// mark gives no token here: nothing would look for it.
func mark(cmd *exec.Cmd) {}

// sweep does nothing here: without /proc, what left the group is not found.
func sweep(cmd *exec.Cmd, tree bool) {}

// KillTree kills cmd's process group (cmd alone where there are no
// groups); descendants that left the group are not found on this system.
func KillTree(cmd *exec.Cmd) { Kill(cmd) }
