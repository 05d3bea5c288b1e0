package bincodec

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type record struct {
	U     uint64
	V     int64
	B     []byte
	S     string
	F, G  bool
	Items int
}

func encode(r record) []byte {
	var e Encoder
	e.Uvarint(r.U)
	e.Varint(r.V)
	e.Bytes(r.B)
	e.String(r.S)
	e.Flag(r.F)
	e.Flag(r.G)
	e.Uvarint(uint64(r.Items))
	for range r.Items {
		e.Flag(true)
	}
	return e.B
}

func decode(b []byte) (record, error) {
	d := NewDecoder(b)
	r := record{U: d.Uvarint(), V: d.Varint(), B: d.Bytes(), S: d.String(), F: d.Flag(), G: d.Flag(), Items: d.Count()}
	for range r.Items {
		d.Flag()
	}
	if len(d.Rest()) != 0 {
		d.Fail()
	}
	return r, d.Err()
}

// TestRoundTrip: what an Encoder writes a Decoder reads back, and every
// truncation of it is ErrMalformed, never a panic.
func TestRoundTrip(t *testing.T) {
	for _, r := range []record{
		{B: []byte{}},
		{U: math.MaxUint64, V: math.MinInt64, B: []byte("\x00\xff"), S: "é\n", F: true, Items: 3},
		{U: 300, V: -1, B: []byte("x"), S: "", G: true},
	} {
		b := encode(r)
		got, err := decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(r, got); diff != "" {
			t.Error(diff)
		}
		for i := range b {
			if _, err := decode(b[:i]); !errors.Is(err, ErrMalformed) {
				t.Errorf("%d of %d bytes: %v, want ErrMalformed", i, len(b), err)
			}
		}
	}
}

func TestMalformed(t *testing.T) {
	for name, b := range map[string][]byte{
		"length beyond the input":  {5, 'a'},
		"a flag of 2":              {2},
		"a count beyond the input": {9},
	} {
		d := NewDecoder(b)
		switch name {
		case "length beyond the input":
			d.Bytes()
		case "a flag of 2":
			d.Flag()
		default:
			d.Count()
		}
		if !errors.Is(d.Err(), ErrMalformed) || d.Uvarint() != 0 {
			t.Errorf("%s: %v", name, d.Err())
		}
	}
}
