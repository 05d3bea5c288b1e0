// Package jsonv holds JSON values the way the Trace 0.1.0 reference writes
// them: objects keep their member order, numbers keep Python's spelling, and
// encoding is byte-identical to Python's json.dumps with ensure_ascii=False
// and compact separators.
//
// Two encodings are provided. AppendJSON keeps member order (the golden
// layout). AppendCanonical sorts members by key (json.dumps with
// sort_keys=True), which is what fingerprints hash. Canonicalizer writes
// the canonical form straight from a JSON text without building Values;
// it and Parse share one scanner, so they accept and reject the same texts
// with the same errors.
//
// Canonicalizer, AppendOrdered and AppendPyRepr write a long text without a
// tree or a tape of it: they validate it keeping only the open containers
// and the open objects' keys, then walk it again (emit.go), so their memory
// follows the text's nesting and widest object, not its number of values.
// EachMember and MemberText pick members out of a validated text.
//
// Parsing is strict where Python is lenient: duplicate keys, NaN and
// Infinity, numbers that overflow, invalid UTF-8, lone surrogate escapes and
// trailing bytes are all errors, because a journal containing them cannot be
// fingerprinted the same way by every reader.
package jsonv

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON kinds. Invalid is the zero Value: "absent".
const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "invalid"
}

// Value is one JSON value. The zero Value is Invalid and stands for "absent".
// Values are immutable once built: constructors copy nothing, so callers must
// not modify slices they passed in.
type Value struct {
	kind  Kind
	b     bool
	float bool   // Number: written with a fraction or exponent (a Python float)
	s     string // String: the text; Number: Python's spelling of it
	arr   []Value
	obj   []Member
}

// Member is one key/value pair of an object.
type Member struct {
	Key   string
	Value Value
}

// M is shorthand for a Member.
func M(key string, v Value) Member { return Member{Key: key, Value: v} }

// NullValue returns JSON null.
func NullValue() Value { return Value{kind: Null} }

// BoolValue returns true or false.
func BoolValue(b bool) Value { return Value{kind: Bool, b: b} }

// Str returns a JSON string.
func Str(s string) Value { return Value{kind: String, s: s} }

// Int returns an integer number.
func Int(i int64) Value { return Value{kind: Number, s: strconv.FormatInt(i, 10)} }

// Float returns a Python float. It panics on NaN or an infinity, which JSON
// cannot carry.
func Float(f float64) Value {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		panic("jsonv: NaN or Inf has no JSON form")
	}
	return Value{kind: Number, float: true, s: string(AppendPyFloat(nil, f))}
}

// Arr returns an array of the given values.
func Arr(vs ...Value) Value {
	if vs == nil {
		vs = []Value{}
	}
	return Value{kind: Array, arr: vs}
}

// Obj returns an object with the members in the given order. Duplicate keys
// are the caller's error; encoding writes them as given.
func Obj(ms ...Member) Value {
	if ms == nil {
		ms = []Member{}
	}
	return Value{kind: Object, obj: ms}
}

// StrArr returns an array of strings.
func StrArr(ss []string) Value {
	vs := make([]Value, len(ss))
	for i, s := range ss {
		vs[i] = Str(s)
	}
	return Arr(vs...)
}

// Kind reports the value's JSON type.
func (v Value) Kind() Kind { return v.kind }

// IsValid reports whether v holds a value (is not the zero Value).
func (v Value) IsValid() bool { return v.kind != Invalid }

// Text returns a string's content, or a number's Python spelling.
func (v Value) Text() string { return v.s }

// Bool returns a boolean's value; false for any other kind.
func (v Value) Bool() bool { return v.kind == Bool && v.b }

// IsTrue reports whether v is the JSON literal true (Python's "is True").
func (v Value) IsTrue() bool { return v.kind == Bool && v.b }

// IsFloat reports whether a number was written with a fraction or exponent.
func (v Value) IsFloat() bool { return v.kind == Number && v.float }

// Int64 returns an integer number that fits in int64.
func (v Value) Int64() (int64, bool) {
	if v.kind != Number || v.float {
		return 0, false
	}
	i, err := strconv.ParseInt(v.s, 10, 64)
	return i, err == nil
}

// Float64 returns a number as float64 (rounded for huge integers).
func (v Value) Float64() (float64, bool) {
	if v.kind != Number {
		return 0, false
	}
	f, _ := strconv.ParseFloat(v.s, 64)
	return f, !math.IsInf(f, 0)
}

// Len returns the number of elements of an array or members of an object.
func (v Value) Len() int {
	switch v.kind {
	case Array:
		return len(v.arr)
	case Object:
		return len(v.obj)
	}
	return 0
}

// Elems returns an array's elements. The slice must not be modified.
func (v Value) Elems() []Value { return v.arr }

// Members returns an object's members in order. The slice must not be modified.
func (v Value) Members() []Member { return v.obj }

// Get returns the value of an object's member. For duplicate keys (which the
// parser rejects) the last one wins, as in Python.
func (v Value) Get(key string) (Value, bool) {
	for i := len(v.obj) - 1; i >= 0; i-- {
		if v.obj[i].Key == key {
			return v.obj[i].Value, true
		}
	}
	return Value{}, false
}

