package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// consoleBlock is a ```console block of the README or docs/: commands
// ("$ " lines, a trailing backslash continuing one) each followed by the
// output it prints.
type consoleBlock struct {
	file  string // relative to the repository
	line  int    // of the opening fence
	steps []consoleStep
	// notRun is the reason an HTML comment "<!-- not run: REASON -->" on
	// the line before the fence gives for not running the block.
	notRun string
}

type consoleStep struct {
	cmd  string
	want []string
}

var (
	consoleFence = regexp.MustCompile("(?s)(?:<!-- not run: ([^>]*?) -->\n)?```console\n(.*?)```")
)

// consoleBlocks reads every console block of README.md and docs/*.md.
func consoleBlocks(tb testing.TB) []consoleBlock {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	files = append([]string{filepath.Join(repoRoot, "README.md")}, files...)
	var out []consoleBlock
	for _, f := range files {
		text := mustRead(tb, f)
		rel, _ := filepath.Rel(repoRoot, f)
		for _, m := range consoleFence.FindAllStringSubmatchIndex(text, -1) {
			b := consoleBlock{file: rel, line: strings.Count(text[:m[0]], "\n") + 1}
			if m[2] >= 0 {
				b.notRun = text[m[2]:m[3]]
				b.line++
			}
			lines := strings.Split(strings.TrimSuffix(text[m[4]:m[5]], "\n"), "\n")
			for i := 0; i < len(lines); i++ {
				l := lines[i]
				if !strings.HasPrefix(l, "$ ") {
					if len(b.steps) == 0 {
						tb.Errorf("%s:%d: a console block starts with output, not a $ command: %q", rel, b.line, l)
						break
					}
					st := &b.steps[len(b.steps)-1]
					st.want = append(st.want, l)
					continue
				}
				cmd := strings.TrimPrefix(l, "$ ")
				for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
					i++
					cmd += "\n" + lines[i] // the shell reads the backslash and newline as one line
				}
				b.steps = append(b.steps, consoleStep{cmd: cmd})
			}
			out = append(out, b)
		}
	}
	return out
}

// matchConsole reports where got (the lines a command printed) departs
// from want: a line "..." or "…" alone stands for any lines, and "…" or
// "[..]" within a line for any text; other text must be equal.
func matchConsole(want, got []string) (ok bool, at int) {
	var match func(w, g int) bool
	memo := map[[2]int]bool{}
	furthest := 0
	match = func(w, g int) bool {
		if w > furthest {
			furthest = w
		}
		key := [2]int{w, g}
		if v, seen := memo[key]; seen {
			return v
		}
		var r bool
		switch {
		case w == len(want):
			r = g == len(got)
		case want[w] == "..." || want[w] == "…":
			for k := g; k <= len(got) && !r; k++ {
				r = match(w+1, k)
			}
		default:
			r = g < len(got) && lineMatches(want[w], got[g]) && match(w+1, g+1)
		}
		memo[key] = r
		return r
	}
	if match(0, 0) {
		return true, 0
	}
	return false, furthest
}

func lineMatches(want, got string) bool {
	if !strings.Contains(want, "…") && !strings.Contains(want, "[..]") {
		return want == got
	}
	parts := regexp.MustCompile(`…|\[\.\.\]`).Split(want, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got)
}

