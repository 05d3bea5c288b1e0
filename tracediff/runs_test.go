package tracediff

import "testing"

// Runs are numbered in the order their first lines come, whichever run
// the line before was of, and each keeps its own next sequence.
func TestRunsNumberInOrder(t *testing.T) {
	a, b, c := key{session: "s", run: "r1"}, key{session: "s", run: "r2"}, key{session: "t", run: "r1"}
	var rs runs
	for i, want := range []struct {
		k     key
		index int
	}{{a, 0}, {a, 0}, {b, 1}, {a, 0}, {c, 2}, {b, 1}, {b, 1}, {c, 2}} {
		u := rs.of(want.k)
		if u.index != want.index {
			t.Fatalf("line %d: run %d, want %d", i, u.index, want.index)
		}
		u.next++
	}
	if rs.len() != 3 {
		t.Fatalf("%d runs, want 3", rs.len())
	}
	for _, w := range []struct {
		k    key
		next int64
	}{{a, 3}, {b, 3}, {c, 2}} {
		if got := rs.of(w.k).next; got != w.next {
			t.Errorf("run %v: next %d, want %d", w.k, got, w.next)
		}
	}
}
