package idset

import "math/bits"

// counterStyle is the one numbering style whose ids a set keeps as bits:
// prefix followed by a decimal number zero-padded to width digits, as
// fmt.Sprintf(prefix+"%0*d", width, k) writes it. Each string matches a
// style in at most one way (parse and format are inverse), which is what
// makes the bits exact. The id numbered k is expected at ordinal
// k-offset; ids that arrive elsewhere take the general path.
type counterStyle struct {
	prefix string
	width  int
	offset int64
	// pre and preMask hold a prefix of at most 8 bytes as a word, when
	// fastPre (see prepare): ids of 8 bytes or more compare it in one load.
	pre, preMask uint64
	fastPre      bool
}

// prepare fills the word form of a short prefix; parse works without it.
func (st *counterStyle) prepare() {
	if p := len(st.prefix); p > 0 && p <= 8 {
		st.pre, st.preMask, st.fastPre = 0, 0, true
		for i := 0; i < p; i++ {
			st.pre |= uint64(st.prefix[i]) << (8 * i)
			st.preMask |= 0xff << (8 * i)
		}
	}
}

// load64 is the first 8 bytes of s, little-endian (one load where the
// compiler can).
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// maxCounterDigits keeps every number below 10^18, well inside int64.
const maxCounterDigits = 18

// splitCounter returns the trailing decimal digits of id and what comes
// before them, when there are 1 to maxCounterDigits digits.
func splitCounter(id string) (prefix, digits string, ok bool) {
	i := len(id)
	for i > 0 && id[i-1] >= '0' && id[i-1] <= '9' {
		i--
	}
	if n := len(id) - i; n == 0 || n > maxCounterDigits {
		return "", "", false
	}
	return id[:i], id[i:], true
}

func atoiDigits(d string) int64 {
	var k int64
	for i := 0; i < len(d); i++ {
		k = k*10 + int64(d[i]-'0')
	}
	return k
}

// styleOf returns the style an id suggests: its digits set the width (a
// number without a leading zero may be wider than its format's width; then
// shorter numbers of that format take the general path, which is exact).
func styleOf(id string, ord uint64) (counterStyle, int64, bool) {
	prefix, d, ok := splitCounter(id)
	if !ok {
		return counterStyle{}, 0, false
	}
	k := atoiDigits(d)
	return counterStyle{prefix: prefix, width: len(d), offset: k - int64(ord)}, k, true
}

// parse returns k when id is exactly the style's id numbered k.
func (st *counterStyle) parse(id string) (int64, bool) {
	p := len(st.prefix)
	if len(id) <= p {
		return 0, false
	}
	if st.fastPre && len(id) >= 8 {
		if load64(id)&st.preMask != st.pre {
			return 0, false
		}
	} else if p <= 8 {
		// Short prefixes (evt-, call_) byte by byte: cheaper than a call.
		for i := 0; i < p; i++ {
			if id[i] != st.prefix[i] {
				return 0, false
			}
		}
	} else if id[:p] != st.prefix {
		return 0, false
	}
	d := id[p:]
	if len(d) < st.width || len(d) > maxCounterDigits || (len(d) > st.width && d[0] == '0') {
		return 0, false
	}
	var k int64
	for i := 0; i < len(d); i++ {
		c := d[i] - '0'
		if c > 9 {
			return 0, false
		}
		k = k*10 + int64(c)
	}
	return k, true
}

// ordinal returns the ordinal at which the id numbered k is kept as a bit.
func (st *counterStyle) ordinal(k int64) (uint64, bool) {
	o := k - st.offset
	if (st.offset < 0 && o < k) || o < 0 { // overflow or before the first id
		return 0, false
	}
	return uint64(o), true
}

// format appends the style's id numbered k: the inverse of parse, which
// TestCounterStyle checks.
func (st *counterStyle) format(dst []byte, k int64) []byte {
	dst = append(dst, st.prefix...)
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + k%10)
		k /= 10
		if k == 0 {
			break
		}
	}
	for n := len(buf) - i; n < st.width; n++ {
		dst = append(dst, '0')
	}
	return append(dst, buf[i:]...)
}

// ordBits is a set of ordinals as a bitset in chunks of chunkBits; a full
// chunk is the shared fullChunk and an empty one nil, so counter ids added
// in order cost a pointer per chunkBits ids.
type ordBits struct {
	chunks []*[chunkWords]uint64
	ones   uint64
}

const (
	chunkWords = 64
	chunkBits  = 64 * chunkWords
)

var fullChunk = func() *[chunkWords]uint64 {
	var c [chunkWords]uint64
	for i := range c {
		c[i] = ^uint64(0)
	}
	return &c
}()

func (b *ordBits) has(o uint64) bool {
	ci := o / chunkBits
	if ci >= uint64(len(b.chunks)) || b.chunks[ci] == nil {
		return false
	}
	w := o % chunkBits
	return b.chunks[ci][w/64]&(1<<(w%64)) != 0
}

// set adds o; it must not be in the set.
func (b *ordBits) set(o uint64) {
	ci := o / chunkBits
	for ci >= uint64(len(b.chunks)) {
		b.chunks = append(b.chunks, nil)
	}
	c := b.chunks[ci]
	if c == nil {
		c = new([chunkWords]uint64)
		b.chunks[ci] = c
	}
	w := o % chunkBits
	c[w/64] |= 1 << (w % 64)
	b.ones++
	if w == chunkBits-1 && c != fullChunk && isFull(c) {
		b.chunks[ci] = fullChunk
	}
}

// setRange adds [lo, hi); none of it may be in the set. Whole chunks become
// fullChunk without allocating.
func (b *ordBits) setRange(lo, hi uint64) {
	for o := lo; o < hi; {
		if o%chunkBits == 0 && hi-o >= chunkBits {
			ci := o / chunkBits
			for ci >= uint64(len(b.chunks)) {
				b.chunks = append(b.chunks, nil)
			}
			b.chunks[ci] = fullChunk
			b.ones += chunkBits
			o += chunkBits
			continue
		}
		b.set(o)
		o++
	}
}

func isFull(c *[chunkWords]uint64) bool {
	for _, w := range c {
		if w != ^uint64(0) {
			return false
		}
	}
	return true
}

// runs calls fn with each maximal run [lo, hi) of set ordinals, in order.
func (b *ordBits) runs(fn func(lo, hi uint64)) {
	var start uint64
	in := false
	for ci, c := range b.chunks {
		base := uint64(ci) * chunkBits
		switch c {
		case nil:
			if in {
				fn(start, base)
				in = false
			}
			continue
		case fullChunk:
			if !in {
				start, in = base, true
			}
			continue
		}
		for wi, w := range c {
			at := base + uint64(wi)*64
			for k := 0; k < 64; {
				if in {
					z := bits.TrailingZeros64(^w >> k)
					if k+z >= 64 {
						break
					}
					k += z
					fn(start, at+uint64(k))
					in = false
				} else {
					z := bits.TrailingZeros64(w >> k)
					if k+z >= 64 {
						break
					}
					k += z
					start, in = at+uint64(k), true
				}
			}
		}
	}
	if in {
		fn(start, uint64(len(b.chunks))*chunkBits)
	}
}
