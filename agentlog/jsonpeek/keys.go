package jsonpeek

import "fmt"

// Keys is a set of object keys that Value.Lookup finds in one walk over an
// object's members, where Get walks them once per key asked. It does not
// change once made, and may be shared.
type Keys struct {
	keys []string
	// first holds, by keyHash, the index + 1 of the first key with that
	// hash; next, by index, the index + 1 of the next one.
	first [256]uint8
	next  []uint8
}

// NewKeys returns the set of keys, which Lookup reports in this order. It
// panics on more than 255 keys or a key given twice: a program's error.
func NewKeys(keys ...string) *Keys {
	if len(keys) > 255 {
		panic("jsonpeek.NewKeys: more than 255 keys")
	}
	ks := &Keys{keys: keys, next: make([]uint8, len(keys))}
	for i := len(keys) - 1; i >= 0; i-- {
		for _, o := range keys[:i] {
			if o == keys[i] {
				panic(fmt.Sprintf("jsonpeek.NewKeys: %q given twice", o))
			}
		}
		h := keyHash(keys[i])
		ks.next[i] = ks.first[h]
		ks.first[h] = uint8(i + 1)
	}
	return ks
}

// keyHash spreads keys by length and their first and last bytes.
func keyHash[T string | []byte](k T) uint8 {
	if len(k) == 0 {
		return 0
	}
	return uint8(len(k)*37) ^ k[0] ^ k[len(k)-1]<<3
}

// Len returns the number of keys.
func (ks *Keys) Len() int { return len(ks.keys) }

// Lookup sets out[i] to the member of an object whose key is the i-th of
// ks, as Get does (the last, if the key repeats; the zero Value when it
// is absent or v is not an object), walking the members once. out must
// have room for every key.
func (v Value) Lookup(ks *Keys, out []Value) {
	out = out[:len(ks.keys)]
	clear(out)
	if v.Kind() != Object {
		return
	}
	d := v.d
	end := d.nodes[v.i].end
	var buf []byte
	for k := v.i + 1; k < end; {
		kn := &d.nodes[k]
		key := d.src[kn.a:kn.b]
		if kn.esc {
			buf = unescape(buf[:0], key)
			key = buf
		}
		for j := ks.first[keyHash(key)]; j != 0; j = ks.next[j-1] {
			if string(key) == ks.keys[j-1] {
				out[j-1] = Value{d: d, i: k + 1}
				break
			}
		}
		k = kn.end
	}
}
