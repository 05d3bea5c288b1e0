package tracediff

// The sides of a comparison that are validated as traces are read by
// journal.CheckFiles: one read of each file, its lines checked by the
// validator's workers (a line both files have at the same place is checked
// once) and its run invariants as Validate checks them, and each valid
// line's key taken from the validator's event, so that a line is not
// scanned again for it. A line the validator refused is keyed from its
// text as before (keyScanner).

import (
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// lineCursor walks one side's lines in order: next returns the next line,
// or nil at the end; the previous line may be reused after the call.
type lineCursor interface {
	next() *srcLine
}

// keyScanner reads keys from the text of lines, reusing the strings of the
// last key read.
type keyScanner struct {
	prev key       // the last key scanned, for reuse
	prov provCache // scanKey's
}

// lineKey reads the key of a line that was not parsed: scanKey, or the
// parsed value when scanKey does not read it plainly.
func (ks *keyScanner) lineKey(l *srcLine) {
	l.lazy = false
	if l.k, l.keyOK = scanKey(l.raw, &ks.prev, &ks.prov); l.keyOK {
		return
	}
	if v, err := jsonv.Parse(l.raw); err == nil {
		l.k, l.keyOK = keyOf(v)
	}
}

// checkedCursor walks one side of a journal.Files.
type checkedCursor struct {
	f    *journal.Files
	side int
	ks   *keyScanner
	// lazy leaves the keys of refused lines to the comparison
	// (differ.resolve), which may take them from the expected line.
	lazy  bool
	lines []srcLine
	i     int
	eof   bool
}

func (c *checkedCursor) next() *srcLine {
	for c.i >= len(c.lines) {
		if c.eof {
			return nil
		}
		ls := c.f.Next(c.side)
		if ls == nil {
			c.eof, c.lines = true, c.lines[:0]
			return nil
		}
		c.take(ls)
	}
	c.i++
	return &c.lines[c.i-1]
}

// take makes the batch's lines the cursor's.
func (c *checkedCursor) take(ls []journal.CheckedLine) {
	clear(c.lines)
	c.lines, c.i = c.lines[:0], 0
	for i := range ls {
		cl := &ls[i]
		l := srcLine{num: cl.Num, raw: cl.Raw, torn: cl.Torn, twin: cl.Twin, event: cl.Event, members: cl.Members}
		switch {
		case cl.Event:
			l.k, l.keyOK = key{session: cl.SessionID, run: cl.RunID, seq: cl.Sequence}, true
		case cl.Torn:
		case c.lazy:
			l.lazy = true
		default:
			c.ks.lineKey(&l)
		}
		c.lines = append(c.lines, l)
	}
}
