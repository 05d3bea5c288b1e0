package procgroup

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// ErrOutputHeld is Run's error beside the command's own when, after the
// command exited and what it left was killed (Kill), something it left
// that escaped (see the package documentation for what can) still held
// its standard output or error past the drain time: the output after that
// moment is lost, the command's exit stands.
var ErrOutputHeld = errors.New("a process the command left still holds its output")

// Output is where Run copies a command's standard output and error; a nil
// writer discards.
type Output struct {
	Stdout, Stderr io.Writer
	// Drain bounds how long Run waits, once the command exited and what
	// it left was killed, for the copies to finish (default 2s).
	Drain time.Duration
}

// Run starts cmd in a process group of its own (Set) with its standard
// output and error on pipes Run reads, waits for cmd to exit (or for ctx:
// then its tree is killed, KillTree), kills what is left of it (Kill: its
// group and, on Linux, every process with its run token), and lets the
// copies finish. cmd exiting is what counts: a child that keeps the pipes
// open does not hold the exit back (as exec.Cmd.Wait's copying would, up
// to its WaitDelay) and is killed with the rest. The error is Wait's, and
// ErrOutputHeld joined to it when something that escaped kept the pipes
// open past out.Drain.
func Run(ctx context.Context, cmd *exec.Cmd, out Output) error {
	Set(cmd)
	drain := out.Drain
	if drain <= 0 {
		drain = 2 * time.Second
	}
	var copies sync.WaitGroup
	var readers []*os.File
	pipe := func(w io.Writer) (*os.File, error) {
		r, pw, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		if w == nil {
			w = io.Discard
		}
		readers = append(readers, r)
		copies.Add(1)
		go func() { defer copies.Done(); io.Copy(w, r) }()
		return pw, nil
	}
	closeAll := func(fs ...*os.File) {
		for _, f := range fs {
			if f != nil {
				f.Close()
			}
		}
	}
	stdout, err := pipe(out.Stdout)
	if err != nil {
		return err
	}
	stderr := stdout
	if out.Stderr != out.Stdout {
		if stderr, err = pipe(out.Stderr); err != nil {
			closeAll(stdout)
			closeAll(readers...)
			return err
		}
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Start()
	closeAll(stdout) // the child has its own copies
	if stderr != stdout {
		closeAll(stderr)
	}
	if err != nil {
		closeAll(readers...)
		copies.Wait()
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-ctx.Done():
		KillTree(cmd)
		werr = <-done
	}
	Kill(cmd) // what the command left
	finished := make(chan struct{})
	go func() { copies.Wait(); close(finished) }()
	select {
	case <-finished:
		return werr
	case <-time.After(drain):
		closeAll(readers...)
		<-finished
		return errors.Join(werr, ErrOutputHeld)
	}
}
