//go:build !amd64

package redact

func pairMask(s []byte) (off int, mask uint32, ok bool) { return 0, 0, false }
