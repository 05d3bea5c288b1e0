package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Escapee is a shell script for `sh -c` (Script) that starts a daemon-like
// descendant: one that leaves the script's session and process group
// (setsid(2)), has its output on /dev/null, sleeps for a day and, unless
// made with Attached, is orphaned at once (its parent, a subshell, exits).
// The script returns once the descendant has left and its pid is in
// PidFile (a FIFO the descendant writes says so: no timing). A script may
// go on after it.
type Escapee struct {
	Script  string
	PidFile string
}

// EscapeeFlags change what an Escapee's descendant does.
type EscapeeFlags int

const (
	// EnvI: it runs with an empty environment (env -i), as a daemon that
	// builds its own does.
	EnvI EscapeeFlags = 1 << iota
	// Attached: it stays the script's child instead of being orphaned.
	Attached
)

// NewEscapee makes an Escapee in a new directory. The descendant leaves
// by util-linux's setsid or, without it, python3's os.setsid; with
// neither tb is skipped.
func NewEscapee(tb testing.TB, flags EscapeeFlags) *Escapee {
	tb.Helper()
	var leave string
	if p, err := exec.LookPath("setsid"); err == nil {
		leave = shellQuote(p)
	} else if p, err := exec.LookPath("python3"); err == nil {
		leave = shellQuote(p) + ` -c 'import os, sys; os.setsid(); os.execvp(sys.argv[1], sys.argv[1:])'`
	} else {
		tb.Skip("SKIPPED: neither setsid nor python3 is on PATH: no way to start a process that leaves its session")
	}
	sh, sleep := "sh", "sleep"
	if flags&EnvI != 0 {
		// Absolute paths: an empty environment has no PATH.
		for _, p := range []*string{&sh, &sleep} {
			abs, err := exec.LookPath(*p)
			if err != nil {
				tb.Skipf("SKIPPED: %s is not on PATH", *p)
			}
			*p = abs
		}
		leave += " env -i"
	}
	dir := tb.TempDir()
	e := &Escapee{PidFile: filepath.Join(dir, "escapee.pid")}
	fifo := shellQuote(filepath.Join(dir, "escapee.fifo"))
	start := leave + " " + shellQuote(sh) + ` -c 'echo $$ > "$1"; exec "$2" 86399' escapee ` + fifo + " " + shellQuote(sleep) + " </dev/null >/dev/null 2>&1 &"
	if flags&Attached == 0 {
		start = "(" + start + ")" // the subshell exits at once
	}
	// The pid file holds the escapee's pid and start time, read while it
	// runs (it has written the FIFO and execs sleep, or has): the start
	// time tells it from a process that takes its pid after it died.
	e.Script = "mkfifo " + fifo + "\n" + start + "\n" +
		"read escapee < " + fifo + " && echo $escapee $(cut -d' ' -f22 /proc/$escapee/stat) > " + shellQuote(e.PidFile) + "\n"
	// A test that fails before it looks leaves no escapee behind either.
	tb.Cleanup(func() {
		if _, err := os.Stat(e.PidFile); err == nil {
			e.Running(tb)
		}
	})
	return e
}

// Pid is the escapee's pid, read from PidFile; tb fails when the script
// did not get so far.
func (e *Escapee) Pid(tb testing.TB) int {
	tb.Helper()
	pid, _ := e.read(tb)
	return pid
}

func (e *Escapee) read(tb testing.TB) (pid int, start string) {
	tb.Helper()
	b, err := os.ReadFile(e.PidFile)
	if err != nil {
		tb.Fatalf("the script did not write the escapee's pid: %v", err)
	}
	f := strings.Fields(string(b))
	if len(f) == 2 {
		pid, err = strconv.Atoi(f[0])
	}
	if len(f) != 2 || err != nil {
		tb.Fatalf("the escapee's pid file holds %q", b)
	}
	return pid, f[1]
}

// State is the escapee's state letter in /proc/PID/stat (Z: a zombie) and
// its parent's pid; "" when it is gone (no process has its pid, or one
// that started later has).
func (e *Escapee) State(tb testing.TB) (state string, ppid int) {
	tb.Helper()
	pid, start := e.read(tb)
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 || f[19] != start {
		return "", 0
	}
	ppid, _ = strconv.Atoi(f[1])
	return f[0], ppid
}

// Running reports whether the escapee still runs (a zombie does not) and
// then kills it, so that a failed test leaves nothing behind.
func (e *Escapee) Running(tb testing.TB) bool {
	tb.Helper()
	switch state, _ := e.State(tb); state {
	case "", "Z", "X":
		return false
	}
	syscall.Kill(e.Pid(tb), syscall.SIGKILL)
	return true
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
