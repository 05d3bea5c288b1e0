package agentlog

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/agentlog/jsonpeek"
	"github.com/tracecheck/tracecheck/journal"
)

func TestSplitConcatenated(t *testing.T) {
	rec := `{"type":"user","uuid":"u2","sessionId":"s"}`
	cases := []struct {
		name  string
		line  string
		parts int
		torn  bool
	}{
		{"two whole", rec + rec, 2, false},
		{"whole then torn", rec + `{"type":"user","uu`, 1, true},
		{"torn then whole", `{"type":"user","message":{"content":"cut` + rec, 1, true},
		{"record missing its last brace is not two", `{"type":"user","uuid":"u1","message":{"role":"user","content":"x"}`, 0, false},
		{"trailing garbage is not two", rec + ` garbage`, 0, false},
		{"inner object of another format", `{"timestamp":"t","type":"x","payload":{"type":"user","uuid":"u"}`, 0, false},
	}
	var d jsonpeek.Doc
	for _, c := range cases {
		parts, torn := splitConcatenated(&d, []byte(c.line), ClaudeCode)
		if len(parts) != c.parts || (c.parts > 0 && torn != c.torn) {
			t.Errorf("%s: %d parts, torn %v; want %d, %v", c.name, len(parts), torn, c.parts, c.torn)
		}
	}
}

func TestRFC3339(t *testing.T) {
	for ts, ok := range map[string]bool{
		"2025-12-10T09:00:00.000Z": true, "2025-12-10T09:00:00+02:00": true, "2025-12-10 09:00:00": false,
		"1765233665292": false, "": false, "2025-12-31T23:59:60Z": false, "2025-13-01T00:00:00Z": false,
	} {
		if got := rfc3339(ts) != ""; got != ok {
			t.Errorf("%q: %v, want %v", ts, got, ok)
		}
	}
}

// TestUTCDateTimeIsTimeParse: where utcDateTime decides, it says what
// time.Parse (and the leap-second rule) would: every field of valid and
// broken date-times changed one character at a time.
func TestUTCDateTimeIsTimeParse(t *testing.T) {
	slow := func(ts string) bool {
		_, err := time.Parse(time.RFC3339Nano, ts)
		return err == nil && ts[17:19] != "60"
	}
	seeds := []string{"2025-12-10T09:00:00Z", "2025-12-10T09:00:00.123Z", "2024-02-29T23:59:59.999999999999Z",
		"2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "0000-01-01T00:00:00Z",
		"2025-04-31T00:00:00Z", "2025-01-31T00:00:00Z", "2025-12-31T23:59:60Z", "2025-12-10T24:00:00Z", "2025-00-10T09:00:00Z"}
	repl := "0123456789-:.TZz+ x"
	decided := 0
	for _, seed := range seeds {
		for i := range len(seed) {
			for _, c := range repl {
				ts := seed[:i] + string(c) + seed[i+1:]
				for _, ts := range []string{ts, seed[:i] + seed[i+1:], seed[:i] + string(c) + seed[i:]} {
					if len(ts) < 20 || ts[10] != 'T' {
						if _, d := utcDateTime(ts); d && len(ts) < 20 {
							t.Errorf("%q: utcDateTime decided a text too short to be a date-time", ts)
						}
						continue
					}
					if ok, d := utcDateTime(ts); d {
						decided++
						if ok != slow(ts) {
							t.Errorf("%q: utcDateTime %v, time.Parse %v", ts, ok, slow(ts))
						}
					}
				}
			}
		}
	}
	if decided < 1000 {
		t.Fatalf("utcDateTime decided %d forms only", decided)
	}
}

