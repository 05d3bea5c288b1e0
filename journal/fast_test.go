package journal

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/bench/tracegen"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/schema"
)

// The fast paths must agree with the JSON Schema library on every line: the
// envelope check (checkValue, used by DecodeLine) accepts exactly what the
// library accepts and FromValue can read, and the lean scanner accepts only
// such lines and then reads the same event and writes the same canonical
// bytes as the general path.

// baseLines returns valid event lines: the reference traces and a generated
// journal with streamed responses, tool calls and non-ASCII text.
func baseLines(tb testing.TB) [][]byte {
	tb.Helper()
	var lines [][]byte
	files, _ := filepath.Glob("../testdata/good/*.jsonl")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			lines = append(lines, l)
		}
	}
	gen := tracegen.Bytes(tracegen.Options{Events: 60, Seed: 7})
	for _, l := range bytes.Split(bytes.TrimSuffix(gen, []byte("\n")), []byte("\n")) {
		lines = append(lines, l)
	}
	if len(lines) < 60 {
		tb.Fatalf("only %d base lines", len(lines))
	}
	return lines
}

// libraryVerdict is the reference decision: the line parses to an object
// that the compiled schema accepts and FromValue reads.
func libraryVerdict(v jsonv.Value) (Event, bool) {
	if err := schema.ValidateTraceEvent(v.Interface(schema.Number)); err != nil {
		return Event{}, false
	}
	ev, err := FromValue(v)
	return ev, err == nil
}

// checkLine asserts every agreement for one line.
func checkLine(t testing.TB, line []byte) {
	t.Helper()
	v, err := jsonv.Parse(line)
	var lean lineScanner
	var out leanLine
	canon, leanOK := lean.scan(nil, line, &out)
	if err != nil || v.Kind() != jsonv.Object {
		if leanOK {
			t.Fatalf("lean scanner accepted a line jsonv rejects (%v): %s", err, line)
		}
		return
	}
	libEv, libOK := libraryVerdict(v)
	if fast := checkValue(v); fast != libOK {
		t.Fatalf("checkValue = %v, library = %v for %s", fast, libOK, line)
	}
	_, dev, derr := DecodeLine(line)
	if (derr == nil) != libOK {
		t.Fatalf("DecodeLine error %v, library ok = %v for %s", derr, libOK, line)
	}
	checkDecodeEnvelope(t, line, v, dev, derr)
	if libOK && !reflect.DeepEqual(dev, libEv) {
		t.Fatalf("DecodeLine event differs:\n got %+v\nwant %+v", dev, libEv)
	}
	if !leanOK {
		return
	}
	if !libOK {
		t.Fatalf("lean scanner accepted a line the schema rejects: %s", line)
	}
	if want := v.AppendCanonical(nil); !bytes.Equal(canon, want) {
		t.Fatalf("lean canonical:\n got %s\nwant %s", canon, want)
	}
	var c jsonv.Canonicalizer
	if want, _ := c.Append(nil, line); !bytes.Equal(canon, want) {
		t.Fatalf("lean canonical differs from Canonicalizer:\n got %s\nwant %s", canon, want)
	}
	got := out.ev
	got.Payload = libEv.Payload
	if !reflect.DeepEqual(got, libEv) {
		t.Fatalf("lean event differs:\n got %+v\nwant %+v", got, libEv)
	}
	pv, err := jsonv.Parse(out.payload)
	if err != nil || !jsonv.Equal(pv, libEv.Payload) {
		t.Fatalf("lean payload span %q is not the payload", out.payload)
	}
	norm := lineScanner{normalized: true}
	ncanon, ok := norm.scan(nil, line, &out)
	if want := Normalize(v).AppendCanonical(nil); !ok || !bytes.Equal(ncanon, want) {
		t.Fatalf("lean normalized (ok %v):\n got %s\nwant %s", ok, ncanon, want)
	}
}

