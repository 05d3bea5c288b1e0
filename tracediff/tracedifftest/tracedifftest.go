// Package tracedifftest runs the test agents in testdata/agents for the
// tests of any package (diff, verify command cases): it finds python3,
// skipping the test with a visible message when there is none, locates the
// agent scripts from this source file, and runs an agent into a trace file.
package tracedifftest

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/tracecheck/tracecheck/internal/testenv"
)

// RandomAgent is the agent that writes random ids, wall-clock timestamps,
// random durations and a random tool order (testdata/agents/random_agent.py).
const RandomAgent = "random_agent.py"

// Python returns the path of python3, or skips the test saying why.
func Python(tb testing.TB) string {
	tb.Helper()
	return testenv.Python(tb, "the agent tests need it")
}

// AgentDir is the absolute path of testdata/agents.
func AgentDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "agents")
}

// Script returns the absolute path of agent script name.
func Script(name string) string { return filepath.Join(AgentDir(), name) }

var runs atomic.Int64

// RunAgent runs agent script name with args, writing its trace to a new
// file in dir, and returns the file's path. The test fails when the agent
// does.
func RunAgent(tb testing.TB, dir, name string, args ...string) string {
	tb.Helper()
	py := Python(tb)
	out := filepath.Join(dir, fmt.Sprintf("run-%03d.trace.jsonl", runs.Add(1)))
	cmd := exec.Command(py, append([]string{Script(name), "--out", out}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s %v: %v\n%s", name, args, err, stderr.String())
	}
	return out
}
