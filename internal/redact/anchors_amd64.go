package redact

import "golang.org/x/sys/cpu"

// anchorBlockAVX2 is in anchors_amd64.s.
//
//go:noescape
func anchorBlockAVX2(s []byte) int

var haveAVX2 = cpu.X86.HasAVX2

// anchorBlock returns the offset of the first 32-byte block of s in which a
// pair of anchorPairs may begin, or of the tail of fewer than 33 bytes the
// blocks leave; ok is false where the processor has no AVX2 (then the
// caller searches as anchorsGeneric does).
func anchorBlock(s []byte) (off int, ok bool) {
	if !haveAVX2 {
		return 0, false
	}
	return anchorBlockAVX2(s), true
}
