package jsonv

import "testing"

// TestCountValuesBoundsParse: the count is never below the values (and
// keys) Parse finds, and strings' commas and brackets do not count.
func TestCountValuesBoundsParse(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{`1`, 1},
		{`[]`, 2},
		{`[1,2,3]`, 4},
		{`{"a":1,"b":[true,null]}`, 7},
		{`"a,b:[{"`, 1},
		{`["\",[", "x"]`, 3},
		{`{"k\\":"v,"}`, 3},
		{`"unterminated, [`, 1},
	}
	for _, tt := range tests {
		if got := CountValues([]byte(tt.in)); got != tt.want {
			t.Errorf("CountValues(%s) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func FuzzCountValuesBoundsParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"c,d"}],"e":"\"["}`, `[[],[[]],{}]`, `"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse([]byte(s))
		if err != nil {
			return
		}
		if n, c := countTree(v), CountValues([]byte(s)); c < n {
			t.Fatalf("CountValues(%q) = %d below the %d values Parse found", s, c, n)
		}
	})
}

// countTree counts v's values and object keys.
func countTree(v Value) int {
	n := 1
	switch v.Kind() {
	case Array:
		for _, e := range v.Elems() {
			n += countTree(e)
		}
	case Object:
		for _, m := range v.Members() {
			n += 1 + countTree(m.Value)
		}
	}
	return n
}
