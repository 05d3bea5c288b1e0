package idset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"slices"
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
	enc, err := s.Encode()
	if err != nil {
		return b, err
	}
	start := len(b)
	b = slices.Grow(b, enc.Len())
	b = append(b, magic...)
	b = binary.AppendUvarint(b, uint64(enc.bodyLen()))
	b = append(b, enc.head...)
	b = appendWords(b, enc.low)
	b = appendWords(b, enc.high)
	b = append(b, enc.tail...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], crcTable)), nil
}

// Encoding is a set's encoding (the bytes AppendBinary appends) ready to
// be written: its length is known before a byte is written, and WriteTo
// writes the Elias-Fano words, which are nearly all of a large set's
// encoding, from the words themselves, so a caller streaming a checkpoint
// never holds the encoding's bytes as well as its words.
type Encoding struct {
	head      []byte   // the body up to the words
	low, high []uint64 // the Elias-Fano words (nil without general ids)
	tail      []byte   // the window
}

// Encode returns the set's encoding. The set may change afterwards; the
// Encoding does not.
func (s *Set) Encode() (*Encoding, error) {
	if s.err != nil {
		return nil, s.err
	}
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
	body = binary.AppendUvarint(body, s.nGen)
	enc := &Encoding{}
	if s.nGen > 0 {
		e, err := s.fingerprints()
		if err != nil {
			s.err = err
			return nil, err
		}
		body = append(body, byte(e.p))
		body = binary.AppendUvarint(body, uint64(len(e.low)))
		body = binary.AppendUvarint(body, uint64(len(e.high)))
		enc.low, enc.high = e.low, e.high
	}
	enc.head = body
	var tail []byte
	if s.win == nil {
		tail = binary.AppendUvarint(tail, 0)
	} else {
		tail = binary.AppendUvarint(tail, uint64(min(s.win.count, s.opt.CheckpointWindow)))
		s.win.each(s.opt.CheckpointWindow, func(e winEntry, id string) {
			tail = binary.AppendUvarint(tail, e.ord)
			tail = binary.AppendUvarint(tail, e.pos)
			tail = appendString(tail, id)
		})
	}
	enc.tail = tail
	return enc, nil
}

func (e *Encoding) bodyLen() int { return len(e.head) + 8*(len(e.low)+len(e.high)) + len(e.tail) }

// Len is the encoding's length in bytes.
func (e *Encoding) Len() int {
	n := e.bodyLen()
	return len(magic) + varintLen(uint64(n)) + n + 4
}

func varintLen(v uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], v)
}

// WriteTo writes the encoding to w, Len bytes, a block of words at a time.
func (e *Encoding) WriteTo(w io.Writer) (int64, error) {
	crc := crc32.New(crcTable)
	cw := &countWriter{w: io.MultiWriter(w, crc)}
	head := append(slices.Clip(magic), binary.AppendUvarint(nil, uint64(e.bodyLen()))...)
	cw.write(head)
	cw.write(e.head)
	const block = 8192 // words: 64 KiB of bytes at a time
	buf := make([]byte, 0, 8*block)
	for _, words := range [][]uint64{e.low, e.high} {
		for len(words) > 0 && cw.err == nil {
			n := min(len(words), block)
			cw.write(appendWords(buf[:0], words[:n]))
			words = words[n:]
		}
	}
	cw.write(e.tail)
	cw.write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	return cw.n, cw.err
}

// countWriter counts what it writes; the first error sticks.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) write(p []byte) {
	if c.err != nil {
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

// fingerprints builds the Elias-Fano form of the top p bits of every
// general id's hash, from the records partition by partition (in hash
// order) merged with a decoded set's fingerprints.
func (s *Set) fingerprints() (*ef, error) {
	p := min(uint(bits.Len64(s.nGen))+uint(s.opt.CheckpointBits), maxP)
	if s.frozen != nil {
		p = min(p, s.frozenP) // what a decoded set knows of its older ids
	}
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
	emit := func(v uint64) bool {
		if i >= s.nGen {
			return false
		}
		e.set(i, v)
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
			return nil, err
		}
		slices.Sort(vals)
		for _, v := range vals {
			for fok && fv <= v {
				if !emit(fv) {
					return nil, errors.New("idset: more fingerprints than general ids")
				}
				fv, fok = fit.next()
				fv >>= s.frozenP - p
			}
			if !emit(v) {
				return nil, errors.New("idset: more records than general ids")
			}
		}
	}
	for fok {
		if !emit(fv) {
			return nil, errors.New("idset: more fingerprints than general ids")
		}
		fv, fok = fit.next()
		fv >>= s.frozenP - p
	}
	if i != s.nGen {
		return nil, fmt.Errorf("idset: %d fingerprints for %d general ids", i, s.nGen)
	}
	return e, nil
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
	if d.err == nil && nw > uint64(len(d.b)) {
		d.fail("%d window entries", nw)
	}
	for i := uint64(0); i < nw && d.err == nil; i++ {
		o, pos, id := d.uvarint("window ordinal"), d.uvarint("window position"), d.str("window id")
		if d.err != nil {
			break
		}
		if o >= s.n || !s.decodedHas(id, o) {
			d.fail("window entry %d is not in the set", i)
			break
		}
		s.window().insert(s.hashFn(id), id, o, pos)
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
	e.low, e.high = readWords(lb, nl), readWords(hb, nh)
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
