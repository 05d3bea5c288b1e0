//go:build linux

package procgroup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const (
	// maxPasses bounds the passes that find and stop a run's processes:
	// each finds those the previous ones' forked before they stopped, so
	// a pass finds none after a few, but a fork bomb must not keep the
	// sweep going.
	maxPasses = 64
	// environCap is how much of a process's environment the sweep reads
	// for the token: an environment may be megabytes; TokenVar is put
	// first (withToken).
	environCap = 1 << 20
	// exitBound bounds how long the sweep waits for the processes it
	// killed to exit before it reaps those that are its children: one in
	// an uninterruptible sleep (a hung NFS read) dies only when it wakes.
	exitBound = 5 * time.Second
)

// Contain makes this process a child subreaper: a process that a command
// it runs leaves behind, whose parent exits, becomes this process's child
// instead of init's, so that the sweep can reap it once killed. Call it
// once, from main: it is a setting of the whole process, kept for its
// life. On systems other than Linux it does nothing.
func Contain() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("becoming a child subreaper: %w", err)
	}
	return nil
}

// mark gives cmd a run token of its own in its environment (TokenVar),
// which what it starts inherits whatever session or group it moves to.
func mark(cmd *exec.Cmd) { cmd.Env = withToken(envOf(cmd), newToken()) }

// KillTree kills cmd's process group, every descendant of cmd's process
// that /proc shows, whatever its group or session (a tool an agent
// started with setsid, or in a terminal of its own, has left the group),
// and every process that carries cmd's run token (one whose parent exited
// is no longer a descendant). Each is stopped before any is killed, so
// none can fork a child the sweep would miss. Call it only before cmd has
// been waited for (its pid could be another process's after); after,
// Kill kills what is left. A command not started is left alone.
func KillTree(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	root := cmd.Process.Pid
	// Stopped first, so that neither the root nor its group forks while
	// /proc is read.
	_ = syscall.Kill(root, syscall.SIGSTOP)
	_ = syscall.Kill(-root, syscall.SIGSTOP)
	sweep(cmd, true)
}

// sweep stops, then kills, every process that carries cmd's run token in
// its environment, is in cmd's process group, or (tree) descends from
// cmd's process, passing over /proc until a pass finds no new one; waits
// (up to exitBound) for them to exit; and reaps those of them that are
// this process's children by now (Contain made them so when their parent
// exited), and the zombies of cmd's group that are, never cmd itself
// (os/exec waits for it) nor any other child.
func sweep(cmd *exec.Cmd, tree bool) {
	s := &sweeper{
		root:  cmd.Process.Pid,
		token: tokenOf(cmd.Env),
		tree:  tree,
		self:  os.Getpid(),
		found: map[int]*target{},
	}
	defer s.close()
	for pass := 0; pass < maxPasses && s.pass(); pass++ {
	}
	if tree {
		// KillTree stopped the group: a member the passes missed (its
		// /proc entry unreadable a moment) must not stay stopped. Before
		// Wait, the root's pid is still its own.
		_ = syscall.Kill(-s.root, syscall.SIGKILL)
	}
	for _, t := range s.found {
		t.signal(syscall.SIGKILL)
	}
	s.awaitExit(time.Now().Add(exitBound))
	s.reap()
}

type sweeper struct {
	root  int
	token string
	tree  bool
	self  int
	found map[int]*target
	buf   []byte // environ reads
}

// target is a process the sweep stopped: fd is a pidfd, so that signals
// reach that process even if its pid is reused, or -1 on a kernel without
// pidfds (before 5.3), where they go by pid.
type target struct {
	stat
	fd     int
	exited bool
}

func (t *target) signal(sig syscall.Signal) {
	if t.fd >= 0 {
		_ = unix.PidfdSendSignal(t.fd, sig, nil, 0)
		return
	}
	_ = syscall.Kill(t.pid, sig)
}

func (s *sweeper) close() {
	for _, t := range s.found {
		if t.fd >= 0 {
			unix.Close(t.fd)
		}
	}
}

// pass stops every live process that matches and was not stopped yet;
// false when there was none.
func (s *sweeper) pass() bool {
	procs := scan()
	var desc map[int]bool
	if s.tree {
		desc = descendants(procs, s.root)
	}
	added := false
	for _, p := range procs {
		if p.pid <= 1 || p.pid == s.self || p.dead() || s.found[p.pid] != nil {
			continue
		}
		if p.pgid != s.root && !desc[p.pid] && !s.holdsToken(p.pid) {
			continue
		}
		if t := open(p); t != nil {
			t.signal(syscall.SIGSTOP)
			s.found[p.pid] = t
			added = true
		}
	}
	return added
}

