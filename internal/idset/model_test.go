package idset

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// model is the plain map the set must agree with.
type model struct {
	ord map[string]uint64
	pos map[string]uint64
	n   uint64
}

func newModel() *model { return &model{ord: map[string]uint64{}, pos: map[string]uint64{}} }

func (m *model) add(id string, pos uint64) (Entry, bool) {
	if o, ok := m.ord[id]; ok {
		return Entry{Ord: o, Pos: m.pos[id]}, false
	}
	m.ord[id], m.pos[id] = m.n, pos
	m.n++
	return Entry{Ord: m.n - 1, Pos: pos}, true
}

// checker runs the same operations on a Set and a model and fails on the
// first disagreement. Positions come from src, which the set reads back
// from when it is in Source mode or was decoded.
type checker struct {
	t   testing.TB
	s   *Set
	m   *model
	opt Options
	src *memSource
	buf []byte // ids are passed as views of it, then it is overwritten
}

// view returns id as a string sharing c.buf, as a caller that reuses a
// read buffer passes it; scribble overwrites it after the call, so that a
// set keeping the caller's bytes instead of a copy is caught.
func (c *checker) view(id string) string {
	c.buf = append(c.buf[:0], id...)
	return bytesView(c.buf)
}

func (c *checker) scribble() {
	for i := range c.buf {
		c.buf[i] = '#'
	}
}

func newChecker(t testing.TB, opt Options, sourceMode bool) *checker {
	c := &checker{t: t, m: newModel(), src: newMemSource()}
	if sourceMode {
		opt.Source = c.src
	}
	if opt.Dir == "" {
		opt.Dir = t.TempDir()
	}
	c.opt = opt
	c.s = New(opt)
	t.Cleanup(func() { c.s.Close() })
	return c
}

// wantPos is the position the set reports for id.
func (c *checker) wantPos(id string, e Entry) Entry {
	if c.s.hasStyle && !c.opt.CounterPositions {
		if k, ok := c.s.style.parse(id); ok {
			if o, ok := c.s.style.ordinal(k); ok && o == e.Ord && c.s.bits.has(o) {
				e.Pos = NoPos
			}
		}
	}
	return e
}

func (c *checker) add(id string) {
	c.t.Helper()
	pos := c.src.next()
	if _, seen := c.m.ord[id]; !seen {
		c.src.put(id)
	}
	want, wantAdded := c.m.add(id, pos)
	got, added, err := c.s.Add(c.view(id), pos)
	c.scribble()
	if err != nil {
		c.t.Fatalf("Add(%q): %v", short(id), err)
	}
	want = c.wantPos(id, want)
	if added != wantAdded || got != want {
		c.t.Fatalf("Add(%q) = %+v, %v; want %+v, %v", short(id), got, added, want, wantAdded)
	}
}

func (c *checker) lookup(id string) {
	c.t.Helper()
	o, ok := c.m.ord[id]
	got, gotOK, err := c.s.Lookup(c.view(id))
	c.scribble()
	if err != nil {
		c.t.Fatalf("Lookup(%q): %v", short(id), err)
	}
	if gotOK != ok {
		c.t.Fatalf("Lookup(%q) found=%v, want %v (after %d ids)", short(id), gotOK, ok, c.m.n)
	}
	if ok {
		want := c.wantPos(id, Entry{Ord: o, Pos: c.m.pos[id]})
		if got != want {
			c.t.Fatalf("Lookup(%q) = %+v, want %+v", short(id), got, want)
		}
	}
}

// reload encodes the set and goes on with the decoded one, which reads
// ids back from src.
func (c *checker) reload() {
	c.t.Helper()
	b, err := c.s.AppendBinary(nil)
	if err != nil {
		c.t.Fatalf("AppendBinary: %v", err)
	}
	// The streamed form is the same bytes, of the length it announces.
	enc, err := c.s.Encode()
	if err != nil {
		c.t.Fatalf("Encode: %v", err)
	}
	var streamed bytes.Buffer
	if n, err := enc.WriteTo(&streamed); err != nil || n != int64(len(b)) || enc.Len() != len(b) || !bytes.Equal(streamed.Bytes(), b) {
		c.t.Fatalf("Encoding.WriteTo: %d bytes (Len %d), err %v, equal to AppendBinary's %d: %v", n, enc.Len(), err, len(b), bytes.Equal(streamed.Bytes(), b))
	}
	opt := c.opt
	opt.Source = c.src
	s, err := Decode(b, opt)
	if err != nil {
		c.t.Fatalf("Decode: %v", err)
	}
	c.s.Close()
	c.s = s
	c.t.Cleanup(func() { s.Close() })
}

func short(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%s...(%d bytes)", s[:40], len(s))
	}
	return s
}

// memSource is a Source over ids kept in memory; the k-th id added has
// position 7k+3.
type memSource struct {
	order []string
	byPos map[uint64]string
}

func newMemSource() *memSource { return &memSource{byPos: map[uint64]string{}} }

func (m *memSource) next() uint64 { return uint64(len(m.order))*7 + 3 }

func (m *memSource) put(id string) {
	m.byPos[m.next()] = id
	m.order = append(m.order, id)
}

func (m *memSource) ReadID(dst []byte, pos uint64) ([]byte, error) {
	id, ok := m.byPos[pos]
	if !ok {
		return dst, fmt.Errorf("no id at %d", pos)
	}
	return append(dst, id...), nil
}

