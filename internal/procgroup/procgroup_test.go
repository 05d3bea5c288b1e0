//go:build unix

package procgroup

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"testing"
)

func TestExit(t *testing.T) {
	tests := []struct {
		name   string
		script string
		code   int
		signal string
	}{
		{"success", "exit 0", 0, ""},
		{"exit code", "exit 3", 3, ""},
		{"signal", "kill -TERM $$", -1, "terminated"},
	}
	for _, tt := range tests {
		code, signal, ok := Exit(exec.Command("sh", "-c", tt.script).Run())
		if !ok || code != tt.code || signal != tt.signal {
			t.Errorf("%s: Exit = %d, %q, %v; want %d, %q, true", tt.name, code, signal, ok, tt.code, tt.signal)
		}
	}
	if _, _, ok := Exit(exec.Command("/no/such/program").Run()); ok {
		t.Error("a command that did not start: ok")
	}
	if _, _, ok := Exit(errors.New("wait failed")); ok {
		t.Error("an error that is not an exit: ok")
	}
}

// Kill ends the whole group: the shell's background child holds the write
// end of a pipe, so reading the pipe to its end returns only once the
// child is gone too (were only the shell killed, the read would wait for
// the child's sleep, far beyond the test's time limit).
func TestKillEndsTheGroup(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("sh", "-c", "sleep 100000 & echo started; wait")
	cmd.Stdout = w
	Set(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	br := bufio.NewReader(r)
	if line, err := br.ReadString('\n'); err != nil || line != "started\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	Kill(cmd)
	if _, signal, ok := Exit(cmd.Wait()); !ok || signal != "killed" {
		t.Errorf("after Kill: signal %q, ok %v; want killed", signal, ok)
	}
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		t.Errorf("after Kill: read %q, %v; want the end of the pipe", rest, err)
	}
}
