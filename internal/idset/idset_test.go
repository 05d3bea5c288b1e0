package idset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestCounterStyle(t *testing.T) {
	for _, c := range []struct {
		first   string // the id that proposes the style, at ordinal 0
		id      string
		wantK   int64
		matches bool
	}{
		{"evt-000", "evt-001", 1, true},
		{"evt-000", "evt-999", 999, true},
		{"evt-000", "evt-1000", 1000, true}, // %03d does not pad past three digits
		{"evt-000", "evt-0001", 0, false},   // a fourth digit with a leading zero is not %03d
		{"evt-000", "evt-01", 0, false},     // too short
		{"evt-000", "evt-1", 0, false},      // unpadded: another style
		{"evt-000", "EVT-001", 0, false},    // prefix is exact
		{"evt-000", "evt-001 ", 0, false},   // trailing bytes
		{"evt-000", "evt-00a", 0, false},    // not digits
		{"evt-0000000", "evt-0000042", 42, true},
		{"evt-0000000", "evt-042", 0, false}, // another padding
		{"evt-0000000", "evt-12345678", 12345678, true},
		{"evt-1", "evt-7", 7, true},
		{"evt-1", "evt-07", 0, false},
		{"7", "8", 8, true},                                     // no prefix at all
		{"evt-000", "evt-" + strings.Repeat("9", 19), 0, false}, // beyond 18 digits
	} {
		st, _, ok := styleOf(c.first, 0)
		if !ok {
			t.Fatalf("styleOf(%q) found no style", c.first)
		}
		k, ok := st.parse(c.id)
		if ok != c.matches || (ok && k != c.wantK) {
			t.Errorf("style of %q: parse(%q) = %d, %v; want %d, %v", c.first, c.id, k, ok, c.wantK, c.matches)
		}
		// An adopted style compares a short prefix as one word: the same answers.
		fast := st
		fast.prepare()
		for _, id := range []string{c.id, c.id + "0", "x" + c.id, strings.ToUpper(c.id) + "123456789"} {
			k1, ok1 := st.parse(id)
			k2, ok2 := fast.parse(id)
			if k1 != k2 || ok1 != ok2 {
				t.Errorf("style of %q: parse(%q) = %d, %v byte by byte, %d, %v as a word", c.first, id, k1, ok1, k2, ok2)
			}
		}
		if ok {
			if got := string(st.format(nil, k)); got != c.id {
				t.Errorf("style of %q: format(%d) = %q, want %q", c.first, k, got, c.id)
			}
		}
	}
	for _, id := range []string{"", "evt-", "uuid-x", "evt-" + strings.Repeat("1", 19)} {
		if _, _, ok := styleOf(id, 0); ok {
			t.Errorf("styleOf(%q) proposed a style", id)
		}
	}
}

// Counter ids in order cost a pointer per 4096 ids, whatever their
// padding; an id out of order takes the general path and stays exact.
func TestCounterIDsAreBits(t *testing.T) {
	for _, format := range []string{"evt-%03d", "evt-%07d", "msg_%d"} {
		s := New(Options{Dir: t.TempDir()})
		defer s.Close()
		for i := range 100_000 {
			if _, added, err := s.Add(fmt.Sprintf(format, i), uint64(i)); err != nil || !added {
				t.Fatalf("%s: add %d: %v %v", format, i, added, err)
			}
		}
		st := s.Stats()
		if st.CounterIDs != 99_999 || st.FilterBytes > 1024 || st.CounterBytes > 2048 {
			t.Errorf("%s: %+v; want every id but the first as a bit, in a few KB", format, st)
		}
		if _, ok, _ := s.Lookup(fmt.Sprintf(format, 100_000)); ok {
			t.Errorf("%s: the next id is found before it is added", format)
		}
		if e, ok, _ := s.Lookup(fmt.Sprintf(format, 0)); !ok || e.Ord != 0 || e.Pos != 0 {
			t.Errorf("%s: the first id (general path): %+v %v", format, e, ok)
		}
		if e, ok, _ := s.Lookup(fmt.Sprintf(format, 77)); !ok || e.Ord != 77 || e.Pos != NoPos {
			t.Errorf("%s: a counter id: %+v %v", format, e, ok)
		}
	}
}

