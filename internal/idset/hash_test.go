package idset

import "testing"

// The expected values are CPython 3.11's hash() of the same bytes with
// PYTHONHASHSEED=0, which is SipHash-1-3 under the all-zero key (as a
// signed 64-bit integer; shown here as unsigned).
func TestSipHash13Vectors(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
	}{
		{"a", 0x407448d2b89b1813},
		{"abcdefgh", 0x3f7b849c0b8e35ea},
		{"\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e", 0xf30eb725bb91c9ea},
		{"123e4567-e89b-12d3-a456-426614174000", 0x5d558f85846057a1},
	} {
		if got := sipHash13(Key{}, c.in); got != c.want {
			t.Errorf("sipHash13(%q) = %#x, want %#x", c.in, got, c.want)
		}
	}
}

func TestSipHash13KeyMatters(t *testing.T) {
	if sipHash13(DefaultKey, "evt-001") == sipHash13(Key{1, 2}, "evt-001") {
		t.Fatal("two keys give the same hash")
	}
}
