package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Issue 23 item 3: a tolerant golden is compared as diff --normalize
// compares it wherever it is shown. testdata/tolerant-drift holds a
// tolerant case whose agent changed one thing (README there).
var (
	driftCases  = filepath.Join(repoRoot, "testdata", "tolerant-drift")
	driftGolden = filepath.Join(driftCases, "one-change.trace.jsonl")
	driftActual = filepath.Join(repoRoot, "testdata", "tracediff", "tolerant", "other-argument.jsonl")
)

// The fixture's golden is the tracediff golden the normalizer writes (a
// copy, so that the case's directory holds its golden).
func TestTolerantDriftFixture(t *testing.T) {
	if mustRead(t, driftGolden) != mustRead(t, filepath.Join(repoRoot, "testdata", "tracediff", "tolerant", "expected.jsonl")) {
		t.Error("testdata/tolerant-drift/one-change.trace.jsonl is not testdata/tracediff/tolerant/expected.jsonl: copy it again")
	}
}

// diffPageShape is what a diff page says: its verdict, whether it lists
// problems, and each differing row's kind, sequence and highlighted
// pointers (the island's fields, which the page marks).
type diffPageShape struct {
	verdict  string
	problems bool
	tolerant bool
	rows     int
	differ   []string // "kind seq pointer pointer..."
	matched  []string // the placeholders of the first differing row shown as matched
}

var (
	islandJSON  = regexp.MustCompile(`(?s)<script type="application/json" id="tc-data">(.*?)</script>`)
	verdictHTML = regexp.MustCompile(`<p class="summary" id="verdict">(.*?)</p>`)
	tagsHTML    = regexp.MustCompile(`<[^>]*>`)
)

func readDiffPage(t *testing.T, path string) diffPageShape {
	t.Helper()
	page := mustRead(t, path)
	var s diffPageShape
	if m := verdictHTML.FindStringSubmatch(page); m != nil {
		s.verdict = tagsHTML.ReplaceAllString(m[1], "")
	}
	s.problems = strings.Contains(page, `<ol class="problems">`)
	m := islandJSON.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("%s: no data island", path)
	}
	var isl struct {
		Tolerant bool    `json:"tolerant"`
		Rows     [][]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(m[1]), &isl); err != nil {
		t.Fatal(err)
	}
	s.tolerant, s.rows = isl.Tolerant, len(isl.Rows)
	for _, r := range isl.Rows {
		if r[0] == "equal" {
			continue
		}
		d := []string{r[0].(string), strconv.Itoa(int(r[2].(float64)))}
		for _, f := range r[8].([]any) {
			d = append(d, f.([]any)[0].(string))
		}
		s.differ = append(s.differ, strings.Join(d, " "))
		if s.matched == nil && len(r) > 9 {
			for _, p := range r[9].([]any) {
				s.matched = append(s.matched, p.(string))
			}
		}
	}
	return s
}

// checkOneChangePage checks the page of the fixture: one event of nine
// differs, at the one field that changed, the placeholders are no
// problems, and the ids and timestamp of that event show as matched.
func checkOneChangePage(t *testing.T, page string) {
	t.Helper()
	s := readDiffPage(t, page)
	if !strings.HasPrefix(s.verdict, "1 of 9 events differs: 1 changed, 0 missing") {
		t.Errorf("verdict %q, want 1 of 9 events differs", s.verdict)
	}
	if s.problems {
		t.Error("the page lists problems: the golden's placeholders taken for SCHEMA problems")
	}
	if !s.tolerant || s.rows != 9 || strings.Join(s.differ, "; ") != "changed 4 /payload/arguments/text" {
		t.Errorf("tolerant %v, %d rows, differing %q; want one change at /payload/arguments/text", s.tolerant, s.rows, s.differ)
	}
	if m := strings.Join(s.matched, " "); !strings.Contains(m, "/event_id") || !strings.Contains(m, "/timestamp") || !strings.Contains(m, "/payload/tool_call_id") {
		t.Errorf("matched placeholders %q", m)
	}
}

// minusPlus is the -/+ lines of a unified diff in a report, indented or
// not, without the file headers.
func minusPlus(report string) (minus, plus []string) {
	for _, l := range strings.Split(report, "\n") {
		l = strings.TrimPrefix(l, "  ")
		switch {
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
		case strings.HasPrefix(l, "-{"), strings.HasPrefix(l, "-…"):
			minus = append(minus, l[1:])
		case strings.HasPrefix(l, "+{"), strings.HasPrefix(l, "+…"):
			plus = append(plus, l[1:])
		}
	}
	return minus, plus
}

// checkOneChangeDiff checks a unified diff of the fixture: one - line and
// one + line, the + line the golden's with the one change, in the golden's
// own form (its placeholders, not the actual ids and times).
func checkOneChangeDiff(t *testing.T, report string) {
	t.Helper()
	minus, plus := minusPlus(report)
	if len(minus) != 1 || len(plus) != 1 {
		t.Fatalf("-%d +%d lines, want one each:\n%s", len(minus), len(plus), report)
	}
	// Lines are cut at 400 bytes ("…(N more bytes)"), the + line two bytes
	// further on: one is the other's start, the change made.
	uncut := regexp.MustCompile(`…\(\d+ more bytes\)$`)
	m, p := uncut.ReplaceAllString(strings.Replace(minus[0], `"hello"`, `"goodbye"`, 1), ""), uncut.ReplaceAllString(plus[0], "")
	if n := min(len(m), len(p)); !strings.Contains(p, `"goodbye"`) || n < 300 || m[:n] != p[:n] {
		t.Errorf("the + line is not the golden's line with the change:\n-%s\n+%s", minus[0], plus[0])
	}
	if strings.Contains(plus[0], "00000000-0000-4002") || strings.Contains(plus[0], "2026-09-01") {
		t.Errorf("the + line shows the values the placeholders matched: %s", plus[0])
	}
}

