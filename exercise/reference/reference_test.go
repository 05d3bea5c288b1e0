package reference

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal/jsonv"

	_ "github.com/sebdah/goldie/v2" // defines -update, so that `go test ./... -update` runs here too
)

func s07(tb testing.TB) []jsonv.Value {
	tb.Helper()
	data, err := os.ReadFile("../../testdata/good/s07-session-replay.trace.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	var out []jsonv.Value
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte{'\n'}) {
		v, err := jsonv.Parse(l)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// A checkpoint at every sequence, plus the rest, replays to exactly the
// state from event zero, fingerprint included (the reference's test vector).
func TestCheckpointPlusTailEqualsReplay(t *testing.T) {
	ev := s07(t)
	whole, err := Replay(ev, nil)
	if err != nil {
		t.Fatal(err)
	}
	if whole.Fingerprint == "" {
		t.Fatal("no fingerprint")
	}
	for k := int64(0); k < int64(len(ev)); k++ {
		cp, err := Checkpoint(ev, k)
		if err != nil {
			t.Fatal(err)
		}
		// Through JSON and back, as the protocol carries it.
		cp, err = jsonv.Parse(cp.AppendCanonical(nil))
		if err != nil {
			t.Fatal(err)
		}
		st, err := ReplayFromCheckpoint(cp, ev[k+1:])
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		if !jsonv.Equal(st.Value(), whole.Value()) {
			t.Errorf("k=%d: %s\nwant %s", k, st.Value().AppendJSON(nil), whole.Value().AppendJSON(nil))
		}
	}
	through := int64(4)
	st, _ := Replay(ev, &through)
	if st.Fingerprint != "1288ae16a0df9408d7a7394b16e7f29367b34832eeca1d9488ca8a410be3cb2e" {
		t.Errorf("through 4: %s", st.Fingerprint)
	}
}

func TestReplayFromCheckpointRefuses(t *testing.T) {
	ev := s07(t)
	cp, err := Checkpoint(ev, 2)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cp   jsonv.Value
		tail []jsonv.Value
		code string
	}{
		{"another reducer", cp.With("reducer_version", jsonv.Str("replay/0")), ev[3:], CodeStaleCheckpoint},
		{"not a checkpoint", jsonv.Str("cp"), ev[3:], CodeStaleCheckpoint},
		{"a gap", cp, ev[4:], "SEQUENCE_GAP"},
		{"the prefix again", cp, ev[2:], "SEQUENCE_GAP"},
	}
	for _, tt := range tests {
		_, err := ReplayFromCheckpoint(tt.cp, tt.tail)
		if e, ok := err.(*Error); !ok || e.Code != tt.code {
			t.Errorf("%s: got %v, want %s", tt.name, err, tt.code)
		}
	}
}

func TestServeAnswersBadRequests(t *testing.T) {
	in := strings.Join([]string{
		`not json`,
		`{"id":2,"op":"teleport"}`,
		`{"id":3,"op":"replay"}`,
		`{"id":4,"op":"branch","events":[],"fork_sequence":0,"branch_id":"b"}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := Serve(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"id":0,"ok":false,"error":{"message":"line 1 is not a JSON object","code":"BAD_REQUEST"}}`,
		`{"id":2,"ok":false,"error":{"message":"op \"teleport\" is not one this subject supports","code":"UNSUPPORTED_OP"}}`,
		`"code":"BAD_REQUEST"`,
		`"code":"EMPTY_JOURNAL"`,
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d answers: %q", len(got), got)
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("answer %d: %s, want %s", i+1, got[i], want[i])
		}
	}
}
