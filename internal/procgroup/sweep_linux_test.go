package procgroup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/internal/testenv"
)

// TestRunKillsWhatLeftTheSession: a descendant that called setsid() and
// whose parent exited is in no group of the command's and descends from
// no live process of it; it carries the run token, so it is killed
// before Run returns (Run waits for it to exit: no polling here).
func TestRunKillsWhatLeftTheSession(t *testing.T) {
	e := testenv.NewEscapee(t, 0)
	var out bytes.Buffer
	if err := Run(context.Background(), exec.Command("sh", "-c", e.Script), Output{Stdout: &out, Stderr: &out}); err != nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	if e.Running(t) {
		t.Errorf("the setsid escapee %d survived the command's end", e.Pid(t))
	}
}

// TestKillTreeKillsWhatLeftTheSession: the same escapee, while the command
// still runs and is then cancelled: KillTree finds it by its token, not
// as a descendant (it is init's child, or tracecheck's, by then).
func TestKillTreeKillsWhatLeftTheSession(t *testing.T) {
	e := testenv.NewEscapee(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := &signalWriter{ch: make(chan struct{})}
	go func() { <-started.ch; cancel() }()
	cmd := exec.Command("sh", "-c", e.Script+"echo started; exec sleep 86398")
	err := Run(ctx, cmd, Output{Stdout: started})
	if _, signal, ok := Exit(err); !ok || signal != "killed" {
		t.Fatalf("Run = %v, want the command killed", err)
	}
	if e.Running(t) {
		t.Errorf("the setsid escapee %d survived the command's kill", e.Pid(t))
	}
}

// TestKillTreeStillKillsDescendantsWithoutTheToken: a descendant that
// left the group and cleared its environment, but whose parent is alive,
// is still found as a descendant of the live command.
func TestKillTreeStillKillsDescendantsWithoutTheToken(t *testing.T) {
	e := testenv.NewEscapee(t, testenv.EnvI|testenv.Attached)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := &signalWriter{ch: make(chan struct{})}
	go func() { <-started.ch; cancel() }()
	// The script's shell stays the escapee's parent: it waits for it.
	cmd := exec.Command("sh", "-c", e.Script+"echo started; wait")
	Run(ctx, cmd, Output{Stdout: started})
	if e.Running(t) {
		t.Errorf("the escapee %d, a descendant of the live command, survived", e.Pid(t))
	}
}

// TestSetAddsOneToken: the command's environment is the given one with
// one TokenVar entry, first; an outer run's tokens are kept before it.
func TestSetAddsOneToken(t *testing.T) {
	cmd := exec.Command("env")
	cmd.Env = []string{"A=1", TokenVar + "=outer", "B=2"}
	Set(cmd)
	if len(cmd.Env) != 3 || cmd.Env[1] != "A=1" || cmd.Env[2] != "B=2" {
		t.Fatalf("env %q", cmd.Env)
	}
	tok := tokenOf(cmd.Env)
	if len(tok) != 32 || cmd.Env[0] != TokenVar+"=outer,"+tok {
		t.Fatalf("env %q, token %q", cmd.Env, tok)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(out), TokenVar+"="); got != 1 {
		t.Errorf("the command sees %d %s entries:\n%s", got, TokenVar, out)
	}
	other := exec.Command("true")
	other.Env = []string{"A=1"}
	Set(other)
	if tokenOf(other.Env) == tok || other.Env[0] != TokenVar+"="+tokenOf(other.Env) {
		t.Errorf("a second command's env %q (the first's token %s)", other.Env, tok)
	}
	inherit := exec.Command("true")
	Set(inherit)
	want := len(os.Environ()) + 1
	if os.Getenv(TokenVar) != "" {
		want-- // this process runs under a marked command: its entry is replaced
	}
	if len(inherit.Env) != want {
		t.Errorf("a nil Env became %d entries, want this process's and the token: %d", len(inherit.Env), want)
	}
}

// TestSweepSparesAnotherRun: two commands run at once; the end of one
// kills neither the other nor what the other started.
func TestSweepSparesAnotherRun(t *testing.T) {
	e := testenv.NewEscapee(t, 0)
	other := exec.Command("sh", "-c", e.Script+"echo started; exec sleep 86397")
	started := &signalWriter{ch: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, other, Output{Stdout: started}) }()
	// However the test ends, the other run is cancelled and swept.
	ended := false
	defer func() {
		if !ended {
			cancel()
			<-done
		}
	}()
	<-started.ch
	if err := Run(context.Background(), exec.Command("sh", "-c", "sleep 86396 </dev/null >/dev/null 2>&1 & exit 0"), Output{}); err != nil {
		t.Fatal(err)
	}
	alive := e.Running(t) // kills it: the other run's end is checked below
	cancel()
	<-done
	ended = true
	if !alive {
		t.Errorf("the other run's escapee %d was killed", e.Pid(t))
	}
	if other.ProcessState == nil || !strings.Contains(other.ProcessState.String(), "killed") {
		t.Errorf("the other command ended %v before its cancel, want killed by it", other.ProcessState)
	}
}

