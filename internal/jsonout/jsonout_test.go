package jsonout

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestWrite(t *testing.T) {
	var b bytes.Buffer
	v := map[string]any{"b": []int{1, 2}, "a": "<tag> & \"q\" é\n"}
	if err := Write(&b, v); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": \"<tag> & \\\"q\\\" é\\n\",\n  \"b\": [\n    1,\n    2\n  ]\n}\n"
	if b.String() != want {
		t.Fatalf("Write = %q, want %q", b.String(), want)
	}
	var back map[string]any
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["a"] != v["a"] {
		t.Fatalf("round trip: %v %v", back, err)
	}
}
