package journal

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// mapChecker is the invariant checker as first written, with a map of
// every id: the oracle for the flat id set.
type mapChecker struct {
	next int64
	seen map[string]bool
}

func (c *mapChecker) check(e *Event) Code {
	if e.Sequence != c.next {
		c.next = e.Sequence + 1
		c.seen[e.EventID] = true
		return SequenceGap
	}
	c.next++
	if e.ParentEventID != "" && !c.seen[e.ParentEventID] {
		c.seen[e.EventID] = true
		return ParentNotEarlier
	}
	if c.seen[e.EventID] {
		return DuplicateEventID
	}
	c.seen[e.EventID] = true
	return ""
}

func TestRefIndex(t *testing.T) {
	for _, tc := range []struct {
		id string
		k  int
		ok bool
	}{
		{"evt-000", 0, true}, {"evt-007", 7, true}, {"evt-999", 999, true}, {"evt-1000", 1000, true},
		{"evt-00", 0, false}, {"evt-0007", 0, false}, {"evt-01000", 0, false}, {"evt-1a0", 0, false},
		{"Evt-001", 0, false}, {"evt-", 0, false}, {"evt--01", 0, false}, {"evt-123456789012", 123456789012, true},
		{"evt-1234567890123", 0, false},
	} {
		k, ok := RefEventNumber(tc.id)
		if ok != tc.ok || (ok && k != tc.k) || (ok && fmt.Sprintf("evt-%03d", k) != tc.id) {
			t.Errorf("RefEventNumber(%q) = %d, %v; want %d, %v", tc.id, k, ok, tc.k, tc.ok)
		}
	}
}

// TestFlatIDSetMatchesMap replays random event streams, mostly reference
// ids with gaps, duplicates, foreign ids, padded and far-out numbers, through
// the checker and the map oracle, round-tripping the checker's state through
// MarshalBinary halfway.
func TestFlatIDSetMatchesMap(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		c := newGroupChecker()
		o := &mapChecker{seen: map[string]bool{}}
		id := func() string {
			switch r := rng.IntN(20); {
			case r == 0:
				return fmt.Sprintf("evt-%04d", rng.IntN(50))
			case r == 1:
				return fmt.Sprintf("custom-%d", rng.IntN(30))
			case r == 2:
				return fmt.Sprintf("evt-%03d", 1_000_000+rng.IntN(5))
			case r == 3:
				return ""
			default:
				return fmt.Sprintf("evt-%03d", rng.IntN(300))
			}
		}
		for i := 0; i < 400; i++ {
			e := &Event{EventID: id(), ParentEventID: id(), Sequence: int64(i)}
			if rng.IntN(30) == 0 {
				e.Sequence += int64(rng.IntN(3)) - 1
			}
			if e.EventID == "" {
				e.EventID = "x"
			}
			var got Code
			if err := c.Check(e); err != nil {
				got = err.Code
			}
			if want := o.check(e); got != want {
				t.Fatalf("seed %d event %d %+v: got %q, want %q", seed, i, e, got, want)
			}
			if i == 200 {
				st, _ := c.MarshalBinary()
				c = &RunChecker{}
				if err := c.UnmarshalBinary(st); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func TestCheckerStateRejectsGarbage(t *testing.T) {
	c := NewRunChecker()
	c.Check(&Event{EventID: "evt-000", SessionID: "s", Provenance: Provenance{RunID: "r"}})
	st, _ := c.MarshalBinary()
	for i := 0; i < len(st); i++ {
		var d RunChecker
		if err := d.UnmarshalBinary(st[:i]); err == nil {
			t.Errorf("truncated state of %d bytes accepted", i)
		}
	}
}

// The checker's state survives MarshalBinary exactly, for sets of ids with
// runs that start and end anywhere in a word, and the same state always
// gives the same bytes.
func TestCheckerStateRoundTrip(t *testing.T) {
	for seed := uint64(0); seed < 30; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		c := newGroupChecker()
		for k := 0; k < 700; k++ {
			if rng.IntN(4) != 0 {
				c.ids.add(fmt.Sprintf("evt-%03d", k), noOffset)
			}
			if rng.IntN(50) == 0 {
				c.ids.add(fmt.Sprintf("other-%d", k), noOffset)
			}
		}
		st, _ := c.MarshalBinary()
		again, _ := c.MarshalBinary()
		if !bytes.Equal(st, again) {
			t.Fatalf("seed %d: two encodings of one state differ", seed)
		}
		var d RunChecker
		if err := d.UnmarshalBinary(st); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 800; k++ {
			for _, id := range []string{fmt.Sprintf("evt-%03d", k), fmt.Sprintf("other-%d", k)} {
				if c.ids.has(id) != d.ids.has(id) {
					t.Fatalf("seed %d: %s present %v before, %v after", seed, id, c.ids.has(id), d.ids.has(id))
				}
			}
		}
		if c.ids.st.set.Len() != d.ids.st.set.Len() {
			t.Fatalf("seed %d: %d ids before, %d after", seed, c.ids.st.set.Len(), d.ids.st.set.Len())
		}
	}
}
