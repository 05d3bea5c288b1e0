package journal

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkRunChecker is the invariants' share of a pass, per event, for
// each id style: a parent lookup (the previous event) and an add, on events
// already decoded. The events are built once (1M of them); a checker is
// fresh every million.
func BenchmarkRunChecker(b *testing.B) {
	const n = 1 << 20
	for _, style := range []string{"evt-%03d", "evt-%07d", "uuid"} {
		b.Run(style, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			evs := make([]Event, n)
			for i := range evs {
				if style == "uuid" {
					evs[i].EventID = fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", rng.Uint32(), rng.Uint32()&0xffff, rng.Uint32()&0xfff, rng.Uint32()&0x3fff|0x8000, rng.Uint64()&(1<<48-1))
				} else {
					evs[i].EventID = fmt.Sprintf(style, i)
				}
				evs[i].Sequence = int64(i)
				if i > 0 {
					evs[i].ParentEventID = evs[i-1].EventID
				}
			}
			c := NewRunChecker()
			i := 0
			for b.Loop() {
				if i == n {
					b.StopTimer()
					c.Close()
					c, i = NewRunChecker(), 0
					b.StartTimer()
				}
				if err := c.checkAt(&evs[i], int64(i)*640); err != nil {
					b.Fatal(err)
				}
				i++
			}
			c.Close()
		})
	}
}