func (m *memSource) EachID(n uint64, fn func([]byte, uint64) error) error {
	for i := uint64(0); i < n && i < uint64(len(m.order)); i++ {
		if err := fn([]byte(m.order[i]), i*7+3); err != nil {
			return err
		}
	}
	return nil
}

func uuidOf(r *rand.Rand) string {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// idStyles generate the i-th id of a stream.
var idStyles = map[string]func(r *rand.Rand, i int) string{
	"uuid":     func(r *rand.Rand, i int) string { return uuidOf(r) },
	"evt-%07d": func(r *rand.Rand, i int) string { return fmt.Sprintf("evt-%07d", i) },
	"evt-%03d": func(r *rand.Rand, i int) string { return fmt.Sprintf("evt-%03d", i) },
	"mixed": func(r *rand.Rand, i int) string {
		switch r.IntN(6) {
		case 0:
			return uuidOf(r)
		case 1:
			return fmt.Sprintf("evt-%03d", r.IntN(i+10))
		case 2:
			return fmt.Sprintf("evt-%07d", r.IntN(i+10))
		case 3:
			return strings.Repeat("x", r.IntN(3))
		case 4:
			return fmt.Sprintf("call_%d", r.IntN(i+1))
		}
		return fmt.Sprintf("evt-%03d", i)
	},
}

func TestDifferentialStyles(t *testing.T) {
	for name, gen := range idStyles {
		for _, small := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/small=%v", name, small), func(t *testing.T) {
				opt := Options{}
				if small {
					opt = Options{Window: 16, WindowBytes: 512, BufferRecords: 64}
				}
				c := newChecker(t, opt, false)
				r := rand.New(rand.NewPCG(1, 2))
				var ids []string
				for i := range 20000 {
					id := gen(r, i)
					ids = append(ids, id)
					c.add(id)
					// A parent: mostly the previous id, sometimes far back,
					// sometimes absent.
					switch r.IntN(10) {
					case 0:
						c.lookup(ids[r.IntN(len(ids))])
					case 1:
						c.lookup(gen(r, i+1))
					default:
						c.lookup(ids[len(ids)-1])
					}
					if r.IntN(50) == 0 {
						c.add(ids[r.IntN(len(ids))]) // a duplicate
					}
				}
				for _, id := range ids[:200] {
					c.lookup(id)
				}
			})
		}
	}
}

// Hashes that collide on purpose: the answers must not change, only the
// work to find them.
var collidingHashes = map[string]func(string) uint64{
	"constant": func(string) uint64 { return 0x8000_0000_0000_0001 },
	"len":      func(id string) uint64 { return uint64(len(id)) * 0x9e3779b97f4a7c15 },
	// Same shard, bucket and fingerprint for ids that share a last byte.
	"lastbyte": func(id string) uint64 {
		if id == "" {
			return 0
		}
		return uint64(id[len(id)-1]) << 56
	},
	// Only 12 bits of entropy.
	"12bits": func(id string) uint64 { return sipHash13(DefaultKey, id) & 0xfff0_0000_0000_0000 },
}

// stream adds n ids of a style, each followed by a lookup of an earlier
// id and of one that is (most likely) absent.
func (c *checker) stream(r *rand.Rand, gen func(*rand.Rand, int) string, n int) {
	c.t.Helper()
	var ids []string
	for i := range n {
		id := gen(r, i)
		ids = append(ids, id)
		c.add(id)
		c.lookup(ids[r.IntN(len(ids))])
		c.lookup(gen(r, i+7))
	}
}

func TestDifferentialCollisions(t *testing.T) {
	for hname, hf := range collidingHashes {
		for name, gen := range idStyles {
			t.Run(hname+"/"+name, func(t *testing.T) {
				c := newChecker(t, Options{Hash: hf, Window: 8, WindowBytes: 256, BufferRecords: 128}, false)
				c.stream(rand.New(rand.NewPCG(3, 4)), gen, 600)
				t.Logf("%+v", c.s.Stats())
			})
		}
	}
}

func TestSourceMode(t *testing.T) {
	for name, gen := range idStyles {
		for _, cp := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/counterPositions=%v", name, cp), func(t *testing.T) {
				c := newChecker(t, Options{CounterPositions: cp, Window: 32, WindowBytes: 1024, BufferRecords: 256}, true)
				c.stream(rand.New(rand.NewPCG(5, 6)), gen, 5000)
			})
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for name, gen := range idStyles {
		for _, mode := range []struct {
			source, counterPos bool
			hash               func(string) uint64
		}{{false, false, nil}, {true, false, nil}, {true, true, nil}, {false, true, nil}, {true, false, collidingHashes["12bits"]}} {
			t.Run(fmt.Sprintf("%s/%+v", name, mode), func(t *testing.T) {
				c := newChecker(t, Options{CounterPositions: mode.counterPos, Hash: mode.hash, Window: 64, WindowBytes: 2048, BufferRecords: 512, CheckpointWindow: 16}, mode.source)
				r := rand.New(rand.NewPCG(7, 8))
				var ids []string
				for round := range 4 {
					for i := range 3000 {
						id := gen(r, len(ids))
						ids = append(ids, id)
						c.add(id)
						c.lookup(ids[len(ids)-1-r.IntN(min(len(ids), 20))])
						if i%100 == 0 {
							c.lookup(ids[r.IntN(len(ids))])
							c.lookup(gen(r, len(ids)+5))
						}
					}
					c.reload()
					if round%2 == 0 {
						for _, id := range ids[:50] {
							c.lookup(id)
						}
					}
				}
			})
		}
	}
}
