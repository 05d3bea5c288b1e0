package jsonv

import (
	"bytes"
	"testing"
)

// AppendValue gives exactly Append's bytes and Parse's Value, and the same
// error on bad input; a Canonicalizer reused across calls leaves earlier
// Values intact.
func TestAppendValueMatchesAppendAndParse(t *testing.T) {
	inputs := goldenLines(t)
	inputs = append(inputs,
		[]byte(`{"b":[1,-0,1E5,"\u00e9\n"],"a":{"z":null,"é":true}}`),
		[]byte(`{"a":1,"a":2}`),
		[]byte(`[1,2`),
		[]byte(`"x" y`),
	)
	var c, ref Canonicalizer
	var kept []Value
	var want []Value
	for _, in := range inputs {
		gotB, gotV, gotErr := c.AppendValue(nil, in)
		wantB, wantErr := ref.Append(nil, in)
		wantV, _ := Parse(in)
		if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("%s: error %v, want %v", in, gotErr, wantErr)
		}
		if !bytes.Equal(gotB, wantB) {
			t.Fatalf("%s: bytes %s, want %s", in, gotB, wantB)
		}
		if gotErr == nil {
			if !bytes.Equal(gotV.AppendJSON(nil), wantV.AppendJSON(nil)) {
				t.Fatalf("%s: value %s, want %s", in, gotV.AppendJSON(nil), wantV.AppendJSON(nil))
			}
			kept, want = append(kept, gotV), append(want, wantV)
		}
	}
	for i := range kept {
		if !bytes.Equal(kept[i].AppendJSON(nil), want[i].AppendJSON(nil)) {
			t.Fatalf("value %d changed after later calls", i)
		}
	}
}
