package agentlog

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/journal"
)

// fixtureRoot holds one folder per format, one file per problem class, each
// with a .want sidecar listing the expected findings ("LINE CODE").
const fixtureRoot = "../testdata/agentlog"

// agentFixtureRoot holds more fixtures in the same layout, kept beside the
// package: records of newer agent versions (Codex CLI 0.171, Claude Code
// 2.1.332) whose import import_test.go checks too. testdata/README.md
// there says where each shape comes from.
const agentFixtureRoot = "testdata"

// sharedRoot holds the fixtures of public projects (SOURCES.md there); it
// is beside the module in a full checkout and absent in a bare clone.
const sharedRoot = "../../shared/reference/agent-logs"

// sharedWant: expected findings of the shared fixtures, which have no
// sidecars of their own (the folder is read-only).
var sharedWant = map[string][]string{
	"codex/agent-history_fixture_codex_session_with_compaction.jsonl":                    nil,
	"codex/agent-history_fixture_codex_with_escalation_orphan_calls.jsonl":               {"11 ORPHAN_CALL", "19 ORPHAN_CALL"},
	"codex/claude-code-log_codex_rollout-2026-01-02-1111_custom_tool_unknown_type.jsonl": {"14 UNKNOWN_RECORD"},
	"codex/claude-code-log_codex_malformed_rollout-6666.jsonl":                           {"3 TORN_TAIL"},
	"claude-code/agent-history_fixture_claude_forked_session.jsonl":                      nil,
	"claude-code/agent-history_fixture_claude_with_rejection.jsonl":                      nil,
	"claude-code/claude-code-log_dag_compact_after_rewind.jsonl":                         nil,
	"ts-harness/SYNTHESIZED_ts-harness_orphan_resume_compaction.jsonl":                   nil,
}

type fixture struct {
	path   string
	format Format
	want   []string
}

func ownFixtures(tb testing.TB) []fixture {
	tb.Helper()
	var fx []fixture
	for _, f := range []Format{Codex, ClaudeCode, Pi, TSHarness} {
		paths, err := filepath.Glob(filepath.Join(fixtureRoot, f.String(), "*.jsonl"))
		if err != nil || len(paths) == 0 {
			tb.Fatalf("no fixtures for %s: %v", f, err)
		}
		more, err := filepath.Glob(filepath.Join(agentFixtureRoot, f.String(), "*.jsonl"))
		if err != nil {
			tb.Fatal(err)
		}
		for _, p := range append(paths, more...) {
			fx = append(fx, fixture{path: p, format: f, want: readWant(tb, p+".want")})
		}
	}
	return fx
}

func sharedFixtures(tb testing.TB) []fixture {
	tb.Helper()
	if _, err := os.Stat(sharedRoot); err != nil {
		tb.Skipf("shared fixtures not present at %s (a bare clone): %v", sharedRoot, err)
	}
	var fx []fixture
	for rel, want := range sharedWant {
		dir := strings.Split(rel, "/")[0]
		f, err := ParseFormat(dir)
		if err != nil {
			tb.Fatal(err)
		}
		fx = append(fx, fixture{path: filepath.Join(sharedRoot, rel), format: f, want: want})
	}
	return fx
}

func readWant(tb testing.TB, path string) []string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("sidecar: %v", err)
	}
	var want []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			want = append(want, l)
		}
	}
	return want
}

func got(rep *FileReport) []string {
	var g []string
	for _, f := range rep.Findings {
		g = append(g, fmt.Sprintf("%d %s", f.Line, f.Code))
	}
	return g
}

func lintPath(tb testing.TB, path string, opt Options) *FileReport {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	return Lint(f, path, opt)
}

// TestFixtures: every fixture is detected as its folder's format, lints
// with the expected codes and lines, imports to a Trace that validates,
// and repairs to a copy in which nothing is left to repair, that the
// agent's documented structure accepts, and that lints clean when every
// finding was repairable.
func TestFixtures(t *testing.T) {
	run := func(t *testing.T, fx []fixture) {
		for _, x := range fx {
			t.Run(filepath.Base(filepath.Dir(x.path))+"/"+filepath.Base(x.path), func(t *testing.T) {
				checkFixture(t, x)
			})
		}
	}
	t.Run("own", func(t *testing.T) { run(t, ownFixtures(t)) })
	t.Run("shared", func(t *testing.T) { run(t, sharedFixtures(t)) })
}

