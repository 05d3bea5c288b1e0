package tolerant

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Mismatch is one place where an actual value departs from the expected
// one: the JSON pointer, both values (the zero Value when a side does not
// have it) and, when the expected value was a placeholder, why it did not
// match.
type Mismatch struct {
	Pointer  string
	Expected jsonv.Value
	Actual   jsonv.Value
	Reason   string
}

// binding is where a name was bound and to what.
type binding struct {
	canon string // the value's canonical JSON
	line  int
	ptr   string
}

// Matcher compares actual values with expected ones. With Tolerant false
// every string is a literal and Match is plain JSON equality with the
// differing leaves named; with Tolerant true the expected side is read as a
// tolerant pattern (see the package doc) and bindings persist from one call
// to the next, so that a whole trace is matched with one Matcher.
type Matcher struct {
	Tolerant bool
	// Line is the expected file's line being matched, recorded with each
	// new binding for messages.
	Line int

	binds bindings // name ↔ value, in the order bound (for Rollback)
	holes []Hole   // MatchText's scratch
	ptrs  []byte
	comp  Compiler
	ts    time.Time // the last Timestamp hole's time (MatchHoles)
	clock dayClock  // reads the Timestamp holes' values
	spans [][2]int  // the actual values of the last MatchHoles' holes
	ptr   []byte    // the pointer being visited
	canon []byte    // scratch for a value's canonical JSON
	globs map[string][]globToken
}

// NewMatcher returns a matcher; tolerant selects pattern reading.
func NewMatcher(tolerant bool) *Matcher {
	return &Matcher{Tolerant: tolerant, binds: newBindings()}
}

// Bindings returns how many names are bound.
func (m *Matcher) Bindings() int { return m.binds.n }

// Mark returns a point Rollback can return to.
func (m *Matcher) Mark() int { return m.binds.n }

// Rollback forgets every binding made since mark.
func (m *Matcher) Rollback(mark int) { m.binds.truncate(mark) }

// Match compares actual with expected, both found at pointer ptr (""
// for a whole event), and appends every mismatch to out. At most limit
// mismatches are appended (limit <= 0: no limit); the count of all of them
// is returned too, so a caller can say how many it left out.
func (m *Matcher) Match(ptr string, expected, actual jsonv.Value, out []Mismatch, limit int) ([]Mismatch, int) {
	m.ptr = append(m.ptr[:0], ptr...)
	c := collector{out: out, limit: limit}
	m.match(expected, actual, &c)
	return c.out, c.n
}

// Equal reports whether actual matches expected, binding as Match does.
func (m *Matcher) Equal(expected, actual jsonv.Value) bool {
	_, n := m.Match("", expected, actual, nil, 1)
	return n == 0
}

type collector struct {
	out   []Mismatch
	limit int
	n     int
}

func (m *Matcher) add(c *collector, exp, act jsonv.Value, reason string) {
	c.n++
	if c.limit > 0 && c.n > c.limit {
		return
	}
	p := string(m.ptr)
	if p == "" {
		p = "/"
	}
	c.out = append(c.out, Mismatch{Pointer: p, Expected: exp, Actual: act, Reason: reason})
}

// push appends a reference token to the current pointer and returns the
// length to restore.
func (m *Matcher) push(tok string) int {
	n := len(m.ptr)
	m.ptr = append(m.ptr, '/')
	if strings.IndexByte(tok, '~') >= 0 || strings.IndexByte(tok, '/') >= 0 {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
	}
	m.ptr = append(m.ptr, tok...)
	return n
}

func (m *Matcher) pushIndex(i int) int {
	n := len(m.ptr)
	m.ptr = append(m.ptr, '/')
	m.ptr = strconv.AppendInt(m.ptr, int64(i), 10)
	return n
}

func (m *Matcher) match(exp, act jsonv.Value, c *collector) {
	if m.Tolerant && exp.Kind() == jsonv.String {
		if m.matchPattern(exp, act, c) {
			return
		}
	}
	if !act.IsValid() {
		m.add(c, exp, act, "")
		return
	}
	if exp.Kind() != act.Kind() {
		m.add(c, exp, act, "")
		return
	}
	switch exp.Kind() {
	case jsonv.Object:
		m.matchObject(exp, act, c)
	case jsonv.Array:
		m.matchArray(exp, act, c)
	default:
		if !jsonv.Equal(exp, act) {
			m.add(c, exp, act, "")
		}
	}
}

// matchPattern handles an expected string in tolerant mode; it returns
// false when the string is a plain literal for match to compare.
func (m *Matcher) matchPattern(exp, act jsonv.Value, c *collector) bool {
	kind, text := Classify(exp.Text())
	switch kind {
	case Literal:
		return false
	case Escaped:
		if act.Kind() != jsonv.String || act.Text() != text {
			m.add(c, exp, act, "")
		}
	case Any:
		if !act.IsValid() {
			m.add(c, exp, act, "{...} needs a value here")
		}
	case Timestamp:
		if act.Kind() != jsonv.String || !isTimestamp(act.Text()) {
			m.add(c, exp, act, "not an RFC 3339 date-time")
		}
	case UUID:
		if act.Kind() != jsonv.String || !IsUUID(act.Text()) {
			m.add(c, exp, act, "not a UUID")
		}
	case Duration:
		if f, ok := act.Float64(); !ok || f < 0 {
			m.add(c, exp, act, "not a number >= 0")
		}
	case Glob:
		if act.Kind() != jsonv.String || !globMatch(m.glob(exp.Text()), act.Text()) {
			m.add(c, exp, act, "does not match the pattern")
		}
	case Binding:
		if !act.IsValid() {
			m.add(c, exp, act, "")
			return true
		}
		if reason := m.bind(text, act); reason != "" {
			m.add(c, exp, act, reason)
		}
	}
	return true
}

