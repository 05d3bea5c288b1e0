package journal_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

const testdata = "../testdata"

func readFixture(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, path))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// referenceGoldens lists the reference traces, which live outside the repo
// in ../shared; tests that need them skip when they are absent.
func referenceGoldens(tb testing.TB) []string {
	tb.Helper()
	files, _ := filepath.Glob("../../shared/reference/golden/*.trace.jsonl")
	if len(files) == 0 {
		tb.Skip("reference goldens not found at ../../shared/reference/golden (they sit beside the repo in CI)")
	}
	return files
}

func TestReferenceGoldensValidateAndRoundTrip(t *testing.T) {
	for _, path := range referenceGoldens(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if errs := journal.Validate(bytes.NewReader(data), path); len(errs) != 0 {
				t.Fatalf("Validate: %v", errs)
			}
			j, err := journal.Read(bytes.NewReader(data), path)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if got := journal.EncodeGolden(j.Events()); !bytes.Equal(got, data) {
				t.Errorf("decode + EncodeGolden changed the bytes:\n got %q\nwant %q", firstDiffLine(got, data), firstDiffLine(data, got))
			}
		})
	}
}

func firstDiffLine(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range al {
		if i >= len(bl) || al[i] != bl[i] {
			return al[i]
		}
	}
	return ""
}

func TestBadInput(t *testing.T) {
	// validate: the first problem journal.Validate reports (multi-run rules).
	// read: the error journal.Read returns (single-run rules).
	tests := []struct {
		file               string
		validate, read     journal.Code
		validLine, readLin int
	}{
		{"empty.jsonl", journal.EmptyJournal, journal.EmptyJournal, 0, 0},
		{"blank-line.jsonl", journal.BlankLine, journal.BlankLine, 2, 2},
		{"invalid-json.jsonl", jsonv.ErrInvalidJSON, jsonv.ErrInvalidJSON, 2, 2},
		{"not-object-array.jsonl", journal.NotObject, journal.NotObject, 2, 2},
		{"not-object-null.jsonl", journal.NotObject, journal.NotObject, 2, 2},
		{"not-object-scalar.jsonl", journal.NotObject, journal.NotObject, 2, 2},
		{"invalid-utf8.jsonl", jsonv.ErrInvalidUTF8, jsonv.ErrInvalidUTF8, 2, 2},
		{"lone-surrogate.jsonl", jsonv.ErrLoneSurrogate, jsonv.ErrLoneSurrogate, 2, 2},
		{"duplicate-key.jsonl", jsonv.ErrDuplicateKey, jsonv.ErrDuplicateKey, 2, 2},
		{"nan.jsonl", jsonv.ErrNonFinite, jsonv.ErrNonFinite, 2, 2},
		{"infinity.jsonl", jsonv.ErrNonFinite, jsonv.ErrNonFinite, 2, 2},
		{"number-overflow.jsonl", jsonv.ErrNumberOverflow, jsonv.ErrNumberOverflow, 2, 2},
		{"deep-nesting.jsonl", jsonv.ErrTooDeep, jsonv.ErrTooDeep, 2, 2},
		{"trailing-garbage.jsonl", jsonv.ErrTrailingData, jsonv.ErrTrailingData, 2, 2},
		{"torn-tail.jsonl", journal.TornTail, journal.TornTail, 3, 3},
		{"schema-missing-field.jsonl", journal.Schema, journal.Schema, 2, 2},
		{"schema-bad-enum.jsonl", journal.Schema, journal.Schema, 2, 2},
		{"schema-bad-timestamp.jsonl", journal.Schema, journal.Schema, 2, 2},
		{"schema-extra-key.jsonl", journal.Schema, journal.Schema, 2, 2},
		{"schema-bad-pattern.jsonl", journal.Schema, journal.Schema, 2, 2},
		{"schema-negative-sequence.jsonl", journal.Schema, journal.Schema, 3, 3},
		{"sequence-gap.jsonl", journal.SequenceGap, journal.SequenceGap, 3, 3},
		{"parent-not-earlier.jsonl", journal.ParentNotEarlier, journal.ParentNotEarlier, 2, 2},
		{"duplicate-event-id.jsonl", journal.DuplicateEventID, journal.DuplicateEventID, 3, 3},
		// One file may hold several runs; a second run must start at 0.
		{"mixed-session.jsonl", journal.SequenceGap, journal.MixedSession, 3, 3},
		{"mixed-run.jsonl", journal.SequenceGap, journal.MixedRun, 3, 3},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			data := readFixture(t, "bad/"+tt.file)
			name := "bad/" + tt.file
			errs := journal.Validate(bytes.NewReader(data), name)
			if len(errs) == 0 {
				t.Fatalf("Validate accepted %s", tt.file)
			}
			checkErr(t, "Validate", errs[0], name, tt.validate, tt.validLine)

			_, err := journal.Read(bytes.NewReader(data), name)
			var je *journal.Error
			if !errors.As(err, &je) {
				t.Fatalf("Read: got %v, want a *journal.Error", err)
			}
			checkErr(t, "Read", je, name, tt.read, tt.readLin)

			// The streaming pass of replay, fingerprint and branch agrees.
			err = journal.Stream(bytes.NewReader(data), name, journal.StreamOptions{}, func(*journal.Entry) error { return nil })
			if !errors.As(err, &je) {
				t.Fatalf("Stream: got %v, want a *journal.Error", err)
			}
			checkErr(t, "Stream", je, name, tt.read, tt.readLin)
		})
	}
	// testdata/README.md states both codes of every fixture: it must say
	// what this table says.
	readme := readFixture(t, "README.md")
	for _, tt := range tests {
		row := fmt.Sprintf("| %s | ", tt.file)
		i := bytes.Index(readme, []byte(row))
		if i < 0 {
			t.Errorf("testdata/README.md has no row for %s", tt.file)
			continue
		}
		line, _, _ := bytes.Cut(readme[i:], []byte("\n"))
		cells := strings.Split(strings.Trim(string(line), "| "), " | ")
		at := func(code journal.Code, n int) string {
			if n == 0 {
				return fmt.Sprintf("`%s`", code)
			}
			return fmt.Sprintf("`%s` (line %d)", code, n)
		}
		if len(cells) != 4 || cells[2] != at(tt.validate, tt.validLine) || cells[3] != at(tt.read, tt.readLin) {
			t.Errorf("testdata/README.md says %q for %s; the code reports %s and %s", line, tt.file, at(tt.validate, tt.validLine), at(tt.read, tt.readLin))
		}
	}
	// Every fixture must have a case: a new file with no expectation is a
	// test nobody runs.
	files, _ := filepath.Glob(filepath.Join(testdata, "bad", "*.jsonl"))
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("fixture %s has no case in TestBadInput", filepath.Base(f))
		}
	}
}

