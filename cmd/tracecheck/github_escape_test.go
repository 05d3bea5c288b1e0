package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/internal/textsafe"
)

// hostileName is a file name that would clear and recolour a terminal,
// ring its bell and reverse the rest of the line if printed raw.
const hostileName = "evil\x1b[2J\x1b[31m\a\x7f\u009b\u202e\u2066\u200b\ufeff"

// hostileCopy copies the fixture src into a directory and a file both
// named with hostileName, and returns the copy's path.
func hostileCopy(t *testing.T, src string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), hostileName)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, hostileName+filepath.Ext(src))
	if err := os.WriteFile(path, []byte(mustRead(t, src)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// assertSafeAnnotations fails when a workflow command holds a character a
// terminal or GitHub's log would act on (a C0 or C1 control, DEL, a
// bidirectional or invisible formatting character), or does not show the
// hostile file name as the text output does.
func assertSafeAnnotations(t *testing.T, what, stdout, path string) {
	t.Helper()
	if !strings.HasPrefix(stdout, "::") {
		t.Fatalf("%s: no annotation:\n%q", what, stdout)
	}
	for i, r := range strings.TrimSuffix(stdout, "\n") {
		if r != '\n' && (r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == utf8.RuneError || unicode.Is(unicode.Cf, r)) {
			t.Errorf("%s: byte %d of the annotations is %U:\n%q", what, i, r, stdout)
			break
		}
	}
	// textsafe.Quote(path) is how the text output names the file: the
	// annotation shows the same escapes.
	shown := strings.Trim(textsafe.Quote(filepath.Base(path)), `"`)
	if !strings.Contains(stdout, shown) {
		t.Errorf("%s: the annotations do not name the file as the text output does (%s):\n%s", what, shown, stdout)
	}
}

// TestGitHubFormatEscapesFileNames: validate, lint, diff and verify with
// --format github on files whose names hold escapes and controls write
// annotations with none of them raw.
func TestGitHubFormatEscapesFileNames(t *testing.T) {
	gap := hostileCopy(t, "../../testdata/bad/sequence-gap.jsonl")
	_, stdout, _ := runCmd(t, "", "validate", "--format", "github", gap)
	assertSafeAnnotations(t, "validate", stdout, gap)

	lint := hostileCopy(t, filepath.Join(agentFixtures, "claude-code/dangling-parent.jsonl"))
	_, stdout, _ = runCmd(t, "", "lint", "--format", "github", lint)
	assertSafeAnnotations(t, "lint", stdout, lint)

	exp, act := diffCase("changed")
	exp = hostileCopy(t, exp)
	_, stdout, _ = runCmd(t, "", "diff", "--format", "github", exp, act)
	assertSafeAnnotations(t, "diff", stdout, exp)

	dir := filepath.Join(t.TempDir(), hostileName)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, stdout, _ = runCmd(t, "", "verify", "--golden-dir", dir, "--format", "github", "--update=no", "s07-session-replay")
	assertSafeAnnotations(t, "verify", stdout, dir)
}
