package reducer_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tracecheck/tracecheck/bench/tracegen"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/reducer"
)

// stateJSON is the replay view as the CLI prints it with --json.
func stateJSON(tb testing.TB, st reducer.ReplayState) string {
	tb.Helper()
	return string(st.Value().AppendJSON(nil))
}

// fromZero replays data with the in-memory API (journal.Read, Replay).
func fromZero(tb testing.TB, data []byte, through int64) string {
	tb.Helper()
	j, err := journal.Read(bytes.NewReader(data), "f")
	if err != nil {
		tb.Fatal(err)
	}
	if through < 0 {
		return stateJSON(tb, reducer.Replay(j))
	}
	st, err := reducer.ReplayThrough(j, through)
	if err != nil {
		tb.Fatal(err)
	}
	return stateJSON(tb, st)
}

func replayFile(tb testing.TB, path, cp string, opt reducer.StreamOptions) (string, string) {
	tb.Helper()
	p, note, err := reducer.ReplayFile(path, cp, opt, false)
	if err != nil {
		tb.Fatalf("ReplayFile: %v (%s)", err, note)
	}
	defer p.Close()
	return checkViews(tb, p), note
}

// checkViews checks that the streamed views equal the in-memory one and
// returns it as JSON.
func checkViews(tb testing.TB, p *reducer.Progress) string {
	tb.Helper()
	st, err := p.State()
	if err != nil {
		tb.Fatal(err)
	}
	if st.Fingerprint != p.Fingerprint() {
		tb.Fatalf("Fingerprint() %s, state %s", p.Fingerprint(), st.Fingerprint)
	}
	want := stateJSON(tb, st)
	var js, txt bytes.Buffer
	if err := p.WriteJSON(&js); err != nil || js.String() != want+"\n" {
		tb.Fatalf("WriteJSON (%v):\n got %.300s\nwant %.300s", err, js.String(), want)
	}
	if err := p.WriteText(&txt); err != nil || txt.String() != textView(st) {
		tb.Fatalf("WriteText (%v):\n got %.300s\nwant %.300s", err, txt.String(), textView(st))
	}
	return want
}

// textView is the text layout of tracecheck replay, from the whole state.
func textView(st reducer.ReplayState) string {
	var b strings.Builder
	fmt.Fprintf(&b, "session_id:  %s\nrun_id:      %s\n", st.SessionID, st.RunID)
	fmt.Fprintf(&b, "applied:     %d events (sequences %d..%d)\n", len(st.AppliedSequences), st.AppliedSequences[0], st.AppliedSequences[len(st.AppliedSequences)-1])
	stop := "(none)"
	if st.StopReason != nil {
		stop = *st.StopReason
	}
	fmt.Fprintf(&b, "stop_reason: %s\nfingerprint: %s\n", stop, st.Fingerprint)
	for _, m := range st.UserMessages {
		fmt.Fprintf(&b, "user:        %q\n", m)
	}
	for _, m := range st.AssistantMessages {
		fmt.Fprintf(&b, "assistant:   %q\n", m)
	}
	for _, r := range st.ToolResults {
		fmt.Fprintf(&b, "tool_result: %s\n", r.AppendJSON(nil))
	}
	return b.String()
}

func lines(data []byte) [][]byte {
	ls := bytes.SplitAfter(data, []byte("\n"))
	return ls[:len(ls)-1]
}

// F. Add a checkpoint containing reducer version, source sequence, source
// fingerprint and serialized projection: replay from the checkpoint plus
// the tail equals replay from event zero.
func TestExerciseF_CheckpointReplay(t *testing.T) {
	for _, spill := range []int{0, 7, -1} {
		t.Run(fmt.Sprint("spill=", spill), func(t *testing.T) { exerciseF(t, spill) })
	}
}

