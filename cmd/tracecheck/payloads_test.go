package main

// validate --strict-payloads: the payload schemas (schema/payloads.schema.json)
// applied by validate, what they accept of what tracecheck writes, and
// docs/payloads.md, which documents them.

import (
	"encoding/json"
	"encoding/xml"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/schema"
)

// payloadFixtures is schema/testdata/payloads: one trace per rule of the
// payload schemas, each a golden with one payload broken (built and
// checked rule by rule in package schema's tests).
var payloadFixtures = filepath.Join("..", "..", "schema", "testdata", "payloads")

func payloadFixture(name string) string { return filepath.Join(payloadFixtures, name+".trace.jsonl") }

// TestValidateStrictPayloads: with --strict-payloads a payload that breaks
// its type's schema is a PAYLOAD_SCHEMA problem in validate's format, at
// the failing member's pointer under /payload; without it (or with
// --strict-payloads=false) the same file is valid.
func TestValidateStrictPayloads(t *testing.T) {
	noID, content := payloadFixture("tool-request-without-tool-call-id"), payloadFixture("model-response-content-not-string")
	failed, final := payloadFixture("tool-result-failed-without-error"), payloadFixture("model-response-stream-final-without-accumulated")
	s03 := filepath.Join(repoRoot, "golden", "s03-tool-dispatch.trace.jsonl")
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string // exact
		stderr string // exact
	}{
		{"without the flag", []string{"validate", noID}, "", exitOK, "ok " + noID + "\n", ""},
		{"the flag off", []string{"validate", "--strict-payloads=false", noID}, "", exitOK, "ok " + noID + "\n", ""},
		{"no tool_call_id", []string{"validate", "--strict-payloads", noID}, "", exitFailed, "",
			noID + ":5: PAYLOAD_SCHEMA event evt-004 at /payload/tool_call_id: tool.request payload: missing required member 'tool_call_id'\n"},
		{"content of the wrong type", []string{"validate", content, "--strict-payloads"}, "", exitFailed, "",
			content + ":8: PAYLOAD_SCHEMA event evt-007 at /payload/content: model.response payload: expected string, but got number\n"},
		{"a failed result without error", []string{"validate", "--strict-payloads", failed}, "", exitFailed, "",
			failed + ":6: PAYLOAD_SCHEMA event evt-005 at /payload/error: tool.result payload: missing required member 'error'\n"},
		{"a final delta without accumulated", []string{"validate", "--strict-payloads", final}, "", exitFailed, "",
			final + ":6: PAYLOAD_SCHEMA event evt-005 at /payload/accumulated: model.response payload: missing required member 'accumulated'\n"},
		{"a golden", []string{"validate", "--strict-payloads", s03}, "", exitOK, "ok " + s03 + "\n", ""},
		{"a golden and a fixture", []string{"validate", "--strict-payloads", "-q", s03, noID}, "", exitFailed, "",
			noID + ":5: PAYLOAD_SCHEMA event evt-004 at /payload/tool_call_id: tool.request payload: missing required member 'tool_call_id'\n"},
		{"standard input", []string{"validate", "--strict-payloads", "-"}, mustRead(t, noID), exitFailed, "",
			"<stdin>:5: PAYLOAD_SCHEMA event evt-004 at /payload/tool_call_id: tool.request payload: missing required member 'tool_call_id'\n"},
		{"envelope problems come first", []string{"validate", "--strict-payloads", "../../testdata/bad/schema-bad-enum.jsonl"}, "", exitFailed, "",
			"../../testdata/bad/schema-bad-enum.jsonl:2: SCHEMA event evt-001 at /actor/kind: value must be one of \"user\", \"model\", \"agent\", \"tool\", \"harness\", \"policy\", \"environment\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tt.stdin, tt.args...)
			if code != tt.code || stdout != tt.stdout || stderr != tt.stderr {
				t.Errorf("got %d\nstdout %q\nstderr %q\nwant %d\nstdout %q\nstderr %q", code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

// TestValidateStrictPayloadsEveryFixture: each payload fixture is valid
// without the flag and has exactly one PAYLOAD_SCHEMA problem with it.
func TestValidateStrictPayloadsEveryFixture(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(payloadFixtures, "*.trace.jsonl"))
	if len(files) < 40 {
		t.Fatalf("only %d payload fixtures", len(files))
	}
	line := regexp.MustCompile(`^(.*):(\d+): PAYLOAD_SCHEMA event evt-\d+ at /payload/[^ ]*: [a-z.]+ payload: .+\n$`)
	for _, f := range files {
		if code, stdout, stderr := runCmd(t, "", "validate", f); code != exitOK || stdout != "ok "+f+"\n" || stderr != "" {
			t.Errorf("%s without --strict-payloads: exit %d, %q %q", f, code, stdout, stderr)
		}
		code, stdout, stderr := runCmd(t, "", "validate", "--strict-payloads", f)
		if m := line.FindStringSubmatch(stderr); code != exitFailed || stdout != "" || m == nil || m[1] != f {
			t.Errorf("%s with --strict-payloads: exit %d, stdout %q, stderr %q", f, code, stdout, stderr)
		}
	}
}

// TestValidateStrictPayloadsFormats: a PAYLOAD_SCHEMA problem reaches
// every --format as any other problem does.
func TestValidateStrictPayloadsFormats(t *testing.T) {
	noID, good := payloadFixture("tool-request-without-tool-call-id"), s07
	files := []string{good, noID}
	msg := "tool.request payload: missing required member 'tool_call_id'"
	text := noID + ":5: PAYLOAD_SCHEMA event evt-004 at /payload/tool_call_id: " + msg

	code, stdout, stderr := runCmd(t, "", append([]string{"validate", "--strict-payloads", "--format", "json"}, files...)...)
	var out struct {
		OK    bool `json:"ok"`
		Files []struct {
			File     string `json:"file"`
			OK       bool   `json:"ok"`
			Problems []problem
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != exitFailed || stderr != "" {
		t.Fatalf("json: exit %d, %v, stderr %q\n%s", code, err, stderr, stdout)
	}
	want := problem{Code: "PAYLOAD_SCHEMA", Line: 5, EventID: "evt-004", Pointer: "/payload/tool_call_id", Message: msg}
	if out.OK || len(out.Files) != 2 || !out.Files[0].OK || out.Files[1].OK || !slices.Equal(out.Files[1].Problems, []problem{want}) {
		t.Errorf("json: %+v", out)
	}

	code, stdout, _ = runCmd(t, "", append([]string{"validate", "--strict-payloads", "--format", "junit"}, files...)...)
	var suites struct {
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Type string `xml:"type,attr"`
					Text string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(stdout), &suites); err != nil || code != exitFailed {
		t.Fatalf("junit: exit %d, %v\n%s", code, err, stdout)
	}
	if cs := suites.Suite.Cases; suites.Failures != 1 || len(cs) != 2 || cs[0].Failure != nil || cs[1].Failure == nil ||
		cs[1].Failure.Type != "PAYLOAD_SCHEMA" || strings.TrimSpace(cs[1].Failure.Text) != text {
		t.Errorf("junit: %+v\n%s", suites, stdout)
	}

	code, stdout, _ = runCmd(t, "", append([]string{"validate", "--strict-payloads", "--format", "github"}, files...)...)
	if want := "::error file=" + noID + ",line=5,title=PAYLOAD_SCHEMA::" + text + "\n"; code != exitFailed || stdout != want {
		t.Errorf("github: exit %d\n%s\nwant\n%s", code, stdout, want)
	}

	code, stdout, _ = runCmd(t, "", "validate", "--strict-payloads", "--format", "text", good)
	if code != exitOK || stdout != "ok "+good+"\n" {
		t.Errorf("text, a valid file: exit %d %q", code, stdout)
	}
}

// TestStrictPayloadsAcceptWhatTracecheckWrites: every committed trace
// tracecheck wrote passes --strict-payloads: the goldens (the reference
// curriculum's, the scenarios', the reference's own copies when
// ../shared/reference/golden is there), the model server's traces and a
// cassette, the replay fixtures; and so does what import writes from every
// committed agent log it turns into a valid trace, but for the one whose
// native line holds invalid UTF-8 (its content is kept as content_text).
func TestStrictPayloadsAcceptWhatTracecheckWrites(t *testing.T) {
	var files []string
	for _, pattern := range []string{
		"golden/*.trace.jsonl",
		"../shared/reference/golden/*.jsonl",
		"testdata/good/*.jsonl",
		"testdata/modelserver/*.jsonl",
		"testdata/cases/*.model.trace.jsonl",
		"agents/cases/*.model.trace.jsonl",
		"cases/testdata/*.trace.jsonl",
		"journal/store/testdata/*.jsonl",
	} {
		m, _ := filepath.Glob(filepath.Join(repoRoot, pattern))
		files = append(files, m...)
	}
	if len(files) < 45 {
		t.Fatalf("only %d traces", len(files))
	}
	code, stdout, stderr := runCmd(t, "", append([]string{"validate", "--strict-payloads", "-q"}, files...)...)
	if code != exitOK || stdout != "" || stderr != "" {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}

	// Import: the fixtures whose trace is valid must be valid with strict
	// payloads too, but for these, where the pointer is what is expected.
	expected := map[string]string{
		"testdata/agentlog/codex/invalid-utf8.jsonl": "/payload/content",
	}
	var logs []string
	for _, pattern := range []string{"testdata/agentlog/*/*.jsonl", "agentlog/testdata/*/*.jsonl"} {
		m, _ := filepath.Glob(filepath.Join(repoRoot, pattern))
		logs = append(logs, m...)
	}
	imported := 0
	for _, f := range logs {
		rel, _ := filepath.Rel(repoRoot, f)
		rel = filepath.ToSlash(rel)
		code, trace, _ := runCmd(t, "", "import", f)
		if code != exitOK {
			continue
		}
		if code, _, _ := runCmd(t, trace, "validate", "-q", "-"); code != exitOK {
			continue
		}
		imported++
		code, _, stderr := runCmd(t, trace, "validate", "-q", "--strict-payloads", "-")
		if pointer, ok := expected[rel]; ok {
			if code != exitFailed || !strings.Contains(stderr, " PAYLOAD_SCHEMA ") || !strings.Contains(stderr, " at "+pointer+": ") {
				t.Errorf("import %s: exit %d, %q; want a PAYLOAD_SCHEMA at %s", rel, code, stderr, pointer)
			}
			delete(expected, rel)
			continue
		}
		if code != exitOK {
			t.Errorf("import %s: with --strict-payloads: exit %d\n%s", rel, code, stderr)
		}
	}
	if imported < 30 {
		t.Errorf("only %d agent logs imported to a valid trace", imported)
	}
	for rel := range expected {
		t.Errorf("%s: not imported to a valid trace", rel)
	}
}

// TestPayloadsDoc: docs/payloads.md has a section for each event type with
// a payload schema, naming each member its schema requires, with examples
// the schema accepts; its console examples are validate's output; the
// Trace 0.1.0 section (README.md's, or the docs/ page holding it) links
// it.
func TestPayloadsDoc(t *testing.T) {
	doc := mustRead(t, filepath.Join(repoRoot, "docs", "payloads.md"))
	var defs struct {
		Defs map[string]struct {
			Required []string `json:"required"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema.PayloadsJSON, &defs); err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	for _, part := range strings.Split(doc, "\n### ")[1:] {
		title, body, _ := strings.Cut(part, "\n")
		body, _, _ = strings.Cut(body, "\n## ")
		sections[strings.Trim(title, "`")] = body
	}
	types := schema.PayloadTypes()
	if len(types) < 25 {
		t.Fatalf("only %d payload schemas", len(types))
	}
	for _, typ := range types {
		body, ok := sections[typ]
		if !ok {
			t.Errorf("docs/payloads.md has no section ### `%s`", typ)
			continue
		}
		delete(sections, typ)
		for _, m := range defs.Defs[typ].Required {
			if !strings.Contains(body, "`"+m+"`") {
				t.Errorf("docs/payloads.md, %s: the required member %s is not named", typ, m)
			}
		}
		examples := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(body, -1)
		if len(examples) == 0 {
			t.Errorf("docs/payloads.md, %s: no example", typ)
		}
		for _, ex := range examples {
			if vs := schema.CheckPayload(typ, []byte(ex[1])); vs != nil {
				t.Errorf("docs/payloads.md, %s: the example %s does not match the schema: %v", typ, strings.TrimSpace(ex[1]), vs)
			}
		}
	}
	for title := range sections {
		t.Errorf("docs/payloads.md has a section %q for a type without a payload schema", title)
	}

	t.Chdir(repoRoot)
	blocks := regexp.MustCompile("(?s)```console\n(.*?)```").FindAllStringSubmatch(doc, -1)
	if len(blocks) == 0 {
		t.Fatal("docs/payloads.md shows no command")
	}
	for _, b := range blocks {
		cmds := regexp.MustCompile(`(?m)^\$ tracecheck (.*)\n((?:[^$].*\n)*)`).FindAllStringSubmatch(b[1], -1)
		for _, c := range cmds {
			_, stdout, stderr := runCmd(t, "", strings.Fields(c[1])...)
			if got := stdout + stderr; got != c[2] {
				t.Errorf("docs/payloads.md: tracecheck %s prints\n%s\nthe page says\n%s", c[1], got, c[2])
			}
		}
	}

	// The Trace 0.1.0 section, in the README or in the document of docs/
	// that holds it, links this page.
	pages, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	found := false
	for _, page := range append([]string{filepath.Join(repoRoot, "README.md")}, pages...) {
		_, sec, ok := strings.Cut(mustRead(t, page), "\n## Trace 0.1.0\n")
		if !ok {
			continue
		}
		found = true
		sec, _, _ = strings.Cut(sec, "\n## ")
		if !regexp.MustCompile(`\]\((docs/)?payloads\.md\)`).MatchString(sec) {
			t.Errorf("%s: the Trace 0.1.0 section does not link docs/payloads.md", page)
		}
		break
	}
	if !found {
		t.Error("no Trace 0.1.0 section in README.md or docs/")
	}
}
