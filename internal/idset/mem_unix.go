//go:build unix

package idset

import (
	"syscall"
	"unsafe"
)

// Filter tables live outside the Go heap: they are the set's only large
// allocation, they hold no pointers, and a table replaced when its shard
// grows is given back to the system at once. On the heap, the collector's
// pacing would let as much garbage pile up as the tables are large, and a
// freed table would stay resident until the scavenger returned it.

// mmapMin is the size from which a table is mapped rather than allocated.
const mmapMin = 64 << 10

func allocWords(n int) []uint64 {
	if n*8 < mmapMin {
		return make([]uint64, n)
	}
	b, err := syscall.Mmap(-1, 0, n*8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]uint64, n) // no mapping: the heap still works
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
}

func freeWords(w []uint64) {
	if len(w)*8 < mmapMin {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*8)
	if syscall.Munmap(b) != nil {
		// Allocated on the heap after a failed mapping: the collector frees it.
		return
	}
}
