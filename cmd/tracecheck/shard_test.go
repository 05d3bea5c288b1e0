package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/shard"
)

// shardCases is the sharding fixture suite: twelve command cases (each
// cats a trace of data/) with their goldens, and retired-agent.trace.jsonl,
// a golden no case references any more.
var shardCases = filepath.Join(repoRoot, "testdata", "shards", "cases")

// copyTree copies the directory src to dst.
func copyTree(tb testing.TB, src, dst string) {
	tb.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// drift makes the case code-review cat another trace than its golden's.
func drift(tb testing.TB, casesDir string) {
	tb.Helper()
	p := filepath.Join(casesDir, "code-review.json")
	text := mustRead(tb, p)
	changed := strings.Replace(text, `["cat", "data/two-runs.jsonl"]`, `["cat", "data/replay.jsonl"]`, 1)
	if changed == text {
		tb.Fatal("code-review.json does not cat data/two-runs.jsonl")
	}
	if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// shardSuite makes the suite of TestShardedVerifyEqualsUnsharded: the
// module's scenarios and the fixture's cases, one of them drifting, with
// one golden directory for both (the committed goldens, the cases' and the
// retired one). It returns verify's directory flags.
func shardSuite(t *testing.T) []string {
	t.Helper()
	root := t.TempDir()
	cs, g := filepath.Join(root, "cases"), filepath.Join(root, "golden")
	copyTree(t, shardCases, cs)
	drift(t, cs)
	copyFiles(t, committedGoldens(t), "*"+golden.Suffix, g)
	copyFiles(t, cs, "*"+golden.Suffix, g)
	return []string{"--scenario-dir", filepath.Join(repoRoot, "scenarios"), "--cases", cs, "--golden-dir", g}
}

// readResult reads a result file the test's run wrote.
func readResult(t *testing.T, path string) *shard.Result {
	t.Helper()
	r, err := shard.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestShardedVerifyEqualsUnsharded is the "done" check for verify:
// for N from 1 to 7 the shards of the built-in scenarios and the fixture's
// cases cover every item exactly once, and the merge of their results gives
// the unsharded run's report in every format (outcomes, JUnit test cases,
// annotations) and its exit status; the retired golden is reported by the
// merge and by no single shard.
func TestShardedVerifyEqualsUnsharded(t *testing.T) {
	inCI(t) // unreferenced goldens are rejected, and nothing is written
	dirs := shardSuite(t)
	want := map[string]string{}
	wantCode := -1
	for _, f := range []string{"text", "json", "junit", "github"} {
		code, stdout, stderr := runCmd(t, "", append(append([]string{"verify"}, dirs...), "--format", f)...)
		if wantCode >= 0 && code != wantCode {
			t.Fatalf("--format %s: exit %d, not %d", f, code, wantCode)
		}
		wantCode, want[f] = code, stdout
		if f == "text" && (code != exitFailed || !strings.Contains(stdout, "DRIFT code-review\n") || !strings.Contains(stdout, "OBSOLETE ") ||
			!strings.Contains(stdout, "retired-agent.trace.jsonl")) {
			t.Fatalf("the unsharded run: exit %d\n%s%s", code, stdout, stderr)
		}
	}
	out := t.TempDir()
	for n := 1; n <= 7; n++ {
		var files []string
		seen := map[string]int{}
		var plan []string
		for k := 1; k <= n; k++ {
			file := filepath.Join(out, fmt.Sprintf("n%d-shard-%d.json", n, k))
			code, stdout, stderr := runCmd(t, "", append(append([]string{"verify"}, dirs...), "--shard", fmt.Sprintf("%d/%d", k, n), "--result", file, "-v")...)
			if code != exitOK && code != exitFailed {
				t.Fatalf("N=%d shard %d: exit %d\n%s", n, k, code, stderr)
			}
			if strings.Contains(stdout+stderr, "retired-agent") || strings.Contains(stdout, "OBSOLETE") {
				t.Errorf("N=%d: shard %d reports the unreferenced golden:\n%s%s", n, k, stdout, stderr)
			}
			r := readResult(t, file)
			took := regexp.MustCompile(`shard \d+/\d+ took (\d+) of (\d+) scenarios and cases\n`).FindStringSubmatch(stderr)
			if took == nil || took[1] != fmt.Sprint(len(r.Results)) || took[2] != fmt.Sprint(len(r.Plan)) || strings.Count(stderr, "\n  ") != len(r.Results) {
				t.Errorf("N=%d shard %d: stderr does not say what it took (%d of %d):\n%s", n, k, len(r.Results), len(r.Plan), stderr)
			}
			for _, it := range r.Results {
				seen[it.ID]++
			}
			if plan == nil {
				for _, p := range r.Plan {
					plan = append(plan, p.ID)
				}
			}
			files = append(files, file)
		}
		if len(plan) != 28+12 {
			t.Fatalf("N=%d: the plan holds %d items, not the 28 scenarios and 12 cases", n, len(plan))
		}
		for _, id := range plan {
			if seen[id] != 1 {
				t.Errorf("N=%d: %s is in %d shards", n, id, seen[id])
			}
		}
		slices.Reverse(files) // merge takes them in any order
		for f, w := range want {
			code, stdout, stderr := runCmd(t, "", append([]string{"merge", "--format", f}, files...)...)
			if code != wantCode {
				t.Errorf("N=%d --format %s: merge exit %d, the unsharded run %d\n%s", n, f, code, wantCode, stderr)
			}
			if d := cmp.Diff(w, stdout); d != "" {
				t.Errorf("N=%d --format %s: merge differs from the unsharded run (-unsharded +merged):\n%s", n, f, d)
			}
		}
	}
}

// TestShardedMergeRefuses: a missing or duplicated shard, shards of two
// suites or of two N, and a file that is no result are refused with exit 2
// and a line naming the problem.
func TestShardedMergeRefuses(t *testing.T) {
	local(t)
	cs := filepath.Join(t.TempDir(), "cases")
	copyTree(t, shardCases, cs)
	out := t.TempDir()
	result := func(name, spec string, dir string) string {
		p := filepath.Join(out, name)
		if code, _, stderr := runCmd(t, "", "verify", "--cases", dir, "--no-scenarios", "--update=no", "--shard", spec, "--result", p); code != exitOK && code != exitFailed {
			t.Fatalf("%s: exit %d\n%s", spec, code, stderr)
		}
		return p
	}
	r1, r2, r3 := result("1.json", "1/3", cs), result("2.json", "2/3", cs), result("3.json", "3/3", cs)
	half := result("half.json", "1/2", cs)
	other := filepath.Join(t.TempDir(), "cases")
	copyTree(t, shardCases, other)
	os.WriteFile(filepath.Join(other, "new-case.json"), []byte(`{"command":{"argv":["cat","data/replay.jsonl"]},"trace":{"from":"stdout"}}`), 0o644)
	o2 := result("other-2.json", "2/3", other)
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"a missing shard", []string{r1, r3}, "refused: shard 2/3 is missing (it holds "},
		{"a duplicated shard", []string{r1, r2, r2, r3}, "refused: shard 2/3 is given 2 times: " + r2 + ", " + r2},
		{"another suite", []string{r1, o2, r3}, `is of another suite than ` + r1 + ` (inputs digest sha256:`},
		{"another N", []string{r1, half, r3}, half + " is shard 1/2, " + r1 + " shard 1/3"},
		{"not a result", []string{r1, filepath.Join(shardCases, "billing-refund.json")}, `billing-refund.json: not a tracecheck result file (no "format": "tracecheck-result")`},
		{"no file", nil, "no RESULT file given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", append([]string{"merge"}, tc.files...)...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, tc.want)
			}
		})
	}
	if code, stdout, stderr := runCmd(t, "", "merge", r3, r1, r2); code != exitOK || !strings.Contains(stdout, "OBSOLETE ") {
		t.Errorf("the whole set: exit %d\n%s%s", code, stdout, stderr)
	}
	// In CI the unreferenced golden fails the merged run, and the next step
	// is the merge that deletes it, not a run of the whole suite again.
	inCI(t)
	code, _, stderr := runCmd(t, "", "merge", r1, r2, r3)
	if code != exitFailed || !strings.HasSuffix(stderr, "run: tracecheck merge "+r1+" "+r2+" "+r3+" --unreferenced=delete\n") {
		t.Errorf("in CI: exit %d\n%s", code, stderr)
	}
}

