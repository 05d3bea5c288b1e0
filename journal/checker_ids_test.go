package journal

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/bench/tracegen"
)

// TestIDSetFailureIsReadFailed: when the checker's id set cannot create
// its temporary file, validate and the streaming pass stop with
// READ_FAILED naming TMPDIR at the line where it happened, rather than
// judging ids they no longer know.
func TestIDSetFailureIsReadFailed(t *testing.T) {
	data := tracegen.Bytes(tracegen.Options{Events: 20000, Seed: 1, IDs: tracegen.IDsUUID})
	if errs := Validate(bytes.NewReader(data), "f"); errs != nil {
		t.Fatal(errs[0])
	}
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	errs := Validate(bytes.NewReader(data), "f")
	if len(errs) != 1 || errs[0].Code != ReadFailed || errs[0].Line < 2 || !strings.Contains(errs[0].Msg, "TMPDIR") {
		t.Fatalf("validate: %v, want one READ_FAILED naming TMPDIR", errs)
	}
	err := Stream(bytes.NewReader(data), "f", StreamOptions{}, func(*Entry) error { return nil })
	if e, ok := err.(*Error); !ok || e.Code != ReadFailed || e.Line < 2 || !strings.Contains(e.Msg, "TMPDIR") {
		t.Fatalf("stream: %v, want READ_FAILED naming TMPDIR", err)
	}
}

// TestRestoredCheckerNeedsOffsets: a checker restored from its compact
// state reads ids back from its file by line offset, so an event checked
// without one (Check) is refused as READ_FAILED, never judged by a wrong
// line.
func TestRestoredCheckerNeedsOffsets(t *testing.T) {
	data := tracegen.Bytes(tracegen.Options{Events: 50, Seed: 1, IDs: tracegen.IDsUUID})
	c := NewRunChecker()
	if err := Stream(bytes.NewReader(data), "f", StreamOptions{Resume: &Resume{Checker: c}}, func(*Entry) error { return nil }); err != nil {
		t.Fatal(err)
	}
	st, err := c.AppendCompactState(nil)
	if err != nil {
		t.Fatal(err)
	}
	var d RunChecker
	if err := d.RestoreCompactState(st, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	sess, run, _ := d.Position()
	if err := d.Check(&Event{EventID: "x", Sequence: 50, SessionID: sess, Provenance: Provenance{RunID: run}}); err == nil || err.Code != ReadFailed {
		t.Fatalf("Check on a restored checker: %v, want READ_FAILED", err)
	}
	if _, err := c.MarshalBinary(); err != nil {
		t.Fatalf("the full state of a streamed checker: %v", err)
	}
	if _, err := d.MarshalBinary(); err == nil {
		t.Fatal("the full state of a restored checker was written")
	}
}
