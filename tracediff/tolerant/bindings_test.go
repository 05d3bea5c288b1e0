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
			if got := lookupV(&s, c); got != i {
				t.Fatalf("lookup of record %d's value %q = %d", i, c, got)
			}
		}
	}
	// Both homes of an ID name must be met: dense, and byName past it;
	// and of a numbered value: its form's slice, and byVal.
	var dense, hashedIDs, numbered, hashedNumbered int
	big := strings.Repeat("x", arenaChunk+10)
	for step := 0; step < 200000; step++ {
		switch op := r.IntN(100); {
		case op < 60:
			name := randomName(r)
			canon := randomValue(r)
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
			s.add([]byte(name), []byte(canon), []byte(ptr), line, s.hashName([]byte(name)), s.hashVal([]byte(canon)), s.numberingOf([]byte(canon)))
			lines[len(order)] = line
			names[name], vals[canon] = len(order), len(order)
			order = append(order, entry{name, canon, ptr})
			if s.rec(s.n - 1).dense {
				dense++
			}
			if s.rec(s.n - 1).numbered {
				numbered++
			}
			hashedIDs = max(hashedIDs, s.hashedIDs)
			hashedNumbered = max(hashedNumbered, s.hashedNumbered)
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
				if got := lookupV(&s, []byte(c)); got != vals[c] {
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
	if dense == 0 || hashedIDs == 0 || numbered == 0 || hashedNumbered == 0 {
		t.Fatalf("%d names added to dense, at most %d IDs in byName, %d values numbered, at most %d numbered in byVal: all must be tested",
			dense, hashedIDs, numbered, hashedNumbered)
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

// randomValue is a canonical value of the kinds bindings hold: ids that
// count up, numbers, UUID-like texts whose last digits follow a letter,
// numbers too long for a slot, ids of more forms than the slices hold,
// and texts with no number at the end.
func randomValue(r *rand.Rand) string {
	n := strconv.Itoa(r.IntN(100000))
	switch k := r.IntN(10); {
	case k < 4:
		return `"evt-` + n + `"`
	case k < 5:
		return n
	case k < 6:
		return `"9f0c-4ab` + n + `"`
	case k < 7:
		return `"v` + strconv.Itoa(1_000_000_000+r.IntN(100000)) + `"`
	case k < 8:
		return `"f` + strconv.Itoa(r.IntN(2*maxNumberedForms)) + `-` + n + `"`
	case k < 9:
		return `"evt-` + strconv.Itoa(1_000_000+r.IntN(1_000_000)) + `"` // past the slices' room, early on
	default:
		return `"` + n + `-x"`
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

// numberOf: which values count up in a slice, and what form they have.
func TestNumberOf(t *testing.T) {
	for _, c := range []struct {
		canon          string
		prefix, suffix string
		digits, n      int
		ok             bool
	}{
		{`"evt-000123"`, `"evt-`, `"`, 6, 123, true},
		{`"evt-7"`, `"evt-`, `"`, 1, 7, true},
		{`123`, ``, ``, 3, 123, true},
		{`"999999999"`, `"`, `"`, 9, 999999999, true},
		{`"1234567890"`, "", "", 0, 0, false},                           // ten digits: past a slot's number
		{`"3f2a9c1e-1b2c-4d5e-8f90-1a2b3c4d5e67"`, "", "", 0, 0, false}, // a UUID's hex before the digits
		{`"call_A12"`, "", "", 0, 0, false},
		{`"call_x12"`, `"call_x`, `"`, 2, 12, true},
		{`"12-x"`, "", "", 0, 0, false},
		{`""`, "", "", 0, 0, false},
		{``, "", "", 0, 0, false},
	} {
		prefix, suffix, digits, n, ok := numberOf([]byte(c.canon))
		if ok != c.ok || ok && (string(prefix) != c.prefix || string(suffix) != c.suffix || digits != c.digits || n != c.n) {
			t.Errorf("numberOf(%s) = %q %q %d %d %v, want %q %q %d %d %v", c.canon, prefix, suffix, digits, n, ok, c.prefix, c.suffix, c.digits, c.n, c.ok)
		}
	}
}
