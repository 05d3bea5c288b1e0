package idset

import "unsafe"

// prefetch asks the processor to bring the cache line at p in; it reads
// nothing Go can see and never faults (prefetch_amd64.s).
//
//go:noescape
func prefetch(p unsafe.Pointer)
