//go:build !amd64

package stopbits

// hasAVX2 is false here: there is no vector pass.
var hasAVX2 = false

// fillVector has no vector pass here: it marks nothing.
func fillVector(dst []uint64, src []byte) int { return 0 }