func isTimestamp(s string) bool { _, ok := ParseTimestamp(s); return ok }

func (m *Matcher) glob(s string) []globToken {
	if g, ok := m.globs[s]; ok {
		return g
	}
	if m.globs == nil || len(m.globs) > 1024 {
		m.globs = map[string][]globToken{}
	}
	g := compileGlob(s)
	m.globs[strings.Clone(s)] = g // s may be a view of a line's text
	return g
}

// bind binds name to v, or checks v against its binding; it returns why
// not, or "".
func (m *Matcher) bind(name string, v jsonv.Value) string {
	m.canon = v.AppendCanonical(m.canon[:0])
	return m.bindCanon(name, m.canon)
}

// bindCanon is bind of a value whose canonical JSON is canon (which it
// does not keep).
func (m *Matcher) bindCanon(name string, canon []byte) string {
	return m.bindCanonAt(name, canon, m.ptr)
}

// bindCanonAt is bindCanon at pointer ptr.
func (m *Matcher) bindCanonAt(name string, canon, ptr []byte) string {
	nameBytes := unsafe.Slice(unsafe.StringData(name), len(name))
	i, hn := m.binds.findName(nameBytes)
	if i >= 0 {
		_, bc := m.binds.nameCanon(i)
		if string(bc) == string(canon) {
			return ""
		}
		b := m.binds.binding(i)
		if o, _, _ := m.binds.lookupVal(canon); o >= 0 {
			return fmt.Sprintf("[%s] is bound to %s (%s) and this value to [%s] (%s): a mix-up of the two",
				name, cut(b.canon, 60), where(b), m.binds.name(o), where(m.binds.binding(o)))
		}
		return fmt.Sprintf("[%s] is bound to %s (%s)", name, cut(b.canon, 60), where(b))
	}
	o, hv, nb := m.binds.lookupVal(canon)
	if o >= 0 {
		return fmt.Sprintf("the value is bound to [%s] (%s); distinct names bind distinct values", m.binds.name(o), where(m.binds.binding(o)))
	}
	m.binds.add(nameBytes, canon, ptr, m.Line, hn, hv, nb)
	return ""
}

func where(b binding) string {
	p := b.ptr
	if p == "" {
		p = "/"
	}
	if b.line > 0 {
		return fmt.Sprintf("expected line %d at %s", b.line, p)
	}
	return "at " + p
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

func (m *Matcher) matchObject(exp, act jsonv.Value, c *collector) {
	open := false
	for _, em := range exp.Members() {
		if m.Tolerant && em.Key == AnyMembersKey && em.Value.Kind() == jsonv.String && em.Value.Text() == AnyValue {
			open = true
			continue
		}
		av, _ := act.Get(em.Key)
		n := m.push(em.Key)
		m.match(em.Value, av, c)
		m.ptr = m.ptr[:n]
	}
	for _, am := range act.Members() {
		if open || exp.Has(am.Key) {
			continue
		}
		n := m.push(am.Key)
		m.add(c, jsonv.Value{}, am.Value, "")
		m.ptr = m.ptr[:n]
	}
}

func isAnyElements(v jsonv.Value) bool { return v.Kind() == jsonv.String && v.Text() == AnyElements }

func (m *Matcher) matchArray(exp, act jsonv.Value, c *collector) {
	es, as := exp.Elems(), act.Elems()
	if m.Tolerant {
		for _, e := range es {
			if isAnyElements(e) {
				if !m.matchRuns(es, as) {
					m.add(c, exp, act, `no alignment of the elements around "..." matches`)
				}
				return
			}
		}
	}
	for i := 0; i < max(len(es), len(as)); i++ {
		var e, a jsonv.Value
		if i < len(es) {
			e = es[i]
		}
		if i < len(as) {
			a = as[i]
		}
		n := m.pushIndex(i)
		if e.IsValid() {
			m.match(e, a, c)
		} else {
			m.add(c, e, a, "")
		}
		m.ptr = m.ptr[:n]
	}
}

// matchRuns matches an array pattern with "..." elements: the segments
// between them must match in order, the first at the start and the last at
// the end; each middle segment takes its leftmost match, which leaves the
// most room for the rest. Bindings of failed trials are rolled back.
func (m *Matcher) matchRuns(es, as []jsonv.Value) bool {
	var segs [][]jsonv.Value
	start := 0
	for i, e := range es {
		if isAnyElements(e) {
			segs = append(segs, es[start:i])
			start = i + 1
		}
	}
	segs = append(segs, es[start:])
	first, last := segs[0], segs[len(segs)-1]
	if len(first)+len(last) > len(as) {
		return false
	}
	mark := m.Mark()
	pos := 0
	if !m.segmentAt(first, as, 0) {
		m.Rollback(mark)
		return false
	}
	pos = len(first)
	end := len(as) - len(last)
	for _, seg := range segs[1 : len(segs)-1] {
		found := false
		for at := pos; at+len(seg) <= end; at++ {
			mk := m.Mark()
			if m.segmentAt(seg, as, at) {
				pos, found = at+len(seg), true
				break
			}
			m.Rollback(mk)
		}
		if !found {
			m.Rollback(mark)
			return false
		}
	}
	if !m.segmentAt(last, as, end) {
		m.Rollback(mark)
		return false
	}
	return true
}

func (m *Matcher) segmentAt(seg, as []jsonv.Value, at int) bool {
	saved := m.ptr
	defer func() { m.ptr = saved }()
	m.ptr = append([]byte(nil), saved...)
	for i, e := range seg {
		var c collector
		c.limit = 1
		m.match(e, as[at+i], &c)
		if c.n > 0 {
			return false
		}
	}
	return true
}
