package tolerant

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Hole is a placeholder of a compiled expected event (Compile): the
// string at Start:End of the event's text (quotes included) stands for a
// value of the actual event, to be checked as Kind says.
type Hole struct {
	Start, End int
	Kind       Kind
	// Arg: a binding's name, an escaped string's text, a glob's pattern.
	Arg string
	// Ptr is the hole's JSON pointer, as Match names it.
	Ptr string
	// Timestamp: the hole is the event's own timestamp and says exactly
	// "[TIMESTAMP]" (the differ checks the order of those).
	Timestamp bool
}

// Compile finds the holes of one expected event, written as text: every
// string value that Classify does not read as a literal. It appends them
// to holes (their pointers to ptrs, which the holes' Ptr fields view) and
// reports whether the event can be matched by MatchHoles at all: not when
// it is not valid JSON (as jsonv.Parse reads it), nor when it holds "..."
// as an array element or the "...": "{...}" member, which only Match reads.
//
// Between the holes an actual event must then repeat the expected text
// byte for byte; since the holes stand at value positions, an actual
// event that does is the expected one with the holes' values in their
// places, which is what Match would compare.
func Compile(holes []Hole, ptrs []byte, line []byte) ([]Hole, []byte, bool) {
	var k Compiler
	holes, ptrs, ok, _ := k.Check(holes, ptrs, line)
	return holes, ptrs, ok
}

// Compiler checks and compiles expected events one after the other,
// keeping its scratch space.
type Compiler struct {
	c     jsonv.Canonicalizer
	line  []byte
	holes []Hole
	ptrs  []byte
	ok    bool
	// FirstPlaceholder's scratch.
	firstHoles []Hole
	firstPtrs  []byte
	lex        lexer
	// Prove's scratch: its holes and their pointers, the pointers of the
	// top-level members, and per member the last value found to hold no
	// hole and the last pair of texts proven with holes (provememo.go).
	proveHoles []Hole
	provePtrs  []byte
	ptrTab     [16]string
	clean      [16][]byte
	proofs     [16]proofMemo
}

// Check validates line as jsonv.Parse does (err is Parse's error) and
// compiles it as Compile does, in the same pass.
func (k *Compiler) Check(holes []Hole, ptrs []byte, line []byte) (_ []Hole, _ []byte, compiled bool, err error) {
	k.line, k.holes, k.ptrs, k.ok = line, holes, ptrs, true
	err = k.c.CheckStrings(line, k)
	holes, ptrs = k.holes, k.ptrs
	k.line, k.holes, k.ptrs = nil, nil, nil
	return holes, ptrs, k.ok && err == nil, err
}

// VisitString looks at one string value of the line: a literal, or a
// hole.
func (k *Compiler) VisitString(a, b int, esc bool, p jsonv.Path) {
	if !k.ok || plainLiteral(k.line[a:b], esc) {
		return
	}
	k.visit(a, b, text(k.line[a:b], esc), p)
}

// plainLiteral reports whether the string content raw is a literal at a
// glance: Classify reads every hole in a '[', '{', '\\' or "...", and an
// escape other than \u can only make one when it stands first (\\).
func plainLiteral(raw []byte, esc bool) bool {
	if len(raw) <= 3 || raw[0] == '{' || bytes.IndexByte(raw, '[') >= 0 {
		return false
	}
	return !esc || raw[0] != '\\' && !bytes.Contains(raw, []byte(`\u`))
}

// steps is where a string value stands: jsonv.Path as CheckStrings gives
// it, or the lexer's (Lex).
type steps interface {
	Len() int
	At(i int) (key []byte, index int)
}

// visit compiles the string value at a:b, whose text is t: a literal, or
// a hole at p.
func (k *Compiler) visit(a, b int, t string, p steps) {
	kind, arg := Classify(t)
	if kind == Literal {
		if t == AnyElements {
			k.ok = false
		}
		return
	}
	n := p.Len()
	var last []byte
	if n > 0 {
		last, _ = p.At(n - 1)
	}
	if kind == Any && last != nil && string(last) == AnyMembersKey {
		k.ok = false // an open object: Match's
		return
	}
	start := len(k.ptrs)
	for i := 0; i < n; i++ {
		key, index := p.At(i)
		k.ptrs = append(k.ptrs, '/')
		if key == nil {
			k.ptrs = strconv.AppendInt(k.ptrs, int64(index), 10)
			continue
		}
		if bytes.IndexByte(key, '~') < 0 && bytes.IndexByte(key, '/') < 0 {
			k.ptrs = append(k.ptrs, key...)
			continue
		}
		for _, ch := range key {
			switch ch {
			case '~':
				k.ptrs = append(k.ptrs, '~', '0')
			case '/':
				k.ptrs = append(k.ptrs, '~', '1')
			default:
				k.ptrs = append(k.ptrs, ch)
			}
		}
	}
	k.holes = append(k.holes, Hole{Start: a - 1, End: b + 1, Kind: kind, Arg: arg, Ptr: view(k.ptrs[start:]),
		Timestamp: kind == Timestamp && n == 1 && last != nil && string(last) == "timestamp"})
}

// text is the decoded text of the string whose content is raw.
func text(raw []byte, esc bool) string {
	if !esc {
		return view(raw)
	}
	s, _ := jsonv.StringText(append(append([]byte{'"'}, raw...), '"'))
	return s
}