// TestShardedMergeDeletes: --unreferenced=delete in a shard deletes
// nothing; in the merge of every shard it deletes the retired golden, and
// only it.
func TestShardedMergeDeletes(t *testing.T) {
	local(t)
	cs := filepath.Join(t.TempDir(), "cases")
	copyTree(t, shardCases, cs)
	before := names(t, cs)
	var files []string
	for k := 1; k <= 3; k++ {
		p := filepath.Join(t.TempDir(), "r.json")
		code, _, stderr := runCmd(t, "", "verify", "--cases", cs, "--no-scenarios", "--shard", fmt.Sprintf("%d/3", k), "--result", p, "--unreferenced=delete")
		if code != exitOK || !strings.Contains(stderr, "--unreferenced=delete did nothing: this run is shard") {
			t.Fatalf("shard %d: exit %d\n%s", k, code, stderr)
		}
		files = append(files, p)
	}
	if got := names(t, cs); !slices.Equal(got, before) {
		t.Fatalf("a shard changed the cases directory: %v", got)
	}
	code, stdout, stderr := runCmd(t, "", append([]string{"merge", "--unreferenced=delete"}, files...)...)
	retired := filepath.Join(cs, "retired-agent.trace.jsonl")
	if code != exitOK || !strings.Contains(stdout, "removed "+retired+"\n") || !strings.Contains(stderr, "removing 1 unreferenced golden(s)") {
		t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
	}
	want := slices.DeleteFunc(slices.Clone(before), func(n string) bool { return n == "retired-agent.trace.jsonl" })
	if got := names(t, cs); !slices.Equal(got, want) {
		t.Errorf("after the merge the directory holds %v", got)
	}
}

