package reducer

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/internal/testenv"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Replay's text fields are Python's str() of whatever the payload holds;
// python3, when present, is the oracle.
func TestPyStrMatchesPython(t *testing.T) {
	py := testenv.Python(t, "the Python oracle check is skipped")
	cases := []string{
		`"plain"`, `"it's"`, `"say \"hi\""`, `"both ' and \""`, `7`, `-0`, `1.5`, `1e16`, `1E5`, `true`, `false`, `null`,
		`[]`, `{}`, `[1, "a", null, true, 2.0]`,
		`{"b": 1, "a": [{"x": "y"}], "é": "ü"}`,
		`["tab\t nl\n cr\r bs\\ bell\u0007 del\u007f"]`,
		`["nbsp\u00a0 shy\u00ad c1\u0085 latin\u00e9"]`,
		`["zwsp\u200b ls\u2028 ps\u2029 bom\ufeff fffd\ufffd cjk\u65e5"]`,
		`["emoji \ud83d\ude00 private \ue000 tag \udb40\udc01"]`,
		`["it's", "say \"x\""]`,
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "cases.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(cases, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    print(json.dumps(str(json.loads(line)), ensure_ascii=True))
`
	out, err := exec.Command(py, "-c", script, in).Output()
	if err != nil {
		t.Fatal(err)
	}
	wants := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	for i, c := range cases {
		v, err := jsonv.Parse([]byte(c))
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		want, err := jsonv.Parse([]byte(wants[i]))
		if err != nil {
			t.Fatal(err)
		}
		got := pyStr(jsonv.Obj(jsonv.M("content", v)), "content", "")
		if got != want.Text() {
			t.Errorf("str(%s): got %q, Python %q", c, got, want.Text())
		}
		var canon jsonv.Canonicalizer
		payload := `{"a" : [1,{"content":0}], "content" :` + c + ` , "z":"content"}`
		if got := pyStrText(&canon, []byte(payload), "content", ""); got != want.Text() {
			t.Errorf("str(%s) from the text: got %q, Python %q", c, got, want.Text())
		}
	}
	var canon jsonv.Canonicalizer
	if got := pyStrText(&canon, []byte(`{"reasons":1,"x":{"reason":2}}`), "reason", "unknown"); got != "unknown" {
		t.Errorf("missing key in the text: got %q, want the default", got)
	}
	if got := pyStr(jsonv.Obj(), "reason", "unknown"); got != "unknown" {
		t.Errorf("missing key: got %q, want the default", got)
	}
}