// Has reports whether an object has the member key.
func (v Value) Has(key string) bool { _, ok := v.Get(key); return ok }

// With returns a copy of an object with key set to val: replaced in place if
// present, appended otherwise.
func (v Value) With(key string, val Value) Value {
	ms := make([]Member, 0, len(v.obj)+1)
	found := false
	for _, m := range v.obj {
		if m.Key == key {
			m.Value = val
			found = true
		}
		ms = append(ms, m)
	}
	if !found {
		ms = append(ms, M(key, val))
	}
	return Obj(ms...)
}

// Without returns a copy of an object lacking key.
func (v Value) Without(key string) Value {
	ms := make([]Member, 0, len(v.obj))
	for _, m := range v.obj {
		if m.Key != key {
			ms = append(ms, m)
		}
	}
	return Obj(ms...)
}

// Equal reports whether a and b are the same JSON value: equal member order
// is not required, number spelling is (Python's 1 and 1.0 differ on the wire).
func Equal(a, b Value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case Bool:
		return a.b == b.b
	case Number:
		return a.float == b.float && a.s == b.s
	case String:
		return a.s == b.s
	case Array:
		if len(a.arr) != len(b.arr) {
			return false
		}
		for i := range a.arr {
			if !Equal(a.arr[i], b.arr[i]) {
				return false
			}
		}
		return true
	case Object:
		if len(a.obj) != len(b.obj) {
			return false
		}
		for _, m := range a.obj {
			o, ok := b.Get(m.Key)
			if !ok || !Equal(m.Value, o) {
				return false
			}
		}
		return true
	}
	return true
}

// Interface converts v to the generic form encoding/json decodes into
// (map[string]any, []any, string, bool, nil), for libraries such as JSON
// Schema validators; number turns a number's text into the caller's number
// type (json.Number, say).
func (v Value) Interface(number func(string) any) any {
	switch v.kind {
	case Null:
		return nil
	case Bool:
		return v.b
	case Number:
		return number(v.s)
	case String:
		return v.s
	case Array:
		out := make([]any, len(v.arr))
		for i, e := range v.arr {
			out[i] = e.Interface(number)
		}
		return out
	case Object:
		out := make(map[string]any, len(v.obj))
		for _, m := range v.obj {
			out[m.Key] = m.Value.Interface(number)
		}
		return out
	}
	return nil
}

// AppendJSON appends v compactly, members in order, strings escaped as
// Python's json.dumps(ensure_ascii=False) escapes them.
func (v Value) AppendJSON(dst []byte) []byte { return v.appendTo(dst, false) }

// AppendCanonical appends v compactly with object members sorted by key:
// Python's json.dumps(v, ensure_ascii=False, sort_keys=True,
// separators=(",", ":")).
func (v Value) AppendCanonical(dst []byte) []byte { return v.appendTo(dst, true) }