func TestPaddingVariantsAreDistinct(t *testing.T) {
	s := New(Options{Dir: t.TempDir()})
	defer s.Close()
	for i := range 1000 {
		s.Add(fmt.Sprintf("evt-%03d", i), uint64(i))
	}
	for _, id := range []string{"evt-0000001", "evt-01", "evt-1", "evt-0001", "evt-1000", "evt--01", "evt-001\x00"} {
		if _, ok, err := s.Lookup(id); ok || err != nil {
			t.Errorf("Lookup(%q) = %v, %v; want absent", id, ok, err)
		}
	}
	for _, id := range []string{"evt-000", "evt-001", "evt-999"} {
		if _, ok, _ := s.Lookup(id); !ok {
			t.Errorf("Lookup(%q) absent", id)
		}
	}
}

// A parent far beyond the window is found through the filter and the
// spill, and then kept in the window for the next lookup.
func TestFarParentIsConfirmedThenWindowed(t *testing.T) {
	s := New(Options{Dir: t.TempDir(), Window: 16, BufferRecords: 128})
	defer s.Close()
	var ids []string
	for i := range 5000 {
		id := fmt.Sprintf("%08x-far", i*2654435761)
		ids = append(ids, id)
		s.Add(id, uint64(i))
	}
	if st := s.Stats(); st.Generations == 0 {
		t.Fatalf("no spill generation after 5000 ids with a 128-record buffer: %+v", st)
	}
	e, ok, err := s.Lookup(ids[3])
	if err != nil || !ok || e.Ord != 3 || e.Pos != 3 {
		t.Fatalf("far parent: %+v %v %v", e, ok, err)
	}
	if _, ok := s.win.find(s.hashFn(ids[3]), ids[3]); !ok {
		t.Error("a confirmed far parent is not in the window")
	}
}

// failingSource fails every read.
type failingSource struct{ memSource }

func (failingSource) ReadID([]byte, uint64) ([]byte, error) { return nil, errors.New("disk on fire") }

func TestSourceErrorsStick(t *testing.T) {
	s := New(Options{Source: &failingSource{}, Dir: t.TempDir(), Window: 1, Hash: collidingHashes["constant"]})
	defer s.Close()
	if _, _, err := s.Add("a", 1); err != nil {
		t.Fatal(err)
	}
	s.Add("b", 2)
	_, _, err := s.Lookup("c") // every hash collides: "a" and "b" must be read back
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("Lookup with a failing Source: %v", err)
	}
	if _, _, err2 := s.Add("d", 3); err2 != err {
		t.Fatalf("after an error, Add = %v, want the same error", err2)
	}
}

func TestCloseReleases(t *testing.T) {
	s := New(Options{Dir: t.TempDir(), BufferRecords: 64})
	for i := range 10_000 {
		s.Add(fmt.Sprintf("id-%x-x", i*7919), uint64(i))
	}
	if s.Stats().Generations == 0 {
		t.Fatal("no generation")
	}
	s.Close()
	if _, _, err := s.Lookup("x"); err == nil {
		t.Fatal("a closed set answers")
	}
	if s.sp != nil || s.shards[0] != nil {
		t.Fatal("Close left resources behind")
	}
}

