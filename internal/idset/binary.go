package idset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"slices"
	"unsafe"
)

// The encoding (version 1), all integers unsigned LEB128 unless said:
//
//	"TCIDSET" 0x01          magic and version
//	body length
//	body:
//	  flags                 byte: 1 replaced hash, 2 counter style, 4 candidate style,
//	                        8 general counter numbers, 16 counter-like ids
//	  key                   16 bytes, little-endian (absent with a replaced hash)
//	  ids                   n, the next ordinal
//	  style                 prefix length, prefix, width, offset (zig-zag)
//	  with flag 8           count, then the numbers (zig-zag) of the style's ids
//	                        that took the general path
//	  with flag 16          count, then the counter-like ids (length, bytes) seen
//	                        before the style was adopted
//	  counter runs          count, then per run: gap from the previous run's end, length
//	  general ids           count g; when g > 0: p (one byte), low and high
//	                        word counts, then the words (8 bytes little-endian)
//	                        of the Elias-Fano form of the top p bits of their hashes
//	  window                count, then per entry: ordinal, position, id length, id
//	CRC-32C of everything before, 4 bytes little-endian
//
// An encoding keeps no position but those of the window: a decoded set
// turns fingerprints back into records through its Source (see Source).

var magic = []byte("TCIDSET\x01")

const (
	flagCustomHash = 1
	flagStyle      = 2  // an adopted counter style
	flagCandidate  = 4  // a proposed one
	flagExclusive  = 8  // the numbers of the style's ids on the general path follow
	flagPreCounter = 16 // the counter-like ids seen before a style was adopted follow
	knownFlags     = flagCustomHash | flagStyle | flagCandidate | flagExclusive | flagPreCounter
)

func (s *Set) styleToEncode() (counterStyle, bool) {
	if s.hasStyle {
		return s.style, true
	}
	return s.candidate, s.hasCand
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt is the error for an encoding that is damaged, truncated or
// inconsistent; Decode wraps it with what was wrong.
var ErrCorrupt = errors.New("idset: corrupt encoding")

// MarshalBinary returns the set's encoding (AppendBinary to nil).
func (s *Set) MarshalBinary() ([]byte, error) { return s.AppendBinary(nil) }

// AppendBinary appends the set's encoding: about CheckpointBits+2 bits a
// general id, a few bytes per run of counter ids, and the newest
// CheckpointWindow window entries. Encoding reads the spill once.
func (s *Set) AppendBinary(b []byte) ([]byte, error) {
	if s.err != nil {
		return b, s.err
	}
	body, err := s.encodeHead()
	if err != nil {
		return b, err
	}
	var e *ef
	if s.nGen > 0 {
		if e, err = s.fingerprints(); err != nil {
			s.err = err
			return b, err
		}
		body = append(body, byte(e.p))
		body = binary.AppendUvarint(body, uint64(len(e.low)))
		body = binary.AppendUvarint(body, uint64(len(e.high)))
	}
	tail := s.encodeWindow()
	n := len(body) + len(tail)
	if e != nil {
		n += 8 * (len(e.low) + len(e.high))
	}
	start := len(b)
	b = slices.Grow(b, len(magic)+binary.MaxVarintLen64+n+4)
	b = append(b, magic...)
	b = binary.AppendUvarint(b, uint64(n))
	b = append(b, body...)
	if e != nil {
		b = appendWords(b, e.low)
		b = appendWords(b, e.high)
	}
	b = append(b, tail...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], crcTable)), nil
}

