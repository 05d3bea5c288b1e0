package tracediff

import (
	"strings"
)

// hunker builds a unified diff while the files stream by: it keeps the
// last few equal lines for the next hunk's leading context, and closes a
// hunk once more than 2×context equal lines follow its last change. Lines
// are cut (maxLine bytes) and made terminal-safe as they are kept, so its
// memory is bounded by the hunks it writes.
type hunker struct {
	context int
	maxLine int
	out     strings.Builder

	ring []diffLine // the last equal lines, at most context
	cur  []diffLine // the open hunk
	tail int        // equal lines at the end of cur since its last change
	open bool
	done bool // no more hunks may open
}

// diffLine is one line of a hunk: op ' ', '-' or '+', its numbers in the
// expected and actual files (0 when absent), and its text.
type diffLine struct {
	op     byte
	eLine  int
	aLine  int
	text   string
	eCount bool // counts in the expected range
	aCount bool
}

func (h *hunker) line(raw []byte) string {
	return SafeLine(cutText(string(raw), h.maxLine))
}

// same records a line both files have (text from the expected file).
func (h *hunker) same(eLine, aLine int, raw []byte) {
	if h.context <= 0 || (h.done && !h.open) {
		return
	}
	if h.open {
		h.cur = append(h.cur, diffLine{op: ' ', eLine: eLine, aLine: aLine, text: h.line(raw), eCount: true, aCount: true})
		h.tail++
		if h.tail > 2*h.context {
			h.close()
		}
		return
	}
	if len(h.ring) == h.context {
		copy(h.ring, h.ring[1:])
		h.ring = h.ring[:len(h.ring)-1]
	}
	h.ring = append(h.ring, diffLine{op: ' ', eLine: eLine, aLine: aLine, text: h.line(raw), eCount: true, aCount: true})
}

// change records a changed, missing (a nil) or extra (e nil) event's lines.
func (h *hunker) change(eLine int, e []byte, aLine int, a []byte) {
	if h.done {
		return
	}
	if !h.open {
		h.open = true
		h.cur = append(h.cur[:0], h.ring...)
		h.ring = h.ring[:0]
	}
	h.tail = 0
	// A side without the event passes the line it follows, which numbers
	// an empty range as diff -u does ("@@ -3,0 +4 @@").
	if e != nil {
		h.cur = append(h.cur, diffLine{op: '-', eLine: eLine, aLine: aLine, text: h.line(e), eCount: true})
	}
	if a != nil {
		h.cur = append(h.cur, diffLine{op: '+', eLine: eLine, aLine: aLine, text: h.line(a), aCount: true})
	}
}

// stop lets the open hunk take its trailing context and opens no more.
func (h *hunker) stop() { h.done = true }

// close writes the open hunk with at most context trailing lines; the
// equal lines after those become the next hunk's leading context.
func (h *hunker) close() {
	if !h.open {
		return
	}
	keep := len(h.cur) - h.tail + min(h.tail, h.context)
	rest := h.cur[keep:]
	h.write(h.cur[:keep])
	h.ring = h.ring[:0]
	if n := len(rest); n > h.context {
		rest = rest[n-h.context:]
	}
	h.ring = append(h.ring, rest...)
	h.cur, h.open, h.tail = h.cur[:0], false, 0
}

func (h *hunker) write(ls []diffLine) {
	eStart, aStart, eN, aN := 0, 0, 0, 0
	for _, l := range ls {
		if l.eCount {
			if eN == 0 {
				eStart = l.eLine
			}
			eN++
		}
		if l.aCount {
			if aN == 0 {
				aStart = l.aLine
			}
			aN++
		}
	}
	if eN == 0 {
		eStart = ls[0].eLine
	}
	if aN == 0 {
		aStart = ls[0].aLine
	}
	h.out.WriteString("@@ -")
	writeRange(&h.out, eStart, eN)
	h.out.WriteString(" +")
	writeRange(&h.out, aStart, aN)
	h.out.WriteString(" @@\n")
	for _, l := range ls {
		h.out.WriteByte(l.op)
		h.out.WriteString(l.text)
		h.out.WriteByte('\n')
	}
}

func writeRange(b *strings.Builder, start, n int) {
	b.WriteString(itoa(start))
	if n != 1 {
		b.WriteByte(',')
		b.WriteString(itoa(n))
	}
}

// finish closes the open hunk and returns the diff, headed by the file
// names, or "" when there was no hunk.
func (h *hunker) finish(eName, aName string) string {
	h.close()
	if h.out.Len() == 0 {
		return ""
	}
	return "--- " + SafeLine(eName) + "\n+++ " + SafeLine(aName) + "\n" + h.out.String()
}
