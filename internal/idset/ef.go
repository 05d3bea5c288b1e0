package idset

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"slices"
	"unsafe"
)

// ef is a sorted multiset of n p-bit values in Elias-Fano form: each value's
// low l bits packed in low, and its high part v>>l in unary in high, where
// value i sets bit (v>>l)+i and each of the 2^(p-l) buckets ends with a
// zero. With l = p - ceil(log2 n) that is l+2 bits a value at most, and a
// lookup reads one bucket (about one value). It is the form in which an
// encoded set keeps its ids: the top p bits of each id's hash.
type ef struct {
	n        uint64
	p, l     uint
	low      []uint64
	high     []uint64
	highBits uint64   // n + 2^(p-l)
	samples  []uint64 // position of zero number k*efSample in high
	inPlace  bool     // high is the encoding's own bytes (readWords kept them)
}

const (
	efSample = 256
	maxP     = 60
)

// efLowBits is the low width for n values of p bits.
func efLowBits(n uint64, p uint) uint {
	if n <= 1 {
		return p
	}
	c := uint(bits.Len64(n - 1)) // ceil(log2 n)
	if c >= p {
		return 0
	}
	return p - c
}

func newEFBuilder(n uint64, p uint) *ef {
	l := efLowBits(n, p)
	e := &ef{n: n, p: p, l: l, highBits: n + 1<<(p-l)}
	e.low = make([]uint64, (n*uint64(l)+63)/64)
	e.high = make([]uint64, (e.highBits+63)/64)
	return e
}

// set stores value v as the i-th; values must come in non-decreasing order.
func (e *ef) set(i, v uint64) {
	if e.l > 0 {
		putBits(e.low, i*uint64(e.l), e.l, v&(1<<e.l-1))
	}
	pos := v>>e.l + i
	e.high[pos/64] |= 1 << (pos % 64)
}

func putBits(w []uint64, at uint64, width uint, v uint64) {
	i, off := at/64, at%64
	w[i] |= v << off
	if off+uint64(width) > 64 {
		w[i+1] |= v >> (64 - off)
	}
}

func getBits(w []uint64, at uint64, width uint) uint64 {
	i, off := at/64, at%64
	v := w[i] >> off
	if off+uint64(width) > 64 {
		v |= w[i+1] << (64 - off)
	}
	return v & (1<<width - 1)
}

func (e *ef) lowAt(i uint64) uint64 {
	if e.l == 0 {
		return 0
	}
	return getBits(e.low, i*uint64(e.l), e.l)
}

// index builds the select samples; it checks that high holds exactly n
// ones and 2^(p-l) zeros in its first highBits bits and nothing after.
func (e *ef) index() error {
	bad := errors.New("inconsistent Elias-Fano bits")
	if uint64(len(e.high)) != (e.highBits+63)/64 || uint64(len(e.low)) != (e.n*uint64(e.l)+63)/64 {
		return bad
	}
	if r := e.highBits % 64; r != 0 && e.high[len(e.high)-1]>>r != 0 {
		return bad
	}
	if r := (e.n * uint64(e.l)) % 64; r != 0 && e.low[len(e.low)-1]>>r != 0 {
		return bad
	}
	zerosWant := e.highBits - e.n
	e.samples = make([]uint64, 0, zerosWant/efSample+1)
	var zeros, ones uint64
	for wi, w := range e.high {
		valid := uint64(64)
		if rem := e.highBits - uint64(wi)*64; rem < 64 {
			valid = rem
		}
		z := valid - uint64(bits.OnesCount64(w))
		// Samples whose zero falls in this word.
		for next := uint64(len(e.samples)) * efSample; next < zeros+z; next += efSample {
			e.samples = append(e.samples, uint64(wi)*64+selectZero(w, next-zeros))
		}
		zeros += z
		ones += uint64(bits.OnesCount64(w))
	}
	if ones != e.n || zeros != zerosWant {
		return bad
	}
	return nil
}

// selectZero returns the position of the k-th (0-based) zero bit of w,
// which must have more than k zero bits: a byte at a time, then a table.
func selectZero(w uint64, k uint64) uint64 {
	x := ^w
	for i := uint64(0); i < 64; i += 8 {
		b := uint8(x >> i)
		if c := uint64(bits.OnesCount8(b)); k >= c {
			k -= c
			continue
		}
		return i + uint64(selectInByte[b][k])
	}
	return 64
}

