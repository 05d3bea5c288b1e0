package journal

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// AppendGolden writes the envelope member by member: it must write the
// bytes of e.Value().AppendJSON, for every optional member present or not
// and strings that need escapes.
func TestAppendGoldenMatchesValue(t *testing.T) {
	texts := []string{"", "a", "evt-001", "é \"q\" \\ \n\t\x01 \u2028 😀", "run-1"}
	r := rand.New(rand.NewPCG(25, 3))
	pick := func() string { return texts[r.IntN(len(texts))] }
	opt := func() *string {
		if r.IntN(2) == 0 {
			return nil
		}
		s := pick()
		return &s
	}
	for n := 0; n < 5000; n++ {
		e := Event{TraceVersion: pick(), EventID: pick(), SessionID: pick(), Sequence: r.Int64N(1<<40) - 5,
			Timestamp: pick(), Type: pick(), Actor: Actor{Kind: pick(), ID: pick(), ParentID: pick()},
			Provenance: Provenance{AgentID: pick(), SnapshotID: pick(), Surface: pick(), HarnessMode: pick(), RunID: pick(),
				ExperimentID: pick(), Model: opt(), Provider: opt()},
			Redaction:     Redaction{Status: pick(), Notes: opt()},
			ParentEventID: pick(),
		}
		for k := r.IntN(3); k > 0; k-- {
			e.Redaction.Fields = append(e.Redaction.Fields, pick())
		}
		if r.IntN(3) > 0 {
			e.Payload = jsonv.Obj(jsonv.M("text", jsonv.Str(pick())), jsonv.M("n", jsonv.Int(r.Int64N(100))))
		}
		if r.IntN(2) == 0 {
			e.DurationMS = jsonv.Int(r.Int64N(1000))
		}
		want := append(e.Value().AppendJSON([]byte("x")), '\n')
		if got := e.AppendGolden([]byte("x")); !bytes.Equal(got, want) {
			t.Fatalf("AppendGolden:\n%s\nValue().AppendJSON:\n%s", got, want)
		}
	}
}