// lintFiles are the files lint finds under dir, from its JSON report.
func lintFiles(t *testing.T, dir string) []string {
	t.Helper()
	_, stdout, _ := runCmd(t, "", "lint", "--format", "json", dir)
	var doc struct {
		Files []struct{ File string }
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range doc.Files {
		out = append(out, filepath.ToSlash(f.File))
	}
	return out
}

// TestShardedLintListsEachFileOnce: for N from 1 to 7, lint DIR --shard
// K/N -v over the N shards lists each file of DIR exactly once, and the
// merge of their results prints what lint DIR prints, in every format.
func TestShardedLintListsEachFileOnce(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "agentlog")
	all := lintFiles(t, dir)
	want := map[string]string{}
	wantCode := 0
	for _, f := range []string{"text", "json", "github", "junit"} {
		wantCode, want[f], _ = runCmd(t, "", "lint", "--format", f, dir)
	}
	if len(all) < 20 || wantCode != exitFailed {
		t.Fatalf("lint %s: exit %d, %d files", dir, wantCode, len(all))
	}
	out := t.TempDir()
	for n := 1; n <= 7; n++ {
		var listed, files []string
		for k := 1; k <= n; k++ {
			file := filepath.Join(out, fmt.Sprintf("lint-%d-%d.json", n, k))
			_, _, stderr := runCmd(t, "", "lint", "-q", dir, "--shard", fmt.Sprintf("%d/%d", k, n), "--result", file, "-v")
			for _, l := range strings.Split(stderr, "\n") {
				if strings.HasPrefix(l, "  ") {
					listed = append(listed, strings.TrimPrefix(l, "  "))
				}
			}
			files = append(files, file)
		}
		sort.Strings(listed)
		sorted := slices.Sorted(slices.Values(all))
		if d := cmp.Diff(sorted, listed); d != "" {
			t.Errorf("N=%d: the shards did not list each file once (-every file +listed):\n%s", n, d)
		}
		for f, w := range want {
			code, stdout, _ := runCmd(t, "", append([]string{"merge", "--format", f}, files...)...)
			if code != wantCode || stdout != w {
				t.Errorf("N=%d --format %s: merge exit %d (want %d), output differs:\n%s", n, f, code, wantCode, cmp.Diff(w, stdout))
			}
		}
	}
}

