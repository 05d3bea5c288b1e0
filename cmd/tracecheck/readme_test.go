package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/tracediff/tracedifftest"
)

// docSection returns the section titled title (a "## " heading) of the
// README or of the file of docs/ that has it, up to the next such heading.
func docSection(tb testing.TB, title string) string {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	for _, f := range append([]string{filepath.Join(repoRoot, "README.md")}, files...) {
		if _, sec, ok := strings.Cut(mustRead(tb, f), "\n## "+title+"\n"); ok {
			if i := strings.Index(sec, "\n## "); i >= 0 {
				sec = sec[:i]
			}
			return sec
		}
	}
	tb.Fatalf("neither README.md nor docs/ has a section %q", title)
	return ""
}

// readmeSection returns the fenced blocks (info string and text) of the
// section titled title (README.md or docs/, see docSection).
func readmeSection(tb testing.TB, title string) [][2]string {
	tb.Helper()
	sec := docSection(tb, title)
	var out [][2]string
	for _, m := range regexp.MustCompile("(?s)```([a-z]*)\n(.*?)```").FindAllStringSubmatch(sec, -1) {
		out = append(out, [2]string{m[1], m[2]})
	}
	return out
}

// ciStep is one command of the README's walkthrough and its exit status.
type ciStep struct {
	cmd  string
	exit int
}

// TestReadmeCIWalkthrough runs the section "Use tracecheck in your agent's
// CI" as a stranger would: tracecheck installed from this clone with go
// install, the section's case file in a new repository beside the random
// agent, and every command of its sh blocks in order (the agent changed
// before the review step), and the workflow's tracecheck step as GitHub
// Actions runs it. The steps below must be the README's, in its order.
func TestReadmeCIWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the walkthrough builds tracecheck with go install")
	}
	tracedifftest.Python(t)
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skipf("SKIP: git is not installed (%v)", err)
	}
	want := []ciStep{
		{"tracecheck verify --cases ci/cases --update", 0},
		{"git add ci/cases", 0},
		{`git commit -m "tracecheck: my-agent's golden trace"`, 0},
		{"tracecheck verify --cases ci/cases --format junit > tracecheck-junit.xml", 0},
		{"CI=true tracecheck verify --cases ci/cases", 0},
		{"tracecheck verify --cases ci/cases", 1}, // the agent was changed
		{"tracecheck review --golden-dir ci/cases --accept", 0},
		{`git commit -am "my-agent: the golden after the change"`, 0},
	}
	// The module is not published yet: the docs install from a clone, in
	// the clone, and the test does exactly that below.
	const install = "go install ./cmd/tracecheck"

	blocks := readmeSection(t, "Use tracecheck in your agent's CI")
	var caseFile, workflow string
	var got []string
	for i, b := range blocks {
		switch {
		case b[0] == "sh" && i == 0:
			if b[1] != install+"\n" {
				t.Errorf("the install block is %q, want %q", b[1], install)
			}
		case b[0] == "sh":
			for _, l := range strings.Split(strings.TrimSuffix(b[1], "\n"), "\n") {
				got = append(got, l)
			}
		case b[0] == "json":
			caseFile = b[1]
		case b[0] == "yaml":
			workflow = b[1]
		}
	}
	var wantCmds []string
	for _, s := range want {
		wantCmds = append(wantCmds, s.cmd)
	}
	if d := cmp.Diff(wantCmds, got); d != "" {
		t.Fatalf("the README's commands are not the walkthrough's (-test +README):\n%s", d)
	}
	ghStep := "tracecheck verify --cases ci/cases --format github --artifacts tracecheck-artifacts"
	if !strings.Contains(workflow, "- run: "+install+"\n        working-directory: .tracecheck\n") || !strings.Contains(workflow, "- run: "+ghStep+"\n") {
		t.Fatalf("the workflow lacks the install or the verify step:\n%s", workflow)
	}
	if gomod := mustRead(t, filepath.Join(repoRoot, "go.mod")); !strings.HasPrefix(gomod, "module "+golden.ModulePath+"\n") {
		t.Fatalf("go.mod does not declare %s", golden.ModulePath)
	}

	// Install from the clone, as the README says one can.
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	inst := exec.Command(goBin, "install", "./cmd/tracecheck")
	inst.Dir, inst.Env = repoRoot, append(os.Environ(), "GOBIN="+bin)
	if out, err := inst.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/tracecheck: %v\n%s", err, out)
	}

	repo := filepath.Join(tmp, "repo")
	if err := os.MkdirAll(filepath.Join(repo, "ci", "cases"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, "ci", "cases", "my-agent.json"), []byte(caseFile), 0o644)
	agent := mustRead(t, tracedifftest.Script(tracedifftest.RandomAgent))
	os.WriteFile(filepath.Join(repo, "agent.py"), []byte(agent), 0o644)
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "CI=", "HOME="+tmp,
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	sh := func(cmd string, extra ...string) (int, string) {
		c := exec.Command("sh", "-c", cmd)
		c.Dir, c.Env = repo, append(append([]string(nil), env...), extra...)
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		err := c.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), out.String()
		} else if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		return 0, out.String()
	}
	if code, out := sh(gitBin + " init -q"); code != 0 {
		t.Fatalf("git init: %s", out)
	}

	for i, s := range want {
		if s.exit == 1 {
			changed := strings.Replace(agent, `"query": "golden trace"`, `"query": "golden traces"`, 1)
			if changed == agent {
				t.Fatal("the agent has no search query to change")
			}
			os.WriteFile(filepath.Join(repo, "agent.py"), []byte(changed), 0o644)
		}
		code, out := sh(s.cmd)
		if code != s.exit {
			t.Fatalf("step %d %q: exit %d, want %d\n%s", i+1, s.cmd, code, s.exit, out)
		}
		switch {
		case i == 0:
			if !strings.Contains(out, "created my-agent events=13") || !strings.Contains(mustRead(t, filepath.Join(repo, "ci", "cases", "my-agent.trace.jsonl")), `"[ID-1]"`) {
				t.Fatalf("the capture:\n%s", out)
			}
		case i == 2:
			// The workflow's step, as GitHub Actions runs it.
			if code, out := sh(ghStep, "CI=true", "GITHUB_ACTIONS=true"); code != 0 || strings.Contains(out, "::") {
				t.Fatalf("the workflow's verify step: exit %d\n%s", code, out)
			}
		case i == 3:
			if x := mustRead(t, filepath.Join(repo, "tracecheck-junit.xml")); !strings.Contains(x, `<testcase name="my-agent" classname="tracecheck.verify.case"`) {
				t.Errorf("the JUnit report:\n%s", x)
			}
		case s.exit == 1:
			if !strings.Contains(out, "DRIFT my-agent") || !strings.Contains(out, `/payload/arguments/query: expected "golden trace", actual "golden traces"`) ||
				!strings.Contains(out, "wrote the pending golden ci/cases/my-agent.trace.jsonl.new") {
				t.Fatalf("the change:\n%s", out)
			}
		}
	}
	if code, out := sh("tracecheck verify --cases ci/cases"); code != 0 {
		t.Errorf("after the review: exit %d\n%s", code, out)
	}
	if code, out := sh(gitBin + " status --porcelain ci"); code != 0 || out != "" {
		t.Errorf("ci/ is not committed as it is: %q", out)
	}
}