// checkDecodeEnvelope: the streaming pass's general path, which decodes no
// container the schema does not look into, gives DecodeLine's verdict, the
// same explanation, the same event and the same canonical bytes.
func checkDecodeEnvelope(t testing.TB, line []byte, v jsonv.Value, dev Event, derr *Error) {
	t.Helper()
	var c jsonv.Canonicalizer
	env, ev, payload, err := decodeEnvelope(&c, line)
	// The schema library lists several additional properties in map order,
	// so messages are compared as multisets of words.
	words := func(e *Error) string {
		w := strings.FieldsFunc(e.Msg, func(r rune) bool { return r == ' ' || r == ',' || r == ';' })
		slices.Sort(w)
		return fmt.Sprint(e.Code, e.Pointer, e.EventID, e.File, e.Line, w)
	}
	if (err == nil) != (derr == nil) || err != nil && words(err) != words(derr) {
		t.Fatalf("decodeEnvelope error %+v, DecodeLine error %+v for %s", err, derr, line)
	}
	if err != nil {
		return
	}
	pv, perr := jsonv.Parse(payload)
	if perr != nil || !jsonv.Equal(pv, dev.Payload) {
		t.Fatalf("decodeEnvelope payload %q is not the payload of %s", payload, line)
	}
	ev.Payload = dev.Payload
	if !reflect.DeepEqual(ev, dev) {
		t.Fatalf("decodeEnvelope event differs:\n got %+v\nwant %+v", ev, dev)
	}
	for _, norm := range []bool{false, true} {
		e, want := env, v
		if norm {
			e, want = Normalize(env), Normalize(v)
		}
		if got, err := appendCanonicalEvent(nil, &c, e, payload); err != nil || !bytes.Equal(got, want.AppendCanonical(nil)) {
			t.Fatalf("appendCanonicalEvent (normalized %v, %v):\n got %s\nwant %s", norm, err, got, want.AppendCanonical(nil))
		}
	}
}

// mutation values: every JSON type, and the edge cases of each rule.
var mutationValues = []string{
	`""`, `"a"`, `"0.1.0"`, `"0.1.1"`, `" 0.1.0"`, `"é"`, `"\u00e9"`, `"x\"y"`, `"\t"`, `"😀"`, `"\u2028"`, `"\\"`,
	`"user"`, `"User"`, `"harness"`, `"environment"`, `"fake"`, `"FAKE"`, `"adversarial"`, `"clean"`, `"restricted"`, `"redacted "`,
	`"reference-agent"`, `"Reference-agent"`, `"a--b"`, `"-a"`, `"a-"`, `"a_b"`, `"ab1-2c"`, `"a\n"`, `"ü-a"`,
	`"session.start"`, `"error"`, `"Error"`, `"tool.result"`, `"tool.results"`,
	`0`, `1`, `-1`, `-0`, `1.0`, `1.5`, `1e2`, `1E2`, `-0.0`, `1e-400`, `-1e-400`, `0.5e1`, `2.5e-1`,
	`9223372036854775807`, `9223372036854775808`, `1e19`, `9.2e18`, `99999999999999999999`, `-5.0`, `3`,
	`true`, `false`, `null`, `[]`, `["a"]`, `["a","a"]`, `["","b"]`, `["a",1]`, `["a","b","c"]`, `{}`, `{"a":1}`,
	`{"kind":"user","id":"x"}`, `{"kind":"user"}`, `{"kind":"user","id":"x","parent_id":""}`, `{"kind":"user","id":"x","extra":1}`,
	`{"status":"clean","fields":[]}`, `{"status":"clean","fields":["a","a"]}`, `{"status":"clean","fields":[],"notes":""}`, `{"status":"clean"}`,
	// Containers inside containers, which the general path does not decode
	// where the schema does not look into them.
	`[[1],[1]]`, `[["a"],["b"]]`, `[{"a":[1]},{"a":[1]}]`, `["a",[1,2],{"b":{}}]`, `{"x":[1,2],"y":{"z":[]}}`,
	`{"kind":"user","id":["x"]}`, `{"kind":{"k":1},"id":"x","extra":[1,[2]]}`, `{"status":"clean","fields":[["a"],["a"]]}`,
	`{"status":"clean","fields":["a",{"b":1},{"b":1}],"notes":["n"]}`, `{"status":["clean"],"fields":{"a":1}}`,
}