func (v Value) appendTo(dst []byte, sorted bool) []byte {
	switch v.kind {
	case Null:
		return append(dst, "null"...)
	case Bool:
		if v.b {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Number:
		return append(dst, v.s...)
	case String:
		return AppendPyString(dst, v.s)
	case Array:
		dst = append(dst, '[')
		for i, e := range v.arr {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = e.appendTo(dst, sorted)
		}
		return append(dst, ']')
	case Object:
		ms := v.obj
		dst = append(dst, '{')
		if !sorted || len(ms) < 2 {
			for i, m := range ms {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = AppendPyString(dst, m.Key)
				dst = append(dst, ':')
				dst = m.Value.appendTo(dst, sorted)
			}
			return append(dst, '}')
		}
		// Sort member indices rather than members, on the stack for
		// the usual small object.
		var small [16]int
		idx := small[:0]
		if len(ms) > len(small) {
			idx = make([]int, 0, len(ms))
		}
		for i := range ms {
			idx = append(idx, i)
		}
		sortKeys(ms, idx)
		for j, i := range idx {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = AppendPyString(dst, ms[i].Key)
			dst = append(dst, ':')
			dst = ms[i].Value.appendTo(dst, sorted)
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

// sortKeys stably sorts idx by the keys of the members it indexes. Go
// compares strings bytewise; for valid UTF-8 that is code point order, the
// order of Python's sort_keys. Stability keeps duplicate keys (which only
// Obj can make) in the order given.
func sortKeys(ms []Member, idx []int) {
	if len(idx) > 24 {
		slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(ms[a].Key, ms[b].Key) })
		return
	}
	for j := 1; j < len(idx); j++ {
		x := idx[j]
		k := j
		for ; k > 0 && ms[x].Key < ms[idx[k-1]].Key; k-- {
			idx[k] = idx[k-1]
		}
		idx[k] = x
	}
}

const hexDigits = "0123456789abcdef"

// AppendPyString appends s as a JSON string the way Python's json.dumps with
// ensure_ascii=False writes it: only '"', '\\' and the C0 controls are
// escaped (\n \r \t \b \f by name, the rest as \u00xx); everything else,
// DEL, U+2028 and U+2029 included, is written as is. s must be valid UTF-8.
func AppendPyString(dst []byte, s string) []byte {
	return AppendPyBytes(dst, unsafe.Slice(unsafe.StringData(s), len(s))) // only read
}

// AppendPyBytes is AppendPyString of the text s holds, making no string
// of it.
func AppendPyBytes(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if i+8 <= len(s) {
			// 8 bytes at a time past those written as they are: a byte's
			// top bit in m is set if it is < 0x20, '"' or '\\'; as in
			// scanString, the lowest flag is exact.
			x := binary.LittleEndian.Uint64(s[i:])
			q, b := x^('"'*lsb), x^('\\'*lsb)
			m := ((x-0x20*lsb)&^x | (q-lsb)&^q | (b-lsb)&^b) & msb
			if m == 0 {
				i += 7 // and the loop's i++
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			dst = append(dst, s[start:i]...)
			dst = appendPyEscape(dst, c)
			start = i + 1
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendPyEscape appends Python's escape for '"', '\\' or a C0 control.
func appendPyEscape(dst []byte, c byte) []byte {
	if e := pyEscapeLetter[c]; e != 0 {
		return append(dst, '\\', e)
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// pyEscapeLetter maps the bytes Python escapes by name to the letter after
// the backslash; the other C0 controls are written as \u00xx.
var pyEscapeLetter = [256]byte{'"': '"', '\\': '\\', '\n': 'n', '\r': 'r', '\t': 't', '\b': 'b', '\f': 'f'}

// AppendInt appends n in decimal, as strconv.AppendInt(dst, n, 10): the
// small numbers JSON lines hold (sequences, turns, counts) written digit
// by digit, without strconv's buffer and copy.
func AppendInt(dst []byte, n int64) []byte {
	switch {
	case n < 0 || n >= 10000:
		return strconv.AppendInt(dst, n, 10)
	case n < 10:
		return append(dst, byte('0'+n))
	case n < 100:
		return append(dst, byte('0'+n/10), byte('0'+n%10))
	case n < 1000:
		return append(dst, byte('0'+n/100), byte('0'+n/10%10), byte('0'+n%10))
	}
	return append(dst, byte('0'+n/1000), byte('0'+n/100%10), byte('0'+n/10%10), byte('0'+n%10))
}

// AppendPyFloat appends f as Python's repr(float) spells it: the shortest
// digits that round-trip, fixed notation for decimal exponents in [-4, 16),
// otherwise d.ddde±XX; always with ".0" when the fixed form is integral.
func AppendPyFloat(dst []byte, f float64) []byte {
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // -d.ddde±XX
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	var digits [24]byte
	nd := 0
	i := 0
	for ; i < len(e) && e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[nd] = e[i]
			nd++
		}
	}
	exp := 0
	for _, c := range e[i+2:] { // skip 'e' and the sign
		exp = exp*10 + int(c-'0')
	}
	if e[i+1] == '-' {
		exp = -exp
	}
	if neg {
		dst = append(dst, '-')
	}
	decpt := exp + 1
	if decpt <= -4 || decpt > 16 {
		dst = append(dst, digits[0])
		if nd > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:nd]...)
		}
		dst = append(dst, 'e')
		if exp < 0 {
			dst = append(dst, '-')
			exp = -exp
		} else {
			dst = append(dst, '+')
		}
		if exp < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(exp), 10)
	}
	switch {
	case decpt <= 0:
		dst = append(dst, '0', '.')
		for j := 0; j < -decpt; j++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits[:nd]...)
	case decpt < nd:
		dst = append(dst, digits[:decpt]...)
		dst = append(dst, '.')
		dst = append(dst, digits[decpt:nd]...)
	default:
		dst = append(dst, digits[:nd]...)
		for j := nd; j < decpt; j++ {
			dst = append(dst, '0')
		}
		dst = append(dst, '.', '0')
	}
	return dst
}

// AppendPyRepr appends Python's repr() of the value json.loads gives for v:
// dicts and lists with ", " and ": ", True, False, None, numbers in their
// Python spelling, strings as AppendPyReprString writes them.
func (v Value) AppendPyRepr(dst []byte) []byte {
	switch v.kind {
	case Null:
		return append(dst, "None"...)
	case Bool:
		if v.b {
			return append(dst, "True"...)
		}
		return append(dst, "False"...)
	case Number:
		return append(dst, v.s...)
	case String:
		return AppendPyReprString(dst, []byte(v.s))
	case Array:
		dst = append(dst, '[')
		for i, e := range v.arr {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = e.AppendPyRepr(dst)
		}
		return append(dst, ']')
	case Object:
		// json.loads keeps the last of duplicate keys at the first one's
		// place; the parser rejects duplicates, so members are unique.
		dst = append(dst, '{')
		for i, m := range v.obj {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendPyReprString(dst, []byte(m.Key))
			dst = append(dst, ": "...)
			dst = m.Value.AppendPyRepr(dst)
		}
		return append(dst, '}')
	}
	return append(dst, "None"...)
}
