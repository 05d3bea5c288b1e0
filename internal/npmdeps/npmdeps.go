// Package npmdeps installs a folder's pinned npm packages for the tests
// that drive real Node programs (the official SDKs, the real coding
// agents): `npm ci` from the folder's package-lock.json into its
// git-ignored node_modules, again only when the lock file changes (a stamp
// in node_modules holds the lock file's SHA-256, written after the whole
// install, its post step included, succeeded).
//
// Ensure never fails a test for want of a registry: when node or npm is
// missing or the install fails, it returns the reason to skip, worded for
// CI output ("SKIPPED: ..."). Concurrent test binaries installing the same
// folder take turns on a lock file beside the lock file.
package npmdeps

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Stamp is the file in node_modules that records the installed lock file.
const Stamp = ".tracecheck-lock.sha256"

// Options tune an install.
type Options struct {
	// What names the packages in skip messages ("the official SDK tests").
	What string
	// CIArgs are added to `npm ci` (e.g. --ignore-scripts).
	CIArgs []string
	// Post runs after npm ci, in the folder (Claude Code's own postinstall
	// when scripts were ignored); its failure is a skip too.
	Post func(ctx context.Context, dir string) error
	// Timeout bounds the whole install (default 10 minutes).
	Timeout time.Duration
}

// Ensure installs dir's packages unless the stamp says they are, and
// returns "" when they are ready, else the reason to skip.
func Ensure(dir string, opt Options) string {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Sprintf("SKIPPED: %s need %s, which is not on PATH", opt.What, tool)
		}
	}
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return "SKIPPED: " + err.Error()
	}
	sum := sha256.Sum256(lock)
	want := hex.EncodeToString(sum[:])
	stamp := filepath.Join(dir, "node_modules", Stamp)
	installed := func() bool {
		got, err := os.ReadFile(stamp)
		return err == nil && strings.TrimSpace(string(got)) == want
	}
	if installed() {
		return ""
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return "SKIPPED: " + err.Error()
	}
	defer unlock()
	if installed() { // another test binary installed it while we waited
		return ""
	}
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	os.Remove(stamp)
	args := append([]string{"ci", "--no-audit", "--no-fund"}, opt.CIArgs...)
	cmd := exec.CommandContext(ctx, "npm", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	rel := filepath.Base(dir)
	if err != nil {
		return fmt.Sprintf("SKIPPED: npm ci in %s failed (is the npm registry reachable?): %v\n%s", rel, err, tail(string(out), 800))
	}
	if opt.Post != nil {
		if err := opt.Post(ctx, dir); err != nil {
			return fmt.Sprintf("SKIPPED: the post-install step in %s failed: %v", rel, err)
		}
	}
	if err := os.WriteFile(stamp, []byte(want+"\n"), 0o644); err != nil {
		return "SKIPPED: " + err.Error()
	}
	return ""
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
