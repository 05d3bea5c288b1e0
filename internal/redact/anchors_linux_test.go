//go:build linux

package redact

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestMayHoldReadsNothingPastTheText: texts of every length that end
// where an unreadable page begins are searched without a fault, so the
// vector pass reads no byte past the text's end.
func TestMayHoldReadsNothingPastTheText(t *testing.T) {
	page := unix.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	if err := unix.Mprotect(mem[page:], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat(`gh_p xo":`, 40)
	for n := 0; n <= 200; n++ {
		text := mem[page-n : page : page]
		copy(text, body)
		if mayHoldByPairs(text) != bySearch(text) {
			t.Fatalf("%d bytes: the two searches disagree", n)
		}
	}
}