// encodeHead returns the body up to the general ids' count included.
func (s *Set) encodeHead() ([]byte, error) {
	var body []byte
	flags := byte(0)
	if s.opt.Hash != nil {
		flags |= flagCustomHash
	}
	if s.hasStyle {
		flags |= flagStyle
	} else if s.hasCand {
		flags |= flagCandidate
	}
	if s.hasStyle && s.exclusive {
		flags |= flagExclusive
	}
	if !s.hasStyle && !s.preOver {
		flags |= flagPreCounter
	}
	body = append(body, flags)
	if s.opt.Hash == nil {
		body = binary.LittleEndian.AppendUint64(body, s.opt.Key[0])
		body = binary.LittleEndian.AppendUint64(body, s.opt.Key[1])
	}
	body = binary.AppendUvarint(body, s.n)
	if st, ok := s.styleToEncode(); ok {
		body = appendString(body, st.prefix)
		body = binary.AppendUvarint(body, uint64(st.width))
		body = binary.AppendVarint(body, st.offset)
	}
	if flags&flagExclusive != 0 {
		body = binary.AppendUvarint(body, uint64(len(s.genNums)))
		for _, k := range s.genNums {
			body = binary.AppendVarint(body, k)
		}
	}
	if flags&flagPreCounter != 0 {
		body = binary.AppendUvarint(body, uint64(len(s.preCounter)))
		for _, id := range s.preCounter {
			body = appendString(body, id)
		}
	}
	var runs []uint64
	s.bits.runs(func(lo, hi uint64) { runs = append(runs, lo, hi) })
	body = binary.AppendUvarint(body, uint64(len(runs)/2))
	var end uint64
	for i := 0; i < len(runs); i += 2 {
		body = binary.AppendUvarint(body, runs[i]-end)
		body = binary.AppendUvarint(body, runs[i+1]-runs[i])
		end = runs[i+1]
	}
	return binary.AppendUvarint(body, s.nGen), nil
}

// encodeWindow returns the window section of the body.
func (s *Set) encodeWindow() []byte {
	if s.win == nil {
		return binary.AppendUvarint(nil, 0)
	}
	tail := binary.AppendUvarint(nil, uint64(min(s.win.count, s.opt.CheckpointWindow)))
	s.win.each(s.opt.CheckpointWindow, func(e winEntry, id string) {
		tail = binary.AppendUvarint(tail, e.ord)
		tail = binary.AppendUvarint(tail, e.pos)
		tail = appendString(tail, id)
	})
	return tail
}

// Encoding is a set's encoding (the bytes AppendBinary appends), to be
// written to a file: its length is known before a byte is written, and
// WriteTo computes the Elias-Fano words, nearly all of a large set's
// encoding, as it writes them, so that a checkpoint never holds them in
// memory (18 MB for 10M UUIDs). WriteTo reads the set: the set must not
// change between Encode and WriteTo (WriteTo fails if it did).
type Encoding struct {
	s           *Set
	n, nGen     uint64 // the set's size when encoded
	p, l        uint
	nLow, nHigh uint64 // Elias-Fano word counts
	head        []byte // the body up to the words
	tail        []byte // the window
}

// Encode returns the set's encoding.
func (s *Set) Encode() (*Encoding, error) {
	if s.err != nil {
		return nil, s.err
	}
	head, err := s.encodeHead()
	if err != nil {
		return nil, err
	}
	enc := &Encoding{s: s, n: s.n, nGen: s.nGen}
	if s.nGen > 0 {
		enc.p = s.fingerprintBits()
		enc.l = efLowBits(s.nGen, enc.p)
		enc.nLow = (s.nGen*uint64(enc.l) + 63) / 64
		enc.nHigh = (s.nGen + 1<<(enc.p-enc.l) + 63) / 64
		head = append(head, byte(enc.p))
		head = binary.AppendUvarint(head, enc.nLow)
		head = binary.AppendUvarint(head, enc.nHigh)
	}
	enc.head, enc.tail = head, s.encodeWindow()
	return enc, nil
}

func (e *Encoding) bodyLen() int { return len(e.head) + 8*int(e.nLow+e.nHigh) + len(e.tail) }

// WordsOffset is the offset in the encoding of its Elias-Fano words (low,
// then high): a caller that writes the encoding where this offset falls on
// a multiple of 8, and reads it back to memory so aligned, lets Decode
// with Options.KeepEncoding use the words in place.
func (e *Encoding) WordsOffset() int {
	return len(magic) + varintLen(uint64(e.bodyLen())) + len(e.head)
}

// Len is the encoding's length in bytes.
func (e *Encoding) Len() int {
	n := e.bodyLen()
	return len(magic) + varintLen(uint64(n)) + n + 4
}

func varintLen(v uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], v)
}

