package store_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
)

// The crash and lock tests run writers in child processes: the test binary
// itself, re-executed with -test.run=^TestChildProcess$ and these
// variables set.
const (
	envChild = "TRACECHECK_STORE_CHILD" // "append" or "hold"
	envDir   = "TRACECHECK_STORE_DIR"
	envStart = "TRACECHECK_STORE_START" // first event index to send
	envBatch = "TRACECHECK_STORE_BATCH" // 0: one at a time; n: batches of 1..n
	envSeed  = "TRACECHECK_STORE_SEED"
	envTear  = "TRACECHECK_STORE_TEAR" // "1": now and then SIGKILL itself in the middle of a write
)

const crashSession = "session-crash"

// crashEvent is event i of the deterministic stream a crash-test writer
// sends: one run, sequence i, mostly small user messages with a large one
// now and then so that a kill can land in the middle of a long write.
func crashEvent(i int) journal.Event {
	n := i
	r := newRun(crashSession, "run-crash", &n)
	r.seq = int64(i)
	if i > 0 {
		r.last = fmt.Sprintf("evt-%03d", i-1)
	}
	size := 40 + (i*31)%400
	if i%17 == 5 {
		size = 4<<10 + (i*7919)%(8<<10)
	}
	text := strings.Repeat(string(rune('a'+i%26)), size)
	return r.next("user.message", jsonv.Obj(jsonv.M("content", jsonv.Str(text)), jsonv.M("i", jsonv.Int(int64(i)))))
}

func crashLine(i int) []byte { return line(crashEvent(i)) }

// TestChildProcess is not a test: it is the writer process of the crash and
// lock tests, and skips when run normally.
func TestChildProcess(t *testing.T) {
	mode := os.Getenv(envChild)
	if mode == "" {
		t.Skip("helper process for the crash and lock tests")
	}
	os.Exit(child(mode))
}

func child(mode string) int {
	fail := func(code int, err error) int {
		fmt.Fprintln(os.Stderr, err)
		return code
	}
	st, err := store.Open(os.Getenv(envDir))
	if err != nil {
		return fail(3, err)
	}
	w, err := st.OpenWriter(crashSession, store.WriterOptions{Create: true, Repair: true})
	if err != nil {
		return fail(3, err)
	}
	switch mode {
	case "hold":
		// Append one event, say so, hold the lock until stdin closes, then
		// append another.
		if _, err := w.Append(crashLine(0)); err != nil {
			return fail(4, err)
		}
		os.Stdout.WriteString("holding\n")
		io.Copy(io.Discard, os.Stdin)
		if _, err := w.Append(crashLine(1)); err != nil {
			return fail(4, err)
		}
		os.Stdout.WriteString("ack evt-001\n")
		return 0
	case "group":
		// One all-or-nothing group that starts a new run, as a resume
		// does; most of the time the process kills itself in the middle
		// of its write(2).
		round, _ := strconv.Atoi(os.Getenv(envStart))
		rng := rand.New(rand.NewPCG(uint64(round), 2))
		store.SetWriteFile(func(f *os.File, b []byte) (int, error) {
			if rng.IntN(3) == 0 {
				return f.Write(b)
			}
			f.Write(b[:rng.IntN(len(b))])
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		})
		runs := w.Runs()
		group := groupEvents(round, runs[len(runs)-1].RunID, w.Position().Events)
		acks, err := w.AppendGroup(lines(group))
		if err != nil {
			return fail(4, err)
		}
		for _, a := range acks {
			os.Stdout.WriteString("ack " + a.EventID + "\n")
		}
		os.Stdout.WriteString("done\n")
		io.Copy(io.Discard, os.Stdin) // until the test kills it
		return 0
	case "append":
		start, _ := strconv.Atoi(os.Getenv(envStart))
		batch, _ := strconv.Atoi(os.Getenv(envBatch))
		seed, _ := strconv.ParseUint(os.Getenv(envSeed), 10, 64)
		rng := rand.New(rand.NewPCG(seed, 1))
		if os.Getenv(envTear) == "1" {
			// A crash in the middle of write(2): some bytes of the batch
			// reach the file, then the process dies by SIGKILL.
			store.SetWriteFile(func(f *os.File, b []byte) (int, error) {
				if rng.IntN(6) != 0 {
					return f.Write(b)
				}
				f.Write(b[:rng.IntN(len(b))])
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {} // SIGKILL cannot be caught; wait for it
			})
		}
		if w.OpenedFrom().Used {
			os.Stdout.WriteString("opened from a checkpoint\n")
		}
		var out []byte
		for i := start; ; {
			n := 1
			if batch > 0 {
				n = 1 + rng.IntN(batch)
			}
			lines := make([][]byte, n)
			for k := range lines {
				lines[k] = crashLine(i + k)
			}
			acks, err := w.AppendBatch(lines)
			if err != nil {
				return fail(4, err)
			}
			// Acknowledge on stdout only now that the events are durable.
			out = out[:0]
			for _, a := range acks {
				out = append(out, "ack "+a.EventID+"\n"...)
			}
			if _, err := os.Stdout.Write(out); err != nil {
				return fail(5, err)
			}
			i += n
			// Now and then a checkpoint, which the next round opens from
			// (a kill may land in the middle of writing it, too).
			if rng.IntN(8) == 0 {
				if _, err := w.WriteCheckpoint(); err != nil {
					return fail(6, err)
				}
			}
		}
	}
	return fail(2, fmt.Errorf("unknown child mode %q", mode))
}

