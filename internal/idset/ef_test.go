package idset

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestEliasFano(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct {
		n int
		p uint
	}{{1, 12}, {2, 12}, {3, 5}, {100, 20}, {1000, 10}, {4096, 24}, {5000, 13}, {70000, 30}, {1 << 12, 60}} {
		vals := make([]uint64, c.n)
		for i := range vals {
			vals[i] = r.Uint64() >> (64 - c.p)
			if i%7 == 3 {
				vals[i] = vals[i-1] // duplicates
			}
		}
		slices.Sort(vals)
		e := newEFBuilder(uint64(c.n), c.p)
		for i, v := range vals {
			e.set(uint64(i), v)
		}
		if err := e.index(); err != nil {
			t.Fatalf("n=%d p=%d: index: %v", c.n, c.p, err)
		}
		it := efIter{e: e}
		for i, want := range vals {
			got, ok := it.next()
			if !ok || got != want {
				t.Fatalf("n=%d p=%d: value %d = %d, %v; want %d", c.n, c.p, i, got, ok, want)
			}
			if !e.contains(want) {
				t.Fatalf("n=%d p=%d: contains(%d) = false", c.n, c.p, want)
			}
		}
		if _, ok := it.next(); ok {
			t.Fatalf("n=%d p=%d: more values than set", c.n, c.p)
		}
		in := map[uint64]bool{}
		for _, v := range vals {
			in[v] = true
		}
		for range 2000 {
			v := r.Uint64() >> (64 - c.p)
			if e.contains(v) != in[v] {
				t.Fatalf("n=%d p=%d: contains(%d) = %v", c.n, c.p, v, !in[v])
			}
		}
	}
}

func TestSelectZero(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		w := r.Uint64() & r.Uint64() // more zeros
		k := uint64(0)
		for i := range 64 {
			if w&(1<<i) == 0 {
				if got := selectZero(w, k); got != uint64(i) {
					t.Fatalf("selectZero(%#x, %d) = %d, want %d", w, k, got, i)
				}
				k++
			}
		}
	}
}
