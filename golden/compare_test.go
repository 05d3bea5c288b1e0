package golden

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/tracediff"
)

const (
	line0 = `{"sequence":0,"event_id":"evt-000","type":"session.start","payload":{"max_turns":8,"tool_count":0}}` + "\n"
	line1 = `{"sequence":1,"event_id":"evt-001","type":"model.request","payload":{"turn":1,"roles":["user"],"tools":[]}}` + "\n"
	line2 = `{"sequence":2,"event_id":"evt-002","type":"session.stop","payload":{"reason":"completed","turns":1}}` + "\n"
)

// shown is what a test checks of a Drift: its mode, line, counts and the
// first event (kind, sequence, id, type, lines, fields, note).
type shown struct {
	Mode                          string
	Line                          int
	Differences, Changed, Missing int
	Extra                         int
	Event                         *tracediff.EventDiff
	Note                          string
}

func show(d *Drift) *shown {
	if d == nil {
		return nil
	}
	s := &shown{Mode: d.Mode, Line: d.Line, Differences: d.Differences, Changed: d.Changed, Missing: d.Missing, Extra: d.Extra, Note: d.Note}
	if len(d.Events) > 0 {
		s.Event = &d.Events[0]
	}
	return s
}

func changed(line int, seq int64, id, typ string, fields ...tracediff.FieldDiff) *tracediff.EventDiff {
	return &tracediff.EventDiff{Kind: tracediff.KindChanged, Run: 1, Sequence: seq, EventID: id, Type: typ, ExpectedLine: line, ActualLine: line, Anchor: line, Fields: fields}
}

