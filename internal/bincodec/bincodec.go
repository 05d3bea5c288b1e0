// Package bincodec writes and reads the small binary records tracecheck
// keeps in its checkpoints: unsigned and zig-zag varints, length-prefixed
// byte strings, one-byte flags, in the order the caller chooses.
//
// An Encoder appends to a byte slice and cannot fail. A Decoder reads from
// one and never panics: the first problem (a truncated varint, a length
// longer than what remains, a flag byte other than 0 or 1) sticks, every
// later read returns a zero value, and Err reports it. A caller checks Err
// once, after its last read, and maps it to its own error. Reads that
// return bytes alias the input.
package bincodec

import (
	"encoding/binary"
	"errors"
)

// ErrMalformed is the error of a Decoder whose input ended early or held
// a value it cannot read.
var ErrMalformed = errors.New("truncated or malformed")

// Encoder appends values to B.
type Encoder struct{ B []byte }

// Uvarint appends v as an unsigned varint.
func (e *Encoder) Uvarint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }

// Varint appends v as a zig-zag varint.
func (e *Encoder) Varint(v int64) { e.B = binary.AppendVarint(e.B, v) }

// Bytes appends p with its length.
func (e *Encoder) Bytes(p []byte) { e.Uvarint(uint64(len(p))); e.B = append(e.B, p...) }

// String appends s with its length.
func (e *Encoder) String(s string) { e.Uvarint(uint64(len(s))); e.B = append(e.B, s...) }

// Flag appends one byte, 1 for true.
func (e *Encoder) Flag(ok bool) {
	if ok {
		e.B = append(e.B, 1)
	} else {
		e.B = append(e.B, 0)
	}
}

// Decoder reads values from the front of its input.
type Decoder struct {
	b   []byte
	err error
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// Err returns the first problem, or nil.
func (d *Decoder) Err() error { return d.err }

// Fail records a problem the caller found (a value out of its range), if
// none came before.
func (d *Decoder) Fail() {
	if d.err == nil {
		d.err = ErrMalformed
	}
	d.b = nil
}

// Rest returns the bytes not read yet.
func (d *Decoder) Rest() []byte { return d.b }

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.Fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Varint reads a zig-zag varint.
func (d *Decoder) Varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.Fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Bytes reads a length-prefixed byte string; the result aliases the input
// (its capacity ends with it).
func (d *Decoder) Bytes() []byte {
	n := d.Uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.Fail()
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

// String reads a length-prefixed string (a copy).
func (d *Decoder) String() string { return string(d.Bytes()) }

// Flag reads a byte that must be 0 or 1.
func (d *Decoder) Flag() bool {
	if d.err != nil || len(d.b) == 0 || d.b[0] > 1 {
		d.Fail()
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

// Count reads the number of items that follow, each at least one byte
// long: a count larger than the bytes left is malformed, so a caller may
// allocate for it.
func (d *Decoder) Count() int {
	n := d.Uvarint()
	if n > uint64(len(d.b)) {
		d.Fail()
		return 0
	}
	return int(n)
}
