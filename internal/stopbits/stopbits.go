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

import (
	"encoding/binary"
	"math/bits"
)

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
		pad := spaces
		copy(pad[:], src[full<<6:])
		if fillVector(dst[full:words], pad[:]) == 1 {
			return
		}
	}
	for k := done; k < words; k++ {
		dst[k] = portable(src[k<<6 : min(len(src), (k+1)<<6)])
	}
}

// spaces pads the last partial word for the vector pass.
var spaces = [64]byte{' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '}

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

// WindowBytes is how many bytes of a text one Window holds the bits of: a
// window's bits (WindowBytes/8 bytes) stay in the first-level cache.
const WindowBytes = 16 << 10

// Window holds the stop bits of one window of a text, marked when a scan
// reaches it: Quick and Next are all a string scanner needs.
// The zero Window is ready for a text; Reset makes it ready for another.
type Window struct {
	bits      []uint64
	base, end int // the bits are of src[base:end]; base is a multiple of 64
}

// Reset forgets the bits of the last text.
func (w *Window) Reset() { w.base, w.end = 0, 0 }

// Quick returns the first stop at or after i when the window has marked
// the word that holds i and the stop is in it; ok is false otherwise, and
// Next decides. It inlines: a scanner asks it first.
func (w *Window) Quick(i int) (stop int, ok bool) {
	if i < w.end && i >= w.base {
		off := i - w.base
		if m := w.bits[off>>6] >> uint(off&63); m != 0 {
			return i + bits.TrailingZeros64(m), true
		}
	}
	return 0, false
}

// Next returns the index of the first stop at or after i in src, or
// len(src) when there is none, marking windows as it goes. All calls
// since the last Reset must be about the same src; a scan that moves
// forward marks each byte once, one that steps back marks again.
func (w *Window) Next(src []byte, i int) int {
	for {
		if i >= w.end || i < w.base {
			if i >= len(src) {
				return len(src)
			}
			w.base = i &^ 63
			w.end = min(len(src), w.base+WindowBytes)
			if w.bits == nil {
				w.bits = make([]uint64, Words(WindowBytes))
			}
			Fill(w.bits, src[w.base:w.end])
		}
		off := i - w.base
		if m := w.bits[off>>6] >> uint(off&63); m != 0 {
			return i + bits.TrailingZeros64(m)
		}
		i = (i | 63) + 1 // the next word: base is a multiple of 64
	}
}
