//go:build linux

package procgroup

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// KillTree kills cmd's process group and every descendant of cmd's
// process that /proc shows at that moment, whatever its group or session
// (a tool an agent started with setsid, or in a terminal of its own, has
// left the group). Each process is stopped before any is killed, so none
// can fork a child the pass would miss. Call it only before cmd has been
// waited for (its pid could be another process's after); after, Kill
// kills what is left of the group. A command not started is left alone.
func KillTree(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	root := cmd.Process.Pid
	_ = syscall.Kill(root, syscall.SIGSTOP)
	kids := descendants(root)
	for _, p := range kids {
		_ = syscall.Kill(p, syscall.SIGSTOP)
	}
	kids = append(kids, descendants(root)...) // forked before their parent stopped
	_ = syscall.Kill(-root, syscall.SIGKILL)
	_ = syscall.Kill(root, syscall.SIGKILL)
	for _, p := range kids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// descendants lists the pids whose parent chain in /proc leads to root.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		ppid, err := strconv.Atoi(f[1])
		if err == nil {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
