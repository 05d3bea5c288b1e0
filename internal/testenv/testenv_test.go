package testenv

import (
	"os/exec"
	"testing"
)

// TestPython: with python3 on PATH, Python returns its path; without,
// the test is skipped (which this test then shows as a skip, not a pass).
func TestPython(t *testing.T) {
	want, err := exec.LookPath("python3")
	got := Python(t, "nothing to check without it")
	if err != nil || got != want {
		t.Fatalf("Python = %q, LookPath = %q, %v", got, want, err)
	}
}
