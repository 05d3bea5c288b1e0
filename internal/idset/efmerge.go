package idset

// insert returns the Elias-Fano form of e's values and vals (sorted, p
// bits each), which must keep e's low width (efLowBits of the new count):
// e's bits are copied in blocks around the k new values, each found by a
// select in e's high bits, in time proportional to e's words plus k, not
// to e's values. It is how a decoded set that gained a few ids encodes
// again without decoding its fingerprints one by one (fingerprints).
func (e *ef) insert(vals []uint64) *ef {
	k := uint64(len(vals))
	g := newEFBuilder(e.n+k, e.p)
	l := uint64(e.l)
	var field, bit uint64 // e's next low field and high bit not yet copied
	for m, v := range vals {
		mm := uint64(m)
		b, lo := v>>e.l, v&(1<<e.l-1)
		var pos uint64 // e's high bit of the first value of bucket b
		if b > 0 {
			pos = e.select0(b-1) + 1
		}
		for pos < e.highBits && e.high[pos/64]&(1<<(pos%64)) != 0 && e.lowAt(pos-b) <= lo {
			pos++
		}
		j := pos - b // v's rank among e's values
		copyBits(g.low, (field+mm)*l, e.low, field*l, (j-field)*l)
		if l > 0 {
			putBits(g.low, (j+mm)*l, e.l, lo)
		}
		field = j
		copyBits(g.high, bit+mm, e.high, bit, pos-bit)
		g.high[(pos+mm)/64] |= 1 << ((pos + mm) % 64)
		bit = pos
	}
	copyBits(g.low, (field+k)*l, e.low, field*l, (e.n-field)*l)
	copyBits(g.high, bit+k, e.high, bit, e.highBits-bit)
	return g
}

// copyBits ORs the n bits of src from bit sOff into dst from bit dOff:
// the bits up to a word boundary of dst, then whole words of dst each
// made of two shifted words of src.
func copyBits(dst []uint64, dOff uint64, src []uint64, sOff, n uint64) {
	if r := dOff % 64; r != 0 && n > 0 {
		k := min(64-r, n)
		putBits(dst, dOff, uint(k), getBits(src, sOff, uint(k)))
		dOff, sOff, n = dOff+k, sOff+k, n-k
	}
	di, si, sh := dOff/64, sOff/64, sOff%64
	for ; n >= 64; n -= 64 {
		w := src[si] >> sh
		if sh != 0 {
			w |= src[si+1] << (64 - sh)
		}
		dst[di] |= w
		di++
		si++
	}
	if n > 0 {
		putBits(dst, di*64, uint(n), getBits(src, si*64+sh, uint(n)))
	}
}
