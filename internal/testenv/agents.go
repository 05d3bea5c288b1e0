package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/tracecheck/tracecheck/internal/npmdeps"
)

var agents struct {
	once sync.Once
	bin  string
	skip string
}

// RealAgents installs the real coding agents pinned in the module's
// agents/npm (npmdeps: npm ci --ignore-scripts, again only when the lock
// file changes, then Claude Code's own postinstall, install.cjs, which
// puts its native binary in place as npm would with scripts on) and
// returns the folder of their programs (node_modules/.bin: pi, claude,
// codex). Without node, npm or the registry it skips tb, saying so.
func RealAgents(tb testing.TB) string {
	tb.Helper()
	agents.once.Do(func() {
		dir, err := moduleDir()
		if err != nil {
			agents.skip = "SKIPPED: " + err.Error()
			return
		}
		dir = filepath.Join(dir, "agents", "npm")
		agents.skip = npmdeps.Ensure(dir, npmdeps.Options{
			What:   "the real-agent tests (pi, Claude Code, Codex)",
			CIArgs: []string{"--ignore-scripts"},
			Post:   claudePostinstall,
		})
		if agents.skip == "" {
			agents.bin = filepath.Join(dir, "node_modules", ".bin")
		}
	})
	if agents.bin == "" {
		tb.Log(agents.skip)
		tb.Skip(agents.skip)
	}
	return agents.bin
}

// claudePostinstall runs @anthropic-ai/claude-code's install.cjs in its
// package folder.
func claudePostinstall(ctx context.Context, dir string) error {
	pkg := filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code")
	cmd := exec.CommandContext(ctx, "node", "install.cjs")
	cmd.Dir = pkg
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("node install.cjs in %s: %v\n%s", pkg, err, out)
	}
	return nil
}

// moduleDir is the module's root: the folder of this file's module.
func moduleDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("cannot find the module's folder")
	}
	dir := filepath.Join(filepath.Dir(file), "..", "..")
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", err
	}
	return filepath.Abs(dir)
}