func TestCompare(t *testing.T) {
	golden := line0 + line1 + line2
	line3 := `{"sequence":3,"event_id":"evt-003","type":"session.stop","payload":{"reason":"again"}}` + "\n"
	withNote := func(e *tracediff.EventDiff, note string) *tracediff.EventDiff { e.Note = note; return e }
	tests := []struct {
		name   string
		actual string
		want   *shown // nil: no drift
	}{
		{"identical", golden, nil},
		{"a changed value", line0 + strings.Replace(line1, `"turn":1`, `"turn":2`, 1) + line2,
			&shown{ModeExact, 2, 1, 1, 0, 0, changed(2, 1, "evt-001", "model.request", tracediff.FieldDiff{Pointer: "/payload/turn", Expected: "1", Actual: "2"}), ""}},
		{"number spelling is a difference", line0 + strings.Replace(line1, `"turn":1`, `"turn":1.0`, 1) + line2,
			&shown{ModeExact, 2, 1, 1, 0, 0, changed(2, 1, "evt-001", "model.request", tracediff.FieldDiff{Pointer: "/payload/turn", Expected: "1", Actual: "1.0"}), ""}},
		{"an added member and array element", line0 + strings.Replace(line1, `"roles":["user"]`, `"roles":["user","tool"],"extra":"<&>"`, 1) + line2,
			&shown{ModeExact, 2, 1, 1, 0, 0, changed(2, 1, "evt-001", "model.request",
				tracediff.FieldDiff{Pointer: "/payload/roles/1", Expected: Absent, Actual: `"tool"`},
				tracediff.FieldDiff{Pointer: "/payload/extra", Expected: Absent, Actual: `"<&>"`}), ""}},
		{"a removed member", strings.Replace(line0, `"max_turns":8,`, ``, 1) + line1 + line2,
			&shown{ModeExact, 1, 1, 1, 0, 0, changed(1, 0, "evt-000", "session.start", tracediff.FieldDiff{Pointer: "/payload/max_turns", Expected: "8", Actual: Absent}), ""}},
		{"a changed type", strings.Replace(line0, `"tool_count":0`, `"tool_count":"0"`, 1) + line1 + line2,
			&shown{ModeExact, 1, 1, 1, 0, 0, changed(1, 0, "evt-000", "session.start", tracediff.FieldDiff{Pointer: "/payload/tool_count", Expected: "0", Actual: `"0"`}), ""}},
		{"member order only", line0 + `{"event_id":"evt-001","sequence":1,"type":"model.request","payload":{"turn":1,"roles":["user"],"tools":[]}}` + "\n" + line2,
			&shown{ModeExact, 2, 1, 1, 0, 0, withNote(changed(2, 1, "evt-001", "model.request"),
				"the same event written with other bytes (member order, spacing, escaping or number spelling)"), ""}},
		{"CRLF", line0 + strings.Replace(line1, "\n", "\r\n", 1) + line2,
			&shown{ModeExact, 2, 1, 1, 0, 0, withNote(changed(2, 1, "evt-001", "model.request"), "the same event; the line endings differ (CRLF)"), ""}},
		{"an extra event", golden + line3,
			&shown{ModeExact, 3, 1, 0, 0, 1, &tracediff.EventDiff{Kind: tracediff.KindExtra, Run: 1, Sequence: 3, EventID: "evt-003", Type: "session.stop", ActualLine: 4, Anchor: 3}, ""}},
		{"a missing event", line0 + line1,
			&shown{ModeExact, 3, 1, 0, 1, 0, &tracediff.EventDiff{Kind: tracediff.KindMissing, Run: 1, Sequence: 2, EventID: "evt-002", Type: "session.stop", ExpectedLine: 3, Anchor: 3}, ""}},
		{"an extra line that breaks the sequence", golden + line2,
			&shown{ModeLines, 4, 1, 0, 0, 1, &tracediff.EventDiff{Kind: tracediff.KindExtra, Sequence: 2, EventID: "evt-002", Type: "session.stop", ActualLine: 4, Anchor: 4},
				"compared line by line, as the events cannot be aligned (got:4: SEQUENCE_GAP event evt-002 at /sequence: sequence 2 where 3 was expected: sequences start at 0 and are contiguous); the golden file ends after line 3; the actual trace has 4 lines"}},
		{"no final newline", strings.TrimSuffix(golden, "\n"),
			&shown{ModeLines, 3, 1, 1, 0, 0, &tracediff.EventDiff{Kind: tracediff.KindChanged, Sequence: 2, EventID: "evt-002", Type: "session.stop", ExpectedLine: 3, ActualLine: 3, Anchor: 3,
				Note: "the same event; one side lacks the final newline"},
				"compared line by line, as the events cannot be aligned (got:3: TORN_TAIL: last line has no newline (100 bytes): the writer stopped mid-line)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Compare([]byte(golden), []byte(tc.actual), "want.jsonl", "got")
			if tc.want == nil {
				if got != nil {
					t.Fatalf("Compare = %+v, want nil", got)
				}
				return
			}
			if got == nil {
				t.Fatal("Compare = nil, want a drift")
			}
			if !strings.HasPrefix(got.Diff, "--- want.jsonl\n+++ got\n@@ ") {
				t.Errorf("diff does not start with a unified header:\n%s", got.Diff)
			}
			if d := cmp.Diff(tc.want, show(got)); d != "" {
				t.Errorf("drift (-want +got):\n%s\n%s", d, got.Diff)
			}
		})
	}
}

// TestCompareEveryDifference: a golden with several differing events
// reports each of them, with its pointers, the counts and one diff holding
// every hunk.
func TestCompareEveryDifference(t *testing.T) {
	var g, a strings.Builder
	for i := range 30 {
		line := fmt.Sprintf(`{"sequence":%d,"event_id":"evt-%03d","type":"model.request","payload":{"turn":%d}}`+"\n", i, i, i)
		g.WriteString(line)
		switch i {
		case 3, 17:
			line = strings.Replace(line, fmt.Sprintf(`"turn":%d`, i), `"turn":-1`, 1)
		case 25:
			line = strings.Replace(line, `{"sequence"`, `{ "sequence"`, 1)
		}
		if i < 29 {
			a.WriteString(line)
		}
	}
	d := Compare([]byte(g.String()), []byte(a.String()), "g", "a")
	if d == nil || d.Mode != ModeExact || d.Differences != 4 || d.Changed != 3 || d.Missing != 1 || len(d.Events) != 4 || d.Line != 4 {
		t.Fatalf("drift %+v", d)
	}
	want := []struct {
		line int
		ptr  string
	}{{4, "/payload/turn"}, {18, "/payload/turn"}, {26, ""}, {30, ""}}
	for i, w := range want {
		e := d.Events[i]
		ptr := ""
		if len(e.Fields) > 0 {
			ptr = e.Fields[0].Pointer
		}
		if e.ExpectedLine != w.line || ptr != w.ptr {
			t.Errorf("event %d: line %d pointer %q, want %d %q", i, e.ExpectedLine, ptr, w.line, w.ptr)
		}
	}
	if !strings.Contains(d.Events[2].Note, "other bytes") {
		t.Errorf("the respaced event has no note: %+v", d.Events[2])
	}
	if n := strings.Count(d.Diff, "\n@@ "); n != 3 {
		t.Errorf("%d hunks, want 3 (lines 4, 18, and 26 with 30):\n%s", n, d.Diff)
	}
	if s := d.Summary(); s != "4 events differ (3 changed, 1 missing, 0 extra); the golden has 30 events, the actual trace 29" {
		t.Errorf("summary %q", s)
	}
}