func exerciseF(t *testing.T, spill int) {
	full := tracegen.Bytes(tracegen.Options{Events: 900, Seed: 11})
	ls := lines(full)
	dir := t.TempDir()
	path, cp := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "s.checkpoint")
	prefix := bytes.Join(ls[:600], nil)
	if err := os.WriteFile(path, prefix, 0o644); err != nil {
		t.Fatal(err)
	}
	got, note := replayFile(t, path, cp, reducer.StreamOptions{SpillItems: spill})
	if got != fromZero(t, prefix, -1) || !strings.Contains(note, "no checkpoint") {
		t.Fatalf("first replay differs or note %q", note)
	}
	c, err := reducer.LoadCheckpoint(cp)
	if err != nil {
		t.Fatal(err)
	}
	if c.ReducerVersion != reducer.Version || c.TraceVersion != "0.1.0" || c.Sequence != 599 || c.Offset != int64(len(prefix)) || c.SchemaSHA256 == "" ||
		len(c.FingerprintState) == 0 || c.UserMessages == 0 || c.ToolResults == 0 {
		t.Fatalf("checkpoint header %+v", c)
	}

	// The session goes on: append the tail, replay again from the checkpoint.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(bytes.Join(ls[600:], nil))
	f.Close()
	// Partial replay through a sequence past the checkpoint uses it too.
	got, note = replayFile(t, path, cp, reducer.StreamOptions{Through: 870, HasThrough: true, SpillItems: spill})
	if got != fromZero(t, full, 870) || !strings.Contains(note, "resumed") {
		t.Fatalf("through 870: differs or note %q", note)
	}
	got, note = replayFile(t, path, cp, reducer.StreamOptions{SpillItems: spill})
	if want := fromZero(t, full, -1); got != want {
		t.Fatalf("replay from checkpoint + tail differs from replay from zero:\n got %.300s\nwant %.300s", got, want)
	}
	if !strings.Contains(note, "resumed from checkpoint at sequence 599") || !strings.Contains(note, "read 300 new events") {
		t.Fatalf("note %q", note)
	}
	// ... and one before it cannot: replay from zero.
	got, note = replayFile(t, path, cp, reducer.StreamOptions{Through: 10, HasThrough: true, SpillItems: spill})
	if got != fromZero(t, full, 10) || !strings.Contains(note, "past --through") {
		t.Fatalf("through 10: differs or note %q", note)
	}
	// Nothing new: the checkpoint is used and left as it is.
	before, _ := os.ReadFile(cp)
	got, note = replayFile(t, path, cp, reducer.StreamOptions{SpillItems: spill})
	if after, _ := os.ReadFile(cp); got != fromZero(t, full, -1) || !strings.Contains(note, "read 0 new events") || !bytes.Equal(before, after) {
		t.Fatalf("replay with nothing new: note %q, checkpoint rewritten %v", note, !bytes.Equal(before, after))
	}
	// The source is never rewritten.
	if now, _ := os.ReadFile(path); !bytes.Equal(now, full) {
		t.Fatal("the journal changed")
	}
}

