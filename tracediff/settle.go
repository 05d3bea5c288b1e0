package tracediff

// A tolerant golden compared with a validated trace is not checked as it
// is read (source.lex): its lines come to the comparison pending, and their
// shape check runs here, in file order, as the comparison takes each one.
// Each is matched at once against the actual line at hand: by
// comparing it with the event member by member when the validator says
// where the event's members stand (tolerant.Compiler.Prove), else by
// lexing it and matching the lexer's holes (Lex, MatchHoles). When that
// validated event matches it, the golden line is valid JSON and compiles
// to those holes, so it needs no strict check and no compile of its own,
// and the match is kept for the pairing (differ.pre). Every other line
// gets the source's full check (source.fill), so problems and differences
// are those of a golden checked as it is read.

import (
	"bytes"
	"time"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/tracediff/tolerant"
)

// goldenCheck is the shape check of a golden read pending (source.lex).
type goldenCheck struct {
	src   *source // the reading source, for its read error at the end
	chk   source  // its fill, keys and compiler for the full check
	shape shapeChecker
	b     srcBatch // the holes of the last line fully checked
	// comp proves and lexes lines; holes and ptrs: the last line lexed
	// (valid until the next one); lk its key's texts, prev the key before.
	comp  tolerant.Compiler
	holes []tolerant.Hole
	ptrs  []byte
	lk    tolerant.LexKey
	prev  key
	// byMembers counts the lines Prove proved.
	byMembers int
}

func newGoldenCheck(src *source) *goldenCheck {
	g := &goldenCheck{src: src, shape: shapeChecker{file: src.name}}
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
// is a validated event that matches e (goldenCheck.prove), e is proven and
// the match is kept for pair, as resolve keeps one.
func (d *differ) settle(e, a *srcLine) {
	if e == nil || !e.pending {
		return
	}
	proven := false
	if !e.torn && a != nil && a.event && d.pre.a == nil {
		d.m.Line = e.num
		mark := d.m.Mark()
		if ok, ts, t := d.gc.prove(d.m, e, a); ok {
			proven = true
			d.pre = prematch{e: e, a: a, mark: mark, ts: ts, t: t}
		} else {
			d.m.Rollback(mark)
		}
	}
	d.gc.settle(e, proven)
}

// prove matches golden line e against validated event a: by comparing
// them member by member when the validator says where a's members stand
// (tolerant.Compiler.Prove), else by lexing e and matching its holes (Lex,
// MatchHoles). On a match e has its holes (valid until the next line is
// proven) and the key the lexer's texts give (lexedKey). It may leave
// bindings when it answers false.
func (g *goldenCheck) prove(m *tolerant.Matcher, e, a *srcLine) (ok bool, ts string, t time.Time) {
	var holes []tolerant.Hole
	if ok, holes, ts, t = g.comp.Prove(m, e.raw, a.raw, a.members, &g.lk); ok {
		g.byMembers++
	} else {
		g.holes, g.ptrs, ok = g.comp.Lex(g.holes[:0], g.ptrs[:0], e.raw, &g.lk)
		if !ok {
			return false, "", t
		}
		holes = g.holes
		if ok, ts, t = m.MatchHoles(e.raw, holes, a.raw); !ok {
			return false, "", t
		}
	}
	k, ok := lexedKey(&g.lk, &g.prev)
	if !ok {
		return false, "", t
	}
	e.k, e.holes = k, holes
	return true, ts, t
}

// lexedKey is the key scanKey reads from a valid line whose members are
// lk: a sequence of plain digits, identities written as strings without
// escapes; ok is false on anything else (scanKey would give up or parse).
func lexedKey(lk *tolerant.LexKey, prev *key) (key, bool) {
	seq := lk.Sequence
	if len(seq) == 0 || len(seq) > 18 {
		return key{}, false
	}
	var k key
	for _, c := range seq {
		if c < '0' || c > '9' {
			return key{}, false
		}
		k.seq = k.seq*10 + int64(c-'0')
	}
	var ok bool
	if k.session, ok = lexedIdentity(lk.SessionID, prev.session); !ok {
		return key{}, false
	}
	if k.run, ok = lexedIdentity(lk.RunID, prev.run); !ok {
		return key{}, false
	}
	*prev = k
	return k, true
}

// lexedIdentity is the identity of a string value's text v (quotes
// included), "" when there is none; ok is false when v is not a string
// without escapes.
func lexedIdentity(v []byte, prev string) (string, bool) {
	if v == nil {
		return "", true
	}
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
		return "", false
	}
	return reuse(v[1:len(v)-1], prev), true
}