func TestCompareLineThatIsNotJSON(t *testing.T) {
	d := Compare([]byte(line0+line1+line2), []byte(line0+"{oops\n"+line2), "want.jsonl", "got")
	if d == nil || d.Mode != ModeLines || d.Line != 2 || !strings.Contains(d.Note, "; actual line 2 is not valid JSON") ||
		len(d.Events) != 1 || d.Events[0].EventID != "evt-001" {
		t.Fatalf("drift %+v", d)
	}
}

func TestCompareDiffShowsTheLinesAround(t *testing.T) {
	golden := line0 + line1 + line2
	actual := line0 + strings.Replace(line1, `"turn":1`, `"turn":2`, 1) + line2
	d := Compare([]byte(golden), []byte(actual), "g", "r")
	want := "--- g\n+++ r\n@@ -1,3 +1,3 @@\n " + line0 + "-" + line1 + "+" + strings.Replace(line1, `"turn":1`, `"turn":2`, 1) + " " + line2
	if d.Diff != want {
		t.Errorf("diff\n%s\nwant\n%s", d.Diff, want)
	}
}

func TestStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "golden")
	s := DiskStore(dir)
	if ids, err := s.IDs(); err != nil || len(ids) != 0 {
		t.Fatalf("IDs of a missing dir = %v, %v", ids, err)
	}
	// A directory named on a command line is never created: it may be a typo.
	if _, err := s.Write("a", []byte("one\n")); err == nil {
		t.Fatal("Write created a missing directory")
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the directory exists after a failed write: %v", err)
	}
	// The module's own golden/ is.
	root := filepath.Dir(dir)
	s = ModuleStore(root, root)
	if s.Dir() != "golden" {
		t.Fatalf("ModuleStore dir %q, want golden (relative to the start)", s.Dir())
	}
	t.Chdir(root)
	if _, err := s.Read("a"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read of a missing golden: %v", err)
	}
	changed, err := s.Write("a", []byte("one\n"))
	if err != nil || !changed {
		t.Fatalf("first Write = %v, %v", changed, err)
	}
	info, err := os.Stat(filepath.Join(dir, "a.trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := s.Write("a", []byte("one\n")); err != nil || changed {
		t.Fatalf("Write of the same bytes = %v, %v; want no change", changed, err)
	}
	if again, _ := os.Stat(filepath.Join(dir, "a.trace.jsonl")); !again.ModTime().Equal(info.ModTime()) || again.Mode().Perm() != 0o644 {
		t.Errorf("unchanged golden was rewritten or has mode %v", again.Mode())
	}
	if changed, err := s.Write("a", []byte("two\n")); err != nil || !changed {
		t.Fatalf("Write of new bytes = %v, %v", changed, err)
	}
	if b, _ := s.Read("a"); string(b) != "two\n" {
		t.Errorf("Read = %q", b)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, ".hidden.trace.jsonl"), nil, 0o644)
	s.Write("b", []byte("x\n"))
	if ids, _ := s.IDs(); strings.Join(ids, ",") != "a,b" {
		t.Errorf("IDs = %v, want [a b]", ids)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	if err := s.Remove("b"); err != nil {
		t.Fatal(err)
	}
	if ids, _ := s.IDs(); strings.Join(ids, ",") != "a" {
		t.Errorf("after Remove, IDs = %v", ids)
	}

	emb := EmbeddedStore()
	if _, err := emb.Write("a", nil); !errors.Is(err, ErrReadOnly) {
		t.Errorf("embedded Write: %v", err)
	}
	if err := emb.Remove("a"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("embedded Remove: %v", err)
	}
	if err := emb.WritePending("a", nil); !errors.Is(err, ErrReadOnly) {
		t.Errorf("embedded WritePending: %v", err)
	}
}

