//go:build unix

package procgroup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRunCountsTheExitNotTheHeldOutput: a command that exits while a child
// of its (in its group) still holds standard output is done when it exits:
// the child is killed with the group, so the output closes at once and no
// ErrOutputHeld is reported (the child would hold it for 30 s, past the
// one-second drain).
func TestRunCountsTheExitNotTheHeldOutput(t *testing.T) {
	var out bytes.Buffer
	err := Run(context.Background(), exec.Command("sh", "-c", "sleep 30 & echo done"), Output{Stdout: &out, Stderr: &out, Drain: time.Second})
	if err != nil {
		t.Fatalf("Run = %v, want nil: the background child should have gone with the group", err)
	}
	if out.String() != "done\n" {
		t.Errorf("output %q", out.String())
	}
}

// TestRunSaysWhenAnEscapeeHoldsTheOutput: a descendant that left the group
// (setsid), dropped its environment (env -i: on Linux the run token goes
// with it) and outlives the command keeps the pipe open; Run returns after
// the drain with the command's own exit and ErrOutputHeld.
func TestRunSaysWhenAnEscapeeHoldsTheOutput(t *testing.T) {
	var abs []string
	for _, p := range []string{"setsid", "env", "sh", "sleep"} {
		path, err := exec.LookPath(p)
		if err != nil {
			t.Skipf("no %s on PATH", p)
		}
		abs = append(abs, path)
	}
	var out bytes.Buffer
	// The escapee says it has left the group through a FIFO before the
	// command exits, so it is outside the group when the group is killed.
	cmd := exec.Command("sh", "-c", fmt.Sprintf(`mkfifo f; %s %s -i %s -c 'echo x > f; exec %s 3' & read x < f; echo done; exit 3`, abs[0], abs[1], abs[2], abs[3]))
	cmd.Dir = t.TempDir()
	err := Run(context.Background(), cmd, Output{Stdout: &out, Drain: 200 * time.Millisecond})
	if !errors.Is(err, ErrOutputHeld) {
		t.Fatalf("Run = %v, want ErrOutputHeld", err)
	}
	if code, _, ok := Exit(err); !ok || code != 3 {
		t.Errorf("exit %d, want 3", code)
	}
	if !strings.HasPrefix(out.String(), "done") {
		t.Errorf("output %q", out.String())
	}
}

// TestRunKillsTheTreeWhenCancelled: ctx's end kills the command and its
// tree, and Run returns the kill as the command's end.
func TestRunKillsTheTreeWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := &signalWriter{ch: make(chan struct{})}
	go func() { <-started.ch; cancel() }()
	err := Run(ctx, exec.Command("sh", "-c", "echo started; exec sleep 30"), Output{Stdout: started})
	if _, signal, ok := Exit(err); !ok || signal != "killed" {
		t.Fatalf("Run = %v, want the command killed", err)
	}
}

// signalWriter closes ch at the first write.
type signalWriter struct {
	once sync.Once
	ch   chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.ch) })
	return len(p), nil
}
