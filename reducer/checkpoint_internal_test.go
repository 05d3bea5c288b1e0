package reducer

import (
	"testing"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// TestReplayPayloadsSkipsOnlyIgnoredChunks: a model.response payload is
// skipped only when the reducer would ignore it (no content, final not
// true), whatever the layout.
func TestReplayPayloadsSkipsOnlyIgnoredChunks(t *testing.T) {
	for _, p := range []string{
		`{"turn":1,"delta":"a","accumulated":"a","final":false,"tool_calls":[]}`,
		`{"turn":1,"delta":"a","accumulated":"a","final":true,"tool_calls":[]}`,
		`{"turn":1,"content":"","stop":false,"tool_calls":[{"id":"c","name":"echo","arguments":{"content":1}}]}`,
		`{"turn":1,"final": true}`, `{"turn":1,"final":true }`, `{"final" :true}`, `{ "final":true}`,
		`{"fin\u0061l":true}`, `{"\u0063ontent":"x"}`, `{"a":{"final":true},"b":[true]}`, `{"a":"\"final\":true"}`,
		`{"final":1}`, `{"final":"true"}`, `{"final":null,"content":null}`, `{}`, `{"x":[1,{"y":"}"}],"final":true}`,
		`{"final":false,"final2":true}`, `{"finalx":true}`,
	} {
		v, err := jsonv.Parse([]byte(p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f, _ := v.Get("final")
		used := v.Has("content") || f.IsTrue()
		if got := replayPayloads("model.response", []byte(p)); !got && used {
			t.Errorf("%s: skipped a payload the reducer reads", p)
		}
	}
	// The common chunk is skipped: that is the point.
	if replayPayloads("model.response", []byte(`{"turn":1,"delta":"a","accumulated":"a","final":false,"tool_calls":[]}`)) {
		t.Error("a non-final chunk is decoded")
	}
}