// WriteTo writes the encoding to w, Len bytes: the Elias-Fano low words in
// one pass over the fingerprints, the high words in a second; or, for a
// decoded set, its words with the ids added since inserted.
func (e *Encoding) WriteTo(w io.Writer) (int64, error) {
	s := e.s
	if s.err != nil {
		return 0, s.err
	}
	if s.n != e.n || s.nGen != e.nGen {
		return 0, fmt.Errorf("idset: the set gained %d ids since it was encoded", s.n-e.n)
	}
	crc := crc32.New(crcTable)
	cw := &countWriter{w: io.MultiWriter(w, crc)}
	cw.write(magic)
	cw.write(binary.AppendUvarint(nil, uint64(e.bodyLen())))
	cw.write(e.head)
	if e.nGen > 0 && s.frozen != nil && e.p == s.frozenP && e.l == s.frozen.l {
		// A decoded set: inserting the ids added since into its words
		// (efmerge.go) is many times faster than two passes over every
		// fingerprint, for one more copy of words the set already holds.
		f, err := s.fingerprints()
		if err != nil {
			s.err = err
			return cw.n, err
		}
		if uint64(len(f.low)) != e.nLow || uint64(len(f.high)) != e.nHigh {
			return cw.n, fmt.Errorf("idset: %d+%d Elias-Fano words, the head says %d+%d", len(f.low), len(f.high), e.nLow, e.nHigh)
		}
		buf := make([]byte, 0, 64<<10)
		for _, words := range [][]uint64{f.low, f.high} {
			for len(words) > 0 && cw.err == nil {
				n := min(len(words), cap(buf)/8)
				cw.write(appendWords(buf[:0], words[:n]))
				words = words[n:]
			}
		}
	} else if e.nGen > 0 {
		ww := &wordWriter{cw: cw, buf: make([]byte, 0, 64<<10)}
		if e.l > 0 {
			var i uint64
			err := s.eachFingerprint(e.p, func(v uint64) {
				ww.put(i*uint64(e.l), e.l, v&(1<<e.l-1))
				i++
			})
			if err != nil {
				s.err = err
				return cw.n, err
			}
		}
		ww.finish(e.nLow)
		ww = &wordWriter{cw: cw, buf: ww.buf[:0]}
		var i uint64
		err := s.eachFingerprint(e.p, func(v uint64) {
			ww.put(v>>e.l+i, 1, 1)
			i++
		})
		if err != nil {
			s.err = err
			return cw.n, err
		}
		ww.finish(e.nHigh)
	}
	cw.write(e.tail)
	cw.write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	return cw.n, cw.err
}

// wordWriter writes a bit array a word at a time, little-endian, as bits
// are set at non-decreasing positions.
type wordWriter struct {
	cw  *countWriter
	buf []byte
	cur uint64 // the word at index idx
	idx uint64
}

// put sets the width low bits of v at bit position at.
func (w *wordWriter) put(at uint64, width uint, v uint64) {
	i, off := at/64, at%64
	w.advance(i)
	w.cur |= v << off
	if off+uint64(width) > 64 {
		w.advance(i + 1)
		w.cur |= v >> (64 - off)
	}
}

// advance emits the words before index i.
func (w *wordWriter) advance(i uint64) {
	for w.idx < i {
		w.buf = binary.LittleEndian.AppendUint64(w.buf, w.cur)
		w.cur = 0
		w.idx++
		if len(w.buf) == cap(w.buf) {
			w.cw.write(w.buf)
			w.buf = w.buf[:0]
		}
	}
}

// finish emits the words up to n in all.
func (w *wordWriter) finish(n uint64) {
	w.advance(n)
	w.cw.write(w.buf)
	w.buf = w.buf[:0]
}

