package reducer_test

// The exercises of the curriculum's lesson s07 (github.com/vpromise/inside-coding-agents),
// each asserting its acceptance criterion.
// E (duplicate delivery) lives with the session store, F (checkpoints) with
// the checkpoint code.

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/reducer"
)

func loadJournal(tb testing.TB, fixture string) *journal.Journal {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("../testdata", fixture))
	if err != nil {
		tb.Fatal(err)
	}
	j, err := journal.Read(bytes.NewReader(data), fixture)
	if err != nil {
		tb.Fatalf("%s: %v", fixture, err)
	}
	return j
}

// A. Copy the first three events, change the last sequence from 2 to 4:
// constructing the journal fails before any replay view exists.
func TestExerciseA_RejectSequenceGap(t *testing.T) {
	events := loadJournal(t, "good/s07-session-replay.trace.jsonl").Events()[:3]
	events[2].Sequence = 4
	j, err := journal.New(events)
	if j != nil {
		t.Fatal("journal.New returned a journal for a sequence gap; replay would be possible")
	}
	if !errors.Is(err, &journal.Error{Code: journal.SequenceGap}) {
		t.Fatalf("got %v, want SEQUENCE_GAP", err)
	}
	// The same gap read from a file is reported at its line.
	data, err := os.ReadFile("../testdata/bad/sequence-gap.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	_, err = journal.Read(bytes.NewReader(data), "sequence-gap.jsonl")
	if !errors.Is(err, &journal.Error{Code: journal.SequenceGap, Line: 3}) {
		t.Fatalf("Read: got %v, want SEQUENCE_GAP on line 3", err)
	}
}

// B. Replay through sequence 2: the user message, no assistant message, no
// stop reason, exactly three applied sequences.
func TestExerciseB_PartialReplay(t *testing.T) {
	j := loadJournal(t, "good/s07-session-replay.trace.jsonl")
	st, err := reducer.ReplayThrough(j, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.UserMessages) != 1 || st.UserMessages[0] != "Explain replay and branch lineage in one sentence." {
		t.Errorf("user messages %q", st.UserMessages)
	}
	if len(st.AssistantMessages) != 0 {
		t.Errorf("assistant messages %q, want none", st.AssistantMessages)
	}
	if st.StopReason != nil {
		t.Errorf("stop reason %q, want none", *st.StopReason)
	}
	if want := []int64{0, 1, 2}; !slices.Equal(st.AppliedSequences, want) {
		t.Errorf("applied %v, want %v", st.AppliedSequences, want)
	}
}

// C. The s02 trace streams one response in three deltas: replay yields one
// assistant message, the final accumulated text.
func TestExerciseC_StreamingReducer(t *testing.T) {
	j := loadJournal(t, "good/s02-events-streaming.trace.jsonl")
	deltas := 0
	for _, e := range j.Events() {
		if e.Type == "model.response" {
			deltas++
		}
	}
	if deltas != 3 {
		t.Fatalf("fixture has %d model.response events, the exercise needs 3", deltas)
	}
	st := reducer.Replay(j)
	want := []string{"Observe events, not hidden state."}
	if len(st.AssistantMessages) != 1 || st.AssistantMessages[0] != want[0] {
		t.Errorf("assistant messages %q, want %q", st.AssistantMessages, want)
	}
}

// D. Two branches at the same sequence with different ids share the parent
// fingerprint and inherited event ids; only the branch ids differ.
func TestExerciseD_StableBranchIdentity(t *testing.T) {
	j := loadJournal(t, "good/s07-session-replay.trace.jsonl")
	a, err := reducer.Branch(j, 2, "branch-a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := reducer.Branch(j, 2, "branch-b")
	if err != nil {
		t.Fatal(err)
	}
	if a.ParentFingerprint != b.ParentFingerprint || !slices.Equal(a.InheritedEventIDs, b.InheritedEventIDs) {
		t.Errorf("lineage differs: %+v vs %+v", a, b)
	}
	if a.BranchID == b.BranchID {
		t.Errorf("branch ids are equal: %q", a.BranchID)
	}
	if want := []string{"evt-000", "evt-001", "evt-002"}; !slices.Equal(a.InheritedEventIDs, want) {
		t.Errorf("inherited %v, want %v", a.InheritedEventIDs, want)
	}
}