func TestCheckpointOfReferenceTrace(t *testing.T) {
	data, err := os.ReadFile("../testdata/good/s07-session-replay.trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ls := lines(data)
	dir := t.TempDir()
	path, cp := filepath.Join(dir, "s07.jsonl"), filepath.Join(dir, "cp")
	os.WriteFile(path, bytes.Join(ls[:3], nil), 0o644)
	replayFile(t, path, cp, reducer.StreamOptions{})
	os.WriteFile(path, data, 0o644)
	got, note := replayFile(t, path, cp, reducer.StreamOptions{Through: 4, HasThrough: true})
	if !strings.Contains(note, "resumed") {
		t.Fatalf("note %q", note)
	}
	var st struct{ Fingerprint string }
	json.Unmarshal([]byte(got), &st)
	if st.Fingerprint != "1288ae16a0df9408d7a7394b16e7f29367b34832eeca1d9488ca8a410be3cb2e" {
		t.Fatalf("fingerprint through 4 after resume: %s", st.Fingerprint)
	}
}

// TestStaleCheckpointIgnored changes the source, the checkpoint or the
// versions in every way the checks cover: each time the checkpoint is
// ignored, the replay starts from zero and its result is still right.
func TestStaleCheckpointIgnored(t *testing.T) {
	full := tracegen.Bytes(tracegen.Options{Events: 400, Seed: 2})
	ls := lines(full)
	prefix := bytes.Join(ls[:300], nil)
	flip := func(b []byte, at int, from, to string) []byte {
		out := bytes.Clone(b)
		i := at + bytes.Index(out[at:], []byte(from))
		copy(out[i:], to)
		return out
	}
	lastOff := len(prefix) - len(ls[299])
	cases := []struct {
		name   string
		source []byte // the journal after the checkpoint was made
		header func(*reducer.Checkpoint)
		raw    string // replaces the checkpoint file
		full   bool   // verify the whole prefix
		reason string
	}{
		{name: "truncated", source: bytes.Join(ls[:200], nil), reason: "shorter"},
		{name: "last line edited", source: append(flip(prefix, lastOff, `"evt-299"`, `"evt-29X"`), bytes.Join(ls[300:], nil)...), reason: "last checkpointed line"},
		{name: "first line edited", source: append(flip(prefix, 0, `"max_turns":400`, `"max_turns":401`), bytes.Join(ls[300:], nil)...), reason: "first line"},
		{name: "sample digest differs", source: full, header: func(c *reducer.Checkpoint) { c.Source.SampleSHA256 = strings.Repeat("0", 64) }, reason: "sampled"},
		{name: "middle edited, full check", source: append(flip(prefix, len(prefix)/3, `"clean"`, `"CLEAN"`), bytes.Join(ls[300:], nil)...), full: true, reason: "prefix changed"},
		{name: "reducer version", source: full, header: func(c *reducer.Checkpoint) { c.ReducerVersion = "replay/0" }, reason: "reducer version"},
		{name: "schema", source: full, header: func(c *reducer.Checkpoint) { c.SchemaSHA256 = "x" }, reason: "schema"},
		{name: "older format", source: full, raw: `{"format":"tracecheck-checkpoint/1","reducer_version":"replay/1"}` + "\n", reason: "older format"},
		{name: "format 2", source: full, raw: "tracecheck-checkpoint/2\n{}\n", reason: "older format"},
		{name: "no trailer", source: full, raw: "tracecheck-checkpoint/3\n{}\n", reason: "no trailer"},
		{name: "fingerprint state resealed", source: full, header: func(c *reducer.Checkpoint) { c.FingerprintState[40] ^= 1 }, reason: "fingerprint state"},
		{name: "checker state resealed", source: full, header: func(c *reducer.Checkpoint) { c.Sequence, c.Applied, c.Line = 298, 299, 299 }, reason: "checker state"},
		{name: "prefix state resealed", source: full, header: func(c *reducer.Checkpoint) { c.Source.PrefixState[50] ^= 1 }, reason: "prefix state"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path, cp := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "cp")
			os.WriteFile(path, prefix, 0o644)
			replayFile(t, path, cp, reducer.StreamOptions{})
			if tc.header != nil {
				if err := reducer.EditCheckpoint(cp, tc.header); err != nil {
					t.Fatal(err)
				}
			}
			if tc.raw != "" {
				os.WriteFile(cp, []byte(tc.raw), 0o644)
			}
			os.WriteFile(path, tc.source, 0o644)
			p, note, err := reducer.ReplayFile(path, cp, reducer.StreamOptions{SpillItems: 3}, tc.full)
			if err != nil {
				// A source that no longer validates is reported as such.
				if _, jerr := journal.Read(bytes.NewReader(tc.source), "f"); jerr == nil {
					t.Fatalf("ReplayFile: %v", err)
				}
				return
			}
			if !strings.Contains(note, "ignored") || !strings.Contains(note, tc.reason) {
				t.Fatalf("note %q, want ignored because %q", note, tc.reason)
			}
			defer p.Close()
			if got := checkViews(t, p); got != fromZero(t, tc.source, -1) {
				t.Fatal("replay from zero after ignoring the checkpoint differs")
			}
		})
	}
}

// TestCheckpointTailInvariants: the tail is checked against the prefix's
// ids and sequence, as in a replay from zero.
func TestCheckpointTailInvariants(t *testing.T) {
	full := tracegen.Bytes(tracegen.Options{Events: 300, Seed: 4})
	ls := lines(full)
	dir := t.TempDir()
	path, cp := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "cp")
	os.WriteFile(path, bytes.Join(ls[:200], nil), 0o644)
	replayFile(t, path, cp, reducer.StreamOptions{})
	for _, tc := range []struct {
		name string
		tail []byte
		code journal.Code
	}{
		{"duplicate id of the prefix", bytes.Replace(ls[200], []byte(`"evt-200"`), []byte(`"evt-017"`), 1), journal.DuplicateEventID},
		{"gap", bytes.Replace(ls[201], []byte(`"evt-201"`), []byte(`"evt-9999"`), 1), journal.SequenceGap},
		{"parent not earlier", bytes.Replace(ls[200], []byte(`"parent_event_id":"evt-199"`), []byte(`"parent_event_id":"evt-250"`), 1), journal.ParentNotEarlier},
	} {
		os.WriteFile(path, append(bytes.Join(ls[:200], nil), tc.tail...), 0o644)
		_, note, err := reducer.ReplayFile(path, cp, reducer.StreamOptions{}, false)
		if !errors.Is(err, &journal.Error{Code: tc.code, Line: 201}) {
			t.Errorf("%s: got %v (%s), want %s on line 201", tc.name, err, note, tc.code)
		}
	}
}