// verify --cases DIR --artifacts OUT on the tolerant case: the diff page
// and the text report's unified diff show the one real change only.
func TestVerifyArtifactsTolerant(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, "", "verify", "--cases", driftCases, "--no-scenarios", "--update=no", "--artifacts", out)
	if code != exitFailed || !strings.Contains(stdout, "DRIFT one-change") || !strings.Contains(stdout, "1 event differs (tolerant)") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	checkOneChangeDiff(t, stdout)
	checkOneChangePage(t, filepath.Join(out, "one-change.diff.html"))
}

// view --diff picks the tolerant comparison for a tolerant golden by
// itself; --exact compares it literally, --normalize a golden that looks
// like a plain trace.
func TestViewDiffTolerant(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	code, _, stderr := runCmd(t, "", "view", "--diff", driftGolden, driftActual, "-o", page)
	if code != exitFailed || !strings.Contains(stderr, "(1 differing event)") {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	checkOneChangePage(t, page)

	realB := filepath.Join(repoRoot, "testdata", "tracediff", "tolerant", "real-b.jsonl")
	if code, _, stderr := runCmd(t, "", "view", "--diff", driftGolden, realB, "-o", page); code != exitOK || !strings.Contains(stderr, "matches the tolerant golden") {
		t.Errorf("a run that matches: exit %d, %s", code, stderr)
	}

	code, _, stderr = runCmd(t, "", "view", "--diff", "--exact", driftGolden, driftActual, "-o", page)
	if s := readDiffPage(t, page); code != exitFailed || !strings.Contains(stderr, "(9 differing events)") || !s.problems || s.tolerant {
		t.Errorf("--exact: exit %d, %s, problems listed %v, tolerant %v", code, stderr, s.problems, s.tolerant)
	}

	// A valid trace that holds a placeholder as data is compared
	// literally, and the page says so; --normalize reads it tolerantly.
	golden := filepath.Join(dir, "golden.trace.jsonl")
	data := strings.Replace(mustRead(t, realB), `"text":"hello"`, `"text":"[GREETING]"`, -1)
	if err := os.WriteFile(golden, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCmd(t, "", "view", "--diff", golden, realB, "-o", page)
	if !strings.Contains(mustRead(t, page), "but is a valid trace, so it is compared literally") || code != exitFailed || readDiffPage(t, page).tolerant {
		t.Errorf("a valid golden with a placeholder: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "", "view", "--diff", "--normalize", golden, realB, "-o", page); code != exitOK || !strings.Contains(stderr, "matches the tolerant golden") {
		t.Errorf("--normalize: exit %d, %s", code, stderr)
	}

	for _, args := range [][]string{
		{"view", "--diff", "--normalize", "--exact", driftGolden, driftActual},
		{"view", "--normalize", driftGolden},
	} {
		if code, _, stderr := runCmd(t, "", args...); code != exitUsage || !strings.Contains(stderr, "--normalize") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}

// diff of a tolerant golden without --normalize: under its SCHEMA
// problems, a hint that it looks like a tolerant golden and to add
// --normalize; the exit code is still 1. With --normalize the unified
// diff is the golden's against the actual in the golden's form.
func TestDiffTolerantHint(t *testing.T) {
	code, stdout, _ := runCmd(t, "", "diff", driftGolden, driftActual)
	hint := strings.Index(stdout, "  hint: the file holds placeholders (line 1: \"[ID-1]\" at /event_id) and looks like a tolerant golden")
	if code != exitFailed || hint < 0 || hint < strings.LastIndex(stdout, ": SCHEMA ") || !strings.Contains(stdout[hint:], "add --normalize") {
		t.Fatalf("exit %d, no hint under the SCHEMA problems:\n%s", code, stdout)
	}
	code, stdout, _ = runCmd(t, "", "diff", "--format", "json", driftGolden, driftActual)
	var r struct {
		Expected struct{ Hint string }
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != exitFailed || !strings.Contains(r.Expected.Hint, "--normalize") {
		t.Errorf("json: exit %d, %v, hint %q", code, err, r.Expected.Hint)
	}
	if code, stdout, _ := runCmd(t, "", "diff", driftActual, driftGolden); code != exitFailed || !strings.Contains(stdout, "goes first, as EXPECTED, with --normalize") {
		t.Errorf("the golden second: exit %d\n%s", code, stdout)
	}

	code, stdout, _ = runCmd(t, "", "diff", "--normalize", driftGolden, driftActual)
	if code != exitFailed || strings.Contains(stdout, "hint:") {
		t.Fatalf("--normalize: exit %d\n%s", code, stdout)
	}
	checkOneChangeDiff(t, stdout)
}