// TestImportResolvesDuplicateNativeIDs: a uuid used twice still yields a
// valid Trace; the second event gets a line suffix, and a parent link is
// kept only when it names an earlier event.
func TestImportResolvesDuplicateNativeIDs(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"user","uuid":"x","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"a"}}`,
		`{"type":"user","uuid":"x","parentUuid":"x","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"b"}}`,
		`{"type":"user","uuid":"y","parentUuid":"later","sessionId":"s","message":{"role":"user","content":"no time"}}`,
		`{"type":"summary","summary":"s","leafUuid":"y"}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	st, err := Import(strings.NewReader(in), "t.jsonl", ClaudeCode, &out)
	if err != nil || st.RenamedIDs != 1 {
		t.Fatalf("import: %v %+v", err, st)
	}
	if errs := journal.Validate(bytes.NewReader(out.Bytes()), "t"); errs != nil {
		t.Fatalf("%v\n%s", errs, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for i, want := range []string{`"event_id":"x",`, `"event_id":"x@line-2",`, `"event_id":"y",`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("event %d lacks %s: %s", i, want, lines[i])
		}
	}
	if !strings.Contains(lines[1], `"parent_event_id":"x"`) || strings.Contains(lines[2], "parent_event_id") {
		t.Errorf("parent links: %s / %s", lines[1], lines[2])
	}
	// A line without a timestamp carries the last one, and says so.
	if !strings.Contains(lines[2], `"timestamp":"2026-01-01T00:00:01Z"`) {
		t.Errorf("timestamp carry: %s", lines[2])
	}
}

// TestImportStrictFallback: bytes a strict reader refuses (duplicate keys,
// lone surrogates) are carried as text, so the Trace still validates.
func TestImportStrictFallback(t *testing.T) {
	in := `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s","cli_version":"1"}}` + "\n" +
		`{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"\ud800","text":"dup"}]}}` + "\n"
	var out bytes.Buffer
	if _, err := Import(strings.NewReader(in), "t", Codex, &out); err != nil {
		t.Fatal(err)
	}
	if errs := journal.Validate(bytes.NewReader(out.Bytes()), "t"); errs != nil {
		t.Fatalf("%v\n%s", errs, out.String())
	}
	if !strings.Contains(out.String(), `"content_text":`) {
		t.Errorf("no text fallback:\n%s", out.String())
	}
}

func TestIDSetIsExact(t *testing.T) {
	s := NewIDSet()
	for _, id := range []string{"a", "b", "a", ""} {
		s.Add(id)
	}
	if !s.Has("a") || !s.Has("") || s.Has("c") || s.Len() != 3 || s.Add("b") {
		t.Error("IDSet")
	}
	s.Close()

	s = NewIDSet()
	defer s.Close()
	u := "5f2c9a10-1111-4222-8333-944455556666"
	if !s.Add(u) || s.Add(u) || s.Has(strings.ToUpper(u)) || !s.Add(strings.ToUpper(u)) || s.Len() != 2 {
		t.Error("a UUID and its uppercase spelling are two ids")
	}
	if s.Has("5f2c9a10-1111-4222-8333-94445555666") || s.Has("5f2c9a10x1111-4222-8333-944455556666") {
		t.Error("near-UUIDs")
	}
}

func TestCodesDocumented(t *testing.T) {
	var names []string
	for _, c := range Codes {
		if c.Summary == "" {
			t.Errorf("%s has no summary", c.Code)
		}
		names = append(names, string(c.Code))
	}
	want := []string{"TORN_TAIL", "CONCATENATED_LINES", "INVALID_JSON", "INVALID_UTF8", "MISSING_HEADER", "MIXED_SESSION", "DUPLICATE_ID",
		"DANGLING_PARENT", "UNREACHABLE", "ORPHAN_CALL", "ORPHAN_RESULT", "COMPACTION_WITHOUT_SUMMARY", "LINE_TOO_LONG", "UNKNOWN_RECORD",
		"OPEN_CALL_LIMIT", "UNKNOWN_FORMAT", "TOO_MANY_FINDINGS", "READ_FAILED"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Error(diff)
	}
}

// TestLongLineIsSkipped: a line over the limit is reported and reading
// goes on.
func TestLongLineIsSkipped(t *testing.T) {
	in := `{"timestamp":"t","type":"session_meta","payload":{"id":"s","cli_version":"1"}}` + "\n" +
		`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":"` + strings.Repeat("x", 300) + `"}}` + "\n" +
		`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"o"}}` + "\n"
	rep := Lint(strings.NewReader(in), "t", Options{MaxLine: 200})
	if diff := cmp.Diff([]string{"2 LINE_TOO_LONG", "3 ORPHAN_RESULT"}, got(rep)); diff != "" {
		t.Error(diff)
	}
}

