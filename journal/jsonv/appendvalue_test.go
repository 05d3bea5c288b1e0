package jsonv

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
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

// TestAppendPyStringMatchesBytewise: the string written 8 bytes at a time
// is the one written a byte at a time, for every byte that needs an
// escape (and the bytes around them that do not) at every offset, in
// strings of every length up to past two words, and random ones.
func TestAppendPyStringMatchesBytewise(t *testing.T) {
	bytewise := func(s string) []byte {
		dst := []byte{'"'}
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
				dst = appendPyEscape(dst, c)
			} else {
				dst = append(dst, c)
			}
		}
		return append(dst, '"')
	}
	check := func(s string) {
		t.Helper()
		if got, want := AppendPyString([]byte("x"), s), append([]byte("x"), bytewise(s)...); !bytes.Equal(got, want) {
			t.Fatalf("AppendPyString(%q) = %q, want %q", s, got, want)
		}
	}
	special := []byte{0, 1, 0x1f, 0x20, '!', '"', '#', '[', '\\', ']', 0x7f, 0x80, 0x9f, 0xa0, 0xbf, 0xc3, 0xe2, 0xff}
	for n := 0; n <= 20; n++ {
		for at := 0; at < n; at++ {
			for _, c := range special {
				b := bytes.Repeat([]byte{'a'}, n)
				b[at] = c
				check(string(b))
				if at+1 < n {
					b[at+1] = 0x1f // a hit right after another: the borrow
					check(string(b))
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = special[r.IntN(len(special))]
			if r.IntN(2) == 0 {
				b[i] = byte('a' + r.IntN(26))
			}
		}
		check(string(b))
	}
}

// TestAppendIntIsStrconv: AppendInt writes what strconv.AppendInt does,
// at and around each count of digits it writes itself and past them.
func TestAppendIntIsStrconv(t *testing.T) {
	ns := []int64{math.MinInt64, math.MaxInt64, -10000, -1, 10000, 10001, 99999, 1 << 40}
	for n := int64(-20); n <= 10020; n++ {
		ns = append(ns, n)
	}
	for _, n := range ns {
		if got, want := AppendInt([]byte("x"), n), strconv.AppendInt([]byte("x"), n, 10); !bytes.Equal(got, want) {
			t.Fatalf("AppendInt(%d) = %s, want %s", n, got, want)
		}
	}
}
