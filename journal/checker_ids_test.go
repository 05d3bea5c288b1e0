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
