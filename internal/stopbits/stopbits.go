// Package stopbits marks, one bit per byte, where a JSON string scanner
// must stop: at a quote, a backslash, a control character (below 0x20) or
// a byte of a multi-byte UTF-8 sequence (0x80 and above). Everything else
// in a string is copied or skipped as it is, so a scanner that knows these
// bits finds a string's end, or the next byte it must look at, with a word
// load and a trailing-zero count instead of a test of every byte.
//
// Fill marks src into dst: bit j of dst[k] stands for src[64k+j]. Where
// AVX2 is at hand (amd64) 64 bytes are marked by a few vector
// instructions (the last partial word from a padded copy); elsewhere by
// eight-bytes-at-a-time bit tests, which may also mark a byte that is none
// of the four when a true stop lies below it in the same eight bytes. A
// scanner looks at the byte it stops at anyway (to tell a quote from a
// backslash), and steps over such a false stop. Bits for bytes past the
// end of src are zero; no stop is ever missed.
package stopbits

import "encoding/binary"

// Words returns how many words Fill needs for n bytes.
func Words(n int) int { return (n + 63) >> 6 }

// Fill marks src into dst[:Words(len(src))]; it panics if dst is shorter.
func Fill(dst []uint64, src []byte) {
	words := Words(len(src))
	dst = dst[:words]
	full := len(src) >> 6
	done := fillVector(dst[:full], src[:full<<6])
	if done == full && full < words {
		// The last partial word goes through the vector pass too, from a
		// copy padded with spaces (which mark nothing): reading past the
		// end of src is not allowed.
		var pad [64]byte
		n := copy(pad[:], src[full<<6:])
		for j := n; j < len(pad); j++ {
			pad[j] = ' '
		}
		if fillVector(dst[full:words], pad[:]) == 1 {
			return
		}
	}
	for k := done; k < words; k++ {
		dst[k] = portable(src[k<<6 : min(len(src), (k+1)<<6)])
	}
}

// Bit tricks for 8 bytes at once: a byte's top bit in the word is set
// when the byte is >= 0x80, < 0x20, '"' or '\\' (a borrow may also set
// the top bit of a byte above such a one: a false stop, never a missed
// one).
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// portable marks up to 64 bytes.
func portable(p []byte) uint64 {
	var w uint64
	for j := 0; j < len(p); j += 8 {
		var x uint64
		if j+8 <= len(p) {
			x = binary.LittleEndian.Uint64(p[j:])
		} else {
			var b [8]byte
			copy(b[:], p[j:])
			// Padding bytes are spaces: they mark nothing.
			for t := len(p) - j; t < 8; t++ {
				b[t] = ' '
			}
			x = binary.LittleEndian.Uint64(b[:])
		}
		m := (x | (x - 0x20*lsb) | (x ^ '"'*lsb - lsb) | (x ^ '\\'*lsb - lsb)) & msb
		// Gather the 8 top bits into one byte.
		w |= ((m >> 7) * 0x0102040810204080 >> 56) << uint(j)
	}
	if len(p) < 64 {
		w &= 1<<uint(len(p)) - 1
	}
	return w
}
