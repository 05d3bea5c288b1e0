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

// efOf is the Elias-Fano form of sorted vals, value by value.
func efOf(tb testing.TB, vals []uint64, p uint) *ef {
	e := newEFBuilder(uint64(len(vals)), p)
	for i, v := range vals {
		e.set(uint64(i), v)
	}
	if err := e.index(); err != nil {
		tb.Fatal(err)
	}
	return e
}

// TestEliasFanoInsert: inserting values into an Elias-Fano form by blocks
// gives exactly the words of building it from all the values, equal
// values, the ends of the range and empty buckets included.
func TestEliasFanoInsert(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		n, k int
		p    uint
	}{{1, 1, 12}, {5, 3, 12}, {100, 1, 20}, {1000, 17, 22}, {4000, 300, 24}, {70000, 900, 30}, {3000, 40, 12}, {64, 64, 8}} {
		for round := range 3 {
			old := make([]uint64, c.n)
			for i := range old {
				old[i] = r.Uint64() >> (64 - c.p)
			}
			add := make([]uint64, c.k)
			for i := range add {
				switch i % 5 {
				case 0:
					add[i] = old[r.IntN(len(old))] // a value already there
				case 1:
					add[i] = [2]uint64{0, 1<<c.p - 1}[round%2] // an end of the range
				default:
					add[i] = r.Uint64() >> (64 - c.p)
				}
			}
			slices.Sort(old)
			slices.Sort(add)
			e := efOf(t, old, c.p)
			if efLowBits(uint64(c.n+c.k), c.p) != e.l {
				continue // insert keeps the low width; fingerprints checks it first
			}
			got := e.insert(add)
			want := efOf(t, slices.Sorted(slices.Values(append(slices.Clone(old), add...))), c.p)
			if !slices.Equal(got.low, want.low) || !slices.Equal(got.high, want.high) || got.n != want.n || got.highBits != want.highBits {
				t.Fatalf("n=%d k=%d p=%d: inserted form differs from the built one", c.n, c.k, c.p)
			}
			if err := got.index(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestCopyBits against a copy bit by bit, at every alignment.
func TestCopyBits(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	src := make([]uint64, 8)
	for i := range src {
		src[i] = r.Uint64()
	}
	for range 2000 {
		sOff, dOff := r.Uint64N(200), r.Uint64N(200)
		n := r.Uint64N(512 - max(sOff, dOff) - 1)
		got, want := make([]uint64, 8), make([]uint64, 8)
		copyBits(got, dOff, src, sOff, n)
		for i := range n {
			if src[(sOff+i)/64]&(1<<((sOff+i)%64)) != 0 {
				want[(dOff+i)/64] |= 1 << ((dOff + i) % 64)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("copyBits(%d, %d, %d): %x, want %x", dOff, sOff, n, got, want)
		}
	}
}

// TestEliasFanoContainsAll: containsAll checks ascending values in one
// pass over high and agrees with the values themselves.
func TestEliasFanoContainsAll(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		n int
		p uint
	}{{1, 12}, {3, 5}, {100, 20}, {5000, 13}, {70000, 30}} {
		vals := make([]uint64, c.n)
		set := map[uint64]bool{}
		for i := range vals {
			vals[i] = r.Uint64() >> (64 - c.p)
			set[vals[i]] = true
		}
		slices.Sort(vals)
		e := newEFBuilder(uint64(c.n), c.p)
		for i, v := range vals {
			e.set(uint64(i), v)
		}
		if err := e.index(); err != nil {
			t.Fatal(err)
		}
		var sub []uint64
		for _, v := range vals {
			if r.IntN(3) == 0 {
				sub = append(sub, v)
			}
		}
		if !e.containsAll(sub) || !e.containsAll(vals) {
			t.Fatalf("n=%d: containsAll of present values is false", c.n)
		}
		for range 50 {
			v := r.Uint64() >> (64 - c.p)
			with := append(slices.Clone(sub), v)
			slices.Sort(with)
			if got := e.containsAll(with); got != set[v] {
				t.Fatalf("n=%d: containsAll with %d (present %v) = %v", c.n, v, set[v], got)
			}
		}
	}
}