func TestStreamReplayMatchesInMemory(t *testing.T) {
	data := tracegen.Bytes(tracegen.Options{Events: 2500, Seed: 9})
	for _, spill := range []int{0, 1, 100, -1} {
		p, err := reducer.StreamReplay(bytes.NewReader(data), "f", reducer.StreamOptions{SpillItems: spill})
		if err != nil {
			t.Fatal(err)
		}
		if checkViews(t, p) != fromZero(t, data, -1) {
			t.Fatalf("spill %d: StreamReplay differs from Replay", spill)
		}
		p.Close()
	}
	j, _ := journal.Read(bytes.NewReader(data), "f")
	np, err := reducer.StreamReplay(bytes.NewReader(data), "f", reducer.StreamOptions{Normalized: true, FingerprintOnly: true})
	if err != nil || np.Fingerprint() != reducer.NormalizedFingerprint(j.Values()) {
		t.Fatalf("normalized: %v", err)
	}
	fp, err := reducer.StreamReplay(bytes.NewReader(data), "f", reducer.StreamOptions{FingerprintOnly: true, Through: 1000, HasThrough: true})
	if err != nil || fp.Fingerprint() != reducer.FingerprintValues(j.Values()[:1001]) {
		t.Fatalf("fingerprint only: %v", err)
	}
	for _, through := range []int64{-1, 2500, 100000} {
		_, err := reducer.StreamReplay(bytes.NewReader(data), "f", reducer.StreamOptions{Through: through, HasThrough: true})
		var re *reducer.RangeError
		if !errors.As(err, &re) || re.Len != 2500 {
			t.Errorf("through %d: %v", through, err)
		}
	}
}

func TestStreamBranchMatchesBranch(t *testing.T) {
	data := tracegen.Bytes(tracegen.Options{Events: 1500, Seed: 12})
	j, err := journal.Read(bytes.NewReader(data), "f")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at int64
		id string
	}{{0, "b"}, {2, "b"}, {1100, "x"}, {1499, "y"}, {1500, "b"}, {-1, "b"}, {3, " "}, {1500, ""}} {
		want, werr := reducer.Branch(j, tc.at, tc.id)
		got, gerr := reducer.StreamBranch(bytes.NewReader(data), "f", tc.at, tc.id)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("at %d id %q: error %v, want %v", tc.at, tc.id, gerr, werr)
		}
		if werr == nil && string(got.Value().AppendJSON(nil)) != string(want.Value().AppendJSON(nil)) {
			t.Fatalf("at %d: record differs", tc.at)
		}
	}
	// A bad journal is reported before a blank id.
	_, err = reducer.StreamBranch(strings.NewReader("{}\n"), "f", 0, "")
	if !errors.Is(err, &journal.Error{Code: journal.Schema}) {
		t.Fatalf("bad journal, blank id: %v", err)
	}
}

