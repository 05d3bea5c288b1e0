package idset

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
)

// idGen writes the i-th id of a style into a reused buffer, so that ten
// million ids need not be held by the benchmark itself.
type idGen struct {
	style string
	rng   *rand.Rand
	buf   []byte
}

func newIDGen(style string, seed uint64) *idGen {
	return &idGen{style: style, rng: rand.New(rand.NewPCG(seed, 99))}
}

func (g *idGen) id(i int) string {
	switch g.style {
	case "uuid":
		var raw [16]byte
		for j := 0; j < 16; j += 8 {
			v := g.rng.Uint64()
			for k := 0; k < 8; k++ {
				raw[j+k] = byte(v >> (8 * k))
			}
		}
		raw[6] = raw[6]&0x0f | 0x40 // version 4
		raw[8] = raw[8]&0x3f | 0x80
		g.buf = g.buf[:0]
		g.buf = hex.AppendEncode(g.buf, raw[0:4])
		g.buf = append(g.buf, '-')
		g.buf = hex.AppendEncode(g.buf, raw[4:6])
		g.buf = append(g.buf, '-')
		g.buf = hex.AppendEncode(g.buf, raw[6:8])
		g.buf = append(g.buf, '-')
		g.buf = hex.AppendEncode(g.buf, raw[8:10])
		g.buf = append(g.buf, '-')
		g.buf = hex.AppendEncode(g.buf, raw[10:16])
	case "evt-%07d":
		g.buf = append(g.buf[:0], "evt-"...)
		s := strconv.Itoa(i)
		for n := len(s); n < 7; n++ {
			g.buf = append(g.buf, '0')
		}
		g.buf = append(g.buf, s...)
	case "evt-%03d":
		g.buf = append(g.buf[:0], "evt-"...)
		s := strconv.Itoa(i)
		for n := len(s); n < 3; n++ {
			g.buf = append(g.buf, '0')
		}
		g.buf = append(g.buf, s...)
	}
	return bytesView(g.buf)
}

var benchSizes = func() []int {
	if os.Getenv("IDSET_BENCH_10M") != "" {
		return []int{200_000, 1_000_000, 10_000_000}
	}
	return []int{200_000, 1_000_000}
}()

var benchStyles = []string{"uuid", "evt-%07d", "evt-%03d"}

// cpuNanos is the process's user and system time.
func cpuNanos() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkBuild is the checker's work per event: is the parent (the
// previous id) earlier, and is this id new; then add it. ns/id and the
// bytes held per id at the end (Go heap plus the filter tables outside
// it); disk-B/id is what the spill wrote.
func BenchmarkBuild(b *testing.B) {
	for _, style := range benchStyles {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("set/%s/n=%d", style, n), func(b *testing.B) {
				var mem, disk float64
				var cpu int64
				for b.Loop() {
					before := heapInUse()
					s := New(Options{Dir: b.TempDir()})
					c0 := cpuNanos()
					g := newIDGen(style, 1)
					prev := ""
					for i := range n {
						if prev != "" {
							if _, ok, err := s.Lookup(prev); err != nil || !ok {
								b.Fatalf("parent %q: %v %v", prev, ok, err)
							}
						}
						id := g.id(i)
						if _, added, err := s.Add(id, uint64(i)); err != nil || !added {
							b.Fatalf("add %q: %v %v", id, added, err)
						}
						prev = id
					}
					cpu += cpuNanos() - c0
					st := s.Stats()
					b.Logf("%+v", st)
					mem = float64(heapInUse()-before+uint64(st.FilterBytes)) / float64(n)
					disk = float64(st.SpillBytes) / float64(n)
					runtime.KeepAlive(s)
					s.Close()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/id")
				b.ReportMetric(float64(cpu)/float64(b.N)/float64(n), "cpu-ns/id")
				b.ReportMetric(mem, "B/id")
				b.ReportMetric(disk, "disk-B/id")
			})
			b.Run(fmt.Sprintf("map/%s/n=%d", style, n), func(b *testing.B) {
				var mem float64
				var cpu int64
				for b.Loop() {
					before := heapInUse()
					m := map[string]uint64{}
					c0 := cpuNanos()
					g := newIDGen(style, 1)
					prev := ""
					for i := range n {
						if prev != "" {
							if _, ok := m[prev]; !ok {
								b.Fatal("parent")
							}
						}
						id := g.id(i)
						if _, ok := m[id]; ok {
							b.Fatal("dup")
						}
						m[string([]byte(id))] = uint64(i)
						prev = id
					}
					cpu += cpuNanos() - c0
					mem = float64(heapInUse()-before) / float64(n)
					runtime.KeepAlive(m)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/id")
				b.ReportMetric(float64(cpu)/float64(b.N)/float64(n), "cpu-ns/id")
				b.ReportMetric(mem, "B/id")
			})
		}
	}
}