func checkErr(t *testing.T, what string, e *journal.Error, file string, code journal.Code, line int) {
	t.Helper()
	if e.Code != code || e.Line != line || e.File != file {
		t.Errorf("%s: got %s:%d %s (%v), want %s:%d %s", what, e.File, e.Line, e.Code, e, file, line, code)
	}
	if e.Msg == "" {
		t.Errorf("%s: error has no message: %#v", what, e)
	}
	if !strings.HasPrefix(e.Error(), file) {
		t.Errorf("%s: message %q does not start with the file name", what, e.Error())
	}
}

func TestSchemaErrorNamesFieldAndEvent(t *testing.T) {
	tests := []struct {
		file, pointer, eventID string
	}{
		{"schema-bad-enum.jsonl", "/actor/kind", "evt-001"},
		{"schema-bad-timestamp.jsonl", "/timestamp", "evt-001"},
		{"schema-bad-pattern.jsonl", "/provenance/agent_id", "evt-001"},
		{"schema-negative-sequence.jsonl", "/sequence", "evt-002"},
		{"schema-missing-field.jsonl", "/", "evt-001"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			errs := journal.Validate(bytes.NewReader(readFixture(t, "bad/"+tt.file)), tt.file)
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1: %v", len(errs), errs)
			}
			if errs[0].Pointer != tt.pointer || errs[0].EventID != tt.eventID {
				t.Errorf("got pointer %q event %q, want %q %q (%v)", errs[0].Pointer, errs[0].EventID, tt.pointer, tt.eventID, errs[0])
			}
		})
	}
}

func TestValidateMultiRunFile(t *testing.T) {
	data := readFixture(t, "good/two-runs.trace.jsonl")
	if errs := journal.Validate(bytes.NewReader(data), "two-runs"); len(errs) != 0 {
		t.Fatalf("Validate rejected a file of two well-formed runs: %v", errs)
	}
	_, err := journal.Read(bytes.NewReader(data), "two-runs")
	if !errors.Is(err, &journal.Error{Code: journal.MixedRun}) {
		t.Fatalf("Read: got %v, want MIXED_RUN", err)
	}
}

func TestValidateReportsEveryBadLine(t *testing.T) {
	good := readFixture(t, "good/s07-session-replay.trace.jsonl")
	lines := bytes.SplitAfter(good, []byte("\n"))
	var in bytes.Buffer
	in.Write(lines[0])
	in.WriteString("[]\n")
	in.Write(lines[1])
	in.WriteString("nope\n")
	errs := journal.Validate(&in, "x")
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	if len(errs) != 2 || errs[0].Line != 2 || errs[1].Line != 4 {
		t.Fatalf("want errors on lines 2 and 4, got %q", got)
	}
}

func TestLineTooLong(t *testing.T) {
	r := journal.NewReader(strings.NewReader("12345\n1234567890\n"))
	r.SetMaxLineBytes(8)
	if l, err := r.Next(); err != nil || string(l.Raw) != "12345" {
		t.Fatalf("first line: %q %v", l.Raw, err)
	}
	_, err := r.Next()
	if !errors.Is(err, &journal.Error{Code: journal.LineTooLong}) {
		t.Fatalf("got %v, want LINE_TOO_LONG", err)
	}
}

