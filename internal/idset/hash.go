package idset

import (
	"encoding/binary"
	"math/bits"
)

// Key is the 128-bit key of the set's hash, SipHash-1-3 (Aumasson and
// Bernstein's SipHash with one compression and three finalization rounds).
// The hash only decides where an id is looked for; answers never depend on
// it being collision-free (see the package doc), so a fixed default key
// keeps encodings reproducible, and a secret key only makes it harder to
// craft ids that slow the set down.
type Key [2]uint64

// DefaultKey is used when Options.Key is zero.
var DefaultKey = Key{0x7472616365636865, 0x636b2d6964736574}

// sipHash13 is SipHash-1-3 of s under key k.
func sipHash13(k Key, s string) uint64 {
	v0 := k[0] ^ 0x736f6d6570736575
	v1 := k[1] ^ 0x646f72616e646f6d
	v2 := k[0] ^ 0x6c7967656e657261
	v3 := k[1] ^ 0x7465646279746573
	n := len(s)
	for len(s) >= 8 {
		m := binary.LittleEndian.Uint64([]byte(s[:8]))
		v3 ^= m
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0 ^= m
		s = s[8:]
	}
	m := uint64(n) << 56
	for i := len(s) - 1; i >= 0; i-- {
		m |= uint64(s[i]) << (8 * i)
	}
	v3 ^= m
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0 ^= m
	v2 ^= 0xff
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	return v0 ^ v1 ^ v2 ^ v3
}

func sipRound(v0, v1, v2, v3 uint64) (uint64, uint64, uint64, uint64) {
	v0 += v1
	v1 = bits.RotateLeft64(v1, 13)
	v1 ^= v0
	v0 = bits.RotateLeft64(v0, 32)
	v2 += v3
	v3 = bits.RotateLeft64(v3, 16)
	v3 ^= v2
	v0 += v3
	v3 = bits.RotateLeft64(v3, 21)
	v3 ^= v0
	v2 += v1
	v1 = bits.RotateLeft64(v1, 17)
	v1 ^= v2
	v2 = bits.RotateLeft64(v2, 32)
	return v0, v1, v2, v3
}
