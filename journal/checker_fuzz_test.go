package journal

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/internal/idset"
)

// The checker's id set (internal/idset) against a plain map, at the level
// of the invariants: FuzzCheckerDifferential runs a program of events
// through a RunChecker and through mapChecker (fast_check_test.go), which
// remembers ids in a map, and the verdicts must be the same event by
// event. The programs make ids hard for the set: counter ids in order and
// out of it, the same numbers in another padding (evt-001, evt-0001,
// evt-1), UUIDs, ids one byte off an earlier one, repeats from far back,
// parents far back or never written, under hashes that collide on purpose
// (Options.Hash: all equal, equal per length, a few values), with a tiny
// window and spill buffers so that every path of the set runs. The
// checker's state goes through its full form (MarshalBinary) and its
// compact form (AppendCompactState, restored against the lines written so
// far) in the middle; Rollback takes back what a session store refuses.

// fuzzHashes are the hashes a program may choose (its first byte).
var fuzzHashes = []func(string) uint64{
	nil, // the set's own keyed hash
	func(string) uint64 { return 0x1234_5678_9abc_def0 },                      // every id collides
	func(id string) uint64 { return uint64(len(id)) * 0x9e37_79b9_7f4a_7c15 }, // ids of one length collide
	func(id string) uint64 { // a few values: fingerprints, buckets and shards collide
		h := fnv.New64a()
		io.WriteString(h, id)
		return h.Sum64() & 0xf000_0000_0000_000f
	},
}

// growingFile is a journal being written: ReadAt sees what is there now.
type growingFile struct{ b []byte }

func (g *growingFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(g.b)) {
		return 0, io.EOF
	}
	n := copy(p, g.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// fuzzLine is an event line of the reference layout holding id (a JSON
// string, escapes and all); only its id is read back.
func fuzzLine(id string, seq int64) []byte {
	q, _ := json.Marshal(id)
	seq = max(seq, 0)
	return fmt.Appendf(nil, `{"trace_version":"0.1.0","event_id":%s,"session_id":"s","sequence":%d,"timestamp":"2026-08-10T00:00:00Z","type":"user.message","actor":{"kind":"user","id":"u"},"payload":{},"provenance":{"agent_id":"a","snapshot_id":"x","surface":"sdk","harness_mode":"fake","run_id":"r"},"redaction":{"status":"clean","fields":[]}}`+"\n", q, seq)
}

// fuzzProgram turns bytes into events and actions.
type fuzzProgram struct {
	data []byte
	ids  []string // every id used so far, in order
	n    int      // counter ids made
}

func (p *fuzzProgram) byte() byte {
	if len(p.data) == 0 {
		return 0
	}
	b := p.data[0]
	p.data = p.data[1:]
	return b
}

// earlier returns an id used before (the b-th from the end, wrapping), or
// a fresh one when there is none.
func (p *fuzzProgram) earlier(b byte) string {
	if len(p.ids) == 0 {
		return "none-yet"
	}
	return p.ids[len(p.ids)-1-int(b)%len(p.ids)]
}

// repadded writes an id's trailing number with another padding.
func repadded(id string, b byte) string {
	i := len(id)
	for i > 0 && id[i-1] >= '0' && id[i-1] <= '9' {
		i--
	}
	if i == len(id) {
		return id + "0"
	}
	digits := strings.TrimLeft(id[i:], "0")
	if digits == "" {
		digits = "0"
	}
	return id[:i] + strings.Repeat("0", int(b%5)) + digits
}

const fuzzAlphabet = "ab-_9é\"\\\n"

// id makes the next event's id.
func (p *fuzzProgram) id() string {
	op, b := p.byte(), p.byte()
	switch op % 8 {
	case 0, 1: // the next counter id
		p.n++
		return fmt.Sprintf([]string{"evt-%03d", "evt-%07d", "c%d"}[b%3], p.n-1)
	case 2: // a UUID
		return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(b)*2654435761, b, uint16(b)*7&0xfff, uint16(op)*13&0xfff, uint64(b)*0x9e3779b97f4a7c15&(1<<48-1))
	case 3: // a repeat, perhaps from far back
		return p.earlier(b)
	case 4: // one byte off an earlier id
		id := []byte(p.earlier(b))
		if len(id) == 0 {
			return "x"
		}
		i := int(op/8) % len(id)
		if id[i] >= 0x80 {
			return string(id) + "x"
		}
		id[i] ^= 1 << (b % 7)
		if id[i] >= 0x80 || id[i] == 0 {
			id[i] = 'z'
		}
		return string(id)
	case 5: // an earlier id's number, padded otherwise
		return repadded(p.earlier(b), op)
	case 6: // short, from a small alphabet (escapes when written)
		var sb strings.Builder
		for k := 0; k <= int(b%4); k++ {
			sb.WriteString(string([]rune(fuzzAlphabet)[int(op+byte(k)*b)%len([]rune(fuzzAlphabet))]))
		}
		return sb.String()
	default: // long
		return strings.Repeat(string(rune('a'+b%26)), 100+int(op))
	}
}