var dateTimes = []string{
	"2026-08-10T00:00:00Z", "2026-08-10t00:00:00z", "2026-08-10T23:59:60Z", "2026-08-10T23:59:60+00:00",
	"2026-08-10T00:59:60+01:00", "2026-08-10T22:59:60-01:00", "2026-08-10T12:00:60Z", "2026-02-29T00:00:00Z",
	"2024-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "0000-01-01T00:00:00Z",
	"2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-01-00T00:00:00Z", "2026-04-31T00:00:00Z", "2026-04-30T00:00:00Z",
	"2026-08-10T24:00:00Z", "2026-08-10T00:60:00Z", "2026-08-10T00:00:61Z", "2026-08-10T00:00:00.Z",
	"2026-08-10T00:00:00.123456789Z", "2026-08-10T00:00:00+05:30", "2026-08-10T00:00:00-00:00",
	"2026-08-10T00:00:00+24:00", "2026-08-10T00:00:00+23:60", "2026-08-10T00:00:00+0530", "2026-08-10 00:00:00Z",
	"2026-08-10T+1:00:00Z", "2026-08-10T-0:00:00Z", "2026-08-10T00:+0:-0Z", "2026-08-10T00:00:00",
	"2026-8-10T00:00:00Z", "+026-08-10T00:00:00Z", " 2026-08-10T00:00:00Z", "2026-08-10T00:00:00Zjunk",
	"２０２６-08-10T00:00:00Z", "2026-08-10T00:00:00.5+01:00", "2026-08-10T00:00:00.5", "2026-08-10T00:00:00,5Z",
	"2026-08-10T23:59:60.999Z", "2026-08-11T00:00:60+00:01", "2026-08-10T00:00:00+00:00Z", "2026-08-10T00:00:00Z ",
	"2026-08-10", "2026-08-10T", "2026-08-10T00:00Z",
}

// paths are the envelope positions mutated: top-level keys and the members of
// actor, provenance and redaction, plus keys the schema does not allow.
var paths = []string{
	"trace_version", "event_id", "session_id", "sequence", "timestamp", "type", "actor", "payload", "provenance",
	"redaction", "parent_event_id", "duration_ms", "run_id", "extra",
	"actor/kind", "actor/id", "actor/parent_id", "actor/extra",
	"provenance/agent_id", "provenance/snapshot_id", "provenance/surface", "provenance/harness_mode", "provenance/run_id",
	"provenance/experiment_id", "provenance/model", "provenance/provider", "provenance/extra",
	"redaction/status", "redaction/fields", "redaction/notes", "redaction/extra",
}

// mutate sets (or, for a nil value, deletes) the member at path.
func mutate(v jsonv.Value, path string, val *jsonv.Value) jsonv.Value {
	if outer, inner, ok := strings.Cut(path, "/"); ok {
		o, _ := v.Get(outer)
		if o.Kind() != jsonv.Object {
			return v
		}
		return v.With(outer, mutate(o, inner, val))
	}
	if val == nil {
		return v.Without(path)
	}
	return v.With(path, *val)
}