// open makes p a target, nil when it is gone or its pid is another
// process's already.
func open(p stat) *target {
	fd, err := unix.PidfdOpen(p.pid, 0)
	switch {
	case err == nil:
	case errors.Is(err, unix.ENOSYS):
		fd = -1
	default:
		return nil
	}
	// The pidfd names whatever process had the pid when it was opened:
	// the same start time read after it says that was p.
	if now, ok := readStat(p.pid); !ok || now.start != p.start {
		if fd >= 0 {
			unix.Close(fd)
		}
		return nil
	}
	return &target{stat: p, fd: fd}
}

// holdsToken reports whether pid's environment, as far as environCap,
// lists the run's token; false when it cannot be read (another user's
// process, a zombie, one gone).
func (s *sweeper) holdsToken(pid int) bool {
	if s.token == "" {
		return false
	}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	defer f.Close()
	if s.buf == nil {
		s.buf = make([]byte, 64<<10)
	}
	n := 0
	for n < environCap {
		if n == len(s.buf) {
			s.buf = append(s.buf, make([]byte, len(s.buf))...)
		}
		m, err := f.Read(s.buf[n:min(len(s.buf), environCap)])
		n += m
		if err == io.EOF {
			break
		}
		if err != nil {
			return false
		}
	}
	return holdsToken(s.buf[:n], s.token)
}

// awaitExit waits until every target has exited or deadline passed.
func (s *sweeper) awaitExit(deadline time.Time) {
	for {
		var fds []unix.PollFd
		var byPid []*target
		for _, t := range s.found {
			switch {
			case t.exited:
			case t.fd >= 0:
				fds = append(fds, unix.PollFd{Fd: int32(t.fd), Events: unix.POLLIN})
			default:
				// No pidfd: /proc says whether it exited.
				if now, ok := readStat(t.pid); !ok || now.start != t.start || now.dead() {
					t.exited = true
				} else {
					byPid = append(byPid, t)
				}
			}
		}
		left := time.Until(deadline)
		if len(fds)+len(byPid) == 0 || left <= 0 {
			return
		}
		if len(byPid) > 0 {
			left = min(left, 5*time.Millisecond) // look at /proc again soon
		}
		if len(fds) == 0 {
			time.Sleep(left)
			continue
		}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return
		}
		if n <= 0 {
			continue
		}
		// A pidfd is readable once its process has exited.
		for _, pfd := range fds {
			if pfd.Revents == 0 {
				continue
			}
			for _, t := range s.found {
				if t.fd == int(pfd.Fd) {
					t.exited = true
				}
			}
		}
	}
}

// reap waits for (WNOHANG, one pid at a time: never wait4(-1), which would
// take os/exec's children from it) the zombies that are this process's
// children and either were stopped by the sweep or are of cmd's group,
// except cmd's own process. Once every target exited, none is reparented
// any more: a process is reparented before its parent counts as exited.
func (s *sweeper) reap() {
	for _, p := range scan() {
		if p.state != 'Z' || p.ppid != s.self || p.pid == s.root {
			continue
		}
		t := s.found[p.pid]
		if (t != nil && t.start == p.start) || p.pgid == s.root {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(p.pid, &ws, unix.WNOHANG, nil)
		}
	}
}

// stat is what the sweep reads of /proc/PID/stat.
type stat struct {
	pid, ppid, pgid int
	state           byte
	start           uint64 // clock ticks after boot: tells a reused pid apart
}

// dead: a zombie, or dying.
func (p stat) dead() bool { return p.state == 'Z' || p.state == 'X' || p.state == 'x' }

// scan reads every process's stat; those that vanish meanwhile are left
// out.
func scan() []stat {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]stat, 0, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readStat(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

func readStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
	// majflt cmajflt utime stime cutime cstime priority nice threads
	// itrealvalue starttime ...: comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return stat{}, false
	}
	p := stat{pid: pid, state: f[0][0]}
	var errs [3]error
	p.ppid, errs[0] = strconv.Atoi(f[1])
	p.pgid, errs[1] = strconv.Atoi(f[2])
	p.start, errs[2] = strconv.ParseUint(f[19], 10, 64)
	if errors.Join(errs[:]...) != nil {
		return stat{}, false
	}
	return p, true
}

// descendants is the set of live pids whose parent chain in procs leads
// to root.
func descendants(procs []stat, root int) map[int]bool {
	children := map[int][]int{}
	for _, p := range procs {
		if !p.dead() {
			children[p.ppid] = append(children[p.ppid], p.pid)
		}
	}
	out := map[int]bool{}
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !out[c] {
				out[c] = true
				queue = append(queue, c)
			}
		}
	}
	return out
}