func TestHoldsToken(t *testing.T) {
	for _, tt := range []struct {
		environ string
		want    bool
	}{
		{"A=1\x00" + TokenVar + "=tok\x00", true},
		{TokenVar + "=outer,tok", true},
		{TokenVar + "=tok,inner\x00B=2", true},
		{TokenVar + "=tokx\x00", false},
		{TokenVar + "=outer\x00X" + TokenVar + "=tok\x00", false},
		{"A=tok\x00", false},
		{"", false},
	} {
		if got := holdsToken([]byte(tt.environ), "tok"); got != tt.want {
			t.Errorf("holdsToken(%q) = %v", tt.environ, got)
		}
	}
	if holdsToken([]byte(TokenVar+"="), "") {
		t.Error("the empty token matched")
	}
}

// containHelperEnv makes the test binary TestContainHelper's child.
const containHelperEnv = "PROCGROUP_CONTAIN_HELPER"

// TestContainReaps runs TestContainHelper in a process of its own (Contain
// changes the whole process) and fails with what it reports.
func TestContainReaps(t *testing.T) {
	testenv.NewEscapee(t, 0) // skips where there is none
	cmd := exec.Command(os.Args[0], "-test.run=^TestContainHelper$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), containHelperEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestContainHelper") {
		t.Fatalf("the helper did not run:\n%s", out)
	}
}

// TestContainHelper is not a test by itself: TestContainReaps runs it.
// With Contain, an escapee whose parent exits becomes this process's
// child; once Run killed it, it is reaped (no zombie is left), and so is
// a member of the command's group that was orphaned and exited by itself
// before the sweep.
func TestContainHelper(t *testing.T) {
	if os.Getenv(containHelperEnv) == "" {
		t.Skip("run by TestContainReaps")
	}
	if err := Contain(); err != nil {
		t.Fatal(err)
	}
	e := testenv.NewEscapee(t, 0)
	dir := t.TempDir()
	// The orphan: a child of an intermediate shell that exits; it then
	// exits when told, and the command waits (on /proc, no sleep) until
	// it is a zombie, this process's by then.
	script := e.Script + fmt.Sprintf(`mkfifo %[1]s/go
sh -c 'sh -c "read x < %[1]s/go" & echo $! > %[1]s/orphan.pid'
orphan=$(cat %[1]s/orphan.pid)
echo go > %[1]s/go
while s=$(cat /proc/$orphan/stat 2>/dev/null) && [ "$(echo "$s" | cut -d' ' -f3)" != Z ]; do :; done
echo $orphan
`, dir)
	var out bytes.Buffer
	if err := Run(context.Background(), exec.Command("sh", "-c", script), Output{Stdout: &out}); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if state, ppid := e.State(t); state != "" {
		t.Errorf("the escapee is still there: state %s, parent %d (this process is %d)", state, ppid, os.Getpid())
	}
	orphan := strings.TrimSpace(out.String())
	if b, err := os.ReadFile("/proc/" + orphan + "/stat"); err == nil {
		t.Errorf("the orphan of the group %s is still there: %s", orphan, b)
	} else if !errors.Is(err, os.ErrNotExist) {
		t.Error(err)
	}
}