func TestPendingGoldens(t *testing.T) {
	dir := t.TempDir()
	s := DiskStore(dir)
	s.Write("a", []byte("old\n"))
	if err := s.WritePending("a", []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	s.WritePending("b", []byte("b\n"))
	os.WriteFile(filepath.Join(dir, ".c.trace.jsonl.new"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "d.trace.jsonl.new"), 0o755)
	if ids, _ := s.PendingIDs(); strings.Join(ids, ",") != "a,b" {
		t.Errorf("PendingIDs = %v, want [a b]", ids)
	}
	if ids, _ := s.IDs(); strings.Join(ids, ",") != "a" {
		t.Errorf("IDs = %v: a pending golden is not a golden", ids)
	}
	if b, err := s.ReadPending("a"); err != nil || string(b) != "new\n" {
		t.Errorf("ReadPending = %q, %v", b, err)
	}
	if err := s.Accept("a"); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Read("a"); string(b) != "new\n" {
		t.Errorf("after Accept the golden is %q", b)
	}
	if removed, err := s.RemovePending("a"); removed || err != nil {
		t.Errorf("RemovePending after Accept = %v, %v; want nothing to remove", removed, err)
	}
	if removed, err := s.RemovePending("b"); !removed || err != nil {
		t.Errorf("RemovePending(b) = %v, %v", removed, err)
	}
	if _, err := s.RemovePending("d"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("RemovePending of a directory: %v", err)
	}
}

// TestReadRefusesWhatIsNotAFile: a golden name that is a FIFO would block
// verify forever; a directory is no golden.
func TestReadRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "f.trace.jsonl"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	os.Mkdir(filepath.Join(dir, "d.trace.jsonl"), 0o755)
	for _, id := range []string{"f", "d"} {
		if _, err := DiskStore(dir).Read(id); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Read(%s): %v", id, err)
		}
	}
}

func TestShow(t *testing.T) {
	long := strings.Repeat("a", 300)
	tests := []struct{ in, line, json string }{
		{`{"a":1}`, `{"a":1}`, `{"a":1}`},
		{"not json", "not json", "not json"}, // plain text is safe as it is (textsafe.Quote)
		{"\x1b[31mred", `"\x1b[31mred"`, `\u001b[31mred`},
		{`{"a":"` + "\u202e" + `"}`, `"{\"a\":\"\u202e\"}"`, `{"a":"\u202e"}`},
		{"\xff\x00", `"\xff\x00"`, `\ufffd\u0000`},
		{long, long[:MaxShown] + "... (300 bytes)", long[:MaxShown] + "... (300 bytes)"},
	}
	for _, tc := range tests {
		if got := ShowLine(tc.in); got != tc.line {
			t.Errorf("ShowLine(%q) = %q, want %q", tc.in, got, tc.line)
		}
		if got := ShowJSON(tc.in); got != tc.json {
			t.Errorf("ShowJSON(%q) = %q, want %q", tc.in, got, tc.json)
		}
	}
}

func TestDefaultStore(t *testing.T) {
	// Inside the module: its golden/ directory, which is this package's.
	s := DefaultStore(".")
	if s.Embedded() || s.Dir() != "." {
		t.Errorf("inside the module: %s", s)
	}
	// Outside any module: the embedded copy.
	if s := DefaultStore(t.TempDir()); !s.Embedded() {
		t.Errorf("outside the module: %s", s)
	}
	// Inside another module: the embedded copy, not that module's golden/.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644)
	os.MkdirAll(filepath.Join(other, "golden", "sub"), 0o755)
	if s := DefaultStore(filepath.Join(other, "golden", "sub")); !s.Embedded() {
		t.Errorf("inside another module: %s", s)
	}
	// A tracecheck checkout elsewhere, from a subdirectory.
	mine := t.TempDir()
	os.WriteFile(filepath.Join(mine, "go.mod"), []byte("module github.com/tracecheck/tracecheck\n\ngo 1.26\n"), 0o644)
	os.MkdirAll(filepath.Join(mine, "cmd", "x"), 0o755)
	if s := DefaultStore(filepath.Join(mine, "cmd", "x")); s.Embedded() || filepath.Clean(s.Dir()) != filepath.Join("..", "..", "golden") {
		t.Errorf("from a subdirectory of a checkout: %s", s)
	}
}