// An encoding covers a set with everything kept: at most CheckpointBits+3
// bits an id, and it decodes into the same answers.
func TestEncodingSize(t *testing.T) {
	src := newMemSource()
	s := New(Options{Source: src, Dir: t.TempDir()})
	defer s.Close()
	g := newIDGen("uuid", 5)
	const n = 200_000
	for i := range n {
		id := strings.Clone(g.id(i))
		src.put(id)
		s.Add(id, uint64(i)*7+3)
	}
	b, err := s.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	perID := float64(len(b)-DefaultCheckpointWin*40) * 8 / n
	if perID > DefaultCheckpointBits+3 {
		t.Errorf("%d bytes for %d UUIDs: %.1f bits an id", len(b), n, perID)
	}
	d, err := Decode(b, Options{Source: src, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// A writer that fails part-way gets its error back, whichever part
	// of the encoding it fails in.
	enc, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{0, 20, len(b) / 2, len(b) - 2} {
		w := &failingWriter{left: at}
		if n, err := enc.WriteTo(w); err == nil || n > int64(at) {
			t.Errorf("WriteTo a writer failing after %d bytes: %d written, err %v", at, n, err)
		}
	}
	// An Encoding describes the set as it was: one that gained an id
	// since fails instead of writing words that disagree with its head.
	src.put("one-more")
	s.Add("one-more", uint64(n)*7+3)
	if _, err := enc.WriteTo(io.Discard); err == nil {
		t.Error("WriteTo after the set gained an id: no error")
	}
	g = newIDGen("uuid", 5)
	for i := range n {
		id := g.id(i)
		if i%1000 == 0 || i > n-50 {
			if e, ok, err := d.Lookup(id); err != nil || !ok || e.Ord != uint64(i) || e.Pos != uint64(i)*7+3 {
				t.Fatalf("decoded Lookup(%d): %+v %v %v", i, e, ok, err)
			}
		}
	}
}

// Damaged encodings are errors (wrapping ErrCorrupt where the bytes are
// at fault), never a panic.
func TestDecodeRejects(t *testing.T) {
	src := newMemSource()
	s := New(Options{Source: src, Dir: t.TempDir(), CheckpointWindow: 2})
	for i := range 300 {
		id := fmt.Sprintf("evt-%03d", i)
		if i%3 == 0 {
			id = fmt.Sprintf("u-%x-%d", i*2654435761, i%7)
		}
		src.put(id)
		s.Add(id, uint64(i)*7+3)
	}
	good, err := s.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if d, err := Decode(good, Options{Source: src}); err != nil {
		t.Fatalf("the good encoding: %v", err)
	} else {
		d.Close()
	}
	body := func(b []byte) int { _, n := binary.Uvarint(b[len(magic):]); return len(magic) + n }
	for _, c := range []struct {
		name    string
		mutate  func(b []byte) []byte
		opt     Options
		corrupt bool
	}{
		{"empty", func([]byte) []byte { return nil }, Options{Source: src}, true},
		{"magic", func(b []byte) []byte { b[0] ^= 1; return b }, Options{Source: src}, true},
		{"version", func(b []byte) []byte { b[len(magic)-1] = 2; return b }, Options{Source: src}, true},
		{"checksum", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, Options{Source: src}, true},
		{"flipped bit", func(b []byte) []byte { b[len(b)/2] ^= 4; return b }, Options{Source: src}, true},
		{"truncated", func(b []byte) []byte { return b[:len(b)-9] }, Options{Source: src}, true},
		{"trailing byte", func(b []byte) []byte { return fixCRC(append(b[:len(b)-4:len(b)-4], 0, 0, 0, 0, 0)) }, Options{Source: src}, true},
		{"unknown flag", func(b []byte) []byte { b[body(b)] |= 0x80; return fixCRC(b) }, Options{Source: src}, true},
		{"style and candidate", func(b []byte) []byte { b[body(b)] |= flagStyle | flagCandidate; return fixCRC(b) }, Options{Source: src}, true},
		{"more ids than allowed", func(b []byte) []byte { return b }, Options{Source: src, MaxLen: 299}, true},
		{"replaced hash", func(b []byte) []byte { return b }, Options{Source: src, Hash: collidingHashes["len"]}, false},
		{"no Source", func(b []byte) []byte { return b }, Options{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := c.mutate(append([]byte(nil), good...))
			d, err := Decode(b, c.opt)
			if err == nil {
				d.Close()
				t.Fatal("accepted")
			}
			if errors.Is(err, ErrCorrupt) != c.corrupt {
				t.Fatalf("error %q: wraps ErrCorrupt = %v, want %v", err, !c.corrupt, c.corrupt)
			}
		})
	}
}

// A Source that does not hold what was encoded is caught when the set
// reads it back.
func TestDecodedSourceMismatch(t *testing.T) {
	src := newMemSource()
	s := New(Options{Source: src, Dir: t.TempDir(), Window: 4, CheckpointWindow: 1})
	for i := range 100 {
		id := fmt.Sprintf("id-%d-%x", i, i*31)
		src.put(id)
		s.Add(id, uint64(i)*7+3)
	}
	b, _ := s.AppendBinary(nil)
	s.Close()
	other := newMemSource()
	for i := range 100 {
		other.put(fmt.Sprintf("other-%d", i))
	}
	d, err := Decode(b, Options{Source: other, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	_, _, err = d.Lookup("id-5-9b")
	if err == nil || !strings.Contains(err.Error(), "does not hold the ids") {
		t.Fatalf("Lookup through a wrong Source: %v", err)
	}
}

// Each gives back every id in order, counter ids and others, with their
// entries, from a set that has spilled.
func TestEach(t *testing.T) {
	for _, cp := range []bool{false, true} {
		s := New(Options{Dir: t.TempDir(), BufferRecords: 256, CounterPositions: cp})
		var want []string
		for i := range 20_000 {
			id := fmt.Sprintf("evt-%05d", i)
			if i%5 == 0 || i%333 == 1 {
				id = fmt.Sprintf("call_%x_%d", i*2654435761, i)
			}
			want = append(want, id)
			s.Add(id, uint64(3*i))
		}
		s.Add(want[7], 0) // a duplicate changes nothing
		var got []string
		err := s.Each(func(id string, e Entry) error {
			if e.Ord != uint64(len(got)) {
				return fmt.Errorf("ordinal %d at %d", e.Ord, len(got))
			}
			if wantPos := uint64(3 * len(got)); e.Pos != wantPos && (e.Pos != NoPos || cp || !strings.HasPrefix(id, "evt-")) {
				return fmt.Errorf("%q: position %d, want %d", id, e.Pos, wantPos)
			}
			got = append(got, strings.Clone(id))
			return nil
		})
		if err != nil {
			t.Fatalf("counterPositions=%v: %v", cp, err)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("counterPositions=%v: Each gave %d ids, not the %d added in order", cp, len(got), len(want))
		}
		s.Close()
	}
	d := New(Options{Source: newMemSource()})
	defer d.Close()
	if err := d.Each(func(string, Entry) error { return nil }); err == nil {
		t.Error("Each on a Source-mode set")
	}
}

// The spill's search reads windows of sorted partitions: it must find
// every record of a hash however the records fall (partitions far bigger
// than a window, runs of equal hashes across windows, merged generations).
func TestSpillSearch(t *testing.T) {
	sp := newSpill(t.TempDir(), 1<<12, false)
	defer sp.close()
	r := rand.New(rand.NewPCG(21, 22))
	want := map[uint64][]uint64{} // hash -> ordinals
	var hashes []uint64
	ord := uint64(0)
	// Everything in four partitions, so each holds thousands of records.
	for len(hashes) < 3000 {
		h := uint64(r.IntN(4))<<(64-partBits) | r.Uint64()>>partBits
		hashes = append(hashes, h)
		run := 1
		switch r.IntN(20) {
		case 0:
			run = 1 + r.IntN(3*searchWindow) // a run across windows
		case 1, 2:
			run = 2 + r.IntN(5)
		}
		for range run {
			if err := sp.add(rec{h: h, ord: ord}); err != nil {
				t.Fatal(err)
			}
			want[h] = append(want[h], ord)
			ord++
		}
	}
	if err := sp.flush(); err != nil {
		t.Fatal(err)
	}
	merged := false
	for _, g := range sp.gens {
		for p := range 4 {
			merged = merged || (g.level > 0 && g.off[p+1]-g.off[p] > 4*searchWindow)
		}
	}
	if !merged {
		t.Fatalf("no merged generation with partitions of several windows: %d generations", len(sp.gens))
	}
	check := func(h uint64) {
		var got []uint64
		err := sp.search(h, func(r rec) (bool, error) {
			got = append(got, r.ord)
			return true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, want[h]) {
			t.Fatalf("search(%#x): %d records, want %d", h, len(got), len(want[h]))
		}
	}
	for _, h := range hashes {
		check(h)
		check(h + 1) // absent (or the next one, which want knows too)
		check(h - 1)
	}
	for _, g := range sp.gens {
		for p := range nParts {
			prev := uint64(0)
			err := sp.readRange(g, g.off[p], g.off[p+1], func(r rec) bool {
				if r.h < prev {
					t.Fatalf("generation level %d, partition %d: not sorted", g.level, p)
				}
				prev = r.h
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// failingWriter takes left bytes, then fails.
type failingWriter struct{ left int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		n := w.left
		w.left = 0
		return n, errors.New("disk full")
	}
	w.left -= len(p)
	return len(p), nil
}