// selectInByte[b][k] is the position of the k-th set bit of b.
var selectInByte = func() (t [256][8]uint8) {
	for b := range 256 {
		k := 0
		for i := range 8 {
			if b&(1<<i) != 0 {
				t[b][k] = uint8(i)
				k++
			}
		}
	}
	return t
}()

// select0 returns the position in high of zero number k (0-based).
func (e *ef) select0(k uint64) uint64 {
	s := k / efSample
	pos := e.samples[s]
	need := k - s*efSample
	if need == 0 {
		return pos
	}
	pos++ // count zeros strictly after the sampled one
	wi := pos / 64
	w := e.high[wi] | (1<<(pos%64) - 1) // bits before pos count as ones
	for {
		z := uint64(64 - bits.OnesCount64(w))
		if z >= need {
			return wi*64 + selectZero(w, need-1)
		}
		need -= z
		wi++
		w = e.high[wi]
	}
}

// seekZero returns the position of zero number k (0-based), counting from
// word *wi, before which there are *zeros zeros; it leaves the cursor at
// the word holding that zero, so that ascending ks cost one pass in all.
// high must hold zero number k (index checked it).
func (e *ef) seekZero(k uint64, wi, zeros *uint64) uint64 {
	for {
		w := e.high[*wi]
		valid := min(e.highBits-*wi*64, 64)
		z := valid - uint64(bits.OnesCount64(w))
		if *zeros+z > k {
			return *wi*64 + selectZero(w, k-*zeros)
		}
		*zeros += z
		*wi++
	}
}

// containsAll reports whether every one of vals (ascending) is one of the
// values: one pass over high, without samples.
func (e *ef) containsAll(vals []uint64) bool {
	var wi, zeros uint64
	for _, v := range vals {
		if e.n == 0 || v>>e.l >= 1<<(e.p-e.l) {
			return false
		}
		b, lo := v>>e.l, v&(1<<e.l-1)
		var pos uint64
		if b > 0 {
			pos = e.seekZero(b-1, &wi, &zeros) + 1
		}
		found := false
		for ; pos < e.highBits && e.high[pos/64]&(1<<(pos%64)) != 0; pos++ {
			if e.lowAt(pos-b) == lo {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// contains reports whether v is one of the values.
func (e *ef) contains(v uint64) bool {
	if e.n == 0 {
		return false
	}
	b := v >> e.l
	lo := v & (1<<e.l - 1)
	var pos uint64
	if b > 0 {
		pos = e.select0(b-1) + 1
	}
	for pos < e.highBits && e.high[pos/64]&(1<<(pos%64)) != 0 {
		if e.lowAt(pos-b) == lo {
			return true
		}
		pos++
	}
	return false
}

// efIter yields the values in order.
type efIter struct {
	e   *ef
	i   uint64
	pos uint64
}

func (it *efIter) next() (uint64, bool) {
	e := it.e
	if it.i >= e.n {
		return 0, false
	}
	for {
		w := e.high[it.pos/64] >> (it.pos % 64)
		if w != 0 {
			it.pos += uint64(bits.TrailingZeros64(w))
			break
		}
		it.pos += 64 - it.pos%64
	}
	v := (it.pos-it.i)<<e.l | e.lowAt(it.i)
	it.i++
	it.pos++
	return v, true
}

// appendWords appends the words little-endian.
func appendWords(b []byte, w []uint64) []byte {
	if len(w) == 0 {
		return b
	}
	start := len(b)
	b = slices.Grow(b, 8*len(w))[:start+8*len(w)]
	if littleEndianHost {
		copy(b[start:], unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 8*len(w)))
		return b
	}
	for i, x := range w {
		binary.LittleEndian.PutUint64(b[start+8*i:], x)
	}
	return b
}

// readWords reads n little-endian words from b (8n bytes); with keep, the
// words are b itself when b is 8-byte aligned on a little-endian host.
func readWords(b []byte, n uint64, keep bool) []uint64 {
	if keep && n > 0 && littleEndianHost && uint64(len(b)) >= 8*n && uintptr(unsafe.Pointer(&b[0]))%8 == 0 {
		return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
	}
	w := make([]uint64, n)
	if n == 0 {
		return w
	}
	if littleEndianHost {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 8*n), b)
		return w
	}
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return w
}

var littleEndianHost = binary.NativeEndian.Uint16([]byte{1, 0}) == 1
