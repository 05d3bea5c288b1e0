//go:build !linux

package procgroup

import "os/exec"

// KillTree kills cmd's process group (cmd alone where there are no
// groups); descendants that left the group are not found on this system.
func KillTree(cmd *exec.Cmd) { Kill(cmd) }
