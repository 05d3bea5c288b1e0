package redact

import "golang.org/x/sys/cpu"

// pairMaskAVX2 is in anchors_amd64.s.
//
//go:noescape
func pairMaskAVX2(s []byte) (off int, mask uint32)

// vectorPairs says whether pairMask has a vector pass here.
var vectorPairs = cpu.X86.HasAVX2

// pairMask finds the first 32-byte block of s where one of mayHold's pairs
// starts (see anchors_amd64.s). Without AVX2 it finds nothing, and leaves
// the whole of s as the tail.
func pairMask(s []byte) (off int, mask uint32) {
	if !vectorPairs {
		return 0, 0
	}
	return pairMaskAVX2(s)
}
