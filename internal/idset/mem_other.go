//go:build !unix

package idset

func allocWords(n int) []uint64 { return make([]uint64, n) }

func freeWords([]uint64) {}
