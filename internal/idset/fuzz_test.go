package idset

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// fuzzHashes are the hashes a fuzz input may pick: the real one and ones
// that collide on purpose (in the shard, the bucket, the fingerprint, the
// partition, or everywhere).
var fuzzHashes = []func(string) uint64{
	nil,
	collidingHashes["constant"],
	collidingHashes["len"],
	collidingHashes["lastbyte"],
	collidingHashes["12bits"],
	func(id string) uint64 { return sipHash13(DefaultKey, id) & 0xffff_ffff_0000_0000 }, // same bucket index
	func(id string) uint64 { return sipHash13(DefaultKey, id) | 0xffff_0000_0000 },      // same fingerprint
}

// opStream turns fuzz bytes into a stream of choices.
type opStream struct {
	b []byte
	r *rand.Rand
}

func (o *opStream) byte() byte {
	if len(o.b) == 0 {
		return byte(o.r.Uint32())
	}
	c := o.b[0]
	o.b = o.b[1:]
	return c
}

// id makes an id from the next choices: fresh ones of several styles,
// earlier ones, near-duplicates of earlier ones (padding, one byte
// changed, a suffix), empty and very long ones.
func (o *opStream) id(ids []string) string {
	c := o.byte()
	k := int(o.byte())
	prev := func() string {
		if len(ids) == 0 {
			return ""
		}
		return ids[len(ids)-1-min(k, len(ids)-1)]
	}
	switch c % 16 {
	case 0, 1, 2:
		return fmt.Sprintf("evt-%03d", len(ids)) // the reference's own
	case 3, 4:
		return fmt.Sprintf("evt-%07d", len(ids))
	case 5:
		return fmt.Sprintf("evt-%0*d", int(o.byte()%9), k) // other paddings of small numbers
	case 6:
		return uuidOf(o.r)
	case 7:
		return prev() // a duplicate
	case 8:
		p := prev()
		if p == "" {
			return "x"
		}
		b := []byte(p)
		b[int(o.byte())%len(b)] ^= 1 << (o.byte() % 8) // one bit away
		return string(b)
	case 9:
		return "0" + prev() // padding
	case 10:
		return prev() + string(rune('a'+c%3))
	case 11:
		return ""
	case 12:
		return strings.Repeat(string(rune('a'+k%3)), 1+int(o.byte())*int(o.byte()%32))
	case 13:
		return fmt.Sprintf("call_%d", k)
	case 14:
		return fmt.Sprintf("%d", k) // all digits
	}
	return fmt.Sprintf("evt-%d", len(ids)) // unpadded
}

func runOps(t *testing.T, data []byte) {
	if len(data) < 3 {
		return
	}
	o := &opStream{b: data[3:], r: rand.New(rand.NewPCG(uint64(data[0]), uint64(data[1])))}
	cfg := data[2]
	opt := Options{
		Hash:             fuzzHashes[int(cfg)%len(fuzzHashes)],
		CounterPositions: cfg&0x10 != 0,
		Window:           1 + int(cfg>>5)*3,
		WindowBytes:      256,
		BufferRecords:    256 * (1 + int(cfg>>6)),
		CheckpointWindow: 4,
		Dir:              os.TempDir(), // spill files are unlinked at once
	}
	c := newChecker(t, opt, cfg&0x08 != 0)
	var ids []string
	ops := 0
	for len(o.b) > 0 && ops < 600 {
		ops++
		switch op := o.byte(); op % 8 {
		case 0, 1, 2, 3:
			id := o.id(ids)
			ids = append(ids, id)
			c.add(id)
		case 4, 5, 6:
			c.lookup(o.id(ids))
		case 7:
			if op < 32 {
				c.reload()
			}
		}
	}
	for _, id := range ids {
		c.lookup(id)
	}
}

// FuzzDifferential checks that the set agrees exactly with a map (found or
// not, ordinal, position) on streams of adds, lookups and encode/decode
// round trips, under the real hash and under hashes that collide.
func FuzzDifferential(f *testing.F) {
	r := rand.New(rand.NewPCG(13, 14))
	for i := range 24 {
		b := make([]byte, 40+i*40)
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		b[2] = byte(i * 37)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		runOps(t, data)
	})
}

// FuzzDecode feeds Decode damaged encodings (with a valid checksum, so the
// parser itself is exercised): it must return an error or a set that
// answers without panicking, never crash or allocate beyond its bound.
func FuzzDecode(f *testing.F) {
	for i, gen := range []string{"uuid", "evt-%07d", "evt-%03d", "mixed"} {
		s := New(Options{Source: newMemSource(), Dir: f.TempDir(), CheckpointWindow: 3})
		r := rand.New(rand.NewPCG(uint64(i), 1))
		for j := range 50 + 30*i {
			s.Add(idStyles[gen](r, j), uint64(j))
		}
		b, err := s.AppendBinary(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
		f.Add(b, true)
		s.Close()
	}
	f.Fuzz(func(t *testing.T, b []byte, fix bool) {
		if fix && len(b) >= 4 {
			b = fixCRC(b)
		}
		src := newMemSource()
		s, err := Decode(b, Options{Source: src, Dir: os.TempDir(), MaxLen: 1 << 20})
		if err != nil {
			return
		}
		defer s.Close()
		for _, id := range []string{"evt-000", "evt-0000001", "x", ""} {
			s.Lookup(id) // may fail: the Source holds nothing
		}
		if _, err := s.AppendBinary(nil); err != nil && s.err == nil {
			t.Fatalf("re-encoding a decoded set: %v", err)
		}
	})
}

// fixCRC recomputes the trailing checksum and the body length of b.
func fixCRC(b []byte) []byte {
	b = append([]byte(nil), b...)
	if len(b) > len(magic) {
		if _, n := binary.Uvarint(b[len(magic):]); n > 0 {
			body := uint64(len(b) - len(magic) - n - 4)
			var lb []byte
			lb = binary.AppendUvarint(lb, body)
			if len(lb) == n {
				copy(b[len(magic):], lb)
			}
		}
	}
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crcTable))
	return b
}
