package redact

import "golang.org/x/sys/cpu"

// pairMaskAVX2 is in anchors_amd64.s.
//
//go:noescape
func pairMaskAVX2(s []byte) (off int, mask uint32)

var haveAVX2 = cpu.X86.HasAVX2

// pairMask is pairMaskAVX2 where the processor has AVX2; ok is false
// where it has not.
func pairMask(s []byte) (off int, mask uint32, ok bool) {
	if !haveAVX2 {
		return 0, 0, false
	}
	off, mask = pairMaskAVX2(s)
	return off, mask, true
}
