package exercise

import (
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Absent stands for a member or element one side does not have.
const Absent = "(absent)"

// difference is the first place two JSON values differ.
type difference struct {
	Pointer  string // JSON pointer from the compared root
	Expected string // JSON text, or Absent
	Actual   string
}

// firstDiff returns the first difference between want and got, walking
// want in its own member order (so the first differing field is the one a
// reader meets first), then the members only got has. Numbers are equal
// when their values are (1 and 1.0 too: the protocol carries values, not
// spellings); everything else must be equal exactly.
func firstDiff(want, got jsonv.Value, ptr string) (difference, bool) {
	if !want.IsValid() && !got.IsValid() {
		return difference{}, false
	}
	if !want.IsValid() || !got.IsValid() || want.Kind() != got.Kind() {
		return difference{Pointer: orRoot(ptr), Expected: show(want), Actual: show(got)}, true
	}
	switch want.Kind() {
	case jsonv.Object:
		for _, m := range want.Members() {
			g, _ := got.Get(m.Key)
			if d, ok := firstDiff(m.Value, g, ptr+"/"+escapePointer(m.Key)); ok {
				return d, true
			}
		}
		for _, m := range got.Members() {
			if !want.Has(m.Key) {
				return difference{Pointer: ptr + "/" + escapePointer(m.Key), Expected: Absent, Actual: show(m.Value)}, true
			}
		}
	case jsonv.Array:
		we, ge := want.Elems(), got.Elems()
		for i := 0; i < len(we) || i < len(ge); i++ {
			var w, g jsonv.Value
			if i < len(we) {
				w = we[i]
			}
			if i < len(ge) {
				g = ge[i]
			}
			if d, ok := firstDiff(w, g, ptr+"/"+strconv.Itoa(i)); ok {
				return d, true
			}
		}
	case jsonv.Number:
		if !sameNumber(want, got) {
			return difference{Pointer: orRoot(ptr), Expected: show(want), Actual: show(got)}, true
		}
	default:
		if !jsonv.Equal(want, got) {
			return difference{Pointer: orRoot(ptr), Expected: show(want), Actual: show(got)}, true
		}
	}
	return difference{}, false
}

func sameNumber(a, b jsonv.Value) bool {
	if x, ok := a.Int64(); ok {
		if y, ok := b.Int64(); ok {
			return x == y
		}
	}
	x, okx := a.Float64()
	y, oky := b.Float64()
	return okx && oky && x == y
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// showLimit bounds how much of a value a report quotes.
const showLimit = 300

// show is v as compact JSON, cut at showLimit bytes.
func show(v jsonv.Value) string {
	if !v.IsValid() {
		return Absent
	}
	return clip(string(v.AppendJSON(nil)), showLimit)
}

// clip cuts s to at most n bytes (on a rune boundary) and says how long it was.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