func childCmd(t *testing.T, mode, dir string, extra ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envChild+"="+mode, envDir+"="+dir)
	cmd.Env = append(cmd.Env, extra...)
	return cmd
}

// startChild starts a child process with pipes to its stdin and stdout and
// its stderr collected.
func startChild(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, *bytes.Buffer) {
	t.Helper()
	stderr := new(bytes.Buffer)
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return in, out, stderr
}

// TestCrashSIGKILL kills a writer process with SIGKILL at random points, round
// after round on the same session, and checks after each kill that every
// event the writer acknowledged is in the file, that the file holds exactly
// a prefix of what was sent, and that it validates once a torn tail (if the
// kill left one) is repaired. The next round re-sends a few stored events
// first, so retries are acknowledged as duplicates. Writers write a
// checkpoint now and then, so most rounds open from a checkpoint and the
// tail a killed writer left after it.
//
// A SIGKILL from outside seldom lands inside a write(2) (the writer spends
// its time in fsync), so every other round the writer also kills itself
// with SIGKILL part-way through a write now and then: the torn tails that a
// crash mid-write leaves, from a real process death.
func TestCrashSIGKILL(t *testing.T) {
	for _, tc := range []struct {
		name   string
		batch  int
		rounds int
	}{
		{"one at a time", 0, 50},
		{"group commit", 16, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() {
				tc.rounds = 10
			}
			crashRounds(t, tc.batch, tc.rounds)
		})
	}
}