func TestReaderOffsets(t *testing.T) {
	r := journal.NewReader(strings.NewReader("ab\n\ncde"))
	want := []journal.Line{{Num: 1, Offset: 0, Raw: []byte("ab")}, {Num: 2, Offset: 3, Raw: []byte{}}, {Num: 3, Offset: 4, Raw: []byte("cde"), Torn: true}}
	for _, w := range want {
		l, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if l.Num != w.Num || l.Offset != w.Offset || string(l.Raw) != string(w.Raw) || l.Torn != w.Torn {
			t.Errorf("got %+v, want %+v", l, w)
		}
	}
	if _, err := r.Next(); err == nil {
		t.Error("want io.EOF after the last line")
	}
}

func TestNewChecksInvariants(t *testing.T) {
	j, err := journal.Read(bytes.NewReader(readFixture(t, "good/s07-session-replay.trace.jsonl")), "s07")
	if err != nil {
		t.Fatal(err)
	}
	events := j.Events()
	if _, err := journal.New(events); err != nil {
		t.Fatalf("New rejected a valid journal: %v", err)
	}
	if _, err := journal.New(nil); !errors.Is(err, &journal.Error{Code: journal.EmptyJournal}) {
		t.Errorf("New(nil): got %v, want EMPTY_JOURNAL", err)
	}
	gap := append([]journal.Event(nil), events[:3]...)
	gap[2].Sequence = 4
	if _, err := journal.New(gap); !errors.Is(err, &journal.Error{Code: journal.SequenceGap}) {
		t.Errorf("gap: got %v, want SEQUENCE_GAP", err)
	}
}

// TestSequenceAfterTheLargest: after a sequence of math.MaxInt64 the run
// expects 2^63, and the message says so (it said -2^63).
func TestSequenceAfterTheLargest(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(string(readFixture(t, "bad/sequence-gap.jsonl"))), "\n")
	var b strings.Builder
	for i, l := range lines[:3] {
		seq := []string{"0", "9223372036854775807", "2"}[i]
		l = regexp.MustCompile(`"sequence":\d+`).ReplaceAllString(l, `"sequence":`+seq)
		b.WriteString(l + "\n")
	}
	errs := journal.Validate(strings.NewReader(b.String()), "x")
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	if !strings.Contains(strings.Join(msgs, "\n"), "sequence 2 where 9223372036854775808 was expected") {
		t.Errorf("errors:\n%s", strings.Join(msgs, "\n"))
	}
}

// TestSequenceOutOfRange: an integer sequence past int64 is said to be
// out of range, at /sequence.
func TestSequenceOutOfRange(t *testing.T) {
	line := strings.SplitN(string(readFixture(t, "bad/sequence-gap.jsonl")), "\n", 2)[0]
	line = regexp.MustCompile(`"sequence":\d+`).ReplaceAllString(line, `"sequence":123456789012345678901234567890`)
	errs := journal.Validate(strings.NewReader(line+"\n"), "x")
	if len(errs) == 0 || errs[0].Pointer != "/sequence" || !strings.Contains(errs[0].Msg, "is out of range") {
		t.Errorf("errors: %v", errs)
	}
}

// A line that cannot be decoded is reported once; the gap and the dangling
// parent it leaves in the next event are not reported again.
func TestValidateDoesNotCascade(t *testing.T) {
	errs := journal.Validate(bytes.NewReader(readFixture(t, "bad/invalid-json.jsonl")), "x")
	if len(errs) != 1 || errs[0].Code != jsonv.ErrInvalidJSON {
		t.Fatalf("want exactly the INVALID_JSON error, got %v", errs)
	}
	// A gap wider than the undecodable lines is still reported.
	good := bytes.SplitAfter(readFixture(t, "good/s07-session-replay.trace.jsonl"), []byte("\n"))
	var in bytes.Buffer
	in.Write(good[0])
	in.WriteString("not json\n")
	in.Write(good[4]) // sequence 4: three events missing, one line undecodable
	errs = journal.Validate(&in, "x")
	if len(errs) != 2 || errs[1].Code != journal.SequenceGap {
		t.Fatalf("want INVALID_JSON then SEQUENCE_GAP, got %v", errs)
	}
}

func TestValidateStopsAfterMaxErrors(t *testing.T) {
	in := strings.Repeat("[]\n", journal.MaxErrors+50)
	errs := journal.Validate(strings.NewReader(in), "x")
	if len(errs) != journal.MaxErrors+1 {
		t.Fatalf("got %d errors, want %d", len(errs), journal.MaxErrors+1)
	}
	last := errs[len(errs)-1]
	if last.Code != journal.TooManyErrors || last.Line != journal.MaxErrors+1 {
		t.Errorf("last error %v, want TOO_MANY_ERRORS on line %d", last, journal.MaxErrors+1)
	}
}
