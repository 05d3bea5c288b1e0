//go:build !amd64

package redact

// vectorPairs says whether pairMask has a vector pass here.
const vectorPairs = false

// pairMask has no vector pass here: it finds nothing, and leaves the whole
// of s as the tail.
func pairMask(s []byte) (off int, mask uint32) { return 0, 0 }