func checkFixture(t *testing.T, x fixture) {
	rep := lintPath(t, x.path, Options{})
	if rep.Format != x.format {
		t.Fatalf("detected %s, want %s", rep.Format, x.format)
	}
	if diff := cmp.Diff(x.want, got(rep)); diff != "" {
		t.Errorf("findings (-want +got):\n%s\nall: %v", diff, rep.Findings)
	}

	// Import: the Trace validates with the journal package.
	var trace bytes.Buffer
	in, err := os.Open(x.path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Import(in, x.path, x.format, &trace)
	in.Close()
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if errs := journal.Validate(bytes.NewReader(trace.Bytes()), "import"); len(errs) > 0 {
		t.Fatalf("imported trace does not validate: %v\n%s", errs, trace.String())
	}
	if st.Events == 0 {
		t.Fatal("import wrote no event")
	}

	// Repair.
	var out, side bytes.Buffer
	res, err := Repair(func() (io.ReadCloser, error) { return os.Open(x.path) }, x.path, &out,
		func() (io.Writer, error) { return &side, nil }, Options{})
	if err != nil {
		t.Fatalf("repair: %v", err)
	}
	if len(res.Repairs) < rep.Repairable {
		t.Errorf("%d repairs listed for %d repairable findings", len(res.Repairs), rep.Repairable)
	}
	after := Lint(bytes.NewReader(out.Bytes()), "repaired", Options{Format: x.format})
	if after.Repairable != 0 {
		t.Errorf("repaired copy still has %d repairable findings: %v", after.Repairable, after.Findings)
	}
	allRepairable := true
	for _, f := range rep.Findings {
		if f.Severity != Info && !f.Repairable() {
			allRepairable = false
		}
	}
	if allRepairable && after.Failed() {
		t.Errorf("every finding was repairable, but the copy still fails: %v\n%s", after.Findings, out.String())
	}
	// Problems no repair answers stay in the copy, so only a fully
	// repaired copy is held to the agent's structure.
	if err := checkStructure(x.format, out.Bytes()); allRepairable && err != nil {
		t.Errorf("repaired copy breaks %s's structure: %v\n%s", x.format, err, out.String())
	}
	if rep.Repairable == 0 {
		orig, _ := os.ReadFile(x.path)
		if !bytes.Equal(orig, out.Bytes()) {
			t.Error("nothing to repair, yet the copy differs from the original")
		}
	}
}

// checkStructure checks a file against the structure each agent's reader
// documents (see each format's file for the source): what the agent needs
// to load it, not what lint judges.
func checkStructure(f Format, b []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	var d docReader
	n := 0
	ids := map[string]bool{}
	calls := map[string]bool{}
	outputs := map[string]bool{}
	for sc.Scan() {
		n++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		v, err := d.object(sc.Bytes())
		if err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		switch f {
		case Codex:
			if v.Get("timestamp").Str() == "" || v.Get("type").Str() == "" || v.Get("payload").Kind() != objectKind {
				return fmt.Errorf("line %d: not a RolloutLine {timestamp, type, payload}", n)
			}
			p := v.Get("payload")
			if t := p.Get("type").Str(); t == "function_call_output" || t == "custom_tool_call_output" {
				if p.Get("call_id").Str() == "" || !p.Get("output").Exists() {
					return fmt.Errorf("line %d: %s without call_id or output", n, t)
				}
			}
		case ClaudeCode:
			if !v.Get("uuid").Exists() {
				continue
			}
			if p := v.Get("parentUuid"); p.Kind() == stringKind && !ids[p.Str()] {
				return fmt.Errorf("line %d: parentUuid %q names no earlier entry", n, p.Str())
			}
			ids[v.Get("uuid").Str()] = true
			var bad error
			v.Path("message", "content").Elems(func(_ int, blk jsonValue) bool {
				if blk.Get("type").Is("tool_result") && blk.Get("tool_use_id").Str() == "" {
					bad = fmt.Errorf("line %d: tool_result without tool_use_id", n)
				}
				return bad == nil
			})
			if bad != nil {
				return bad
			}
		case Pi:
			if n == 1 {
				if !v.Get("type").Is("session") || v.Get("id").Kind() != stringKind {
					return fmt.Errorf("line 1: not a session header")
				}
				continue
			}
			if id := v.Get("id"); id.Exists() {
				if p := v.Get("parentId"); p.Kind() == stringKind && !ids[p.Str()] {
					return fmt.Errorf("line %d: parentId %q names no earlier entry", n, p.Str())
				}
				ids[id.Str()] = true
			}
			if m := v.Get("message"); m.Get("role").Is("toolResult") {
				if m.Get("toolCallId").Str() == "" || m.Get("content").Kind() != arrayKind {
					return fmt.Errorf("line %d: toolResult without toolCallId or content", n)
				}
			}
		case TSHarness:
			if n == 1 && !v.Get("type").Is("session_meta") {
				return fmt.Errorf("line 1: not session_meta")
			}
			p := v.Get("payload")
			switch p.Get("type").Str() {
			case "function_call":
				calls[p.Get("callId").Str()] = true
			case "function_call_output":
				if _, ok := p.Get("isError").Bool(); !ok || p.Get("callId").Str() == "" {
					return fmt.Errorf("line %d: function_call_output without callId or isError", n)
				}
				outputs[p.Get("callId").Str()] = true
			}
		}
	}
	if f == TSHarness {
		// The harness's own invariant after a resume: every call answered.
		for c := range calls {
			if !outputs[c] {
				return fmt.Errorf("function_call %q has no function_call_output", c)
			}
		}
	}
	return sc.Err()
}

func TestDetectByContentNotName(t *testing.T) {
	for _, x := range ownFixtures(t) {
		b, err := os.ReadFile(x.path)
		if err != nil {
			t.Fatal(err)
		}
		// Renamed, the file is detected the same.
		rep := Lint(bytes.NewReader(b), "renamed.txt", Options{})
		if rep.Format != x.format {
			t.Errorf("%s: detected %s, want %s", x.path, rep.Format, x.format)
		}
	}
}
