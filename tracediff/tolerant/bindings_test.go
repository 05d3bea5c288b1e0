package tolerant

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// The bindings table against maps, through adds, lookups and rollbacks
// that cross the tables' growth and the arena's chunks.
func TestBindingsMatchMaps(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 6))
	s := newBindings()
	type entry struct{ name, canon, ptr string }
	var order []entry
	names, vals := map[string]int{}, map[string]int{}
	lines := map[int]int{}
	check := func() {
		if s.n != len(order) {
			t.Fatalf("n %d, want %d", s.n, len(order))
		}
		for i, e := range order {
			n, c, p := s.bytes(i)
			if string(n) != e.name || string(c) != e.canon || string(p) != e.ptr || s.line(i) != lines[i] {
				t.Fatalf("record %d: %q %q %q, want %+v", i, n, c, p, e)
			}
			if got := lookup(&s, n); got != i {
				t.Fatalf("lookup of record %d's name %q = %d", i, n, got)
			}
		}
	}
	// Both homes of an ID name must be met: dense, and byName past it.
	var dense, hashedIDs int
	big := strings.Repeat("x", arenaChunk+10)
	for step := 0; step < 200000; step++ {
		switch op := r.IntN(100); {
		case op < 60:
			name := randomName(r)
			canon := `"v` + strconv.Itoa(r.IntN(100000)) + `"`
			if step%50000 == 7 {
				canon = `"` + big + `"`
			}
			if _, ok := names[name]; ok {
				continue
			}
			if _, ok := vals[canon]; ok {
				continue
			}
			ptr := "/p/" + strconv.Itoa(step%7)
			if step%2 == 0 {
				ptr = "/q/" + strconv.Itoa(step) // past maxPtrs distinct pointers
			}
			line := step
			if step%1000 == 3 {
				line = 1<<33 + step
			}
			s.add([]byte(name), []byte(canon), []byte(ptr), line, s.hashName([]byte(name)), s.hashVal([]byte(canon)))
			lines[len(order)] = line
			names[name], vals[canon] = len(order), len(order)
			order = append(order, entry{name, canon, ptr})
			if s.rec(s.n - 1).dense {
				dense++
			}
			hashedIDs = max(hashedIDs, s.hashedIDs)
		case op < 95:
			var k string
			if len(order) > 0 && r.IntN(2) == 0 {
				k = order[r.IntN(len(order))].name
			} else {
				k = randomName(r)
			}
			want, ok := names[k]
			if !ok {
				want = -1
			}
			if got := lookup(&s, []byte(k)); got != want {
				t.Fatalf("lookup name %q = %d, want %d", k, got, want)
			}
			if got, _ := s.findName([]byte(k)); got != want {
				t.Fatalf("findName %q = %d, want %d", k, got, want)
			}
			if len(order) > 0 {
				c := order[r.IntN(len(order))].canon
				if got := s.find([]byte(c), s.hashVal([]byte(c)), true); got != vals[c] {
					t.Fatalf("find value = %d, want %d", got, vals[c])
				}
			}
		default:
			mark := len(order) - r.IntN(min(len(order), 300)+1)
			s.truncate(mark)
			for _, e := range order[mark:] {
				delete(names, e.name)
				delete(vals, e.canon)
			}
			order = order[:mark]
			check()
		}
	}
	check()
	if dense == 0 || hashedIDs == 0 {
		t.Fatalf("%d names added to dense, at most %d IDs in byName: both must be tested", dense, hashedIDs)
	}
	for k, want := range names {
		if got := lookup(&s, []byte(k)); got != want {
			t.Fatalf("lookup %q = %d, want %d", k, got, want)
		}
	}
}

// randomName is a binding name of the kinds a golden has: ID-n as
// normalize writes them, near the count of bindings or far past it (where
// dense does not reach), IDs with a leading zero, and other names.
func randomName(r *rand.Rand) string {
	switch k := r.IntN(10); {
	case k < 6:
		return "ID-" + strconv.Itoa(r.IntN(100000))
	case k < 7:
		return "ID-" + strconv.Itoa(r.IntN(1_000_000_000))
	case k < 8:
		return "ID-0" + strconv.Itoa(r.IntN(1000))
	default:
		return "CALL-" + strconv.Itoa(r.IntN(100000))
	}
}

// BenchmarkBindTrace binds as a diff of a normalized 200k-event golden
// does, line by line: a new name for the event's id, then the session's,
// the run's and the parent's names, bound before. ns/op is per line.
func BenchmarkBindTrace(b *testing.B) {
	const lines = 200000
	names := make([]string, lines+4)
	vals := make([][]byte, lines+4)
	for i := range names {
		names[i] = "ID-" + strconv.Itoa(i)
		vals[i] = []byte(`"evt-` + strconv.Itoa(i) + `"`)
	}
	ptr := []byte("/event_id")
	b.ReportAllocs()
	for b.Loop() {
		m := NewMatcher(true)
		m.bindCanonAt(names[2], []byte(`"session"`), ptr)
		m.bindCanonAt(names[3], []byte(`"run"`), ptr)
		for i := 4; i < len(names); i++ {
			m.Line = i
			if m.bindCanonAt(names[i], vals[i], ptr) != "" || m.bindCanonAt(names[2], []byte(`"session"`), ptr) != "" ||
				m.bindCanonAt(names[3], []byte(`"run"`), ptr) != "" || m.bindCanonAt(names[i-1], vals[i-1], ptr) != "" && i > 4 {
				b.Fatal("a binding failed")
			}
		}
	}
}
