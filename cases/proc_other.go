//go:build !unix

package cases

import "os/exec"

// inGroup leaves cmd as it is where there are no process groups: a
// timeout kills the command itself (exec's default).
func inGroup(cmd *exec.Cmd) {}