// TestDocsConsoleExamples runs every console block of the README and of
// docs/ as a reader would, in order, from a folder that looks like the
// clone (its top-level entries linked, ../shared beside it, a HOME of its
// own), tracecheck built from this tree and first on PATH, and checks that
// each command prints what the block shows (stdout and stderr as a
// terminal shows them). A block that cannot run here (a server that runs
// until stopped, a real agent) says why in a "<!-- not run: REASON -->"
// comment before it; the others all run.
func TestDocsConsoleExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the examples build tracecheck and run its commands")
	}
	blocks := consoleBlocks(t)
	if len(blocks) < 10 {
		t.Fatalf("found %d console blocks in README.md and docs/: the pattern no longer matches them", len(blocks))
	}
	base := t.TempDir()
	bin := filepath.Join(base, "bin")
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "tracecheck"), ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	shared, _ := filepath.Abs(filepath.Join(repoRoot, "..", "shared"))
	// clone makes a folder that looks like the clone, with ../shared
	// beside it: one per block, so that what one block writes (a --trace
	// file that is never overwritten) does not meet the next.
	clone := func(n int) string {
		dir := filepath.Join(base, fmt.Sprint("block-", n), "clone")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") || e.Name() == "bin" {
				continue
			}
			if err := os.Symlink(filepath.Join(repoRoot, e.Name()), filepath.Join(dir, e.Name())); err != nil {
				t.Skipf("SKIP: no symbolic links here: %v", err)
			}
		}
		os.Symlink(shared, filepath.Join(dir, "..", "shared"))
		return dir
	}
	home := filepath.Join(base, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8", "TMPDIR=" + base}
	ran, blocksRun := 0, 0
	for n, b := range blocks {
		name := fmt.Sprintf("%s:%d", b.file, b.line)
		if b.notRun != "" {
			t.Logf("%s: not run: %s", name, b.notRun)
			continue
		}
		blocksRun++
		dir := clone(n)
		for _, st := range b.steps {
			cmd := exec.Command("sh", "-c", st.cmd+" 2>&1")
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.Output()
			if _, exit := err.(*exec.ExitError); err != nil && !exit {
				t.Fatalf("%s: %s: %v", name, st.cmd, err)
			}
			got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if len(out) == 0 {
				got = nil
			}
			if ok, at := matchConsole(st.want, got); !ok {
				t.Errorf("%s: $ %s\nprints what the block does not show (from its line %d of output on):\n--- the block\n%s\n--- printed\n%s",
					name, st.cmd, at+1, strings.Join(st.want, "\n"), strings.Join(got, "\n"))
			}
			ran++
		}
	}
	t.Logf("%d commands of %d console blocks ran (%d blocks not run)", ran, blocksRun, len(blocks)-blocksRun)
}

func TestMatchConsole(t *testing.T) {
	tests := []struct {
		want, got []string
		ok        bool
	}{
		{[]string{"a", "b"}, []string{"a", "b"}, true},
		{[]string{"a", "b"}, []string{"a", "c"}, false},
		{[]string{"a", "..."}, []string{"a", "b", "c"}, true},
		{[]string{"a", "...", "d"}, []string{"a", "b", "c", "d"}, true},
		{[]string{"a", "…", "d"}, []string{"a", "d"}, true},
		{[]string{"a", "...", "d"}, []string{"a", "b"}, false},
		{[]string{"…:11: ORPHAN"}, []string{"x/y.jsonl:11: ORPHAN"}, true},
		{[]string{"URL http://127.0.0.1:[..]"}, []string{"URL http://127.0.0.1:4061"}, true},
		{[]string{"a.b"}, []string{"axb"}, false},
		{nil, nil, true},
		{nil, []string{"extra"}, false},
	}
	for _, tt := range tests {
		if ok, _ := matchConsole(tt.want, tt.got); ok != tt.ok {
			t.Errorf("matchConsole(%q, %q) = %v, want %v", tt.want, tt.got, ok, tt.ok)
		}
	}
}

// TestErrorCodeTableIsComplete: every code a Trace file's check can
// report (journal's Code constants and jsonv's syntax codes) has a row in
// docs/trace-format.md's error code table, and the table names no other.
func TestErrorCodeTableIsComplete(t *testing.T) {
	var codes []string
	for _, src := range []struct{ file, re string }{
		{"journal/errors.go", `(?m)^\s*\w+ Code = "([A-Z0-9_]+)"`},
		{"journal/jsonv/parse.go", `(?m)^\s*Err\w+\s*= "([A-Z0-9_]+)"`},
	} {
		for _, m := range regexp.MustCompile(src.re).FindAllStringSubmatch(mustRead(t, filepath.Join(repoRoot, src.file)), -1) {
			codes = append(codes, m[1])
		}
	}
	if len(codes) < 20 {
		t.Fatalf("found %d codes: the patterns no longer match the sources", len(codes))
	}
	sec := docSection(t, "Trace 0.1.0") // the trace format's section holds the table
	_, table, _ := strings.Cut(sec, "### Error codes\n")
	table, _, _ = strings.Cut(table, "\n### ")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| (`[A-Z0-9_]+`(?:, `[A-Z0-9_]+`)*) \\|").FindAllStringSubmatch(table, -1) {
		for _, c := range regexp.MustCompile("`([A-Z0-9_]+)`").FindAllStringSubmatch(m[1], -1) {
			listed[c[1]] = true
		}
	}
	for _, c := range codes {
		if !listed[c] {
			t.Errorf("docs/trace-format.md's error code table has no row for %s", c)
		}
		delete(listed, c)
	}
	for c := range listed {
		t.Errorf("docs/trace-format.md's error code table lists %s, which no check reports", c)
	}
}