// TestLintJobs: --jobs J prints what --jobs 1 prints, in input order, for
// every format, with an input that cannot be read among the others.
func TestLintJobs(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "agentlog")
	args := []string{filepath.Join(root, "pi"), filepath.Join(root, "no-such-dir"), filepath.Join(root, "codex"), filepath.Join(root, "claude-code", "dangling-parent.jsonl"), root}
	for _, format := range []string{"text", "json", "github", "junit"} {
		code1, out1, err1 := runCmd(t, "", append([]string{"lint", "--format", format, "--jobs", "1"}, args...)...)
		if code1 != exitUsage || !strings.Contains(err1, "no-such-dir") {
			t.Fatalf("--jobs 1: exit %d, stderr %q", code1, err1)
		}
		for _, jobs := range []string{"2", "7", "64"} {
			code, out, errs := runCmd(t, "", append([]string{"lint", "--format", format, "--jobs", jobs}, args...)...)
			if code != code1 || out != out1 || errs != err1 {
				t.Errorf("--format %s --jobs %s: exit %d (want %d), the output differs from --jobs 1's:\n%s%s", format, jobs, code, code1, cmp.Diff(out1, out), cmp.Diff(err1, errs))
			}
		}
	}
}

// requestIDs are the request ids conform quotes in its failures, which
// each shard numbers on its own.
var requestIDs = regexp.MustCompile(`((?:\\?"|&#34;)id(?:\\?"|&#34;): ?)\d+`)

// TestShardedConform: the merge of a sharded conform gives the report of
// one conform in every format and its exit status, for a subject that
// passes and one that fails (request ids aside).
func TestShardedConform(t *testing.T) {
	needPython(t)
	for _, subject := range []string{pythonSolution, pythonStarter} {
		var files []string
		shardCode := -1
		for k := 1; k <= 3; k++ {
			file := filepath.Join(t.TempDir(), "r.json")
			code, _, stderr := runCmd(t, "", "conform", "--seed", "7", "--shard", fmt.Sprintf("%d/3", k), "--result", file, "--", "python3", subject)
			if code != exitOK && code != exitFailed {
				t.Fatalf("%s shard %d: exit %d\n%s", subject, k, code, stderr)
			}
			shardCode = max(shardCode, code)
			files = append(files, file)
		}
		for _, format := range []string{"text", "json", "junit", "exercism"} {
			wantCode, want, _ := runCmd(t, "", "conform", "--seed", "7", "--format", format, "--", "python3", subject)
			code, got, stderr := runCmd(t, "", append([]string{"merge", "--format", format}, files...)...)
			if code != wantCode || shardCode != wantCode || requestIDs.ReplaceAllString(got, "${1}N") != requestIDs.ReplaceAllString(want, "${1}N") {
				t.Errorf("%s --format %s: merge exit %d, shards %d (want %d) %s\n%s", subject, format, code, shardCode, wantCode, stderr, cmp.Diff(want, got))
			}
		}
	}
}

