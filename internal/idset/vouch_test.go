package idset

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// countingSource counts the reads back of every decoded id.
type countingSource struct {
	*memSource
	each int
}

func (c *countingSource) EachID(n uint64, fn func([]byte, uint64) error) error {
	c.each++
	return c.memSource.EachID(n, fn)
}

// decodedChecker is a checker whose set was just decoded from n ids of
// style with 8-bit checkpoint fingerprints (a false maybe in 256), reading
// back through a counting Source.
func decodedChecker(t *testing.T, style string, n int, seed uint64) (*checker, *countingSource, *rand.Rand) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	c := newChecker(t, Options{CheckpointBits: 8, Window: 64, CheckpointWindow: 32, BufferRecords: 512}, true)
	for i := range n {
		c.add(idStyles[style](r, i))
	}
	c.reload()
	cs := &countingSource{memSource: c.src}
	b, err := c.s.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := c.opt
	opt.Source = cs
	s, err := Decode(b, opt)
	if err != nil {
		t.Fatal(err)
	}
	c.s.Close()
	c.s = s
	t.Cleanup(func() { s.Close() })
	return c, cs, r
}

// TestKnownNeverReadsBackAndNeverLies: Known answers for present and absent
// ids of a decoded set without reading a single id back, and whatever it
// says it is sure of agrees with the map. Unsure answers happen (the test
// would pass vacuously otherwise), and Lookup is exact afterwards.
func TestKnownNeverReadsBackAndNeverLies(t *testing.T) {
	for _, style := range []string{"uuid", "mixed", "evt-%07d"} {
		t.Run(style, func(t *testing.T) {
			c, cs, r := decodedChecker(t, style, 3000, 1)
			var queries []string
			for _, id := range c.src.order {
				queries = append(queries, id)
			}
			for i := range 3000 {
				queries = append(queries, idStyles[style](r, 3000+i), fmt.Sprintf("absent-%d", i))
			}
			unsure := 0
			for _, q := range queries {
				_, want := c.m.ord[q]
				e, found, sure, err := c.s.Known(q)
				if err != nil {
					t.Fatalf("Known(%q): %v", q, err)
				}
				if !sure {
					unsure++
					if found {
						t.Fatalf("Known(%q): found but unsure", q)
					}
					continue
				}
				if found != want {
					t.Fatalf("Known(%q) found=%v, want %v", q, found, want)
				}
				if found && e.Ord != c.m.ord[q] {
					t.Fatalf("Known(%q) ordinal %d, want %d", q, e.Ord, c.m.ord[q])
				}
			}
			if cs.each != 0 {
				t.Fatalf("Known read the decoded ids back %d times", cs.each)
			}
			if unsure == 0 && style != "evt-%07d" {
				t.Fatal("no unsure answer: the test does not reach the decoded fingerprints")
			}
			for _, q := range queries {
				c.lookup(q)
			}
		})
	}
}

// TestVouchAddsWithoutReadingBack: ids vouched for are added to a decoded
// set without the read back of every older id that a false maybe of the
// fingerprints costs otherwise (the same ids without Vouch make the set read
// them back), and the set stays exact: every later answer agrees with the
// map.
func TestVouchAddsWithoutReadingBack(t *testing.T) {
	for _, vouch := range []bool{true, false} {
		t.Run(fmt.Sprintf("vouch=%v", vouch), func(t *testing.T) {
			c, cs, r := decodedChecker(t, "uuid", 3000, 2)
			var added []string
			for i := range 2000 {
				id := idStyles["uuid"](r, 3000+i)
				if vouch {
					c.s.Vouch(id)
				}
				c.add(id)
				added = append(added, id)
				if i%7 == 0 {
					c.lookup(added[r.IntN(len(added))]) // a parent among the new ones
				}
			}
			if vouch && cs.each != 0 {
				t.Fatalf("vouched ids made the set read the older ids back (%d times)", cs.each)
			}
			if !vouch && cs.each == 0 {
				t.Fatal("2000 new ids at 8 fingerprint bits never needed the older ids: the test shows nothing")
			}
			for _, id := range c.src.order {
				c.lookup(id)
			}
			for i := range 500 {
				c.lookup(fmt.Sprintf("absent-%d", i))
				c.add(added[r.IntN(len(added))]) // not added twice
			}
		})
	}
}

// TestVouchIsForOneID: a vouch covers only the id vouched for, and only
// until it is added: a later absent id with a matching fingerprint still
// reads back, and a present old id is still found.
func TestVouchIsForOneID(t *testing.T) {
	c, cs, r := decodedChecker(t, "uuid", 3000, 3)
	id := idStyles["uuid"](r, 9999)
	c.s.Vouch(id)
	c.add(id)
	if c.s.hasVouched {
		t.Fatal("the vouch outlived the add")
	}
	old := c.src.order[0] // outside the decoded window: only the fingerprints know it
	c.s.Vouch("some-other-id")
	c.lookup(old)
	if cs.each != 1 {
		t.Fatalf("finding an old id read the decoded ids back %d times, want once", cs.each)
	}
}

// TestKeepEncoding: with Options.KeepEncoding, a decoded set uses the
// words of an encoding laid out 8-byte aligned (at Encoding.WordsOffset)
// where they are, and copies them otherwise; either way it answers as the
// map does.
func TestKeepEncoding(t *testing.T) {
	c, _, _ := decodedChecker(t, "uuid", 3000, 4)
	enc, err := c.s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for shift := range 8 {
		var buf bytes.Buffer
		if _, err := enc.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		words := make([]uint64, buf.Len()/8+2)
		mem := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8)
		b := mem[shift : shift+buf.Len()]
		copy(b, buf.Bytes())
		s, err := Decode(b, Options{Source: c.src, KeepEncoding: true, CheckpointBits: 8})
		if err != nil {
			t.Fatal(err)
		}
		aligned := (shift+enc.WordsOffset())%8 == 0
		kept := &s.frozen.low[0] == (*uint64)(unsafe.Pointer(&b[enc.WordsOffset()]))
		if kept != (aligned && littleEndianHost) {
			t.Fatalf("shift %d: words kept in place %v, aligned %v", shift, kept, aligned)
		}
		for i, id := range c.src.order {
			e, found, err := s.Lookup(id)
			if err != nil || !found || e.Ord != uint64(i) {
				t.Fatalf("shift %d: Lookup(%q) = %+v, %v, %v", shift, id, e, found, err)
			}
		}
		if _, found, _ := s.Lookup("absent"); found {
			t.Fatalf("shift %d: found an absent id", shift)
		}
		s.Close()
	}
}
