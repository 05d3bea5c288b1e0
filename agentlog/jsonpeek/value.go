package jsonpeek

import "strconv"

// Value is one node of a Doc. The zero Value is Invalid: "absent". A Value
// is valid until its Doc parses again.
type Value struct {
	d *Doc
	i int32
}

// Kind returns the value's JSON type; Invalid when absent.
func (v Value) Kind() Kind {
	if v.d == nil {
		return Invalid
	}
	return v.d.nodes[v.i].kind
}

// Flags returns the strictness flags of the document v belongs to.
func (v Value) Flags() Flags {
	if v.d == nil {
		return 0
	}
	return v.d.flags
}

// Exists reports whether the value is present.
func (v Value) Exists() bool { return v.d != nil }

// Raw returns the value's bytes in the source (a string with its quotes).
func (v Value) Raw() []byte {
	if v.d == nil {
		return nil
	}
	n := &v.d.nodes[v.i]
	if n.kind == String {
		return v.d.src[n.a-1 : n.b+1]
	}
	return v.d.src[n.a:n.b]
}

// Get returns the member key of an object (the last, if the key repeats,
// as JSON.parse and Python's json take it: what the agents that write
// these logs read back). The first byte tells most keys of one length
// apart without comparing the rest.
func (v Value) Get(key string) Value {
	if v.Kind() != Object {
		return Value{}
	}
	d := v.d
	end := d.nodes[v.i].end
	var found Value
	for k := v.i + 1; k < end; {
		kn := &d.nodes[k]
		if kn.esc {
			if string(unescape(nil, d.src[kn.a:kn.b])) == key {
				found = Value{d: d, i: k + 1}
			}
		} else if int(kn.b-kn.a) == len(key) && (len(key) == 0 || d.src[kn.a] == key[0]) && string(d.src[kn.a:kn.b]) == key {
			found = Value{d: d, i: k + 1}
		}
		k = kn.end
	}
	return found
}

// Path follows keys through nested objects.
func (v Value) Path(keys ...string) Value {
	for _, k := range keys {
		v = v.Get(k)
	}
	return v
}

// Members calls fn for each member of an object, in order, until fn
// returns false. Keys are decoded.
func (v Value) Members(fn func(key string, val Value) bool) {
	if v.Kind() != Object {
		return
	}
	d := v.d
	end := d.nodes[v.i].end
	for k := v.i + 1; k < end; {
		if !fn(Value{d: d, i: k}.Str(), Value{d: d, i: k + 1}) {
			return
		}
		k = d.nodes[k].end
	}
}

// Elems calls fn for each element of an array, in order, until fn returns
// false.
func (v Value) Elems(fn func(i int, e Value) bool) {
	if v.Kind() != Array {
		return
	}
	d := v.d
	end := d.nodes[v.i].end
	for k, n := v.i+1, 0; k < end; n++ {
		if !fn(n, Value{d: d, i: k}) {
			return
		}
		k = d.nodes[k].end
	}
}

// Len returns the number of elements of an array or members of an object.
func (v Value) Len() int {
	n := 0
	switch v.Kind() {
	case Array:
		v.Elems(func(int, Value) bool { n++; return true })
	case Object:
		v.Members(func(string, Value) bool { n++; return true })
	}
	return n
}

// Str returns a string's decoded text; "" for any other kind.
func (v Value) Str() string {
	if v.Kind() != String {
		return ""
	}
	n := &v.d.nodes[v.i]
	if !n.esc {
		return string(v.d.src[n.a:n.b])
	}
	return string(unescape(nil, v.d.src[n.a:n.b]))
}

// Plain returns a string's text when it holds no escapes (its bytes in the
// source, which must not be changed); ok is false for any other string or
// kind.
func (v Value) Plain() (b []byte, ok bool) {
	if v.Kind() != String {
		return nil, false
	}
	n := &v.d.nodes[v.i]
	if n.esc {
		return nil, false
	}
	return v.d.src[n.a:n.b], true
}

// Is reports whether v is the string s, without allocating when v has no
// escapes.
func (v Value) Is(s string) bool {
	if v.Kind() != String {
		return false
	}
	n := &v.d.nodes[v.i]
	if !n.esc {
		return string(v.d.src[n.a:n.b]) == s
	}
	return string(unescape(nil, v.d.src[n.a:n.b])) == s
}

// HasPrefix reports whether v is a string starting with p. Only as much of
// the string as p's length is decoded.
func (v Value) HasPrefix(p string) bool {
	if v.Kind() != String {
		return false
	}
	n := &v.d.nodes[v.i]
	raw := v.d.src[n.a:n.b]
	if n.esc {
		var buf [64]byte
		raw, _ = unescapePrefix(buf[:0], raw, len(p))
	}
	return len(raw) >= len(p) && string(raw[:len(p)]) == p
}

// StrPrefix returns at least the first n bytes of a string's decoded text
// (all of it when shorter), decoding no more than that and a character;
// whole says it is the whole text. "" and true for any other kind.
func (v Value) StrPrefix(n int) (s string, whole bool) {
	if v.Kind() != String {
		return "", true
	}
	nd := &v.d.nodes[v.i]
	raw := v.d.src[nd.a:nd.b]
	if !nd.esc {
		if len(raw) <= n {
			return string(raw), true
		}
		return string(raw[:n]), false
	}
	b, rest := unescapePrefix(nil, raw, n)
	return string(b), rest == 0
}

// IsEmpty reports whether v is absent, null, "", [] or {}.
func (v Value) IsEmpty() bool {
	switch v.Kind() {
	case Invalid, Null:
		return true
	case String:
		n := &v.d.nodes[v.i]
		return n.a == n.b
	case Array, Object:
		return v.d.nodes[v.i].end == v.i+1
	}
	return false
}

// Bool returns a boolean's value; ok is false for any other kind.
func (v Value) Bool() (val, ok bool) {
	switch v.Kind() {
	case True:
		return true, true
	case False:
		return false, true
	}
	return false, false
}

// True reports whether v is the literal true.
func (v Value) True() bool { return v.Kind() == True }

// Int returns an integer number's value; ok is false for anything else.
func (v Value) Int() (int64, bool) {
	if v.Kind() != Number {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v.Raw()), 10, 64)
	return n, err == nil
}

// Span returns the byte offsets of the value's raw bytes in the source.
func (v Value) Span() (start, end int) {
	if v.d == nil {
		return 0, 0
	}
	n := &v.d.nodes[v.i]
	if n.kind == String {
		return int(n.a) - 1, int(n.b) + 1
	}
	return int(n.a), int(n.b)
}