// mutatedLines applies every value and a deletion at every path of a few
// base events, compactly and with a space added.
func mutatedLines(tb testing.TB) [][]byte {
	base := baseLines(tb)
	var vals []jsonv.Value
	for _, s := range mutationValues {
		v, err := jsonv.Parse([]byte(s))
		if err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
		vals = append(vals, v)
	}
	var out [][]byte
	for bi, b := range [][]byte{base[0], base[1], base[len(base)-1], base[len(base)/2]} {
		ev, err := jsonv.Parse(b)
		if err != nil {
			tb.Fatal(err)
		}
		for _, p := range paths {
			out = append(out, mutate(ev, p, nil).AppendJSON(nil))
			for _, val := range vals {
				out = append(out, mutate(ev, p, &val).AppendJSON(nil))
			}
		}
		if bi == 0 {
			for _, ts := range dateTimes {
				val := jsonv.Str(ts)
				out = append(out, mutate(ev, "timestamp", &val).AppendJSON(nil))
			}
		}
	}
	for _, l := range base {
		out = append(out, l, append([]byte(" "), l...), bytes.Replace(l, []byte(`,"`), []byte(`, "`), 1))
	}
	return out
}

func TestEnvelopeMatchesSchema(t *testing.T) {
	lines := mutatedLines(t)
	for _, l := range lines {
		checkLine(t, l)
	}
	t.Logf("%d lines checked", len(lines))
}

// TestDateTimeMatchesLibrary runs the date-time rule alone against the
// library's format check on many strings.
func TestDateTimeMatchesLibrary(t *testing.T) {
	base, err := jsonv.Parse(baseLines(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	cases := append([]string(nil), dateTimes...)
	for _, d := range []string{"00", "01", "28", "29", "30", "31", "32"} {
		for _, m := range []string{"01", "02", "04", "12", "13"} {
			for _, y := range []string{"2023", "2024", "2100", "2000", "0004"} {
				cases = append(cases, y+"-"+m+"-"+d+"T00:00:00Z")
			}
		}
	}
	for _, tm := range []string{"23:59:60", "23:58:60", "00:59:60", "22:59:60"} {
		for _, off := range []string{"Z", "+00:00", "-01:00", "+01:00", "-00:01", "+23:59"} {
			cases = append(cases, "2026-08-10T"+tm+off)
		}
	}
	for _, ts := range cases {
		v := jsonv.Str(ts)
		ev := mutate(base, "timestamp", &v)
		_, lib := libraryVerdict(ev)
		if got := isDateTime(ts); got != lib {
			t.Errorf("isDateTime(%q) = %v, library %v", ts, got, lib)
		}
	}
}

func TestLeanScannerTakesReferenceLines(t *testing.T) {
	var s lineScanner
	var out leanLine
	for _, l := range baseLines(t) {
		if bytes.Contains(l, []byte(`"duration_ms"`)) {
			continue // not in the reference layout: the full decoder takes it
		}
		if _, ok := s.scan(nil, l, &out); !ok {
			t.Errorf("lean scanner gave up on a reference line: %s", l)
		}
	}
}

// FuzzEnvelope mutates events both as bytes and structurally (a JSON value
// set at an envelope path, or the member deleted) and checks that every
// path agrees with the library.
func FuzzEnvelope(f *testing.F) {
	base := baseLines(f)
	for i, p := range paths {
		f.Add(base[i%len(base)], p, []byte(mutationValues[i%len(mutationValues)]))
		f.Add(base[(i+3)%len(base)], p, []byte("-"))
	}
	for i, ts := range dateTimes {
		f.Add(base[i%len(base)], "timestamp", []byte(fmt.Sprintf("%q", ts)))
	}
	f.Add(base[0], "", []byte(nil))
	f.Fuzz(func(t *testing.T, line []byte, path string, value []byte) {
		checkLine(t, line)
		if path == "" {
			return
		}
		v, err := jsonv.Parse(line)
		if err != nil || v.Kind() != jsonv.Object {
			return
		}
		if string(value) == "-" {
			checkLine(t, mutate(v, path, nil).AppendJSON(nil))
			return
		}
		val, err := jsonv.Parse(value)
		if err != nil {
			return
		}
		checkLine(t, mutate(v, path, &val).AppendJSON(nil))
	})
}
