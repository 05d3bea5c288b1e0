package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/bench/tracegen"
	"github.com/tracecheck/tracecheck/reducer"
)

// TestReplayCheckpointFlag: replay --checkpoint writes a checkpoint, uses
// it after the journal grows, ignores a stale one, and always prints what a
// replay without it prints.
func TestReplayCheckpointFlag(t *testing.T) {
	full := tracegen.Bytes(tracegen.Options{Events: 500, Seed: 8})
	cut := bytes.Index(full, []byte(`"sequence":300,`))
	cut = bytes.LastIndexByte(full[:cut], '\n') + 1
	dir := t.TempDir()
	path, cp := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "s.cp")
	os.WriteFile(path, full[:cut], 0o644)

	code, out1, errOut := runCmd(t, "", "replay", path, "--json", "--checkpoint", cp)
	if code != 0 || !strings.Contains(errOut, "no checkpoint yet") {
		t.Fatalf("first: %d %q", code, errOut)
	}
	if _, plain, _ := runCmd(t, "", "replay", path, "--json"); plain != out1 {
		t.Fatal("replay with a new checkpoint prints something else than without")
	}
	os.WriteFile(path, full, 0o644)
	code, out2, errOut := runCmd(t, "", "replay", path, "--json", "--checkpoint", cp)
	if code != 0 || !strings.Contains(errOut, "resumed from checkpoint at sequence 299") {
		t.Fatalf("second: %d %q", code, errOut)
	}
	if _, plain, _ := runCmd(t, "", "replay", path, "--json"); plain != out2 {
		t.Fatal("replay from the checkpoint differs from replay from zero")
	}
	// Rewrite the journal's last line in place: the checkpoint is stale.
	edited := bytes.Replace(full, []byte(`"evt-499"`), []byte(`"evt-49X"`), 1)
	os.WriteFile(path, edited, 0o644)
	code, out3, errOut := runCmd(t, "", "replay", path, "--checkpoint", cp, "--verify-prefix")
	if code != 0 || !strings.Contains(errOut, "checkpoint ignored") {
		t.Fatalf("stale: %d %q", code, errOut)
	}
	if _, plain, _ := runCmd(t, "", "replay", path); plain != out3 {
		t.Fatal("replay after ignoring a stale checkpoint differs")
	}
	if code, _, _ := runCmd(t, "", "replay", "-", "--checkpoint", cp); code != 2 {
		t.Fatalf("stdin with --checkpoint: exit %d, want 2", code)
	}
}

func TestWriteBranchJSONMatchesValue(t *testing.T) {
	for _, b := range []reducer.BranchRecord{
		{},
		{BranchID: "b\u2028<&>", ParentSessionID: "s", ParentRunID: "r", ForkSequence: 3,
			InheritedEventIDs: []string{"evt-000", "é\"x", "evt-002"}, ParentFingerprint: "ab"},
	} {
		var got bytes.Buffer
		if err := writeBranchJSON(&got, b); err != nil {
			t.Fatal(err)
		}
		if want := append(b.Value().AppendJSON(nil), '\n'); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("got %s\nwant %s", got.Bytes(), want)
		}
	}
}

// TestReplayCheckpointPathRefused: --checkpoint naming the journal itself,
// a hard link to it, a directory or a file that is no checkpoint is a usage
// error that changes nothing; --verify-prefix alone is a usage error.
func TestReplayCheckpointPathRefused(t *testing.T) {
	data := tracegen.Bytes(tracegen.Options{Events: 40, Seed: 8})
	dir := t.TempDir()
	path := filepath.Join(dir, "j.jsonl")
	os.WriteFile(path, data, 0o644)
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Link(path, link); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("keep me\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", path, "--checkpoint", path}, "is the journal being replayed"},
		{[]string{"replay", path, "--checkpoint", link}, "is the journal being replayed"},
		{[]string{"replay", path, "--checkpoint", notes}, "is not a replay checkpoint"},
		{[]string{"replay", path, "--checkpoint", dir}, "is a directory"},
		{[]string{"replay", path, "--verify-prefix"}, "--verify-prefix checks a checkpoint: it needs --checkpoint PATH"},
	} {
		code, stdout, stderr := runCmd(t, "", tc.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line saying %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, data) {
		t.Fatal("the journal changed")
	}
	if now, _ := os.ReadFile(notes); string(now) != "keep me\n" {
		t.Fatal("a file that is not a checkpoint changed")
	}
}

func TestValidateStdinTwice(t *testing.T) {
	code, stdout, stderr := runCmd(t, mustRead(t, s07), "validate", "-", "-")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "'-' (standard input) given more than once") {
		t.Errorf("validate - -: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
