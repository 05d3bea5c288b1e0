package idset

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
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
		g.buf = (&counterStyle{prefix: "evt-", width: 7}).format(g.buf[:0], int64(i))
	case "evt-%03d":
		g.buf = (&counterStyle{prefix: "evt-", width: 3}).format(g.buf[:0], int64(i))
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

// benchImpl is what the benchmarks measure: "set" (this package, the
// default), "map" (a Go map[string]uint64) or "refbits" (the journal
// checker's id set before this package: evt-%03d ids as bits, others in a
// map). Same benchmark names for all, so that benchstat compares them:
//
//	IDSET_BENCH_IMPL=map go test -run '^$' -bench . -count 6 > map.txt
//	go test -run '^$' -bench . -count 6 > set.txt
//	benchstat map.txt set.txt
var benchImpl = func() string {
	if v := os.Getenv("IDSET_BENCH_IMPL"); v != "" {
		return v
	}
	return "set"
}()

// ids is what the benchmarks need of either implementation.
type ids interface {
	lookup(id string) bool
	add(id string, pos uint64) bool
	close()
	memBytes() int64 // besides the Go heap
	diskBytes() int64
}

type setIDs struct{ s *Set }

func (x setIDs) lookup(id string) bool {
	_, ok, err := x.s.Lookup(id)
	if err != nil {
		panic(err)
	}
	return ok
}

func (x setIDs) add(id string, pos uint64) bool {
	_, added, err := x.s.Add(id, pos)
	if err != nil {
		panic(err)
	}
	return added
}
func (x setIDs) close()           { x.s.Close() }
func (x setIDs) memBytes() int64  { return x.s.Stats().FilterBytes }
func (x setIDs) diskBytes() int64 { return x.s.Stats().SpillBytes }

type mapIDs map[string]uint64

func (m mapIDs) lookup(id string) bool { _, ok := m[id]; return ok }
func (m mapIDs) add(id string, pos uint64) bool {
	if _, ok := m[id]; ok {
		return false
	}
	m[string([]byte(id))] = pos // a copy: id is a view of a reused buffer
	return true
}
func (m mapIDs) close()           {}
func (m mapIDs) memBytes() int64  { return 0 }
func (m mapIDs) diskBytes() int64 { return 0 }

// refBitsIDs is journal's idSet as it was when this package was written
// (journal/check.go's RefEventNumber, a bitset, a map for the rest), the baseline
// that the evt-%03d path must not fall behind.
type refBitsIDs struct {
	bits  []uint64
	other map[string]struct{}
	n     int
}

func refEventNumber(id string) (int, bool) {
	const prefix = "evt-"
	if len(id) < len(prefix)+3 || len(id) > len(prefix)+12 || id[:len(prefix)] != prefix {
		return 0, false
	}
	digits := id[len(prefix):]
	if len(digits) > 3 && digits[0] == '0' {
		return 0, false
	}
	k := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		k = k*10 + int(c-'0')
	}
	return k, true
}

func (x *refBitsIDs) lookup(id string) bool {
	if k, ok := refEventNumber(id); ok && k/64 < len(x.bits) && x.bits[k/64]&(1<<(k%64)) != 0 {
		return true
	}
	_, ok := x.other[id]
	return ok
}

func (x *refBitsIDs) add(id string, pos uint64) bool {
	if x.lookup(id) {
		return false
	}
	x.n++
	if k, ok := refEventNumber(id); ok && k < 2*x.n+1<<16 {
		for k/64 >= len(x.bits) {
			x.bits = append(x.bits, 0)
		}
		x.bits[k/64] |= 1 << (k % 64)
		return true
	}
	x.other[string([]byte(id))] = struct{}{}
	return true
}
func (x *refBitsIDs) close()           {}
func (x *refBitsIDs) memBytes() int64  { return 0 }
func (x *refBitsIDs) diskBytes() int64 { return 0 }

func newIDs(b *testing.B) ids {
	switch benchImpl {
	case "set":
		return setIDs{New(Options{Dir: b.TempDir()})}
	case "map":
		return mapIDs{}
	case "refbits":
		return &refBitsIDs{other: map[string]struct{}{}}
	}
	b.Fatalf("IDSET_BENCH_IMPL=%q: want set, map or refbits", benchImpl)
	return nil
}

