//go:build !amd64

package idset

import "unsafe"

// prefetch does nothing here.
func prefetch(p unsafe.Pointer) {}
