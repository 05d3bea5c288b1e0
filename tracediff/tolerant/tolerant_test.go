package tolerant

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

func parse(tb testing.TB, s string) jsonv.Value {
	tb.Helper()
	v, err := jsonv.Parse([]byte(s))
	if err != nil {
		tb.Fatalf("parse %s: %v", s, err)
	}
	return v
}

func TestClassify(t *testing.T) {
	tests := []struct {
		in   string
		kind Kind
		text string
	}{
		{"plain", Literal, "plain"},
		{"", Literal, ""},
		{"{...}", Any, "{...}"},
		{"[TIMESTAMP]", Timestamp, "[TIMESTAMP]"},
		{"[UUID]", UUID, "[UUID]"},
		{"[DURATION]", Duration, "[DURATION]"},
		{"[RUN_ID]", Binding, "RUN_ID"},
		{"[ID-12]", Binding, "ID-12"},
		{"[id]", Literal, "[id]"},   // lower case: data
		{"[1D]", Literal, "[1D]"},   // must start with a letter
		{"[A B]", Literal, "[A B]"}, // no spaces
		{"[..]", Glob, "[..]"},      // any string
		{"file-[..].txt", Glob, "file-[..].txt"},
		{"run-[UUID]", Glob, "run-[UUID]"},
		{`\[RUN_ID]`, Escaped, "[RUN_ID]"},
		{`\\x`, Escaped, `\x`},
		{"...", Literal, "..."}, // special only as an array element
	}
	for _, tt := range tests {
		k, text := Classify(tt.in)
		if k != tt.kind || text != tt.text {
			t.Errorf("Classify(%q) = %v, %q; want %v, %q", tt.in, k, text, tt.kind, tt.text)
		}
	}
}

func TestEscapeRoundTrips(t *testing.T) {
	for _, s := range []string{"plain", "", "{...}", "[TIMESTAMP]", "[RUN_ID]", "a[..]b", `\x`, "...", "[UUID]x"} {
		e := Escape(s)
		m := NewMatcher(true)
		if !m.Equal(jsonv.Str(e), jsonv.Str(s)) {
			t.Errorf("Escape(%q) = %q does not match %q", s, e, s)
		}
		if m.Equal(jsonv.Str(e), jsonv.Str(s+"!")) {
			t.Errorf("Escape(%q) = %q matches %q too", s, e, s+"!")
		}
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		pat, s string
		want   bool
	}{
		{"[..]", "", true},
		{"[..]", "anything", true},
		{"a[..]c", "abbbc", true},
		{"a[..]c", "ac", true},
		{"a[..]c", "abd", false},
		{"[..]x[..]x[..]", "axbxc", true},
		{"[..]x[..]x[..]", "axb", false},
		{"run-[UUID]", "run-123e4567-e89b-12d3-a456-426614174000", true},
		{"run-[UUID]", "run-123e4567-e89b-12d3-a456-42661417400", false},
		{"run-[UUID]", "run-123e4567xe89b-12d3-a456-426614174000", false},
		{"é[..]ü", "éabcü", true},
		{"[..][..]a", "ba", true},
	}
	for _, tt := range tests {
		if got := GlobMatch(tt.pat, tt.s); got != tt.want {
			t.Errorf("GlobMatch(%q, %q) = %v, want %v", tt.pat, tt.s, got, tt.want)
		}
	}
	// A pathological pattern stays polynomial.
	pat := strings.Repeat("[..]a", 50) + "b"
	if GlobMatch(pat, strings.Repeat("a", 5000)) {
		t.Error("pathological glob matched")
	}
}

func TestParseTimestamp(t *testing.T) {
	for s, ok := range map[string]bool{
		"2026-08-10T00:00:00Z":          true,
		"2026-08-10t00:00:00z":          true,
		"2026-08-10T00:00:00.123+02:00": true,
		"2016-12-31T23:59:60Z":          true,
		"2016-12-31T22:59:60Z":          false, // a leap second is 23:59:60 UTC
		"2026-08-10":                    false,
		"2026-13-10T00:00:00Z":          false,
		"yesterday at noon, roughly":    false,
	} {
		if _, got := ParseTimestamp(s); got != ok {
			t.Errorf("ParseTimestamp(%q) ok = %v, want %v", s, got, ok)
		}
	}
	a, _ := ParseTimestamp("2016-12-31T23:59:59.5Z")
	leap, _ := ParseTimestamp("2016-12-31T23:59:60Z")
	b, _ := ParseTimestamp("2017-01-01T00:00:00Z")
	if !a.Before(leap) || !leap.Before(b) {
		t.Errorf("the leap second does not order between its neighbours: %v %v %v", a, leap, b)
	}
}

