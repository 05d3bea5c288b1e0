package stopbits

import (
	"math/rand/v2"
	"testing"
)

func isStop(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }

// check compares Fill's bits with the definition: every stop marked, and
// any other mark (a false stop) above a true one in the same eight bytes,
// and none at all where exact is asked for.
func check(t *testing.T, src []byte, exact bool) {
	t.Helper()
	dst := make([]uint64, Words(len(src))+1)
	dst[len(dst)-1] = 0xdeadbeef // a guard Fill must not touch
	Fill(dst, src)
	if dst[len(dst)-1] != 0xdeadbeef {
		t.Fatalf("len %d: Fill wrote past Words(n)", len(src))
	}
	for k := 0; k < Words(len(src))*64; k++ {
		got := dst[k>>6]>>uint(k&63)&1 == 1
		if k >= len(src) {
			if got {
				t.Fatalf("len %d: bit %d past the end is set", len(src), k)
			}
			continue
		}
		want := isStop(src[k])
		switch {
		case want && !got:
			t.Fatalf("len %d: byte %d (0x%02x) is a stop, not marked", len(src), k, src[k])
		case got && !want && exact:
			t.Fatalf("len %d: byte %d (0x%02x) marked, not a stop", len(src), k, src[k])
		case got && !want:
			below := false
			for j := k &^ 7; j < k; j++ {
				below = below || isStop(src[j])
			}
			if !below {
				t.Fatalf("len %d: byte %d (0x%02x) marked with no stop below it in its eight bytes", len(src), k, src[k])
			}
		}
	}
}

func TestFill(t *testing.T) {
	alphabet := []byte("ab \"\\\x00\x1f\x20\x21\x7f\x80\xc3\xa9\xff\x5b\x5d\x23\x5d\x5c")
	for _, vector := range []bool{false, true} {
		if vector && !hasAVX2 {
			t.Log("no AVX2 here: the vector pass is not tested")
			continue
		}
		t.Run(map[bool]string{false: "portable", true: "vector"}[vector], func(t *testing.T) {
			saved := hasAVX2
			hasAVX2 = vector
			defer func() { hasAVX2 = saved }()
			r := rand.New(rand.NewPCG(1, 2))
			for n := 0; n < 300; n++ {
				for rep := 0; rep < 20; rep++ {
					src := make([]byte, n)
					density := r.IntN(8) // how often a byte comes from the alphabet's tricky end
					for i := range src {
						if r.IntN(8) < density {
							src[i] = alphabet[r.IntN(len(alphabet))]
						} else {
							src[i] = byte(r.IntN(256))
						}
					}
					check(t, src, vector)
				}
			}
			// Every byte value at every position of a word.
			for c := 0; c < 256; c++ {
				for pos := 0; pos < 64; pos++ {
					src := make([]byte, 64)
					for i := range src {
						src[i] = 'a'
					}
					src[pos] = byte(c)
					check(t, src, true)
				}
			}
		})
	}
}

// TestWindow walks texts longer than a window the way a scanner does,
// from stop to stop, and checks that no stop is passed over and that Quick
// agrees with Next where it answers.
func TestWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, vector := range []bool{false, true} {
		if vector && !hasAVX2 {
			continue
		}
		saved := hasAVX2
		hasAVX2 = vector
		var w Window
		for _, n := range []int{0, 1, 63, 64, 65, WindowBytes - 1, WindowBytes, WindowBytes + 1, 3*WindowBytes + 17} {
			src := make([]byte, n)
			for i := range src {
				src[i] = 'a'
				if r.IntN(50) == 0 {
					src[i] = "\"\\\x01\xc3"[r.IntN(4)]
				}
			}
			w.Reset()
			for i, steps := 0, 0; i <= n && steps < 4*n+8; steps++ {
				q, ok := w.Quick(i)
				got := w.Next(src, i)
				if ok && q != got {
					t.Fatalf("vector %v, len %d: Quick(%d) = %d, Next = %d", vector, n, i, q, got)
				}
				for k := i; k < got; k++ {
					if isStop(src[k]) {
						t.Fatalf("vector %v, len %d: Next(%d) = %d passes the stop at %d", vector, n, i, got, k)
					}
				}
				if got == n {
					break
				}
				if vector && !isStop(src[got]) {
					t.Fatalf("vector %v, len %d: Next(%d) = %d, not a stop", vector, n, i, got)
				}
				i = got + 1 + r.IntN(3)
				if r.IntN(20) == 0 {
					i = r.IntN(n + 1) // a step back, or far ahead
				}
			}
		}
		hasAVX2 = saved
	}
}
