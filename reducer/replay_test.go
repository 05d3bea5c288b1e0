package reducer_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// Test vectors from FACTS.md, computed by the reference implementation.
func TestFingerprintVectors(t *testing.T) {
	j := loadJournal(t, "good/s07-session-replay.trace.jsonl")
	tests := []struct {
		through int64
		want    string
	}{
		{4, "1288ae16a0df9408d7a7394b16e7f29367b34832eeca1d9488ca8a410be3cb2e"},
		{2, "1e38d6f6527a0c7a8cbf0e78bc9424aba27dcd718bf370f948f2e8cf030923fb"},
	}
	for _, tt := range tests {
		st, err := reducer.ReplayThrough(j, tt.through)
		if err != nil {
			t.Fatal(err)
		}
		if st.Fingerprint != tt.want {
			t.Errorf("through %d: %s, want %s", tt.through, st.Fingerprint, tt.want)
		}
		if got := reducer.FingerprintValues(j.Values()[:tt.through+1]); got != tt.want {
			t.Errorf("FingerprintValues through %d: %s, want %s", tt.through, got, tt.want)
		}
		if got := reducer.Fingerprint(j.Events()[:tt.through+1]); got != tt.want {
			t.Errorf("Fingerprint(events) through %d: %s, want %s", tt.through, got, tt.want)
		}
	}
	// The s07 golden records both digests in its own replay and branch events.
	evs := j.Events()
	if fp, _ := evs[5].Payload.Get("fingerprint"); fp.Text() != tests[0].want {
		t.Errorf("session.replay payload fingerprint %s", fp.Text())
	}
}

func TestReplayWholeJournal(t *testing.T) {
	j := loadJournal(t, "good/s07-session-replay.trace.jsonl")
	st := reducer.Replay(j)
	stop := "completed"
	want := reducer.ReplayState{
		SessionID:         "session-s07-session-replay",
		RunID:             "run-s07-session-replay-golden",
		AppliedSequences:  []int64{0, 1, 2, 3, 4, 5, 6},
		UserMessages:      []string{"Explain replay and branch lineage in one sentence."},
		AssistantMessages: []string{"Replay derives state; branching preserves its parent."},
		ToolResults:       []jsonv.Value{},
		StopReason:        &stop,
		Fingerprint:       reducer.FingerprintValues(j.Values()),
	}
	if diff := cmp.Diff(want, st, cmp.Comparer(jsonv.Equal), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
}

func TestReplayOutOfRange(t *testing.T) {
	j := loadJournal(t, "good/s07-session-replay.trace.jsonl")
	for _, seq := range []int64{-1, 7, 100} {
		_, err := reducer.ReplayThrough(j, seq)
		var re *reducer.RangeError
		if !errors.As(err, &re) {
			t.Errorf("through %d: got %v, want *RangeError", seq, err)
		}
	}
}

func TestBranchErrors(t *testing.T) {
	j := loadJournal(t, "good/s07-session-replay.trace.jsonl")
	for _, id := range []string{"", "   ", "\t"} {
		if _, err := reducer.Branch(j, 2, id); !errors.Is(err, reducer.ErrBlankBranchID) {
			t.Errorf("id %q: got %v, want ErrBlankBranchID", id, err)
		}
	}
	var re *reducer.RangeError
	if _, err := reducer.Branch(j, 9, "b"); !errors.As(err, &re) {
		t.Errorf("fork 9: got %v, want *RangeError", err)
	}
}

// The branch record of the s07 golden's own session.branch event.
func TestBranchMatchesGoldenPayload(t *testing.T) {
	j := loadJournal(t, "good/s07-session-replay.trace.jsonl")
	b, err := reducer.Branch(j, 2, "branch-alternative-response")
	if err != nil {
		t.Fatal(err)
	}
	p := j.Events()[6].Payload
	for key, want := range map[string]string{
		"branch_id":          b.BranchID,
		"parent_run_id":      b.ParentRunID,
		"parent_fingerprint": b.ParentFingerprint,
	} {
		if got, _ := p.Get(key); got.Text() != want {
			t.Errorf("%s: golden %q, computed %q", key, got.Text(), want)
		}
	}
	if n, _ := p.Get("inherited_events"); n.Text() != "3" || len(b.InheritedEventIDs) != 3 {
		t.Errorf("inherited: golden %s, computed %d", n.Text(), len(b.InheritedEventIDs))
	}
}

// Streaming rule edge cases: a non-final delta never counts, content wins
// over accumulated, and only the literal true marks the final delta.
func TestStreamingRule(t *testing.T) {
	base := loadJournal(t, "good/s02-events-streaming.trace.jsonl").Events()
	tests := []struct {
		name    string
		payload jsonv.Value
		want    []string
	}{
		{"final true", jsonv.Obj(jsonv.M("accumulated", jsonv.Str("all")), jsonv.M("final", jsonv.BoolValue(true))), []string{"all"}},
		{"final false", jsonv.Obj(jsonv.M("accumulated", jsonv.Str("part")), jsonv.M("final", jsonv.BoolValue(false))), nil},
		{"final 1 is not true", jsonv.Obj(jsonv.M("accumulated", jsonv.Str("x")), jsonv.M("final", jsonv.Int(1))), nil},
		{"content wins", jsonv.Obj(jsonv.M("content", jsonv.Str("c")), jsonv.M("accumulated", jsonv.Str("a")), jsonv.M("final", jsonv.BoolValue(true))), []string{"c"}},
		{"final without accumulated", jsonv.Obj(jsonv.M("final", jsonv.BoolValue(true))), []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := append([]journal.Event(nil), base[:4]...)
			evs[3].Payload = tt.payload
			j, err := journal.New(evs)
			if err != nil {
				t.Fatal(err)
			}
			got := reducer.Replay(j).AssistantMessages
			if len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNormalizedFingerprintIgnoresVolatileFields(t *testing.T) {
	j := loadJournal(t, "good/s07-session-replay.trace.jsonl")
	evs := append([]journal.Event(nil), j.Events()...)
	for i := range evs {
		evs[i].SessionID = "session-other"
		evs[i].Timestamp = "2030-01-01T00:00:00Z"
		evs[i].Provenance.RunID = "run-other"
	}
	other, err := journal.New(evs)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := reducer.NormalizedFingerprint(j.Values()), reducer.NormalizedFingerprint(other.Values()); a != b {
		t.Errorf("normalized fingerprints differ: %s vs %s", a, b)
	}
	if a, b := reducer.FingerprintValues(j.Values()), reducer.FingerprintValues(other.Values()); a == b {
		t.Error("plain fingerprints should differ when session, time and run differ")
	}
	evs[3].Payload = evs[3].Payload.With("content", jsonv.Str("changed"))
	changed, err := journal.New(evs)
	if err != nil {
		t.Fatal(err)
	}
	if reducer.NormalizedFingerprint(j.Values()) == reducer.NormalizedFingerprint(changed.Values()) {
		t.Error("normalized fingerprint ignored a payload change")
	}
}
