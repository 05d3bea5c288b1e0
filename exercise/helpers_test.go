package exercise

import (
	"testing"

	"github.com/tracecheck/tracecheck/exercise/reference"
	"github.com/tracecheck/tracecheck/exercise/subject"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// inProcess is a Caller backed by a handler in this process: every answer
// goes through subject.Decode, as a process's would.
type inProcess struct {
	h     func(req jsonv.Value) jsonv.Value
	next  int64
	calls int
}

func (c *inProcess) Call(op string, fields ...jsonv.Member) (*subject.Response, error) {
	c.next++
	c.calls++
	req := jsonv.Obj(append([]jsonv.Member{jsonv.M("id", jsonv.Int(c.next)), jsonv.M("op", jsonv.Str(op))}, fields...)...)
	return subject.Decode(req, c.h(req).AppendJSON(nil))
}

// referenceCaller is tracecheck's own implementation, in process.
func referenceCaller(tb testing.TB) *inProcess {
	h := reference.NewHandler()
	tb.Cleanup(func() { h.Close() })
	return &inProcess{h: h.Handle}
}

func loadFixtures(tb testing.TB) *Fixtures {
	tb.Helper()
	fx, err := LoadFixtures(DefaultReferenceDir("."))
	if err != nil {
		tb.Fatal(err)
	}
	return fx
}

var allOps = &subject.Hello{Protocol: 1, Name: "test", Language: "go", Ops: reference.Ops}