// TestShardUsageErrors: what --shard, --result and merge refuse, each one
// line naming the mistake.
func TestShardUsageErrors(t *testing.T) {
	codex := filepath.Join("..", "..", "testdata", "agentlog", "codex")
	lintResult := filepath.Join(t.TempDir(), "lint.json")
	if code, _, stderr := runCmd(t, "", "lint", codex, "--result", lintResult); code != exitFailed {
		t.Fatalf("lint --result: exit %d %s", code, stderr)
	}
	// Files --result must never replace: a golden, the log being linted,
	// the subject program (each compared after the run).
	keep := t.TempDir()
	golden := filepath.Join(keep, "approval-denied.trace.jsonl")
	logFile := filepath.Join(keep, "session.jsonl")
	subject := filepath.Join(keep, "subject.sh")
	for p, from := range map[string]string{golden: filepath.Join(repoRoot, "golden", "approval-denied.trace.jsonl"),
		logFile: filepath.Join(codex, "clean.jsonl"), subject: ""} {
		data := []byte("#!/bin/sh\nexit 0\n")
		if from != "" {
			data = mustReadBytes(t, from)
		}
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, p := range []string{golden, logFile, subject} {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("tracecheck-result")) {
				t.Errorf("--result replaced %s", p)
			}
		}
	}()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a golden as --result", []string{"verify", "--result", golden}, "exists and is not a tracecheck result file; refusing to replace it"},
		{"the linted log as --result", []string{"lint", logFile, "--result", logFile}, "exists and is not a tracecheck result file"},
		{"the subject as --result", []string{"conform", "--result", subject, "--", subject}, "exists and is not a tracecheck result file"},
		{"K of 0", []string{"verify", "--shard", "0/3"}, `--shard must be K/N with 1 <= K <= N <= 10000, not "0/3"`},
		{"K past N", []string{"lint", codex, "--shard", "4/3"}, `--shard must be K/N with 1 <= K <= N <= 10000, not "4/3"`},
		{"not K/N", []string{"conform", "--shard", "two", "--", "true"}, `--shard must be K/N (shard K of N, two integers), not "two"`},
		{"a directory as --result", []string{"verify", "--result", t.TempDir()}, "is a directory"},
		{"standard output as --result", []string{"lint", codex, "--result", "-"}, "standard output carries the report"},
		{"standard input in a shard", []string{"lint", "-", "--shard", "1/2"}, "standard input ('-') has none"},
		{"conform shards without a seed", []string{"conform", "--shard", "1/2", "--", "true"}, "--shard 1/2 needs --seed N"},
		{"--jobs -1", []string{"lint", codex, "--jobs", "-1"}, "--jobs must be at least 1 (0: the number of cores), not -1"},
		{"a file named twice", []string{"lint", codex, codex, "--shard", "1/2"}, "is named twice"},
		{"verify's format for lint", []string{"merge", "--format", "exercism", lintResult}, "--format exercism: results of lint are written as text, json, github or junit"},
		{"--unreferenced for lint", []string{"merge", "--unreferenced=reject", lintResult}, "--unreferenced is about verify's goldens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", tc.args...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, stdout, stderr, tc.want)
			}
		})
	}
}

// ciExample is one of the example pipelines of docs/ci and how its
// tracecheck steps see the shard and the total.
type ciExample struct {
	file string
	// env are the variables the CI sets for shard k of n.
	env func(k, n int) []string
	// expand replaces the CI's own expressions in a step.
	expand func(step string, k, n int) string
}

var ciExamples = []ciExample{
	{
		file: "github-actions-shards.yml",
		env:  func(k, n int) []string { return []string{"CI=true", "GITHUB_ACTIONS=true"} },
		expand: func(step string, k, n int) string {
			return strings.NewReplacer("${{ matrix.shard }}", fmt.Sprint(k), "${{ strategy.job-total }}", fmt.Sprint(n)).Replace(step)
		},
	},
	{
		file: "gitlab-shards.yml",
		env: func(k, n int) []string {
			return []string{"CI=true", "GITLAB_CI=true", fmt.Sprintf("CI_NODE_INDEX=%d", k), fmt.Sprintf("CI_NODE_TOTAL=%d", n)}
		},
		expand: func(step string, k, n int) string { return step },
	},
}

// ciSteps are the tracecheck commands of a pipeline file, in order: the
// shard's (with --shard) and the merge job's.
func ciSteps(t *testing.T, file string) (verify string, merge []string) {
	t.Helper()
	if text := mustRead(t, filepath.Join(repoRoot, "docs", "ci", file)); strings.Contains(text, "tracecheck/cmd/tracecheck@") {
		// README: the module is not on the proxy yet, so such a step fails.
		t.Errorf("%s installs tracecheck from the module proxy; install it from a copy of the repository, as docs/ci.md does", file)
	}
	for _, line := range strings.Split(mustRead(t, filepath.Join(repoRoot, "docs", "ci", file)), "\n") {
		l := strings.TrimSpace(line)
		for _, p := range []string{"- run: ", "run: ", "- "} {
			if rest, ok := strings.CutPrefix(l, p); ok && strings.HasPrefix(rest, "tracecheck ") {
				l = rest
				break
			}
		}
		switch {
		case strings.HasPrefix(l, "tracecheck verify ") && strings.Contains(l, "--shard "):
			verify = l
		case strings.HasPrefix(l, "tracecheck merge "):
			merge = append(merge, l)
		}
	}
	if verify == "" || len(merge) == 0 {
		t.Fatalf("%s: no shard step or no merge step", file)
	}
	return verify, merge
}

