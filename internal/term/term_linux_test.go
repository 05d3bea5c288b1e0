package term

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// testPTY opens a pseudo-terminal pair for a test, closed at its end.
func testPTY(tb testing.TB) (master, slave *os.File) {
	tb.Helper()
	m, s, err := OpenPTY()
	if err != nil {
		tb.Skipf("SKIPPED: no pseudo-terminal: %v", err)
	}
	tb.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

func termios(tb testing.TB, f *os.File) unix.Termios {
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

// checkKeyMode checks that f is in key mode: no line editing, no echo,
// one byte is a read; signal keys as asked.
func checkKeyMode(tb testing.TB, t unix.Termios, signals bool) {
	tb.Helper()
	if t.Lflag&(unix.ICANON|unix.ECHO) != 0 || t.Cc[unix.VMIN] != 1 || t.Cc[unix.VTIME] != 0 {
		tb.Errorf("not in key mode: lflag %#x (ICANON %#x, ECHO %#x), VMIN %d, VTIME %d", t.Lflag, unix.ICANON, unix.ECHO, t.Cc[unix.VMIN], t.Cc[unix.VTIME])
	}
	if got := t.Lflag&unix.ISIG != 0; got != signals {
		tb.Errorf("ISIG %v, want %v", got, signals)
	}
}

// readWithin reads from f until it has n bytes (one read may return only
// part of what was written), failing the test when nothing comes within a
// minute (a guard against a hung test, not a timing assumption: the bytes
// are already written when it is called).
func readWithin(tb testing.TB, f *os.File, n int) string {
	tb.Helper()
	f.SetReadDeadline(time.Now().Add(time.Minute))
	defer f.SetReadDeadline(time.Time{})
	var got []byte
	buf := make([]byte, 256)
	for len(got) < n {
		k, err := f.Read(buf)
		got = append(got, buf[:k]...)
		if err != nil {
			tb.Fatalf("read %s: %v (read %q)", f.Name(), err, got)
		}
	}
	return string(got)
}

// Key mode on a pseudo-terminal: keys reach the reader without Enter,
// typed characters are not echoed (only what the program writes is
// displayed), and restore gives back the exact termios from before.
func TestKeyModeOnPTY(t *testing.T) {
	for _, tt := range []struct {
		name    string
		mode    func(*os.File) (func() error, error)
		signals bool
	}{{"KeyMode", KeyMode, false}, {"KeyModeWithSignals", KeyModeWithSignals, true}} {
		t.Run(tt.name, func(t *testing.T) {
			master, slave := testPTY(t)
			if !IsTerminal(slave) || !IsTerminal(master) {
				t.Fatal("a pseudo-terminal is not a terminal")
			}
			before := termios(t, slave)
			restore, err := tt.mode(slave)
			if err != nil {
				t.Fatal(err)
			}
			checkKeyMode(t, termios(t, slave), tt.signals)

			if _, err := master.WriteString("hq"); err != nil { // typed, no Enter
				t.Fatal(err)
			}
			if got := readWithin(t, slave, 2); got != "hq" {
				t.Errorf("the program read %q, want the keys %q without Enter", got, "hq")
			}
			if _, err := slave.WriteString("OUT\n"); err != nil {
				t.Fatal(err)
			}
			if got := readWithin(t, master, 5); got != "OUT\r\n" {
				t.Errorf("the terminal displays %q, want only the program's output %q (no echo of the keys)", got, "OUT\r\n")
			}

			if err := restore(); err != nil {
				t.Fatal(err)
			}
			if after := termios(t, slave); after != before {
				t.Errorf("termios after restore:\n%+v\nbefore key mode:\n%+v", after, before)
			}
			if err := restore(); err != nil {
				t.Errorf("a second restore: %v", err)
			}
			if after := termios(t, slave); after != before {
				t.Error("a second restore changed the terminal")
			}
		})
	}
}

const childEnv = "TRACECHECK_TERM_TEST_CHILD"

// TestKeyModeChild is the child of TestKeyModeRestoredOnSignal: it puts
// its standard input (the pseudo-terminal) in key mode, says so, and waits
// for a signal, reading fd 3 (a pipe the parent never writes).
func TestKeyModeChild(t *testing.T) {
	mode := os.Getenv(childEnv)
	if mode == "" {
		t.Skip("child process of TestKeyModeRestoredOnSignal")
	}
	f := KeyMode
	if mode == "signals" {
		f = KeyModeWithSignals
	}
	if _, err := f(os.Stdin); err != nil {
		fmt.Println("key mode:", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.NewFile(3, "wait"))
	os.Exit(0)
}

// A process in key mode that gets SIGINT or SIGTERM (sent by kill, or by
// Ctrl-C typed on the terminal when the signal keys are on) gives the
// terminal back as it was, then ends by that signal.
func TestKeyModeRestoredOnSignal(t *testing.T) {
	for _, tt := range []struct {
		mode   string
		sig    syscall.Signal
		ctrlC  bool // typed on the terminal instead of sent with kill
		isig   bool
		reason string
	}{
		{"signals", syscall.SIGINT, true, true, "Ctrl-C typed"},
		{"signals", syscall.SIGINT, false, true, "kill -INT"},
		{"signals", syscall.SIGTERM, false, true, "kill -TERM"},
		{"keys", syscall.SIGINT, false, false, "kill -INT"},
		{"keys", syscall.SIGTERM, false, false, "kill -TERM"},
	} {
		t.Run(tt.mode+" "+tt.reason, func(t *testing.T) {
			master, slave := testPTY(t)
			before := termios(t, slave)
			waitR, waitW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer waitW.Close()
			cmd := exec.Command(os.Args[0], "-test.run=^TestKeyModeChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnv+"="+tt.mode)
			cmd.Stdin, cmd.ExtraFiles = slave, []*os.File{waitR}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			// The pseudo-terminal is the child's controlling terminal, its
			// group the foreground one: Ctrl-C on it signals the child.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitR.Close()
			line, err := bufio.NewReader(out).ReadString('\n')
			if line != "ready\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child: %q %v; stderr %s", line, err, stderr.String())
			}
			checkKeyMode(t, termios(t, slave), tt.isig)
			if tt.ctrlC {
				_, err = master.Write([]byte{termios(t, slave).Cc[unix.VINTR]})
			} else {
				err = cmd.Process.Signal(tt.sig)
			}
			if err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("the child did not end by a signal: %v; stderr %s", err, stderr.String())
			}
			if ws := ee.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != tt.sig {
				t.Errorf("the child ended with %v, want killed by %v (the signal delivered again after the restore)", ee, tt.sig)
			}
			if after := termios(t, slave); after != before {
				t.Errorf("termios after %s:\n%+v\nbefore key mode:\n%+v", tt.reason, after, before)
			}
		})
	}
}