// TestParseSecondZDays: the fast path reads every day time.Parse reads,
// and no other, across leap and common years and the century rules.
func TestParseSecondZDays(t *testing.T) {
	for _, y := range []int{1900, 2000, 2023, 2024, 2100} {
		for mo := 1; mo <= 13; mo++ {
			for d := 0; d <= 32; d++ {
				s := fmt.Sprintf("%04d-%02d-%02dT23:59:59Z", y, mo, d)
				fast, ok := parseSecondZ(s)
				slow, slowOK := parseTimestamp(s)
				if ok != slowOK || ok && !fast.Equal(slow) {
					t.Errorf("%s: parseSecondZ %v %v, parseTimestamp %v %v", s, fast, ok, slow, slowOK)
				}
			}
		}
	}
}

// FuzzParseSecondZ: whenever the fast path reads a timestamp, time.Parse
// reads the same instant from it, and the fast path refuses nothing of its
// layout that time.Parse reads (but the leap second, left to it).
func FuzzParseSecondZ(f *testing.F) {
	for _, s := range []string{"2026-08-10T00:00:00Z", "2024-02-29T23:59:59Z", "2023-02-29T00:00:00Z",
		"2016-12-31T23:59:60Z", "0000-01-01T00:00:00Z", "2026-8-10T00:00:00Z", "2026-08-10t00:00:00z", "2026-04-31T00:00:00Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fast, ok := parseSecondZ(s)
		slow, slowOK := parseTimestamp(s)
		if ok && (!slowOK || !fast.Equal(slow) || fast.Location() != slow.Location()) {
			t.Fatalf("parseSecondZ(%q) = %v, parseTimestamp = %v, %v", s, fast, slow, slowOK)
		}
		if !ok && slowOK && len(s) == 20 && s[10] == 'T' && s[19] == 'Z' && s[17:19] != "60" {
			t.Fatalf("parseSecondZ refused %q, which parseTimestamp reads as %v", s, slow)
		}
	})
}

// A dayClock reads what ParseTimestamp reads, the same instant, whichever
// date it read last: every second of a day after a time of that day, of
// the next day, and times that only look like one.
func TestDayClockIsParseTimestamp(t *testing.T) {
	var c dayClock
	check := func(s string) {
		t.Helper()
		got, ok := c.parse(s)
		want, wantOK := ParseTimestamp(s)
		if ok != wantOK || got != want {
			t.Fatalf("after %q: parse(%q) = %v %v, ParseTimestamp %v %v", c.date, s, got, ok, want, wantOK)
		}
	}
	for _, day := range []string{"2026-08-10", "2026-08-11", "2024-02-29", "2016-12-31"} {
		check(day + "T12:00:00Z")
		for sec := 0; sec < 86400; sec += 7 {
			check(fmt.Sprintf("%sT%02d:%02d:%02dZ", day, sec/3600, sec/60%60, sec%60))
		}
		for _, tail := range []string{"T24:00:00Z", "T23:60:00Z", "T23:59:60Z", "T2a:00:00Z", "T23:59:59z", "T23:59:59.5Z", "t23:59:59Z", "T23-59:59Z", "T23:59:59+00:00"} {
			check(day + tail)
			check(day + "T00:00:01Z")
		}
	}
}

// FuzzDayClock: after any timestamp, a dayClock reads any other as
// ParseTimestamp does.
func FuzzDayClock(f *testing.F) {
	f.Add("2026-08-10T00:00:00Z", "2026-08-10T23:59:59Z")
	f.Add("2024-02-29T23:59:59Z", "2024-02-29T23:59:60Z")
	f.Add("2026-08-10T00:00:00Z", "2026-08-10T00:00:00.5Z")
	f.Fuzz(func(t *testing.T, a, b string) {
		var c dayClock
		c.parse(a)
		got, ok := c.parse(b)
		want, wantOK := ParseTimestamp(b)
		if ok != wantOK || got != want {
			t.Fatalf("after %q: parse(%q) = %v %v, ParseTimestamp %v %v", a, b, got, ok, want, wantOK)
		}
	})
}

// miss is a Mismatch as the tests write it.
type miss struct {
	Pointer, Expected, Actual, Reason string
}

func show(v jsonv.Value) string {
	if !v.IsValid() {
		return "(absent)"
	}
	return string(v.AppendJSON(nil))
}

