package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tracecheck/tracecheck/internal/term"
)

// screen is the master side of a pseudo-terminal, read as a terminal
// emulator would: the lines displayed, carriage returns dropped.
type screen struct {
	master *os.File
	lines  chan string
	seen   []string
}

func newScreen(tb testing.TB) (*screen, *os.File) {
	tb.Helper()
	master, slave, err := term.OpenPTY()
	if err != nil {
		tb.Skipf("SKIPPED: no pseudo-terminal: %v", err)
	}
	s := &screen{master: master, lines: make(chan string, 4096)}
	go func() {
		defer close(s.lines)
		var line []byte
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			for _, b := range buf[:n] {
				switch b {
				case '\r':
				case '\n':
					s.lines <- string(line)
					line = nil
				default:
					line = append(line, b)
				}
			}
			if err != nil {
				return
			}
		}
	}()
	tb.Cleanup(func() { slave.Close(); master.Close() })
	return s, slave
}

// next returns the next line displayed; a minute without one fails the
// test (a guard against a hung watch, not a timing assumption).
func (s *screen) next(tb testing.TB) string {
	tb.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			tb.Fatalf("the terminal closed; it displayed:\n%s", strings.Join(s.seen, "\n"))
		}
		s.seen = append(s.seen, l)
		return l
	case <-time.After(time.Minute):
		tb.Fatalf("nothing more displayed; it displayed:\n%s", strings.Join(s.seen, "\n"))
	}
	return ""
}

// waitFor returns the first line displayed from now on that holds want.
func (s *screen) waitFor(tb testing.TB, want string) string {
	tb.Helper()
	for {
		if l := s.next(tb); strings.Contains(l, want) {
			return l
		}
	}
}

func (s *screen) typeKeys(tb testing.TB, keys string) {
	tb.Helper()
	if _, err := s.master.WriteString(keys); err != nil {
		tb.Fatal(err)
	}
}

func ttyMode(tb testing.TB, f *os.File) unix.Termios {
	tb.Helper()
	conn, err := f.SyscallConn()
	if err != nil {
		tb.Fatal(err)
	}
	var t *unix.Termios
	if cerr := conn.Control(func(fd uintptr) { t, err = unix.IoctlGetTermios(int(fd), unix.TCGETS) }); cerr != nil {
		tb.Fatal(cerr)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return *t
}

// requireKeyMode fails the test at once unless the terminal is in watch's
// key mode: no line editing (a key without Enter), no echo, Ctrl-C on.
func requireKeyMode(tb testing.TB, t unix.Termios) {
	tb.Helper()
	if t.Lflag&unix.ICANON != 0 || t.Lflag&unix.ECHO != 0 || t.Lflag&unix.ISIG == 0 || t.Cc[unix.VMIN] != 1 {
		tb.Fatalf("while watch waits the terminal is not in key mode: ICANON %v, ECHO %v, ISIG %v, VMIN %d",
			t.Lflag&unix.ICANON != 0, t.Lflag&unix.ECHO != 0, t.Lflag&unix.ISIG != 0, t.Cc[unix.VMIN])
	}
}

func watchArgs(t *testing.T, subject ...string) []string {
	dir := t.TempDir()
	return append([]string{"exercise", "watch", "--dir", dir, "--interval", "1h", "--state", filepath.Join(dir, ".p.json"), "--seed", "3", "--"}, subject...)
}

// On a terminal, watch takes single keys without Enter and displays only
// its own output: h (no Enter) shows the hints, and no echo of the h comes
// before them; q (no Enter) quits, and the terminal's mode is then exactly
// what it was before watch.
func TestExerciseWatchKeysOnATerminal(t *testing.T) {
	needSh(t)
	scr, tty := newScreen(t)
	before := ttyMode(t, tty)
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(&env{stdin: tty, stdout: tty, stderr: &errb}, watchArgs(t, "sh", testSubject("unsupported")))
	}()
	scr.waitFor(t, "does not support op journal, which exercise A needs")
	scr.waitFor(t, "watching ")
	requireKeyMode(t, ttyMode(t, tty))

	scr.typeKeys(t, "h")
	if l := scr.next(t); !strings.HasPrefix(l, "A. Reject a sequence gap (") {
		t.Errorf("after h the terminal displays %q, want the statement of A first (no echo of the key)", l)
	}
	scr.waitFor(t, "hint: ")
	scr.waitFor(t, "watching ")
	scr.typeKeys(t, "x")
	if l := scr.next(t); l != "x: not a key (r, h or q)" {
		t.Errorf("after x: %q", l)
	}
	scr.waitFor(t, "watching ")
	scr.typeKeys(t, "q")
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d after q; stderr %q", code, errb.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("q (no Enter) did not end watch; displayed:\n%s", strings.Join(scr.seen, "\n"))
	}
	if after := ttyMode(t, tty); after != before {
		t.Errorf("the terminal after watch:\n%+v\nbefore:\n%+v", after, before)
	}
}

const childEnvWatch = "TRACECHECK_EXERCISE_WATCH_CHILD"

// TestExerciseWatchChild is the child of TestExerciseWatchSignals: the
// command line in its environment, run on its own terminal.
func TestExerciseWatchChild(t *testing.T) {
	raw := os.Getenv(childEnvWatch)
	if raw == "" {
		t.Skip("child process of TestExerciseWatchSignals")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		os.Exit(99)
	}
	os.Exit(run(&env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, args))
}

// watch runs as a process on a pseudo-terminal that is its controlling
// terminal; while it waits (terminal in key mode), Ctrl-C typed, SIGINT or
// SIGTERM ends it by that signal, and the terminal's mode is exactly what
// it was before watch started.
func TestExerciseWatchSignals(t *testing.T) {
	needSh(t)
	for _, tt := range []struct {
		name  string
		sig   syscall.Signal
		ctrlC bool
	}{{"Ctrl-C", syscall.SIGINT, true}, {"SIGINT", syscall.SIGINT, false}, {"SIGTERM", syscall.SIGTERM, false}} {
		t.Run(tt.name, func(t *testing.T) {
			scr, tty := newScreen(t)
			before := ttyMode(t, tty)
			args, _ := json.Marshal(watchArgs(t, "sh", testSubject("unsupported")))
			cmd := exec.Command(os.Args[0], "-test.run=^TestExerciseWatchChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnvWatch+"="+string(args))
			cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			scr.waitFor(t, "watching ")
			requireKeyMode(t, ttyMode(t, tty))
			var err error
			if tt.ctrlC {
				_, err = scr.master.Write([]byte{ttyMode(t, tty).Cc[unix.VINTR]})
			} else {
				err = cmd.Process.Signal(tt.sig)
			}
			if err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("watch did not end by the signal: %v; displayed:\n%s", err, strings.Join(scr.seen, "\n"))
			}
			if ws := ee.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != tt.sig {
				t.Errorf("watch ended with %v, want killed by %v", ee, tt.sig)
			}
			if after := ttyMode(t, tty); after != before {
				t.Errorf("the terminal after %s:\n%+v\nbefore:\n%+v", tt.name, after, before)
			}
		})
	}
}