// countWriter counts what it writes; the first error sticks.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) write(p []byte) {
	if c.err != nil || len(p) == 0 {
		return
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// fingerprintBits is the width p of the fingerprints an encoding keeps.
func (s *Set) fingerprintBits() uint {
	p := min(uint(bits.Len64(s.nGen))+uint(s.opt.CheckpointBits), maxP)
	if s.frozen != nil {
		p = min(p, s.frozenP) // what a decoded set knows of its older ids
	}
	return p
}

// fingerprints builds the Elias-Fano form of the top p bits of every
// general id's hash (see eachFingerprint).
func (s *Set) fingerprints() (*ef, error) {
	p := s.fingerprintBits()
	if s.frozen != nil && p == s.frozenP && efLowBits(s.nGen, p) == s.frozen.l {
		// A decoded set: its fingerprints as they are, with the few ids
		// added since.
		vals, err := s.recordFingerprints(p)
		if err != nil {
			return nil, err
		}
		if s.frozen.n+uint64(len(vals)) != s.nGen {
			return nil, fmt.Errorf("idset: %d fingerprints and %d records for %d general ids", s.frozen.n, len(vals), s.nGen)
		}
		return s.frozen.insert(vals), nil
	}
	e := newEFBuilder(s.nGen, p)
	var i uint64
	err := s.eachFingerprint(p, func(v uint64) {
		e.set(i, v)
		i++
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// eachFingerprint calls fn with the top p bits of every general id's hash
// in order, from the records partition by partition (in hash order)
// merged with a decoded set's fingerprints: exactly nGen values, or an
// error.
func (s *Set) eachFingerprint(p uint, fn func(v uint64)) error {
	var i uint64
	emit := func(v uint64) bool {
		if i >= s.nGen {
			return false
		}
		fn(v)
		i++
		return true
	}
	var fit *efIter
	var fv uint64
	fok := false
	if s.frozen != nil {
		fit = &efIter{e: s.frozen}
		fv, fok = fit.next()
		fv >>= s.frozenP - p
	}
	var vals []uint64
	for part := 0; part < nParts && s.sp != nil; part++ {
		vals = vals[:0]
		err := s.sp.eachPart(part, func(r rec) {
			if !r.counter() {
				vals = append(vals, r.h>>(64-p))
			}
		})
		if err != nil {
			return err
		}
		slices.Sort(vals)
		for _, v := range vals {
			for fok && fv <= v {
				if !emit(fv) {
					return errors.New("idset: more fingerprints than general ids")
				}
				fv, fok = fit.next()
				fv >>= s.frozenP - p
			}
			if !emit(v) {
				return errors.New("idset: more records than general ids")
			}
		}
	}
	for fok {
		if !emit(fv) {
			return errors.New("idset: more fingerprints than general ids")
		}
		fv, fok = fit.next()
		fv >>= s.frozenP - p
	}
	if i != s.nGen {
		return fmt.Errorf("idset: %d fingerprints for %d general ids", i, s.nGen)
	}
	return nil
}

// recordFingerprints returns the top p bits of the hash of every general
// id's record, in order.
func (s *Set) recordFingerprints(p uint) ([]uint64, error) {
	var vals []uint64
	for part := 0; part < nParts && s.sp != nil; part++ {
		from := len(vals)
		err := s.sp.eachPart(part, func(r rec) {
			if !r.counter() {
				vals = append(vals, r.h>>(64-p))
			}
		})
		if err != nil {
			return nil, err
		}
		slices.Sort(vals[from:])
	}
	return vals, nil
}

// decoder reads the body; the first problem sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, a...)...)
	}
}

func (d *decoder) uvarint(what string) uint64 { return readVarint(d, what, binary.Uvarint) }
func (d *decoder) varint(what string) int64   { return readVarint(d, what, binary.Varint) }

func readVarint[T uint64 | int64](d *decoder, what string, read func([]byte) (T, int)) T {
	if d.err != nil {
		return 0
	}
	v, n := read(d.b)
	if n <= 0 {
		d.fail("%s: truncated", what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes(n uint64, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.fail("%s: %d bytes where %d remain", what, n, len(d.b))
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) str(what string) string { return string(d.bytes(d.uvarint(what), what)) }

// Decode returns the set an encoding describes. opt must give the same Hash
// (or none) as the encoded set had; its Key is ignored (the encoding's is
// used). A set that holds general ids, or counter ids with
// opt.CounterPositions, needs opt.Source: it reads the ids back the first
// time a lookup needs one (see Source). Damaged input is an error wrapping
// ErrCorrupt; Decode allocates at most opt.MaxLen/512 bytes plus a small
// multiple of len(b).
func Decode(b []byte, opt Options) (*Set, error) {
	if len(b) < len(magic)+1+4 || string(b[:len(magic)-1]) != string(magic[:len(magic)-1]) {
		return nil, fmt.Errorf("%w: not an id set", ErrCorrupt)
	}
	if v := b[len(magic)-1]; v != magic[len(magic)-1] {
		return nil, fmt.Errorf("%w: version %d, this is version %d", ErrCorrupt, v, magic[len(magic)-1])
	}
	if crc32.Checksum(b[:len(b)-4], crcTable) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	d := &decoder{b: b[len(magic) : len(b)-4]}
	if n := d.uvarint("length"); d.err == nil && n != uint64(len(d.b)) {
		return nil, fmt.Errorf("%w: body of %d bytes where the length says %d", ErrCorrupt, len(d.b), n)
	}
	flags := d.bytes(1, "flags")
	if d.err != nil {
		return nil, d.err
	}
	if f := flags[0]; f&^knownFlags != 0 || f&(flagStyle|flagCandidate) == flagStyle|flagCandidate ||
		(f&flagExclusive != 0 && f&flagStyle == 0) || (f&flagPreCounter != 0 && f&flagStyle != 0) {
		return nil, fmt.Errorf("%w: unknown flags %#x", ErrCorrupt, flags[0])
	}
	if custom := flags[0]&flagCustomHash != 0; custom != (opt.Hash != nil) {
		return nil, errors.New("idset: the encoding and the options disagree on the hash")
	}
	if flags[0]&flagCustomHash == 0 {
		k := d.bytes(16, "key")
		if d.err != nil {
			return nil, d.err
		}
		opt.Key = Key{binary.LittleEndian.Uint64(k), binary.LittleEndian.Uint64(k[8:])}
	}
	s := New(opt)
	if err := s.decode(d, flags[0]); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Set) decode(d *decoder, flags byte) error {
	s.n = d.uvarint("ids")
	if d.err == nil && s.n > s.opt.MaxLen {
		return fmt.Errorf("%w: %d ids, more than the %d allowed", ErrCorrupt, s.n, s.opt.MaxLen)
	}
	if flags&(flagStyle|flagCandidate) != 0 {
		var st counterStyle
		st.prefix = d.str("style prefix")
		w := d.uvarint("style width")
		st.offset = d.varint("style offset")
		if w < 1 || w > maxCounterDigits {
			d.fail("style width %d", w)
		}
		st.width = int(w)
		if flags&flagStyle != 0 {
			st.prepare()
			s.style, s.hasStyle = st, true
		} else {
			s.candidate, s.hasCand = st, true
		}
	}
	// Without the lists the history is unknown: no shortcut for absent
	// counter ids (correct, only slower).
	s.preOver = true
	if flags&flagExclusive != 0 {
		n := d.uvarint("general counter numbers")
		if d.err == nil && (n > maxGenNums || n > uint64(len(d.b))) {
			d.fail("%d general counter numbers", n)
		}
		for i := uint64(0); i < n && d.err == nil; i++ {
			k := d.varint("general counter number")
			if i > 0 && k <= s.genNums[i-1] {
				d.fail("general counter numbers out of order")
			}
			s.genNums = append(s.genNums, k)
		}
		s.exclusive = d.err == nil
	}
	if flags&flagPreCounter != 0 {
		n := d.uvarint("counter-like ids")
		if d.err == nil && (n > maxPreCounter || n > uint64(len(d.b))) {
			d.fail("%d counter-like ids", n)
		}
		for i := uint64(0); i < n && d.err == nil; i++ {
			s.preCounter = append(s.preCounter, d.str("counter-like id"))
		}
		s.preOver = d.err != nil
	}
	nr := d.uvarint("counter runs")
	if d.err == nil && (nr > uint64(len(d.b)) || (nr > 0 && !s.hasStyle)) {
		d.fail("%d counter runs", nr)
	}
	var end uint64
	for i := uint64(0); i < nr && d.err == nil; i++ {
		gap, n := d.uvarint("run gap"), d.uvarint("run length")
		lo := end + gap
		if (i > 0 && gap == 0) || n == 0 || lo < end || lo+n < lo || lo+n > s.n {
			d.fail("counter run %d", i)
			break
		}
		s.bits.setRange(lo, lo+n)
		end = lo + n
	}
	s.nGen = d.uvarint("general ids")
	if d.err == nil && s.nGen != s.n-s.bits.ones {
		d.fail("%d general ids and %d counter ids for %d ids", s.nGen, s.bits.ones, s.n)
	}
	if d.err == nil && s.nGen > 0 {
		if err := s.decodeFingerprints(d); err != nil {
			d.fail("fingerprints: %v", err)
		}
	}
	s.frozenN = s.n
	if d.err == nil && s.opt.Source == nil && (s.nGen > 0 || (s.opt.CounterPositions && s.bits.ones > 0)) {
		return errors.New("idset: decoding a set that holds ids needs a Source to read them back")
	}
	nw := d.uvarint("window")
	var winFPs []uint64 // fingerprints of the window's general ids
	if d.err == nil && nw > uint64(len(d.b)) {
		d.fail("%d window entries", nw)
	}
	if d.err == nil && nw > 0 && s.win == nil {
		// Room for them at once (what is left of the encoding bounds
		// their bytes), not grown one doubling at a time.
		s.win = newWindowSized(s.opt.Window, s.opt.WindowBytes, int(nw), len(d.b))
	}
	for i := uint64(0); i < nw && d.err == nil; i++ {
		o, pos := d.uvarint("window ordinal"), d.uvarint("window position")
		id := bytesView(d.bytes(d.uvarint("window id"), "window id")) // the window copies it
		if d.err != nil {
			break
		}
		h := s.hashFn(id)
		if s.hasStyle && s.bits.has(o) || s.frozen == nil {
			if o >= s.n || !s.decodedHas(id, o) {
				d.fail("window entry %d is not in the set", i)
				break
			}
		} else if o >= s.n {
			d.fail("window entry %d is not in the set", i)
			break
		} else {
			winFPs = append(winFPs, h>>(64-s.frozenP))
		}
		s.window().insert(h, id, o, pos)
	}
	// The others are checked against the fingerprints in one pass.
	slices.Sort(winFPs)
	if d.err == nil && len(winFPs) > 0 && !s.frozen.containsAll(winFPs) {
		d.fail("a window entry is not in the set")
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d bytes after the end", len(d.b))
	}
	return d.err
}

// decodeFingerprints reads the Elias-Fano words of the general ids.
func (s *Set) decodeFingerprints(d *decoder) error {
	pb := d.bytes(1, "p")
	nl, nh := d.uvarint("low words"), d.uvarint("high words")
	if d.err != nil {
		return d.err
	}
	p := uint(pb[0])
	if p == 0 || p > maxP || nl > uint64(len(d.b))/8 || nh > uint64(len(d.b))/8-nl {
		return fmt.Errorf("%d bits in %d+%d words", p, nl, nh)
	}
	e := &ef{n: s.nGen, p: p, l: efLowBits(s.nGen, p)}
	e.highBits = e.n + 1<<(p-e.l)
	if nh != (e.highBits+63)/64 || nl != (e.n*uint64(e.l)+63)/64 {
		return fmt.Errorf("%d+%d words for %d values of %d bits", nl, nh, e.n, p)
	}
	lb, hb := d.bytes(nl*8, "low words"), d.bytes(nh*8, "high words")
	if d.err != nil {
		return d.err
	}
	e.low, e.high = readWords(lb, nl, s.opt.KeepEncoding), readWords(hb, nh, s.opt.KeepEncoding)
	e.inPlace = nh > 0 && &e.high[0] == (*uint64)(unsafe.Pointer(&hb[0]))
	if err := e.index(); err != nil {
		return err
	}
	s.frozen, s.frozenP = e, p
	return nil
}

// decodedHas checks a window entry of an encoding against its fingerprints
// or counter bits.
func (s *Set) decodedHas(id string, o uint64) bool {
	if s.hasStyle && s.bits.has(o) {
		k, ok := s.style.parse(id)
		return ok && int64(o)+s.style.offset == k
	}
	return s.frozen != nil && s.frozen.contains(s.hashFn(id)>>(64-s.frozenP))
}
