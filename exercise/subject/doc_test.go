package subject_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/exercise/reference"
	"github.com/tracecheck/tracecheck/exercise/subject"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/schema"
)

var protocolDoc = filepath.Join("..", "..", "docs", "protocol.md")

const (
	beginMarker = "<!-- BEGIN GENERATED: message reference from schema/protocol.schema.json (go test ./exercise/subject -update) -->\n"
	endMarker   = "<!-- END GENERATED -->"
)

func update() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	return ok && g.Get() == true
}

// The message reference of docs/protocol.md is the schema's, rendered by
// subject.Reference: a field added to the schema and not to the doc (or
// the other way round) fails here. -update rewrites the section.
func TestProtocolDocReferenceMatchesSchema(t *testing.T) {
	doc, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	begin := bytes.Index(doc, []byte(beginMarker))
	end := bytes.Index(doc, []byte(endMarker))
	if begin < 0 || end < begin {
		t.Fatalf("%s: no generated section between %q and %q", protocolDoc, beginMarker, endMarker)
	}
	want, err := subject.Reference()
	if err != nil {
		t.Fatal(err)
	}
	got := string(doc[begin+len(beginMarker) : end])
	if got == want {
		return
	}
	if update() {
		out := append(append(append([]byte(nil), doc[:begin+len(beginMarker)]...), want...), doc[end:]...)
		if err := os.WriteFile(protocolDoc, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(gl), len(wl)) {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s: the message reference differs from the schema's at its line %d:\n  doc:    %q\n  schema: %q\nrun: go test ./exercise/subject -update", protocolDoc, i+1, g, w)
		}
	}
}

// Every message of the doc's example session is valid under the schema, and
// every answer in it is tracecheck's (hello and error messages aside).
func TestProtocolDocExampleIsValid(t *testing.T) {
	doc, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "## Example session")
	if !ok {
		t.Fatal("no example session")
	}
	_, block, _ := strings.Cut(after, "```text\n")
	block, _, _ = strings.Cut(block, "```")
	h := reference.NewHandler()
	defer h.Close()
	var req jsonv.Value
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		dir, msg, _ := strings.Cut(line, " ")
		v, err := jsonv.Parse([]byte(msg))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		switch dir {
		case ">":
			req = v
			op, _ := v.Get("op")
			if err := schema.ValidateProtocol(op.Text()+"_request", v.Interface(schema.Number)); err != nil {
				t.Errorf("request %s: %v", msg, err)
			}
		case "<":
			n++
			resp, err := subject.Decode(req, []byte(msg))
			if err != nil {
				t.Errorf("response %s: %v", msg, err)
				continue
			}
			want := h.Handle(req)
			op, _ := req.Get("op")
			okWant, _ := want.Get("ok")
			if op.Text() == "hello" {
				continue
			}
			if resp.OK != okWant.IsTrue() {
				t.Errorf("response %s: tracecheck answers %s", msg, want.AppendJSON(nil))
			} else if resp.OK && !jsonv.Equal(resp.Value, want) {
				t.Errorf("response %s: tracecheck answers %s", msg, want.AppendJSON(nil))
			} else if !resp.OK {
				e, _ := want.Get("error")
				c, _ := e.Get("code")
				if resp.Error.Code != "" && resp.Error.Code != c.Text() {
					t.Errorf("response %s: tracecheck's code is %s", msg, c.Text())
				}
			}
		default:
			t.Fatalf("a line of the example that is neither > nor <: %q", line)
		}
	}
	if n < 4 {
		t.Errorf("the example holds %d responses", n)
	}
}