// TestReadmeCommandsAndLayout: the README's Commands table has a row for
// every command and none for a command that does not exist, the rows that
// spell out subcommands spell all of them, and its Layout lists every
// top-level directory of the repository (and no other).
func TestReadmeCommandsAndLayout(t *testing.T) {
	table := docSection(t, "Commands")
	rows := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `tracecheck ([a-z]+)([^`]*)` \\|").FindAllStringSubmatch(table, -1) {
		rows[m[1]] = m[2]
	}
	for _, c := range commands() {
		if _, ok := rows[c.name]; !ok {
			t.Errorf("the Commands table has no row for %s", c.name)
		}
		delete(rows, c.name)
	}
	for name := range rows {
		t.Errorf("the Commands table lists %s, which is no command", name)
	}
	for name, subs := range map[string][]command{"model": modelCommands(), "exercise": exerciseCommands()} {
		var names []string
		for _, c := range subs {
			names = append(names, c.name)
		}
		if want := "`tracecheck " + name + " " + strings.Join(names, "\\|") + "`"; !strings.Contains(table, want) {
			t.Errorf("the Commands table does not spell %s's subcommands as %s", name, want)
		}
	}

	layout := docSection(t, "Layout")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z0-9_]*)/`).FindAllStringSubmatch(layout, -1) {
		listed[m[1]] = true
	}
	for _, name := range repoDirs(t) {
		if !listed[name] {
			t.Errorf("the Layout does not list %s/", name)
		}
		delete(listed, name)
	}
	for name := range listed {
		t.Errorf("the Layout lists %s/, which does not exist", name)
	}
}

// TestReadmeIsAFrontDoor: the README starts with the two set-up commands,
// stays short (the specification is in docs/), shows the three paths, and
// every file of docs/ is in the docs index.
func TestReadmeIsAFrontDoor(t *testing.T) {
	readme := mustRead(t, filepath.Join(repoRoot, "README.md"))
	if !strings.HasPrefix(readme, "# tracecheck\n\n```sh\ngo build -o bin/tracecheck ./cmd/tracecheck && ./bin/tracecheck verify\ngo test ./...\n```\n") {
		t.Errorf("the README does not start with the two set-up commands")
	}
	if n := strings.Count(readme, "\n"); n > 160 {
		t.Errorf("the README has %d lines: a front door is about 150 (move the detail to docs/)", n)
	}
	for _, path := range []string{"## Check your agent in CI", "## Learn: the s07 exercises", "## Check a real agent's logs", "docs/README.md"} {
		if !strings.Contains(readme, path) {
			t.Errorf("the README lacks %q", path)
		}
	}
	index := mustRead(t, filepath.Join(repoRoot, "docs", "README.md"))
	files, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	for _, f := range files {
		if b := filepath.Base(f); b != "README.md" && !strings.Contains(index, "]("+b+")") {
			t.Errorf("docs/README.md does not list %s", b)
		}
	}
}

// repoDirs are the repository's top-level directories: those holding a
// file git tracks, so that what a documented command leaves in the clone
// (verify --artifacts out) or the build's bin/ is not taken for one; without
// git, every directory but the hidden ones and bin/.
func repoDirs(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var dirs []string
	if out, err := exec.Command("git", "-C", repoRoot, "ls-files", "-z").Output(); err == nil && len(out) > 0 {
		for _, f := range strings.Split(string(out), "\x00") {
			if dir, _, ok := strings.Cut(f, "/"); ok && !strings.HasPrefix(dir, ".") && !seen[dir] {
				seen[dir] = true
				dirs = append(dirs, dir)
			}
		}
		return dirs
	}
	entries, err := os.ReadDir(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "bin" {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs
}