func crashRounds(t *testing.T, batch, rounds int) {
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(20260810, uint64(batch)))
	acked := map[int]bool{} // event index -> acknowledged by some writer
	stored, torn, dups, cps := 0, 0, 0, 0
	for round := 0; round < rounds; round++ {
		from := stored - rng.IntN(min(stored, 4)+1)
		killAfter := rng.IntN(40) // acknowledgements to read before the kill
		cmd := childCmd(t, "append", dir, envStart+"="+strconv.Itoa(from), envBatch+"="+strconv.Itoa(batch),
			envSeed+"="+strconv.Itoa(round), envTear+"="+strconv.Itoa(round%2))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		kill := func() {
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
		if killAfter == 0 {
			kill()
		}
		n := 0
		sc := bufio.NewScanner(out)
		for sc.Scan() { // read to EOF: acks written before the kill count too
			if sc.Text() == "opened from a checkpoint" {
				cps++
			}
			id, ok := strings.CutPrefix(sc.Text(), "ack evt-")
			if !ok {
				continue
			}
			i, err := strconv.Atoi(id)
			if err != nil {
				t.Fatalf("round %d: bad ack %q", round, sc.Text())
			}
			if i < stored {
				dups++
			}
			acked[i] = true
			if n++; n == killAfter {
				kill()
			}
		}
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: the writer did not die by SIGKILL: %v\n%s", round, err, stderr.Bytes())
		}

		rep, err := st.Check(crashSession, true)
		if errors.Is(err, store.ErrNotFound) && len(acked) == 0 {
			continue // killed before it created the file
		}
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if rep.SideFile != "" {
			torn++
		}
		data := readFile(t, rep.Path)
		stored = rep.Events
		want := make([]byte, 0, len(data))
		for i := 0; i < stored; i++ {
			want = append(append(want, crashLine(i)...), '\n')
		}
		if !bytes.Equal(data, want) {
			t.Fatalf("round %d: the file is not the first %d events sent", round, stored)
		}
		for i := range acked {
			if i >= stored {
				t.Fatalf("round %d: event %d was acknowledged but the file holds %d events", round, i, stored)
			}
		}
		validates(t, rep.Path)
	}
	// Checkpoints killed mid-write left temporaries; the next open (here
	// the repairing check) removed them.
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
	sides, _ := filepath.Glob(filepath.Join(dir, "*.torn-*"))
	t.Logf("%d SIGKILL rounds: %d events stored, %d acknowledged (%d as duplicates of a retry), %d torn tails repaired (%d side files), %d writers opened from a checkpoint",
		rounds, stored, len(acked), dups, torn, len(sides), cps)
	if len(acked) == 0 {
		t.Fatal("no writer acknowledged anything: the test proved nothing")
	}
}

