package idset

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The window is a cache: what it finds must be exact, and it must hold at
// least the newest ids that fit.
func TestWindow(t *testing.T) {
	for _, c := range []struct {
		name           string
		entries, bytes int
		minLen, maxLen int
		mustHoldNewest int
	}{
		{"tiny", 4, 64, 1, 8, 4},
		{"entries bound", 16, 1 << 16, 4, 12, 16},
		{"bytes bound", 1 << 10, 512, 20, 40, 6},
		{"wide ids", 64, 4096, 0, 500, 3},
		{"default", DefaultWindow, DefaultWindowBytes, 30, 40, DefaultWindow},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWindow(c.entries, c.bytes)
			r := rand.New(rand.NewPCG(11, 12))
			var ids []string
			for i := range 20000 {
				id := fmt.Sprintf("%d:", i) + strings.Repeat("x", c.minLen+r.IntN(c.maxLen-c.minLen+1))
				id = id[:max(len(id)-len(fmt.Sprint(i))-1, c.minLen)]
				id = fmt.Sprintf("%d:%s", i, id)
				ids = append(ids, id)
				h := sipHash13(DefaultKey, id) & 0xffff_0000_0000_00ff // collide on purpose
				w.insert(h, id, uint64(i), uint64(3*i))
				newest := min(c.mustHoldNewest, 4)
				if i%997 == 0 {
					newest = c.mustHoldNewest
				}
				for k := 0; k < newest && k <= i; k++ {
					j := i - k
					if len(ids[j]) > c.bytes/8 {
						continue
					}
					e, ok := w.find(sipHash13(DefaultKey, ids[j])&0xffff_0000_0000_00ff, ids[j])
					if !ok || e.ord != uint64(j) || e.pos != uint64(3*j) {
						t.Fatalf("after %d inserts, id %d: %+v, %v", i+1, j, e, ok)
					}
				}
				if i > 0 {
					j := r.IntN(i)
					if e, ok := w.find(sipHash13(DefaultKey, ids[j])&0xffff_0000_0000_00ff, ids[j]); ok && (e.ord != uint64(j) || e.pos != uint64(3*j)) {
						t.Fatalf("id %d found as %+v", j, e)
					}
				}
				if _, ok := w.find(0, "absent"); ok {
					t.Fatal("found an id never inserted")
				}
				if w.count > c.entries || len(w.arena) > c.bytes || w.used > len(w.arena) {
					t.Fatalf("window over its bounds: %d entries, %d/%d bytes", w.count, w.used, len(w.arena))
				}
			}
		})
	}
}