func TestMatcher(t *testing.T) {
	tests := []struct {
		name     string
		tolerant bool
		expected string
		actual   string
		want     []miss // Reason: a substring
	}{
		{"equal, member order ignored", false, `{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, nil},
		{"number spelling differs", false, `{"a":1}`, `{"a":1.0}`, []miss{{"/a", "1", "1.0", ""}}},
		{"missing, extra and changed members", false, `{"a":1,"b":2}`, `{"b":3,"c":4}`,
			[]miss{{"/a", "1", "(absent)", ""}, {"/b", "2", "3", ""}, {"/c", "(absent)", "4", ""}}},
		{"array elements", false, `[1,2,3]`, `[1,5]`, []miss{{"/1", "2", "5", ""}, {"/2", "3", "(absent)", ""}}},
		{"pointer escapes", false, `{"a/b":{"c~d":1}}`, `{"a/b":{"c~d":2}}`, []miss{{"/a~1b/c~0d", "1", "2", ""}}},
		{"kind change", false, `{"a":{"x":1}}`, `{"a":"x"}`, []miss{{"/a", `{"x":1}`, `"x"`, ""}}},
		{"placeholders are data when not tolerant", false, `{"a":"{...}"}`, `{"a":1}`, []miss{{"/a", `"{...}"`, "1", ""}}},

		{"any value", true, `{"a":"{...}"}`, `{"a":{"deep":[1]}}`, nil},
		{"any value must be present", true, `{"a":"{...}"}`, `{}`, []miss{{"/a", `"{...}"`, "(absent)", "needs a value"}}},
		{"further members", true, `{"a":1,"...":"{...}"}`, `{"a":1,"b":2,"c":3}`, nil},
		{"no further members without the wildcard", true, `{"a":1}`, `{"a":1,"b":2}`, []miss{{"/b", "(absent)", "2", ""}}},
		{"timestamp", true, `{"t":"[TIMESTAMP]"}`, `{"t":"2026-08-10T00:00:01.5Z"}`, nil},
		{"not a timestamp", true, `{"t":"[TIMESTAMP]"}`, `{"t":"noon"}`, []miss{{"/t", `"[TIMESTAMP]"`, `"noon"`, "RFC 3339"}}},
		{"uuid", true, `{"u":"[UUID]"}`, `{"u":"123E4567-e89b-12d3-a456-426614174000"}`, nil},
		{"not a uuid", true, `{"u":"[UUID]"}`, `{"u":"123"}`, []miss{{"/u", `"[UUID]"`, `"123"`, "not a UUID"}}},
		{"duration", true, `{"d":"[DURATION]","e":"[DURATION]"}`, `{"d":0,"e":12.5}`, nil},
		{"negative duration", true, `{"d":"[DURATION]"}`, `{"d":-1}`, []miss{{"/d", `"[DURATION]"`, "-1", ">= 0"}}},
		{"duration is a number", true, `{"d":"[DURATION]"}`, `{"d":"5"}`, []miss{{"/d", `"[DURATION]"`, `"5"`, ">= 0"}}},
		{"glob", true, `{"s":"file-[..].txt"}`, `{"s":"file-42.txt"}`, nil},
		{"glob mismatch", true, `{"s":"file-[..].txt"}`, `{"s":"file-42.md"}`, []miss{{"/s", `"file-[..].txt"`, `"file-42.md"`, "pattern"}}},
		{"escaped placeholder is data", true, `{"s":"\\[RUN_ID]"}`, `{"s":"[RUN_ID]"}`, nil},
		{"escaped placeholder matches only itself", true, `{"s":"\\[RUN_ID]"}`, `{"s":"run-1"}`, []miss{{"/s", `"\\[RUN_ID]"`, `"run-1"`, ""}}},
		{"binding holds across occurrences", true, `{"a":"[X]","b":"[X]"}`, `{"a":"v","b":"v"}`, nil},
		{"binding broken", true, `{"a":"[X]","b":"[X]"}`, `{"a":"v","b":"w"}`, []miss{{"/b", `"[X]"`, `"w"`, `[X] is bound to "v" (at /a)`}}},
		{"binding binds any value", true, `{"a":"[X]","b":"[X]"}`, `{"a":{"k":[1]},"b":{"k":[1]}}`, nil},
		{"distinct names bind distinct values", true, `{"id":"[ID-1]","parent":"[ID-2]"}`, `{"id":"e1","parent":"e1"}`,
			[]miss{{"/parent", `"[ID-2]"`, `"e1"`, "bound to [ID-1] (at /id); distinct names bind distinct values"}}},
		{"typed placeholders bind nothing", true, `{"a":"[UUID]","b":"[UUID]"}`,
			`{"a":"123e4567-e89b-12d3-a456-426614174000","b":"123e4567-e89b-12d3-a456-426614174000"}`, nil},
		{"array run", true, `["a","...","z"]`, `["a","b","c","z"]`, nil},
		{"array run may be empty", true, `["a","...","z"]`, `["a","z"]`, nil},
		{"array run middle segment", true, `["...","x","...","y"]`, `["x","x","q","y"]`, nil},
		{"array run mismatch", true, `["a","...","z"]`, `["a","b"]`, []miss{{"/", `["a","...","z"]`, `["a","b"]`, "alignment"}}},
		{"literal array element dots when not tolerant", false, `["..."]`, `["a","b"]`,
			[]miss{{"/0", `"..."`, `"a"`, ""}, {"/1", "(absent)", `"b"`, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMatcher(tt.tolerant)
			out, n := m.Match("", parse(t, tt.expected), parse(t, tt.actual), nil, 0)
			if n != len(out) {
				t.Errorf("count %d, %d mismatches returned", n, len(out))
			}
			var got []miss
			for i, o := range out {
				g := miss{o.Pointer, show(o.Expected), show(o.Actual), o.Reason}
				if i < len(tt.want) && tt.want[i].Reason != "" && strings.Contains(o.Reason, tt.want[i].Reason) {
					g.Reason = tt.want[i].Reason
				}
				got = append(got, g)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatches (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMatcherLimitAndRollback(t *testing.T) {
	m := NewMatcher(true)
	out, n := m.Match("/payload", parse(t, `{"a":1,"b":2,"c":3}`), parse(t, `{"a":0,"b":0,"c":0}`), nil, 2)
	if len(out) != 2 || n != 3 || out[0].Pointer != "/payload/a" {
		t.Fatalf("limit 2: got %d (%v) of %d", len(out), out, n)
	}
	mark := m.Mark()
	if !m.Equal(jsonv.Str("[A]"), jsonv.Str("x")) || m.Bindings() != 1 {
		t.Fatal("binding [A] failed")
	}
	m.Rollback(mark)
	if m.Bindings() != 0 || !m.Equal(jsonv.Str("[A]"), jsonv.Str("y")) {
		t.Fatal("rollback kept [A]")
	}
}

// TestNormalizeMatchesItsSource: the tolerant form of a trace matches the
// trace itself, and the ids, timestamps and durations are placeholders.
func TestNormalizeMatchesItsSource(t *testing.T) {
	for _, name := range []string{"s07-session-replay.trace.jsonl", "tricky.trace.jsonl", "two-runs.trace.jsonl"} {
		f, err := os.Open(filepath.Join("..", "..", "testdata", "good", name))
		if err != nil {
			t.Fatal(err)
		}
		z, m := NewNormalizer(), NewMatcher(true)
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		line := 0
		for sc.Scan() {
			line++
			v := parse(t, sc.Text())
			n := z.Event(v)
			out, _ := m.Match("", n, v, nil, 0)
			if len(out) > 0 {
				t.Errorf("%s:%d: the normalized event does not match its source: %+v", name, line, out)
			}
			for _, key := range []string{"event_id", "session_id", "timestamp"} {
				got, _ := n.Get(key)
				if k, _ := Classify(got.Text()); k != Binding && k != Timestamp {
					t.Errorf("%s:%d: %s normalized to %s", name, line, key, show(got))
				}
			}
		}
		f.Close()
	}
}

func TestNormalizeRules(t *testing.T) {
	z := NewNormalizer()
	in := parse(t, `{"event_id":"e1","timestamp":"2026-08-10T00:00:00Z","payload":{"tool_calls":[{"id":"c1","name":"x","arguments":{"p":"[RUN_ID]"}}],`+
		`"tool_call_id":"c1","note":"see 123e4567-e89b-12d3-a456-426614174000 now","when":"2020-01-01T00:00:00Z","u":"123e4567-e89b-12d3-a456-426614174000",`+
		`"duration_ms":5,"tricky":"{...}","dots":["..."],"n":3},"parent_event_id":"e1","duration_ms":1.5}`)
	got := string(z.Event(in).AppendJSON(nil))
	want := `{"event_id":"[ID-1]","timestamp":"[TIMESTAMP]","payload":{"tool_calls":[{"id":"[ID-2]","name":"x","arguments":{"p":"\\[RUN_ID]"}}],` +
		`"tool_call_id":"[ID-2]","note":"see [UUID] now","when":"[TIMESTAMP]","u":"[ID-3]",` +
		`"duration_ms":"[DURATION]","tricky":"\\{...}","dots":["\\..."],"n":3},"parent_event_id":"[ID-1]","duration_ms":"[DURATION]"}`
	if got != want {
		t.Errorf("normalized:\n got %s\nwant %s", got, want)
	}
	if !NewMatcher(true).Equal(parse(t, got), in) {
		t.Error("the normalized event does not match its source")
	}
}