// build adds n ids of a style as the journal checker does per event: is
// the parent (the previous id) there, is the id new, add it.
func build(b *testing.B, x ids, style string, n int) {
	g := newIDGen(style, 1)
	prev := ""
	for i := range n {
		if prev != "" && !x.lookup(prev) {
			b.Fatalf("parent %q not found", prev)
		}
		id := g.id(i)
		if !x.add(id, uint64(i)) {
			b.Fatalf("%q reported as a duplicate", id)
		}
		prev = id
	}
}

// BenchmarkBuild: ns/id and cpu-ns/id (user+system time of the process,
// less sensitive to a busy machine), B/id held at the end (live Go heap
// after a collection plus the filter tables outside it), disk-B/id (the
// spill on disk at the end).
func BenchmarkBuild(b *testing.B) {
	for _, style := range benchStyles {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/n=%d", style, n), func(b *testing.B) {
				var mem, disk float64
				var cpu int64
				for b.Loop() {
					before := heapInUse()
					x := newIDs(b)
					c0 := cpuNanos()
					build(b, x, style, n)
					cpu += cpuNanos() - c0
					mem = float64(heapInUse()-before+uint64(x.memBytes())) / float64(n)
					disk = float64(x.diskBytes()) / float64(n)
					x.close()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/id")
				b.ReportMetric(float64(cpu)/float64(b.N)/float64(n), "cpu-ns/id")
				b.ReportMetric(mem, "B/id")
				b.ReportMetric(disk, "disk-B/id")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

const queryCount = 1 << 16

// BenchmarkLookup: one lookup in a set of n ids of a style: the id just
// added (most parents), one far back (65536 ids in the first half, taken
// in turn, so each is beyond the window again by the time it comes back),
// one never added.
func BenchmarkLookup(b *testing.B) {
	for _, style := range benchStyles {
		for _, n := range benchSizes {
			var x ids
			var queries [3][]string
			b.Run(fmt.Sprintf("%s/n=%d", style, n), func(b *testing.B) {
				x = newIDs(b)
				build(b, x, style, n)
				r := rand.New(rand.NewPCG(7, 7))
				g := newIDGen(style, 1)
				var all []string
				var last string
				for i := range n {
					id := g.id(i)
					if i < n/2 && i%max(n/2/queryCount, 1) == 0 {
						all = append(all, strings.Clone(id))
					}
					if i == n-1 {
						last = strings.Clone(id)
					}
				}
				absent := newIDGen(style, 2)
				r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
				queries[1] = all
				for range queryCount {
					queries[0] = append(queries[0], last)
					q := strings.Clone(absent.id(n + r.IntN(n)))
					if style == "uuid" {
						q = strings.Clone(absent.id(0))
					}
					queries[2] = append(queries[2], q)
				}
				for k, kind := range []string{"recent", "far", "absent"} {
					want := k < 2
					b.Run(kind, func(b *testing.B) {
						i := 0
						for b.Loop() {
							q := queries[k][i%len(queries[k])]
							if x.lookup(q) != want {
								b.Fatalf("%s lookup of %q: want %v", kind, q, want)
							}
							i++
						}
					})
				}
				x.close()
			})
		}
	}
}

// BenchmarkEncode: the encoding of a set of n UUIDs (Source mode, as the
// session store keeps it): bytes per id, time to encode and to decode.
func BenchmarkEncode(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("uuid/n=%d", n), func(b *testing.B) {
			src := newMemSource()
			s := New(Options{Source: src, Dir: b.TempDir()})
			defer s.Close()
			g := newIDGen("uuid", 1)
			for i := range n {
				s.Add(g.id(i), src.next())
				src.put("") // positions only: nothing is read back here
			}
			var enc []byte
			b.Run("encode", func(b *testing.B) {
				for b.Loop() {
					var err error
					if enc, err = s.AppendBinary(enc[:0]); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(enc))/float64(n), "B/id")
			})
			b.Run("decode", func(b *testing.B) {
				dir := b.TempDir()
				for b.Loop() {
					d, err := Decode(enc, Options{Source: src, Dir: dir})
					if err != nil {
						b.Fatal(err)
					}
					d.Close()
				}
			})
		})
	}
}
