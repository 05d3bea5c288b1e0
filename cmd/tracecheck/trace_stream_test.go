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
