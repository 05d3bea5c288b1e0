package term

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

func isTerminal(f *os.File) bool {
	conn, err := f.SyscallConn()
	if err != nil {
		return false
	}
	if cerr := conn.Control(func(fd uintptr) { _, err = unix.IoctlGetTermios(int(fd), unix.TCGETS) }); cerr != nil {
		return false
	}
	return err == nil
}

// restoreSignals are the signals on which key mode gives the terminal back
// before the process goes on as the signal says.
var restoreSignals = []os.Signal{unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT}

func keyMode(f *os.File, signals bool) (func() error, error) {
	conn, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var old *unix.Termios
	ctl := func(do func(fd int) error) error {
		var err error
		if cerr := conn.Control(func(fd uintptr) { err = do(int(fd)) }); cerr != nil {
			return cerr
		}
		return err
	}
	err = ctl(func(fd int) error {
		var err error
		if old, err = unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
			return err
		}
		t := *old
		t.Lflag &^= unix.ICANON | unix.ECHO
		if !signals {
			t.Lflag &^= unix.ISIG
		}
		t.Cc[unix.VMIN] = 1
		t.Cc[unix.VTIME] = 0
		return unix.IoctlSetTermios(fd, unix.TCSETS, &t)
	})
	if err != nil {
		return nil, err
	}

	var (
		once       sync.Once
		restoreErr error
		caught     = make(chan os.Signal, 1)
		done       = make(chan struct{})
	)
	var sigs []os.Signal
	for _, s := range restoreSignals {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	restore := func() error {
		once.Do(func() {
			signal.Stop(caught)
			close(done)
			restoreErr = ctl(func(fd int) error { return unix.IoctlSetTermios(fd, unix.TCSETS, old) })
		})
		return restoreErr
	}
	signal.Notify(caught, sigs...)
	go func() {
		select {
		case s := <-caught:
			restore()
			// No longer notified here: the signal goes wherever it would
			// have gone, by default the end of the process by that signal.
			syscall.Kill(syscall.Getpid(), s.(syscall.Signal))
		case <-done:
		}
	}()
	return restore, nil
}

func openPTY() (*os.File, *os.File, error) {
	mfd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*os.File, *os.File, error) {
		unix.Close(mfd)
		return nil, nil, fmt.Errorf("open a pseudo-terminal: %w", err)
	}
	if err := unix.IoctlSetPointerInt(mfd, unix.TIOCSPTLCK, 0); err != nil { // unlockpt
		return fail(err)
	}
	n, err := unix.IoctlGetUint32(mfd, unix.TIOCGPTN) // ptsname
	if err != nil {
		return fail(err)
	}
	name := fmt.Sprintf("/dev/pts/%d", n)
	sfd, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return fail(err)
	}
	return os.NewFile(uintptr(mfd), "/dev/ptmx"), os.NewFile(uintptr(sfd), name), nil
}