// TestTwoWriters: while one process holds a session, a second writer (in
// another process or this one) fails at once with ErrLocked, and the file
// never holds interleaved lines.
func TestTwoWriters(t *testing.T) {
	dir := t.TempDir()
	holder := childCmd(t, "hold", dir)
	in, out, stderr := startChild(t, holder)
	rd := bufio.NewReader(out)
	if l, err := rd.ReadString('\n'); l != "holding\n" {
		t.Fatalf("holder said %q, %v\n%s", l, err, stderr.Bytes())
	}

	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	_, err = st.OpenWriter(crashSession, store.WriterOptions{Create: true, Repair: true})
	var se *store.Error
	if !errors.As(err, &se) || !errors.Is(err, store.ErrLocked) || se.SessionID != crashSession {
		t.Fatalf("second writer in this process: %v", err)
	}
	t.Logf("the second writer failed after %v: %v", time.Since(begin), err)

	second := childCmd(t, "append", dir, envStart+"=1")
	msg, err := second.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(string(msg), "locked by another writer") {
		t.Fatalf("second writer process: %v\n%s", err, msg)
	}

	in.Close()
	rest, _ := io.ReadAll(rd)
	if err := holder.Wait(); err != nil || string(rest) != "ack evt-001\n" {
		t.Fatalf("holder: %v %q\n%s", err, rest, stderr.Bytes())
	}
	w, err := st.OpenWriter(crashSession, store.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	want := append(append(append(crashLine(0), '\n'), crashLine(1)...), '\n')
	if got := readFile(t, w.Path()); !bytes.Equal(got, want) {
		t.Fatalf("file %q", got)
	}
}

// groupEvents is the group the crash-test writer of round appends: a new
// run "run-g<round>" resuming run prev, from event index first on: the
// resume marker and one to four user messages, some long enough that a
// kill lands inside them.
func groupEvents(round int, prev string, first int) []journal.Event {
	n := first
	r := newRun(crashSession, fmt.Sprintf("run-g%d", round), &n)
	evs := []journal.Event{r.next("session.start", resumeStart(prev))}
	for i := range 1 + round%4 {
		size := 100 + (round*37+i*911)%(12<<10)
		evs = append(evs, r.next("user.message", user(strings.Repeat(string(rune('a'+i)), size))))
	}
	return evs
}

// TestCrashSIGKILLGroup kills writers in the middle of an all-or-nothing
// group (AppendGroup, the way a resume appends its run), round after round
// on one session, and checks what docs/session-store.md says a crash
// there leaves: after the torn tail (if any) is repaired, the file holds
// every acknowledged group whole, and any other group only as a prefix of
// its complete lines, starting with its resume marker, never anything
// else; the session validates, and the next group resumes whatever run
// the file ends with. No temporary file is left.
func TestCrashSIGKILLGroup(t *testing.T) {
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	path, _ := st.Path(crashSession)
	var base []byte
	for i := range 3 {
		base = append(append(base, crashLine(i)...), '\n')
	}
	if err := os.WriteFile(path, base, 0o644); err != nil {
		t.Fatal(err)
	}
	acked := map[string]bool{} // run IDs whose group was acknowledged
	whole, partial, none, torn := 0, 0, 0, 0
	for round := 0; round < rounds; round++ {
		cmd := childCmd(t, "group", dir, envStart+"="+strconv.Itoa(round))
		in, out, stderr := startChild(t, cmd)
		acks := 0
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "ack ") {
				acks++
			}
			if sc.Text() == "done" {
				acked[fmt.Sprintf("run-g%d", round)] = true
				cmd.Process.Signal(syscall.SIGKILL)
			}
		}
		err = cmd.Wait()
		in.Close()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: the writer did not die by SIGKILL: %v\n%s", round, err, stderr.Bytes())
		}

		rep, err := st.Check(crashSession, true)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if rep.SideFile != "" {
			torn++
		}
		data := readFile(t, path)
		if !bytes.HasPrefix(data, base) {
			t.Fatalf("round %d: the first run changed", round)
		}
		// Every run after the first is a prefix of the group that wrote
		// it, whole when it was acknowledged.
		fileLines := bytes.SplitAfter(data, []byte("\n"))
		for i, r := range rep.Runs[1:] {
			var g int
			if _, err := fmt.Sscanf(r.RunID, "run-g%d", &g); err != nil {
				t.Fatalf("round %d: unexpected run %q", round, r.RunID)
			}
			group := groupEvents(g, rep.Runs[i].RunID, r.FirstLine-1)
			if r.Events > len(group) || (acked[r.RunID] && r.Events != len(group)) {
				t.Fatalf("round %d: run %s holds %d events of a group of %d (acknowledged: %v)", round, r.RunID, r.Events, len(group), acked[r.RunID])
			}
			for k := range r.Events {
				if got := fileLines[r.FirstLine-1+k]; !bytes.Equal(got, append(line(group[k]), '\n')) {
					t.Fatalf("round %d: line %d is not event %d of group %d", round, r.FirstLine+k, k, g)
				}
			}
		}
		last := rep.Runs[len(rep.Runs)-1]
		switch want := len(groupEvents(round, "", 0)); {
		case last.RunID != fmt.Sprintf("run-g%d", round):
			none++
		case last.Events == want:
			whole++
		default:
			partial++
		}
		validates(t, path)
		if acks > 0 && !acked[fmt.Sprintf("run-g%d", round)] {
			t.Fatalf("round %d: acknowledged events of a group that did not finish", round)
		}
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
	t.Logf("%d SIGKILL rounds of one group each: %d written whole (%d acknowledged), %d left a prefix of complete lines, %d left none; %d torn tails repaired",
		rounds, whole, len(acked), partial, none, torn)
	if whole == 0 || partial+none == 0 {
		t.Fatal("the rounds did not cover both a finished and an interrupted group")
	}
}
