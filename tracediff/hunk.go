package tracediff

import (
	"strconv"
	"strings"
	"unicode/utf8"
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

	// ring holds the last equal lines, at most context, as raw prefixes in
	// reused buffers: most equal lines never reach a hunk, so they are only
	// made printable when one opens.
	ring []ringLine
	cur  []diffLine // the open hunk
	tail int        // equal lines at the end of cur since its last change
	open bool
	done bool // no more hunks may open
}

// ringLine is an equal line kept for leading context: the first maxLine
// bytes of it and its full length.
type ringLine struct {
	eLine, aLine int
	buf          []byte
	full         int
	ready        string // a line that was already cut and made safe
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
	h.keep(eLine, aLine, raw)
}

// keep puts an equal line at the end of the ring, reusing the buffer of
// the line it pushes out.
func (h *hunker) keep(eLine, aLine int, raw []byte) {
	var slot ringLine
	if len(h.ring) == h.context {
		slot = h.ring[0]
		copy(h.ring, h.ring[1:])
		h.ring = h.ring[:len(h.ring)-1]
	}
	// A few bytes past the cut let cutText find a rune boundary.
	slot.buf = append(slot.buf[:0], raw[:min(len(raw), h.maxLine+4)]...)
	slot.eLine, slot.aLine, slot.full, slot.ready = eLine, aLine, len(raw), ""
	h.ring = append(h.ring, slot)
}

// fromRing makes the kept lines hunk lines.
func (h *hunker) fromRing() {
	for _, r := range h.ring {
		text := r.ready
		if text == "" {
			text = SafeLine(cutPrefix(r.buf, r.full, h.maxLine))
		}
		h.cur = append(h.cur, diffLine{op: ' ', eLine: r.eLine, aLine: r.aLine, text: text, eCount: true, aCount: true})
	}
	h.ring = h.ring[:0]
}

// cutPrefix is cutText for a line of full bytes of which prefix holds the
// first few past n.
func cutPrefix(prefix []byte, full, n int) string {
	if full <= n {
		return string(prefix)
	}
	k := n
	for k > 0 && !utf8.RuneStart(prefix[k]) {
		k--
	}
	return string(prefix[:k]) + "…(" + strconv.Itoa(full-k) + " more bytes)"
}

// change records a changed, missing (a nil) or extra (e nil) event's lines.
func (h *hunker) change(eLine int, e []byte, aLine int, a []byte) {
	if h.done {
		return
	}
	if !h.open {
		h.open = true
		h.cur = h.cur[:0]
		h.fromRing()
	}
	h.tail = 0
	// A side without the event passes the line it follows, which numbers
	// an empty range as diff -u does ("@@ -3,0 +4 @@").
	et, at := h.pairText(e, a)
	if e != nil {
		h.cur = append(h.cur, diffLine{op: '-', eLine: eLine, aLine: aLine, text: et, eCount: true})
	}
	if a != nil {
		h.cur = append(h.cur, diffLine{op: '+', eLine: eLine, aLine: aLine, text: at, aCount: true})
	}
}

// Where a changed pair of lines is cut: when their first differing byte
// would fall past the cut (or within diffLead bytes of it), both lines
// start diffLead bytes before it instead, saying how much they left out,
// so that the -/+ lines show what differs and not two equal prefixes.
const diffLead = 80

// pairText is the text of a changed event's two lines (either nil).
func (h *hunker) pairText(e, a []byte) (string, string) {
	if e == nil || a == nil || len(e) <= h.maxLine && len(a) <= h.maxLine {
		return h.side(e), h.side(a)
	}
	p := 0
	for p < len(e) && p < len(a) && e[p] == a[p] {
		p++
	}
	if p+diffLead <= h.maxLine {
		return h.line(e), h.line(a)
	}
	from := p - diffLead
	for from > 0 && !utf8.RuneStart(e[from]) {
		from-- // the same bytes in both up to p
	}
	skip := "…(" + strconv.Itoa(from) + " bytes before)"
	return skip + h.line(e[from:]), skip + h.line(a[from:])
}

func (h *hunker) side(l []byte) string {
	if l == nil {
		return ""
	}
	return h.line(l)
}

// taking reports whether a change recorded now would be shown: after stop,
// no hunk opens, so its lines need not be prepared.
func (h *hunker) taking() bool { return !h.done }

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
	for _, l := range rest {
		h.ring = append(h.ring, ringLine{eLine: l.eLine, aLine: l.aLine, ready: l.text})
	}
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
	b.WriteString(strconv.Itoa(start))
	if n != 1 {
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(n))
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
