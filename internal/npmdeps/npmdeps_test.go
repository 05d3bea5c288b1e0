package npmdeps

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheStampDecidesWhetherToInstall: a node_modules whose stamp holds
// the lock file's SHA-256 is taken as installed, and npm is not run (the
// folder has no package.json it could install from, so a run would fail);
// a stamp of another lock file is not, and the failed install is a skip
// reason, never a panic or a test failure.
func TestTheStampDecidesWhetherToInstall(t *testing.T) {
	dir := t.TempDir()
	lock := []byte(`{"lockfileVersion": 3}`)
	if err := os.WriteFile(filepath.Join(dir, "package-lock.json"), lock, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lock)
	stamp := filepath.Join(dir, "node_modules", Stamp)

	if err := os.WriteFile(stamp, []byte(hex.EncodeToString(sum[:])+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if reason := Ensure(dir, Options{What: "the test"}); reason != "" && !strings.Contains(reason, "not on PATH") {
		t.Errorf("a stamped install was redone: %s", reason)
	}

	if err := os.WriteFile(stamp, []byte("0000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reason := Ensure(dir, Options{What: "the test"})
	if !strings.HasPrefix(reason, "SKIPPED: ") {
		t.Errorf("a stale stamp gave %q, want a skip reason (npm ci cannot succeed here)", reason)
	}
}
