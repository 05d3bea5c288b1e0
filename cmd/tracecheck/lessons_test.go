package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/scenarios"
)

// TestReferenceLessonGoldensPassTheTraceCommands: the committed golden of
// every reference lesson (the curriculum's thirteen) passes validate,
// fingerprint (equal to Python's, when python3 is on the machine) and
// replay, whose view holds the scenario's expected assistant messages and
// stop reason and the same fingerprint.
func TestReferenceLessonGoldensPassTheTraceCommands(t *testing.T) {
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	py, _ := exec.LookPath("python3")
	const pyFingerprint = `
import hashlib, json, sys
events = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
wire = json.dumps(events, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
print(hashlib.sha256(wire.encode("utf-8")).hexdigest())
`
	lessons := 0
	for _, sc := range all {
		if !sc.Reference {
			continue
		}
		lessons++
		t.Run(sc.ID, func(t *testing.T) {
			file := filepath.Join("..", "..", "golden", golden.FileName(sc.ID))
			if code, stdout, stderr := runCmd(t, "", "validate", file); code != exitOK {
				t.Errorf("validate: exit %d\n%s%s", code, stdout, stderr)
			}
			code, fp, stderr := runCmd(t, "", "fingerprint", file)
			if code != exitOK || len(strings.TrimSpace(fp)) != 64 {
				t.Fatalf("fingerprint: exit %d %q %s", code, fp, stderr)
			}
			if py != "" {
				want, err := exec.Command(py, "-c", pyFingerprint, file).Output()
				if err != nil {
					t.Fatal(err)
				}
				if fp != string(want) {
					t.Errorf("fingerprint %q, Python's %q", fp, want)
				}
			}
			code, stdout, stderr := runCmd(t, "", "replay", file, "--json")
			if code != exitOK {
				t.Fatalf("replay: exit %d %s", code, stderr)
			}
			var st struct {
				AppliedSequences  []int    `json:"applied_sequences"`
				AssistantMessages []string `json:"assistant_messages"`
				StopReason        *string  `json:"stop_reason"`
				Fingerprint       string   `json:"fingerprint"`
			}
			if err := json.Unmarshal([]byte(stdout), &st); err != nil {
				t.Fatalf("replay --json: %v\n%s", err, stdout)
			}
			if len(st.AppliedSequences) != sc.Expect.EventCount || st.Fingerprint != strings.TrimSpace(fp) {
				t.Errorf("replay applied %d events with fingerprint %s; want %d and %s", len(st.AppliedSequences), st.Fingerprint, sc.Expect.EventCount, fp)
			}
			if st.StopReason == nil || sc.Expect.StopReason == nil || *st.StopReason != *sc.Expect.StopReason {
				t.Errorf("replay stop reason %v, want %v", st.StopReason, sc.Expect.StopReason)
			}
			if !slices.Equal(st.AssistantMessages, sc.Expect.AssistantMessages) {
				t.Errorf("replay assistant messages %q, want %q", st.AssistantMessages, sc.Expect.AssistantMessages)
			}
		})
	}
	if lessons != 13 {
		t.Errorf("%d reference lessons, want the curriculum's 13", lessons)
	}
}

// TestVerifyInterruptThatNeverFires: a scenario whose interrupt the run
// never reaches is INVALID, and no golden is written for it.
func TestVerifyInterruptThatNeverFires(t *testing.T) {
	sdir := t.TempDir()
	doc := `{"id":"late","prompt":"p","turns":[{"content":"done","stop":true}],
		"interrupt":{"after":"tool.request"},"expect":{"event_count":5,"focus_event_types":[]}}`
	if err := os.WriteFile(filepath.Join(sdir, "late.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	gdir := t.TempDir()
	code, stdout, _ := runCmd(t, "", "verify", "--scenario-dir", sdir, "--golden-dir", gdir, "--update")
	want := "INVALID late\n  - " + filepath.Join(sdir, "late.json") + `: /interrupt: never fires: interrupt.after is "tool.request", occurrence 1, but the run emits 0 tool.request event(s)`
	if code != exitFailed || !strings.Contains(stdout, want) {
		t.Fatalf("exit %d\n%s\nwant %s", code, stdout, want)
	}
	if _, err := os.Stat(filepath.Join(gdir, "late.trace.jsonl")); !os.IsNotExist(err) {
		t.Errorf("a golden was written for an invalid scenario: %v", err)
	}
}