// claudeChain is a Claude Code transcript of n user entries chained by
// parentUuid, with UUID-shaped ids padded to width bytes.
func claudeChain(n, width int) string {
	var b strings.Builder
	parent := "null"
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		id += strings.Repeat("0", max(width-len(id), 0))
		fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"sessionId":"5f2c9a10-1111-4222-8333-944455556666","type":"user","message":{"role":"user","content":"hi"},"uuid":%q,"timestamp":"2026-01-01T00:00:00Z"}`+"\n", parent, id)
		parent = fmt.Sprintf("%q", id)
	}
	return b.String()
}

// TestIDSetFailureIsReported: when the id set's temporary file cannot be
// created, lint says so (READ_FAILED, once, at the line where it
// happened) instead of inventing findings (no UNREACHABLE from a chain
// that broke before the failure), and import and repair fail with the error.
func TestIDSetFailureIsReported(t *testing.T) {
	in := claudeChain(12000, 1000) // more id bytes than an id set keeps in memory (smallIDBytes)
	if len(in) < 2*smallIDBytes {
		t.Fatalf("the chain holds %d bytes, too few to fill an id set's memory", len(in))
	}
	if rep := Lint(strings.NewReader(in), "t", Options{}); rep.Failed() {
		t.Fatalf("the chain does not lint clean: %v", got(rep))
	}
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	rep := Lint(strings.NewReader(in), "t", Options{})
	if len(rep.Findings) != 1 || rep.Findings[0].Code != ReadFailed || rep.Findings[0].Line < 2 ||
		!strings.Contains(rep.Findings[0].Message, "TMPDIR") {
		t.Fatalf("findings %v, want one READ_FAILED naming TMPDIR", got(rep))
	}
	if _, err := Import(strings.NewReader(in), "t", ClaudeCode, io.Discard); err == nil || !strings.Contains(err.Error(), "TMPDIR") {
		t.Errorf("import: %v, want the id set's error", err)
	}
	open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(in)), nil }
	noSide := func() (io.Writer, error) { return io.Discard, nil }
	if _, err := Repair(open, "t", io.Discard, noSide, Options{}); err == nil || !strings.Contains(err.Error(), "not repaired") ||
		!strings.Contains(err.Error(), "TMPDIR") {
		t.Errorf("repair: %v, want the id set's error", err)
	}

	// Once the sets fail, Has answers true: an entry whose chain broke
	// before the failure must not make a later root's child UNREACHABLE.
	root := `{"parentUuid":null,"isSidechain":false,"sessionId":"5f2c9a10-1111-4222-8333-944455556666","type":"user","message":{"role":"user","content":"hi"},"uuid":"new-root","timestamp":"2026-01-01T00:00:00Z"}` + "\n"
	child := strings.NewReplacer(`"parentUuid":null`, `"parentUuid":"new-root"`, `"uuid":"new-root"`, `"uuid":"new-child"`).Replace(root)
	broken := strings.Replace(in, `"parentUuid":null`, `"parentUuid":"gone"`, 1) + root + child
	rep = Lint(strings.NewReader(broken), "t", Options{})
	if rep.Counts[ReadFailed] != 1 || rep.Counts[DanglingParent] != 1 {
		t.Errorf("findings %v, want one DANGLING_PARENT and one READ_FAILED", got(rep))
	}
	if n := rep.Counts[Unreachable]; n != 0 {
		t.Errorf("%d UNREACHABLE after the id set failed: %v", n, got(rep))
	}
}

// The Claude Code decoder's key set and its indexes agree.
func TestClaudeKeysIndexed(t *testing.T) {
	if claudeKeys.Len() != claudeKeyCount {
		t.Fatalf("%d keys, %d indexes", claudeKeys.Len(), claudeKeyCount)
	}
}

// The pi decoder's key sets and their indexes agree.
func TestPiKeysIndexed(t *testing.T) {
	if piKeys.Len() != piKeyCount || piMessageKeys.Len() != piMessageKeyCount {
		t.Fatalf("%d and %d keys, %d and %d indexes", piKeys.Len(), piMessageKeys.Len(), piKeyCount, piMessageKeyCount)
	}
}
