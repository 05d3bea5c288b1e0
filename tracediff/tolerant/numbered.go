package tolerant

import "slices"

// A trace binds one new value a line, its event's id, and the ids of a
// trace mostly count up: "evt-000123", "evt-000124". Found by hash, each
// is a probe of a table as large as the trace at a place no cache holds
// (a diff of 200k events spent a third of its matching in those misses).
// So a value that ends in a number is held, like an ID-n name, in a slice
// indexed by that number, one slice per text around it: consecutive ids
// are then neighbours in memory.
//
// A value is numbered when its canonical text is a prefix, 1 to 9 decimal
// digits and an optional closing quote, the prefix not ending in a
// hexadecimal letter (a UUID's last group is not a number). Its slot is
// taken while there are at most maxNumberedForms forms (prefix, suffix,
// digit count) and the slices' length stays within numberedRoom; other
// values, numbered ones included, go to byVal, and hashedNumbered counts
// the numbered ones there, so that a numbered value absent from its slice
// is looked for in byVal only when there are any.

// numberedForm is the slice of one form: record number + 1 at the number.
type numberedForm struct {
	prefix, suffix string
	digits         int
	slots          []uint32
}

// maxNumberedForms bounds the forms held in slices.
const maxNumberedForms = 32

// numberOf splits a canonical value into its form and number; ok is false
// when it is not numbered.
func numberOf(canon []byte) (prefix, suffix []byte, digits, n int, ok bool) {
	e := len(canon)
	if e > 0 && canon[e-1] == '"' {
		e--
	}
	d := e
	for d > 0 && e-d <= 9 && canon[d-1] >= '0' && canon[d-1] <= '9' {
		d--
	}
	if d == e || e-d > 9 {
		return nil, nil, 0, 0, false
	}
	if d > 0 {
		if c := canon[d-1] | 0x20; c >= 'a' && c <= 'f' {
			return nil, nil, 0, 0, false
		}
	}
	for _, c := range canon[d:e] {
		n = n*10 + int(c-'0')
	}
	return canon[:d], canon[e:], e - d, n, true
}

// form returns the index of the form of a numbered value, -1 when none
// is held; the last form found is tried first.
func (s *bindings) form(prefix, suffix []byte, digits int) int {
	if f := s.lastForm; f < len(s.forms) && s.forms[f].is(prefix, suffix, digits) {
		return f
	}
	for f := range s.forms {
		if s.forms[f].is(prefix, suffix, digits) {
			s.lastForm = f
			return f
		}
	}
	return -1
}

func (f *numberedForm) is(prefix, suffix []byte, digits int) bool {
	return f.digits == digits && f.prefix == string(prefix) && f.suffix == string(suffix)
}

// numberedRoom bounds the slices' total length: 4 a binding, and 4096.
func (s *bindings) numberedRoom() int { return 4*s.n + 4096 }

// numbering is what lookupVal read of a value: its form and number, and
// the form's index (-1: none held yet), for the add that follows a miss.
type numbering struct {
	prefix, suffix []byte
	digits, n, f   int
	ok             bool // the value is numbered
}

// numberingOf reads canon's numbering.
func (s *bindings) numberingOf(canon []byte) numbering {
	nb := numbering{f: -1}
	nb.prefix, nb.suffix, nb.digits, nb.n, nb.ok = numberOf(canon)
	if nb.ok {
		nb.f = s.form(nb.prefix, nb.suffix, nb.digits)
	}
	return nb
}

// lookupVal returns the record whose canonical value is canon, or -1;
// when there is none, h is canon's hash for add (0: not computed) and nb
// its numbering, for add too.
func (s *bindings) lookupVal(canon []byte) (i int, h uint32, nb numbering) {
	nb = s.numberingOf(canon)
	if nb.ok {
		if f, n := nb.f, nb.n; f >= 0 && n < len(s.forms[f].slots) && s.forms[f].slots[n] != 0 {
			return int(s.forms[f].slots[n] - 1), 0, nb
		}
		if s.hashedNumbered == 0 {
			return -1, 0, nb
		}
	}
	h = s.hashVal(canon)
	return s.find(canon, h, true), h, nb
}

// placeNumbered gives record r (number + 1) its slot when its value,
// numbered nb, is numbered and there is room; false: it goes to byVal.
func (s *bindings) placeNumbered(nb numbering, r int) bool {
	prefix, suffix, digits, n, f := nb.prefix, nb.suffix, nb.digits, nb.n, nb.f
	if !nb.ok {
		return false
	}
	grow := n + 1
	if f >= 0 {
		grow -= len(s.forms[f].slots)
	}
	switch {
	case f < 0 && len(s.forms) >= maxNumberedForms, grow > 0 && s.numberedLen+grow > s.numberedRoom():
		s.hashedNumbered++
		return false
	case f < 0:
		s.forms = append(s.forms, numberedForm{prefix: string(prefix), suffix: string(suffix), digits: digits})
		f = len(s.forms) - 1
	}
	fm := &s.forms[f]
	if grow > 0 {
		fm.slots = slices.Grow(fm.slots, grow)[:n+1]
		s.numberedLen += grow
	}
	fm.slots[n] = uint32(r)
	return true
}

// unplaceNumbered frees the slot of a numbered value leaving (placed: it
// had one; else it was a numbered value counted in hashedNumbered, or not
// numbered).
func (s *bindings) unplaceNumbered(canon []byte, placed bool) {
	prefix, suffix, digits, n, ok := numberOf(canon)
	switch {
	case placed:
		s.forms[s.form(prefix, suffix, digits)].slots[n] = 0
	case ok:
		s.hashedNumbered--
	}
}
