//go:build unix

package agentrun

import (
	"fmt"
	"os"
	"syscall"
)

func makeFIFO(path string) error {
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		return fmt.Errorf("making the FIFO %s: %w", path, err)
	}
	return nil
}

// waitFIFO waits until a writer (the tool) opens fifo and writes, and
// reports true; false when exited closes first (the agent never ran the
// tool): then it opens the FIFO itself, without blocking, to release the
// waiting open.
func waitFIFO(path string, exited <-chan struct{}) bool {
	got := make(chan bool, 1)
	go func() {
		f, err := os.OpenFile(path, os.O_RDONLY, 0)
		if err != nil {
			got <- false
			return
		}
		defer f.Close()
		b := make([]byte, 1)
		n, _ := f.Read(b)
		got <- n > 0
	}()
	select {
	case ok := <-got:
		return ok
	case <-exited:
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-got
		return false
	}
}
