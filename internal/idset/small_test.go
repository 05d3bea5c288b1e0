package idset

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSmallAgreesWithAMap: Small answers exactly what a map answers, for
// ids of many shapes and repeats, through the table's growth, and Each
// gives the ids in the order they were first added.
func TestSmallAgreesWithAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := NewSmall(64 << 20)
	seen := map[string]bool{}
	var order []string
	for i := 0; i < 50000; i++ {
		var id string
		switch rng.IntN(4) {
		case 0:
			id = fmt.Sprintf("%08x-0000-4000-8000-%012x", rng.IntN(40000), i%7)
		case 1:
			id = fmt.Sprintf("evt-%d", rng.IntN(20000))
		case 2:
			id = strings.Repeat("x", rng.IntN(300)) // the empty id too
		default:
			id = string([]byte{byte(rng.IntN(256)), byte(rng.IntN(256))})
		}
		if got := s.Has(id); got != seen[id] {
			t.Fatalf("Has(%q) = %v before adding, want %v", id, got, seen[id])
		}
		added, full := s.Add(id)
		if full {
			t.Fatalf("full at %d ids, %d bytes", s.Len(), s.Bytes())
		}
		if added == seen[id] {
			t.Fatalf("Add(%q) = %v, want %v", id, added, !seen[id])
		}
		if !seen[id] {
			seen[id] = true
			order = append(order, id)
		}
	}
	if s.Len() != len(seen) {
		t.Errorf("Len %d, want %d", s.Len(), len(seen))
	}
	var each []string
	s.Each(func(id string) bool { each = append(each, id); return true })
	if !slices.Equal(each, order) {
		t.Errorf("Each gave %d ids, not the %d added in order", len(each), len(order))
	}
}

// TestSmallFullKeepsItsBudget: past the budget Add refuses the id and adds
// nothing; what was added stays exact.
func TestSmallFullKeepsItsBudget(t *testing.T) {
	const budget = 1 << 16
	s := NewSmall(budget)
	var kept []string
	for i := 0; ; i++ {
		id := fmt.Sprintf("id-%06d", i)
		added, full := s.Add(id)
		if full {
			if added || s.Has(id) {
				t.Fatalf("a refused id was added")
			}
			break
		}
		if !added {
			t.Fatalf("Add(%q) = false for a new id", id)
		}
		kept = append(kept, id)
		if i > budget {
			t.Fatal("never full")
		}
	}
	if s.Bytes() > budget {
		t.Errorf("holds %d bytes, budget %d", s.Bytes(), budget)
	}
	if len(kept) < 1000 {
		t.Errorf("only %d ids of 9 bytes in %d bytes", len(kept), budget)
	}
	for _, id := range kept {
		if !s.Has(id) {
			t.Fatalf("lost %q", id)
		}
	}
	if added, full := s.Add(kept[0]); added || full {
		t.Errorf("adding a kept id again: added %v full %v", added, full)
	}
}

// TestSmallPrefetchChangesNoAnswer: Prefetch on an empty set, on ids
// present and absent, through growth, leaves every answer as it was.
func TestSmallPrefetchChangesNoAnswer(t *testing.T) {
	s := NewSmall(1 << 20)
	s.Prefetch("x") // empty: no table yet
	for i := 0; i < 5000; i++ {
		id := fmt.Sprintf("id-%d", i)
		s.Prefetch(id)
		if added, full := s.Add(id); !added || full {
			t.Fatalf("Add(%q) after Prefetch = %v, %v", id, added, full)
		}
		s.Prefetch(id)
		if added, _ := s.Add(id); added {
			t.Fatalf("second Add(%q) = true", id)
		}
		s.Prefetch("absent")
		if s.Has("absent") {
			t.Fatal(`Has("absent") = true`)
		}
	}
}
