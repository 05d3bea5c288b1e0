package tracediff

import (
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/tracediff/tolerant"
)

// maxFormMismatches bounds the differing fields goldenForm places one by
// one; an event that differs in more is shown as written (the prefix test
// below is linear in them, so this keeps a line's cost bounded).
const maxFormMismatches = 1000

// goldenForm writes the actual event a in the form of the golden event e
// it was compared with: e itself wherever the two matched, placeholders
// included, and a's value at each pointer where they differ (ms, every
// mismatch Match found). The unified diff of a tolerant golden shows this
// line against the golden's, so that its -/+ lines differ only where the
// events really do, not at every id and timestamp the placeholders took.
// Members keep e's order, a's extra members follow, compact JSON as
// normalize writes. ok is false when ms is too long to place.
func goldenForm(e, a jsonv.Value, ms []tolerant.Mismatch) (out []byte, ok bool) {
	if len(ms) > maxFormMismatches {
		return nil, false
	}
	f := former{ms: ms}
	v := f.form(e, a, "")
	if !v.IsValid() {
		return nil, false
	}
	return v.AppendJSON(nil), true
}

type former struct{ ms []tolerant.Mismatch }

// at reports whether a mismatch is at ptr; below whether one is at or
// under it. Match names the whole event "/".
func (f *former) at(ptr string) bool {
	if ptr == "" {
		ptr = "/"
	}
	for i := range f.ms {
		if f.ms[i].Pointer == ptr {
			return true
		}
	}
	return false
}

func (f *former) below(ptr string) bool {
	for i := range f.ms {
		p := f.ms[i].Pointer
		if ptr == "" || p == ptr || strings.HasPrefix(p, ptr) && p[len(ptr)] == '/' {
			return true
		}
	}
	return false
}

// form is the value at ptr: a's where they differ there (the zero Value
// when a has none), e's where nothing differs at or under it, and, for two
// containers that differ inside, each member or element formed in turn.
func (f *former) form(e, a jsonv.Value, ptr string) jsonv.Value {
	switch {
	case f.at(ptr):
		return a
	case !f.below(ptr):
		return e
	case e.Kind() != a.Kind():
		return a
	}
	switch e.Kind() {
	case jsonv.Object:
		ms := make([]jsonv.Member, 0, len(e.Members()))
		for _, m := range e.Members() {
			av, _ := a.Get(m.Key)
			if v := f.form(m.Value, av, ptr+"/"+pointerToken(m.Key)); v.IsValid() {
				ms = append(ms, jsonv.M(m.Key, v))
			}
		}
		for _, m := range a.Members() {
			if !e.Has(m.Key) && f.at(ptr+"/"+pointerToken(m.Key)) {
				ms = append(ms, m)
			}
		}
		return jsonv.Obj(ms...)
	case jsonv.Array:
		es, as := e.Elems(), a.Elems()
		out := make([]jsonv.Value, 0, max(len(es), len(as)))
		for i := 0; i < max(len(es), len(as)); i++ {
			var ev, av jsonv.Value
			if i < len(es) {
				ev = es[i]
			}
			if i < len(as) {
				av = as[i]
			}
			p := ptr + "/" + strconv.Itoa(i)
			v := av
			if ev.IsValid() {
				v = f.form(ev, av, p)
			} else if !f.at(p) {
				v = jsonv.Value{}
			}
			if v.IsValid() {
				out = append(out, v)
			}
		}
		return jsonv.Arr(out...)
	}
	return a
}

// pointerToken escapes a member name as a JSON pointer token, as Match
// names it.
func pointerToken(k string) string {
	if strings.IndexByte(k, '~') < 0 && strings.IndexByte(k, '/') < 0 {
		return k
	}
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