// parent makes the next event's parent: none, the previous id, one far
// back, one never used, another padding of one, or id itself.
func (p *fuzzProgram) parent(id string) string {
	op, b := p.byte(), p.byte()
	switch op % 6 {
	case 0:
		return ""
	case 1:
		return p.earlier(0)
	case 2:
		return p.earlier(b)
	case 3:
		return fmt.Sprintf("never-%d", b)
	case 4:
		return repadded(p.earlier(b), op)
	default:
		return id
	}
}

func FuzzCheckerDifferential(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0})
	f.Add([]byte("\x01\x00\x00\x01\x01\x00\x05\x03\x01\x02\x05\x03\x03\x00\x02\x07\x06\x01\x04\x05\x05\x09"))
	f.Add([]byte("\x02\x02\x01\x04\x02\x02\x01\x04\x03\x02\x00\x00\x05\x09\x03\x01\x04\x06\x02\x01"))
	f.Add([]byte("\x03\x06\x07\x02\x03\x02\x01\x04\x04\x03\x00\x02\x05\x05\x00\x00\x06\x07\x03\x08"))
	long := []byte{1}
	for i := 0; i < 600; i++ {
		long = append(long, byte(i%8), byte(i*7), byte(i%6), byte(i*3), byte(i%11))
	}
	f.Add(long)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		opt := idset.Options{Hash: fuzzHashes[int(data[0])%len(fuzzHashes)], Window: 4, WindowBytes: 256, BufferRecords: 64,
			CheckpointWindow: 2, Dir: t.TempDir()}
		p := &fuzzProgram{data: data[1:]}
		c := NewRunChecker()
		c.ids.st = &idState{opt: opt}
		defer func() { c.Close() }()
		o := &mapChecker{seen: map[string]bool{}}
		file := &growingFile{}
		rolledBack, decoded := false, false
		for i := 0; len(p.data) > 0 && i < 2000; i++ {
			id := p.id()
			e := &Event{EventID: id, ParentEventID: p.parent(id), Sequence: c.next}
			act := p.byte()
			if testing.Verbose() {
				t.Logf("event %d: id %q parent %q seq %d act %d", i, e.EventID, e.ParentEventID, e.Sequence, act%16)
			}
			switch act % 16 {
			case 0:
				e.Sequence++ // a gap
			case 1:
				e.Sequence-- // a repeat of a sequence
			case 2: // Mark, Check, Rollback if refused: both as they were
				if decoded {
					break // a restored checker checks its file's lines only: checkAt below
				}
				saved := o.next
				seen := o.seen[e.EventID]
				want := o.check(e)
				if want != "" {
					o.next = saved
					if !seen {
						delete(o.seen, e.EventID)
					}
				}
				var got Code
				held := setLen(c)
				if err := tryCheck(c, e); err != nil {
					got = err.Code
					rolledBack = rolledBack || !seen
				} else if setLen(c) > held {
					file.b = append(file.b, fuzzLine(id, e.Sequence)...)
				}
				if got != want {
					t.Fatalf("event %d %+v: with a rollback %q, the map %q", i, e, got, want)
				}
				p.ids = append(p.ids, id)
				continue
			case 3: // the full state, and back (not of a compact state restored: its ids are in the file)
				if decoded {
					break
				}
				st, err := c.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				d := &RunChecker{}
				if err := d.UnmarshalBinary(st); err != nil {
					t.Fatal(err)
				}
				if d.ids.st == nil {
					d.ids.st = &idState{opt: opt} // no ids yet: the program's hash from here on
				}
				c.Close()
				c = d
			case 4: // the compact state, restored against the lines so far
				if rolledBack || (c.ids.st != nil && c.ids.st.noOffsets) {
					break
				}
				st, err := c.AppendCompactState(nil)
				if err != nil {
					t.Fatal(err)
				}
				d := &RunChecker{}
				if err := d.restoreCompact(st, file, idset.Options{Hash: opt.Hash, Window: 4, WindowBytes: 256, BufferRecords: 64, Dir: opt.Dir}); err != nil {
					t.Fatal(err)
				}
				if d.ids.st == nil {
					d.ids.st = &idState{opt: opt}
				}
				c.Close()
				c, decoded = d, true
			}
			off, held := int64(len(file.b)), setLen(c)
			var got Code
			cerr := c.checkAt(e, off)
			if cerr != nil {
				got = cerr.Code
			}
			if want := o.check(e); got != want {
				t.Fatalf("event %d (id %q, parent %q, sequence %d): the checker says %v, the map %q", i, e.EventID, e.ParentEventID, e.Sequence, cerr, want)
			}
			if setLen(c) > held {
				file.b = append(file.b, fuzzLine(id, e.Sequence)...) // the line of the id the set added
			}
			p.ids = append(p.ids, id)
		}
	})
}

func setLen(c *RunChecker) uint64 {
	if c.ids.st == nil || c.ids.st.set == nil {
		return 0
	}
	return c.ids.st.set.Len()
}

// tryCheck is Check with the rejected event taken back, the rule by which
// the session store offers events (journal/store's tryCheck, which this
// package's tests cannot import).
func tryCheck(c *RunChecker, e *Event) *Error {
	m := c.Mark()
	had := c.HasEventID(e.EventID)
	err := c.Check(e)
	if err != nil {
		if had {
			c.Rollback(m)
		} else {
			c.Rollback(m, e.EventID)
		}
	}
	return err
}
