// Package testenv finds the programs some tests need beyond Go (python3,
// for the reference oracles, the test agents and the learners' kits) and
// skips a test that cannot have one, saying so in the test log: a missing
// interpreter is a visible SKIP, never a silent pass and never a failure.
// It also holds what tests of several packages share: CountingWriter,
// StringRuns.
//
// It is for tests only (it imports testing).
package testenv

import (
	"os/exec"
	"testing"
)

// Python returns the path of python3 on PATH, or skips tb with a message
// naming what the skip leaves unchecked (why).
func Python(tb testing.TB, why string) string {
	tb.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		tb.Skipf("SKIPPED: python3 is not on PATH (%v): %s", err, why)
	}
	return p
}
