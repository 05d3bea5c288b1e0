package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// expectBlock extracts the "expect" block render prints on stderr.
func expectBlock(t *testing.T, stderr string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)"expect": (\{.*?\n\})`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no expect block in %q", stderr)
	}
	return m[1]
}

func TestRenderPrintsWhatVerifyCompares(t *testing.T) {
	for _, arg := range []string{"s07-session-replay", filepath.Join(repoRoot, "scenarios", "s07-session-replay.json")} {
		code, stdout, stderr := runCmd(t, "", "render", arg)
		if code != exitOK || stdout != mustRead(t, filepath.Join(committedGoldens(t), "s07-session-replay.trace.jsonl")) {
			t.Fatalf("render %s: exit %d, stdout is not the golden\n%s", arg, code, stderr)
		}
		var got struct {
			EventCount int      `json:"event_count"`
			Focus      []string `json:"focus_event_types"`
			RunIDs     []string `json:"run_ids"`
			StopReason *string  `json:"stop_reason"`
		}
		if err := json.Unmarshal([]byte(expectBlock(t, stderr)), &got); err != nil {
			t.Fatal(err)
		}
		if got.EventCount != 7 || got.StopReason == nil || *got.StopReason != "completed" || len(got.RunIDs) != 1 ||
			strings.Join(got.Focus, ",") != "session.start,user.message,model.request,model.response,session.stop,session.replay,session.branch" {
			t.Errorf("expect block: %+v\n%s", got, stderr)
		}
	}
}

// TestRenderGivesTheExpectationsToPaste: a new scenario with guessed
// expectations renders (exit 1, trace printed); pasting the block render
// prints makes it valid.
func TestRenderGivesTheExpectationsToPaste(t *testing.T) {
	dir := t.TempDir()
	path := scenarioFile(t, dir, "s03-tool-dispatch", "my-new-case", func(s string) string {
		return regexp.MustCompile(`"event_count": \d+`).ReplaceAllString(s, `"event_count": 1`)
	})
	code, stdout, stderr := runCmd(t, "", "render", path)
	if code != exitFailed || strings.Count(stdout, "\n") != 9 || !strings.Contains(stderr, "INVALID my-new-case") || !strings.Contains(stderr, "/expect/event_count: expected 1 events, actual 9") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	block := expectBlock(t, stderr)
	text := mustRead(t, path)
	i := strings.Index(text, `"expect": {`)
	j := strings.Index(text[i:], "\n  }") + i + len("\n  }")
	os.WriteFile(path, []byte(text[:i]+`"expect": `+block+text[j:]), 0o644)
	if code, stdout2, stderr := runCmd(t, "", "render", path); code != exitOK || stdout2 != stdout {
		t.Errorf("after pasting: exit %d\n%s", code, stderr)
	}
	if code, stdout, _ := runCmd(t, "", "verify", "--scenario-dir", dir, "--golden-dir", t.TempDir(), "--update=no"); code != exitFailed || !strings.Contains(stdout, "MISSING my-new-case") {
		t.Errorf("verify of the pasted scenario: exit %d\n%s", code, stdout)
	}
}

func TestRenderUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"render"}, "want one scenario id or scenario file, got 0"},
		{[]string{"render", "a", "b"}, "scenario file, got 2"},
		{[]string{"render", "s99-nope"}, `unknown scenario "s99-nope"`},
		{[]string{"render", "s99-nope"}, `a scenario file is named by its path (FILE.json)`},
		{[]string{"agent", "run", "pi", "--scenario", "shell-write"}, "did you mean " + filepath.Join("..", "..", "agents", "scenarios", "shell-write.json") + "?"},
		{[]string{"render", "nope.json"}, `nope.json: no such file or directory`},
		{[]string{"render", repoRoot}, "not a regular file"},
		{[]string{"render", "x/y.json", "--scenario-dir", "."}, "--scenario-dir goes with a scenario id, not a file"},
	} {
		code, stdout, stderr := runCmd(t, "", tc.args...)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d stdout %q stderr %q; want 2 and %q", tc.args, code, stdout, stderr, tc.msg)
		}
	}
}