// MatchHoles is the fast path of Match for a whole event compiled by
// Compile: the actual text must repeat the expected text between the
// holes byte for byte, and hold at each hole a value the hole accepts.
// It answers true only when Match of the parsed events would find no
// mismatch, having made the bindings Match would have made, in the same
// order; when it answers false nothing it bound is kept, and the caller
// asks Match, which decides and explains. timestamp is the actual text
// at a Timestamp hole ("" when there is none), t its time.
func (m *Matcher) MatchHoles(expected []byte, holes []Hole, actual []byte) (ok bool, timestamp string, t time.Time) {
	if !m.Tolerant {
		return false, "", t
	}
	mark := m.Mark()
	m.spans = m.spans[:0]
	if ok, timestamp, t = m.matchSpan(expected, 0, len(expected), holes, actual, true); !ok {
		m.Rollback(mark)
		return false, "", time.Time{}
	}
	return true, timestamp, t
}

// matchSpan is MatchHoles of expected[from:to], whose holes (at their
// offsets in expected) are holes, against the whole of actual; spans: note
// where each hole's value stands (ActualSpan). It leaves what it bound, even
// when it answers false.
func (m *Matcher) matchSpan(expected []byte, from, to int, holes []Hole, actual []byte, spans bool) (ok bool, timestamp string, t time.Time) {
	pos, prev := 0, from
	for i := range holes {
		h := &holes[i]
		lit := expected[prev:h.Start]
		if !bytes.HasPrefix(actual[pos:], lit) {
			return false, "", t
		}
		pos += len(lit)
		var end int
		var vok, plain bool
		if pos < len(actual) && actual[pos] == '"' {
			// A string: its end, and whether it has escapes, at once.
			e, esc := stringEnd(actual, pos+1)
			end, vok, plain = e+1, e < len(actual), !esc
		} else {
			end, vok = valueEnd(actual, pos)
		}
		if !vok || !m.fill(h, actual[pos:end], plain) {
			return false, "", t
		}
		if h.Timestamp {
			timestamp, t = view(actual[pos+1:end-1]), m.ts
		}
		if spans {
			m.spans = append(m.spans, [2]int{pos, end})
		}
		pos, prev = end, h.End
	}
	if string(expected[prev:to]) != string(actual[pos:]) {
		return false, "", t
	}
	return true, timestamp, t
}

// ActualSpan returns where the value at hole i stood in the actual text
// of the last MatchHoles that answered true.
func (m *Matcher) ActualSpan(i int) (start, end int) { return m.spans[i][0], m.spans[i][1] }

// fill checks the actual value act (its text) at hole h, binding it when
// h is a binding.
// plainStr: act is a string without escapes.
func (m *Matcher) fill(h *Hole, act []byte, plainStr bool) bool {
	// The actual value's text when it is a string without escapes.
	plain, isPlain := []byte(nil), false
	if plainStr {
		plain, isPlain = act[1:len(act)-1], true
	}
	switch h.Kind {
	case Any:
		return true
	case Timestamp:
		if !isPlain {
			return false
		}
		var ok bool
		m.ts, ok = m.clock.parse(view(plain))
		return ok
	case UUID:
		return isPlain && IsUUID(view(plain))
	case Duration:
		if act[0] != '-' && (act[0] < '0' || act[0] > '9') {
			return false
		}
		// As Value.Float64: a number, not infinite.
		f, _ := strconv.ParseFloat(view(act), 64)
		return !math.IsInf(f, 0) && f >= 0
	case Glob:
		return isPlain && globMatch(m.glob(h.Arg), view(plain))
	case Escaped:
		if isPlain {
			return view(plain) == h.Arg
		}
		s, ok := jsonv.StringText(act)
		return ok && s == h.Arg
	case Binding:
		ptr := unsafe.Slice(unsafe.StringData(h.Ptr), len(h.Ptr))
		if isPlain {
			return m.bindCanonAt(h.Arg, act, ptr) == ""
		}
		v, err := jsonv.Parse(act)
		if err != nil {
			return false
		}
		m.canon = v.AppendCanonical(m.canon[:0])
		return m.bindCanonAt(h.Arg, m.canon, ptr) == ""
	}
	return false
}

// FirstPlaceholder reports the first placeholder of an event written as
// text, and where it stands: evidence that the line is a tolerant golden's.
// An escaped string ("\...") is not counted: a string that starts with a
// backslash is ordinary data too (a Windows path), while the other
// placeholders are what tracecheck normalize writes and what a valid trace
// seldom holds. ok is false when there is none, or the line is not JSON.
// The Hole's strings are the caller's (not views of line or of k).
func (k *Compiler) FirstPlaceholder(line []byte) (h Hole, ok bool) {
	holes, ptrs, _, err := k.Check(k.firstHoles[:0], k.firstPtrs[:0], line)
	k.firstHoles, k.firstPtrs = holes[:0], ptrs[:0] // kept for the next line
	if err != nil {
		return Hole{}, false
	}
	for _, x := range holes {
		if x.Kind != Escaped {
			x.Arg, x.Ptr = strings.Clone(x.Arg), strings.Clone(x.Ptr)
			return x, true
		}
	}
	return Hole{}, false
}