// unsharded is the shard step without --shard and --result, with more
// arguments.
func unsharded(step string, more ...string) string {
	var out []string
	f := strings.Fields(step)
	for i := 0; i < len(f); i++ {
		if f[i] == "--shard" || f[i] == "--result" {
			i++
			continue
		}
		out = append(out, f[i])
	}
	return strings.Join(append(out, more...), " ")
}

// goTool is the go command the tests run.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// TestCIExamples runs each example pipeline of docs/ci as its CI would,
// locally: the shard step once per shard (N = 1, 3 and 7), then the merge
// job's steps, in a checkout holding the fixture's cases as ci/cases (one
// drifting, and the retired golden no case references). The merged JUnit
// report, annotations or text, the notes on stderr and the exit status
// equal the unsharded run's, and only the merge reports the retired
// golden.
func TestCIExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the pipelines run tracecheck built with go build")
	}
	bin := filepath.Join(t.TempDir(), "bin")
	build := exec.Command(goTool(), "build", "-o", filepath.Join(bin, "tracecheck"), "./cmd/tracecheck")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, ex := range ciExamples {
		verifyStep, mergeSteps := ciSteps(t, ex.file)
		for _, n := range []int{1, 3, 7} {
			t.Run(fmt.Sprintf("%s N=%d", ex.file, n), func(t *testing.T) {
				repo := t.TempDir()
				copyTree(t, shardCases, filepath.Join(repo, "ci", "cases"))
				drift(t, filepath.Join(repo, "ci", "cases"))
				sh := func(cmd string, env []string) (int, string, string) {
					c := exec.Command("sh", "-c", cmd)
					c.Dir = repo
					c.Env = append(append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+repo, "GITHUB_WORKSPACE="+repo), env...)
					var stdout, stderr strings.Builder
					c.Stdout, c.Stderr = &stdout, &stderr
					err := c.Run()
					if ee, ok := err.(*exec.ExitError); ok {
						return ee.ExitCode(), stdout.String(), stderr.String()
					} else if err != nil {
						t.Fatalf("%s: %v", cmd, err)
					}
					return 0, stdout.String(), stderr.String()
				}
				for k := 1; k <= n; k++ {
					code, stdout, stderr := sh(ex.expand(verifyStep, k, n), ex.env(k, n))
					if code != exitOK && code != exitFailed || strings.Contains(stdout+stderr, "retired-agent") {
						t.Fatalf("shard %d/%d: exit %d\n%s%s", k, n, code, stdout, stderr)
					}
				}
				for _, step := range mergeSteps {
					format := "text"
					if f := strings.Fields(step); slices.Contains(f, "--format") {
						format = f[slices.Index(f, "--format")+1]
					}
					code, stdout, stderr := sh(ex.expand(step, 1, n), ex.env(1, n))
					wantCode, want, wantErr := sh(unsharded(ex.expand(verifyStep, 1, n), "--format", format), ex.env(1, n))
					if _, after, ok := strings.Cut(step, "> "); ok {
						stdout = mustRead(t, filepath.Join(repo, strings.Fields(after)[0]))
						if strings.HasSuffix(step, "|| true") {
							wantCode = exitOK
						}
					}
					stderr = strings.Replace(stderr, fmt.Sprintf("tracecheck merge: %d shard(s) of verify, 12 item(s)\n", n), "", 1)
					stderr = strings.ReplaceAll(stderr, "tracecheck merge: ", "tracecheck verify: ")
					if code != wantCode || !strings.Contains(stdout, "retired-agent.trace.jsonl") {
						t.Errorf("%q: exit %d, the unsharded run %d\n%s%s", step, code, wantCode, stdout, stderr)
					}
					if d := cmp.Diff(want, stdout); d != "" {
						t.Errorf("%q differs from the unsharded run (-unsharded +merged):\n%s", step, d)
					}
					if d := cmp.Diff(wantErr, stderr); d != "" {
						t.Errorf("%q: stderr differs from the unsharded run's (-unsharded +merged):\n%s", step, d)
					}
				}
			})
		}
	}
}

func mustReadBytes(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