// TestCheckpointBitFlips flips one bit in each section of a checkpoint
// (the header's fingerprint state and fingerprint, a projection item, the
// trailer): the checkpoint is ignored with a note, the replay is right,
// and the refreshed checkpoint holds the right state again. A flip in the
// first line makes the file no checkpoint at all: it is not replaced.
func TestCheckpointBitFlips(t *testing.T) {
	full := tracegen.Bytes(tracegen.Options{Events: 300, Seed: 5})
	ls := lines(full)
	prefix := bytes.Join(ls[:200], nil)
	want := fromZero(t, full, -1)
	dir := t.TempDir()
	path, cp := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "cp")
	os.WriteFile(path, prefix, 0o644)
	replayFile(t, path, cp, reducer.StreamOptions{})
	good, _ := os.ReadFile(cp)
	head := bytes.Index(good, []byte("\n")) + 1
	state := head + bytes.Index(good[head:], []byte("\n")) + 1
	var hd struct {
		CheckerStateLen int `json:"checker_state_len"`
	}
	json.Unmarshal(good[head:state], &hd)
	items := state + hd.CheckerStateLen + 1
	trailer := bytes.LastIndex(good[:len(good)-1], []byte("\n")) + 1
	at := func(from int, s string) int { return from + bytes.Index(good[from:], []byte(s)) + len(s) }
	os.WriteFile(path, full, 0o644)
	for _, tc := range []struct {
		name string
		off  int
	}{
		{"fingerprint_state", at(head, `"fingerprint_state":"`) + 10},
		{"checker_state", state + hd.CheckerStateLen/2},
		{"checker_state_sha256", at(head, `"checker_state_sha256":"`) + 7},
		{"fingerprint", at(head, `"fingerprint":"`) + 3},
		{"sequence", at(head, `"sequence":`)},
		{"projection item", items + 5},
		{"trailer", trailer + 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := bytes.Clone(good)
			bad[tc.off] ^= 1
			os.WriteFile(cp, bad, 0o600)
			p, note, err := reducer.ReplayFile(path, cp, reducer.StreamOptions{}, true)
			if err != nil {
				t.Fatalf("ReplayFile: %v", err)
			}
			got := checkViews(t, p)
			p.Close()
			if !strings.Contains(note, "checkpoint ignored") || !strings.Contains(note, "damaged") {
				t.Errorf("note %q, want the checkpoint ignored as damaged", note)
			}
			if got != want {
				t.Fatal("replay after a damaged checkpoint differs from replay from zero")
			}
			// The refresh wrote the right state, which the next replay uses.
			got, note = replayFile(t, path, cp, reducer.StreamOptions{})
			if !strings.Contains(note, "resumed from checkpoint at sequence 299") || got != want {
				t.Errorf("after the refresh: note %q, same view as from zero: %v", note, got == want)
			}
		})
	}
	t.Run("first line", func(t *testing.T) {
		bad := bytes.Clone(good)
		bad[3] ^= 1
		os.WriteFile(cp, bad, 0o600)
		_, _, err := reducer.ReplayFile(path, cp, reducer.StreamOptions{}, false)
		var pe *reducer.PathError
		if !errors.As(err, &pe) {
			t.Fatalf("got %v, want a *PathError", err)
		}
		if now, _ := os.ReadFile(cp); !bytes.Equal(now, bad) {
			t.Fatal("a file that is no checkpoint was replaced")
		}
	})
}

// TestCheckpointNeverReplacesJournalOrOtherFiles: --checkpoint naming the
// journal (by its path, another spelling of it, a hard link, a symbolic
// link), a directory, or a file that is not a checkpoint is refused before
// anything is written; every file is left as it was.
func TestCheckpointNeverReplacesJournalOrOtherFiles(t *testing.T) {
	data := tracegen.Bytes(tracegen.Options{Events: 50, Seed: 3})
	dir := t.TempDir()
	path := filepath.Join(dir, "j.jsonl")
	os.WriteFile(path, data, 0o644)
	hard, soft, other, sub := filepath.Join(dir, "hard"), filepath.Join(dir, "soft"), filepath.Join(dir, "notes.txt"), filepath.Join(dir, "d")
	if err := os.Link(path, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(path, soft); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(other, []byte("my notes\n"), 0o644)
	os.Mkdir(sub, 0o755)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cp, reason string }{
		{path, "is the journal"},
		{filepath.Join(dir, ".", "j.jsonl"), "is the journal"},
		{hard, "is the journal"},
		{soft, "is the journal"},
		{other, "not a replay checkpoint"},
		{empty, "not a replay checkpoint"},
		{sub, "is a directory"},
		{fifo, "is not a regular file"},
	} {
		_, _, err := reducer.ReplayFile(path, tc.cp, reducer.StreamOptions{}, false)
		var pe *reducer.PathError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("--checkpoint %s: got %v, want a *PathError saying %q", tc.cp, err, tc.reason)
		}
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, data) {
		t.Fatal("the journal changed")
	}
	// LoadCheckpoint does not open (and wait on) a FIFO either.
	if _, err := reducer.LoadCheckpoint(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("LoadCheckpoint(FIFO): %v", err)
	}
	if now, _ := os.ReadFile(other); string(now) != "my notes\n" {
		t.Fatal("a file that is not a checkpoint changed")
	}
	// A missing path is created, and the checkpoint may then be refreshed.
	cp := filepath.Join(dir, "new.checkpoint")
	replayFile(t, path, cp, reducer.StreamOptions{})
	if _, note := replayFile(t, path, cp, reducer.StreamOptions{}); !strings.Contains(note, "resumed") {
		t.Fatalf("note %q", note)
	}
}
