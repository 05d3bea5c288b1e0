package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/internal/testenv"
)

// The real agents' cases and scenarios (agents/): pi, Claude Code and
// Codex, installed from npm at the versions agents/npm pins.
var (
	agentCaseDir     = filepath.Join(repoRoot, "agents", "cases")
	agentScenarioDir = filepath.Join(repoRoot, "agents", "scenarios")
)

// agentPrograms maps each preset to its program in node_modules/.bin.
var agentPrograms = map[string]string{"pi": "pi", "claude-code": "claude", "codex": "codex"}

// TestRealAgentsMatchTheirGoldens runs the committed agent cases twice:
// each of the three real agents on each scenario passes against its
// goldens both times (its native trace tolerantly, the server's trace byte
// for byte, a crash-and-resume run's conformance report line by line), so
// two runs are alike where the goldens say they must be.
func TestRealAgentsMatchTheirGoldens(t *testing.T) {
	testenv.RealAgents(t)
	local(t)
	goldens, err := filepath.Glob(filepath.Join(agentCaseDir, "*.trace.jsonl"))
	if err != nil || len(goldens) < 15 {
		t.Fatalf("%d goldens in %s (%v): want at least 3 agents x (2 scenarios x native and server traces + 1 report)", len(goldens), agentCaseDir, err)
	}
	for i := range 2 {
		code, stdout, stderr := runCmd(t, "", "verify", "--cases", agentCaseDir, "--no-scenarios", "--update=no")
		ok := regexp.MustCompile(`(?m)^ok `).FindAllString(stdout, -1)
		if code != exitOK || len(ok) != len(goldens) {
			t.Fatalf("run %d: exit %d, %d subjects ok, want all %d\n%s%s", i+1, code, len(ok), len(goldens), stdout, stderr)
		}
	}
}

// TestAgentRunUsesTheAgentsOwnTool: `agent run AGENT --scenario
// shell-write` exits 0 and the workspace file is there, written by the
// agent's own shell tool, for each agent; the output folder holds what the
// docs list.
func TestAgentRunUsesTheAgentsOwnTool(t *testing.T) {
	bin := testenv.RealAgents(t)
	for agent, prog := range agentPrograms {
		t.Run(agent, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			code, stdout, stderr := runCmd(t, "", "agent", "run", agent, "--scenario", filepath.Join(agentScenarioDir, "shell-write.json"),
				"--bin", filepath.Join(bin, prog), "--out", out)
			if code != exitOK || !strings.Contains(stdout, "ok "+agent+" shell-write") {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			got, err := os.ReadFile(filepath.Join(out, "workspace", "out.txt"))
			if err != nil || string(got) != "hello\n" {
				t.Errorf("workspace/out.txt = %q, %v; want the agent's shell to have written hello", got, err)
			}
			for _, f := range []string{"native.jsonl", "native.trace.jsonl", "server.trace.jsonl", "agent.log"} {
				if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
					t.Errorf("%s: %v (size %v)", f, err, st)
				}
			}
		})
	}
}

// TestAgentCaseDriftNamesThePointer: when the scenario's tool result
// changes (the file the agent reads holds other lines), the agent case
// fails with a DRIFT whose model-side report names the JSON pointer of the
// tool message's hash.
func TestAgentCaseDriftNamesThePointer(t *testing.T) {
	bin := testenv.RealAgents(t)
	local(t)
	dir := t.TempDir()
	var sc map[string]any
	if err := json.Unmarshal([]byte(mustRead(t, filepath.Join(agentScenarioDir, "read-count.json"))), &sc); err != nil {
		t.Fatal(err)
	}
	sc["workspace"] = map[string]any{"files": map[string]any{"notes.txt": "alpha\nbeta\ndelta\n"}}
	if err := os.Mkdir(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeJSON(t, filepath.Join(dir, "scenarios", "read-count.json"), sc)
	writeJSON(t, filepath.Join(dir, "pi-read-count.json"), map[string]any{
		"agent": map[string]any{"name": "pi", "bin": filepath.Join(bin, "pi")},
		"model": map[string]any{"scenario": "scenarios/read-count.json"},
	})
	gdir := filepath.Join(dir, "golden")
	copyFiles(t, agentCaseDir, "pi-read-count.*trace.jsonl", gdir)
	code, stdout, stderr := runCmd(t, "", "verify", "--cases", dir, "--no-scenarios", "--golden-dir", gdir, "--update=no")
	if code != exitFailed || !strings.Contains(stdout, "DRIFT pi-read-count.model") {
		t.Fatalf("exit %d, want 1 with a model-side DRIFT\n%s%s", code, stdout, stderr)
	}
	if !regexp.MustCompile(`/payload/messages/\d+/sha256: expected "[0-9a-f]{64}", actual "[0-9a-f]{64}"`).MatchString(stdout) {
		t.Errorf("the drift does not name the hash pointer of the changed tool result:\n%s", stdout)
	}
	if !strings.Contains(stdout, "DRIFT pi-read-count\n") && !strings.Contains(stdout, "DRIFT pi-read-count ") {
		t.Errorf("the native trace's tool result changed too, but its subject did not drift:\n%s", stdout)
	}
}

func writeJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// TestKillReportAgreesWithLint: killing pi during its tool and resuming
// gives a report whose last step's log codes are what `tracecheck lint`
// says of the session log the run left, and whose resume step says how pi
// answered the open call.
func TestKillReportAgreesWithLint(t *testing.T) {
	bin := testenv.RealAgents(t)
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCmd(t, "", "agent", "run", "pi", "--scenario", filepath.Join(agentScenarioDir, "kill-during-tool.json"),
		"--bin", filepath.Join(bin, "pi"), "--out", out, "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	var rep struct {
		Steps []struct {
			Kind        string   `json:"kind"`
			LogCodes    []string `json:"log_codes"`
			Outcome     string   `json:"outcome"`
			Interrupted *struct {
				CallID  string `json:"call_id"`
				Carried string `json:"carried"`
				Answer  string `json:"answer"`
			} `json:"interrupted_call"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(mustRead(t, filepath.Join(out, "report.json"))), &rep); err != nil || len(rep.Steps) != 2 {
		t.Fatalf("report.json: %v, %d steps", err, len(rep.Steps))
	}
	last := rep.Steps[1]
	if last.Kind != "resume" || last.Interrupted == nil || last.Interrupted.CallID != "call_slow_1" || last.Interrupted.Carried != "answered" || last.Interrupted.Answer == "" {
		t.Errorf("the resume step does not say how pi answered the open call: %+v", last)
	}
	_, lintOut, _ := runCmd(t, "", "lint", filepath.Join(out, "native.jsonl"))
	var codes []string
	for _, m := range regexp.MustCompile(`:\d+: ([A-Z_]+) `).FindAllStringSubmatch(lintOut, -1) {
		if !slices.Contains(codes, m[1]) {
			codes = append(codes, m[1])
		}
	}
	slices.Sort(codes)
	if !slices.Equal(codes, last.LogCodes) {
		t.Errorf("report log codes %v, lint says %v:\n%s", last.LogCodes, codes, lintOut)
	}
}
