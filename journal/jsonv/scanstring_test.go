package jsonv

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// refScanString is scanString as it was before its common cases came first; it scans a string whose content starts at i and returns the index
// of its closing quote and whether it contains escapes.
func refScanString(src []byte, i int) (int, bool, *SyntaxError) {
	n := len(src)
	esc := false
	for {
		// Skip 8 plain bytes at a time. A byte's top bit in m is set if
		// it is >= 0x80, or < 0x20, '"' or '\\' (the subtractions
		// borrow). Bytes above a hit may be flagged falsely by a borrow,
		// but bytes below one cannot be, so the lowest flag is exact.
		for i+8 <= n {
			x := binary.LittleEndian.Uint64(src[i:])
			m := (x | (x - 0x20*lsb) | (x ^ '"'*lsb - lsb) | (x ^ '\\'*lsb - lsb)) & msb
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= n {
			return 0, false, errEOF(n)
		}
		c := src[i]
		switch {
		case c == '"':
			return i, esc, nil
		case c == '\\':
			esc = true
			if i+1 >= n {
				return 0, false, errEOF(n)
			}
			switch src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r := hex4(src[i+2:])
				if r < 0 {
					if n-(i+2) < 4 && allHex(src[i+2:]) {
						return 0, false, errEOF(n)
					}
					return 0, false, &SyntaxError{Offset: i, Code: ErrInvalidJSON, Msg: `invalid \u escape: want 4 hex digits`}
				}
				switch {
				case r >= 0xD800 && r < 0xDC00:
					if i+12 > n || src[i+6] != '\\' || src[i+7] != 'u' {
						return 0, false, errSurrogate(src, i, r)
					}
					if lo := hex4(src[i+8:]); lo < 0xDC00 || lo > 0xDFFF {
						return 0, false, errSurrogate(src, i, r)
					}
					i += 12
				case r >= 0xDC00 && r <= 0xDFFF:
					return 0, false, errSurrogate(src, i, r)
				default:
					i += 6
				}
			default:
				return 0, false, &SyntaxError{Offset: i, Code: ErrInvalidJSON, Msg: "invalid escape \\" + describeEsc(src, i+1)}
			}
		case c < 0x20:
			return 0, false, &SyntaxError{Offset: i, Code: ErrInvalidJSON, Msg: fmt.Sprintf("unescaped control character U+%04X in string", c)}
		case c < utf8.RuneSelf:
			i++ // a false hit from the word test
		default:
			size := utf8Len(src, i)
			if size == 0 {
				return 0, false, errUTF8(src, i)
			}
			i += size
		}
	}
}

func TestScanStringMatchesReference(t *testing.T) {
	pieces := []string{"a", "bcdefgh", `\"`, `\\`, `\/`, `\n`, `\t`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\udc00x`, `\u12`, `\u12g4`, `\x`, `\`,
		"\x01", "\x1f", "\x7f", "é", "数据", "😀", "\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", `"`, " "}
	r := rand.New(rand.NewPCG(22, 7))
	for n := 0; n < 200000; n++ {
		var b []byte
		for k := r.IntN(24); k > 0; k-- {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		var sc scanner
		e1, x1, err1 := sc.scanString(b, 0)
		e2, x2, err2 := refScanString(b, 0)
		if e1 != e2 || x1 != x2 || fmt.Sprint(err1) != fmt.Sprint(err2) || (err1 == nil) != (err2 == nil) || err1 != nil && err1.Code != err2.Code {
			t.Fatalf("%q: %d %v %v, reference %d %v %v", b, e1, x1, err1, e2, x2, err2)
		}
	}
}
