package stopbits

import "golang.org/x/sys/cpu"

// fill64AVX2 is in stopbits_amd64.s.
//
//go:noescape
func fill64AVX2(dst *uint64, src *byte, words int)

// hasAVX2 says whether fillVector has a vector pass here.
var hasAVX2 = cpu.X86.HasAVX2

// fillVector marks len(dst) full words of src and returns how many it
// marked: all of them with AVX2, none without.
func fillVector(dst []uint64, src []byte) int {
	if !hasAVX2 || len(dst) == 0 {
		return 0
	}
	fill64AVX2(&dst[0], &src[0], len(dst))
	return len(dst)
}
