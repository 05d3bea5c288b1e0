package store

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// goldenLayout must never claim a text is in the golden layout when
// AppendJSON of its parse differs: the store would then write bytes other
// than the golden layout. It should also say yes to what the reference
// writes.
func checkGolden(t *testing.T, text []byte) {
	t.Helper()
	v, err := jsonv.Parse(text)
	if err != nil {
		return
	}
	want := bytes.Equal(v.AppendJSON(nil), text)
	if got := goldenLayout(text); got != want {
		t.Errorf("goldenLayout(%q) = %v, AppendJSON gives %q", text, got, v.AppendJSON(nil))
	}
}

func TestGoldenLayout(t *testing.T) {
	tests := []string{
		`{}`, `[]`, `{"a":1}`, `{"a":-1}`, `{"a":-0}`, `{"a":0}`, `{"a":1.0}`, `{"a":1.5}`, `{"a":1.50}`,
		`{"a":1e5}`, `{"a":100000.0}`, `{"a":1e+16}`, `{"a":1e16}`, `{"a":1e-05}`, `{"a":0.0001}`, `{"a":-0.0}`,
		`{"a":12345678901234567890123}`, `{"a":true,"b":false,"c":null}`, `{"a": 1}`, `{ "a":1}`, "{\"a\":1}\n", "{\"a\":\t1}",
		`{"a":"x"}`, `{"a":"\n\r\t\b\f"}`, `{"a":"\"\\"}`, `{"a":"\/"}`, `{"a":"\u0001"}`, `{"a":"\u001f"}`,
		`{"a":"\u001F"}`, `{"a":"\u000a"}`, `{"a":"\u0008"}`, `{"a":"\u0009"}`, `{"a":"\u000c"}`, `{"a":"\u000d"}`,
		`{"a":"\u000b"}`, `{"a":"\u0020"}`, `{"a":"\u00e9"}`, `{"a":"é"}`, `{"a":"\ud83d\ude00"}`, `{"a":"😀"}`,
		"{\"a\":\"\u2028\u007f\"}", `{"a":"\u0022"}`, `{"a":"\u005c"}`, `{"\n":1}`, `{"\u0061":1}`,
		`{"a":[1,2,{"b":[]}]}`, `{"a":[1, 2]}`, `{"a":"x\\"}`, `{"a":"\\\\n"}`, `{"a":-12.5e-3}`, `{"a":1E2}`,
	}
	for _, tt := range tests {
		checkGolden(t, []byte(tt))
	}
	// Every line of the repository's traces, and its payload.
	files, _ := filepath.Glob("../../testdata/*/*.jsonl")
	golden, _ := filepath.Glob("../../golden/*.jsonl")
	for _, f := range append(files, golden...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			checkGolden(t, l)
		}
	}
}

func FuzzGoldenLayout(f *testing.F) {
	for _, s := range []string{`{"a":"\u0001 x","b":[1.5,-0,1e5]}`, `{"a":"\/"}`, `{"k":"é\n"}`, `[1, 2]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkGolden(t, b) })
}
