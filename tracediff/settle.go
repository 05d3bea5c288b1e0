package tracediff

// A tolerant golden compared with a validated trace is only lexed as it is
// read (source.lex): its lines come to the comparison pending, and their
// shape check runs here, in file order, as the comparison takes each one.
// A line the lexer read is matched at once against the actual line at
// hand; when that validated event matches it, the golden line is valid
// JSON and compiles to the lexer's holes (tolerant.Compiler.Lex), so it
// needs no strict check and no compile of its own, and the match is kept
// for the pairing (differ.pre). Every other line gets the source's full
// check (source.fill), so problems and differences are those of a golden
// checked as it is read.

import "github.com/tracecheck/tracecheck/journal"

// goldenCheck is the shape check of a lexed golden.
type goldenCheck struct {
	src   *source // the reading source, for its read error at the end
	chk   source  // its fill, keys and compiler for the full check
	shape shapeChecker
	b     srcBatch // the holes of the last line fully checked
}

func newGoldenCheck(src *source) *goldenCheck {
	g := &goldenCheck{src: src, shape: shapeChecker{file: src.name, next: map[[2]string]int64{}}}
	g.chk = source{name: src.name, golden: true, compile: true}
	return g
}

// settle checks pending line l; proven: l matched a validated actual line
// against the lexer's holes.
func (g *goldenCheck) settle(l *srcLine, proven bool) {
	if !l.pending {
		return
	}
	l.pending = false
	if proven && g.shape.inOrder(l.k) {
		// What fill finds for a valid line in its place.
		g.shape.lines++
		l.keyOK, l.compiled = true, true
		return
	}
	g.b.holes, g.b.ptrs = g.b.holes[:0], g.b.ptrs[:0]
	l.k, l.holes = key{}, nil
	g.chk.fill(l, &g.shape, &g.b)
}

// problems is the golden's problems, once every line is settled.
func (g *goldenCheck) problems() []*journal.Error {
	if g.src.readErr != nil {
		g.shape.add(g.src.readErr)
	}
	return g.shape.end()
}

// settle settles golden line e, taken with actual line a at hand: when a
// is a validated event that matches the lexed e (MatchHoles), e is proven
// and the match is kept for pair, as resolve keeps one.
func (d *differ) settle(e, a *srcLine) {
	if e == nil || !e.pending {
		return
	}
	proven := false
	if e.tentative && a != nil && a.event && d.pre.a == nil {
		d.m.Line = e.num
		mark := d.m.Mark()
		if ok, ts, t := d.m.MatchHoles(e.raw, e.holes, a.raw); ok {
			proven = true
			d.pre = prematch{e: e, a: a, mark: mark, ts: ts, t: t}
		}
	}
	d.gc.settle(e, proven)
}
