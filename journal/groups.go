package journal

import (
	"encoding/binary"
	"fmt"
	"os"

	"github.com/tracecheck/tracecheck/internal/idset"
)

// runGroups holds the invariant state of every run of a multi-run file, for
// Validate, with memory flat in the number of runs and of events.
//
// Runs are numbered in the order they first appear by an id set of their
// keys (the session id's length, the session id, the run id: no two pairs
// share a key), so a run costs a few bytes of memory however many there
// are or however they interleave. Its state is a fixed-size record in a
// runTable (pages in a temporary file past a small cache): the next
// sequence, and whether the run left the reference shape.
//
// Most runs are written as the reference writes them: sequence i carries
// event id evt-%03d of i, and every parent is an earlier event. While a run
// stays that way its ids are exactly evt-000 … evt-(next-1), so they are
// known without being stored. The first event that leaves that shape adds
// those ids to one id set that all such runs share, each id keyed by its
// run's number, and the run is checked against it from then on (checkRun,
// as a RunChecker does); the verdicts are the same either way
// (TestRunGroupsMatchMap).
type runGroups struct {
	keys   *idset.Set // run keys; a run's number is its key's ordinal
	table  runTable
	shared idState // the event ids of the runs that left the reference shape
	key    []byte  // the current event's run key (scratch)
	ref    []byte  // scratch: a reference id

	// The run of the previous event, whose record is held here and
	// written back to the table when another run comes.
	hasRun               bool
	r                    uint64
	rec                  runRecord
	last                 []byte // its key
	lastSession, lastRun string // views of last
}

func newRunGroups() *runGroups { return &runGroups{} }

// close releases the id sets and the table's temporary file.
func (g *runGroups) close() {
	if g.keys != nil {
		g.keys.Close()
	}
	if g.shared.set != nil {
		g.shared.set.Close()
	}
	g.table.close()
}

// run makes e's run the current one (g.r, g.rec), adding the run when it
// is new.
func (g *runGroups) run(e *Event) error {
	if g.hasRun && e.SessionID == g.lastSession && e.Provenance.RunID == g.lastRun {
		return nil
	}
	if g.hasRun {
		if err := g.table.set(g.r, g.rec); err != nil {
			return err
		}
	}
	g.key = binary.AppendUvarint(g.key[:0], uint64(len(e.SessionID)))
	w := len(g.key)
	g.key = append(g.key, e.SessionID...)
	g.key = append(g.key, e.Provenance.RunID...)
	if g.keys == nil {
		g.keys = idset.New(idset.Options{})
	}
	ent, _, err := g.keys.Add(aliasString(g.key), 0)
	if err != nil {
		return err
	}
	if g.rec, err = g.table.get(ent.Ord); err != nil {
		return err
	}
	g.r, g.hasRun = ent.Ord, true
	g.last = append(g.last[:0], g.key...)
	g.lastSession = aliasString(g.last[w : w+len(e.SessionID)])
	g.lastRun = aliasString(g.last[w+len(e.SessionID):])
	return nil
}

// runFull marks a run record that left the reference shape.
const runFull = 1

// check applies the invariants to e in its run; want is the sequence the
// run expected.
func (g *runGroups) check(e *Event) (want int64, err *Error) {
	if ferr := g.run(e); ferr != nil {
		g.hasRun = false // its record is not to be written back
		return 0, idsFailed(e, ferr)
	}
	rec := &g.rec
	want = rec.next
	if rec.flags&runFull == 0 {
		if k, ok := RefEventNumber(e.EventID); ok && int64(k) == want && e.Sequence == want {
			parentOK := e.ParentEventID == ""
			if p, ok := RefEventNumber(e.ParentEventID); ok && int64(p) < want {
				parentOK = true
			}
			if parentOK {
				rec.next++
				return want, nil
			}
		}
	}
	ids := idSet{st: &g.shared, keyed: true, run: g.r}
	if rec.flags&runFull == 0 {
		// The run leaves the reference shape: its ids so far join the
		// shared set.
		for k := int64(0); k < want; k++ {
			g.ref = fmt.Appendf(g.ref[:0], "evt-%03d", k)
			if _, ferr := ids.add(aliasString(g.ref), noOffset); ferr != nil {
				return want, idsFailed(e, ferr)
			}
		}
		rec.flags |= runFull
	}
	return want, checkRun(e, &rec.next, &ids, noOffset)
}

// runRecord is one run's state in a runTable.
type runRecord struct {
	next  int64
	flags uint64
}

const (
	recordBytes   = 16
	tablePage     = 4096 // bytes
	pageRecords   = tablePage / recordBytes
	tableSlots    = 256 // pages cached: 1 MiB
	noPage        = ^uint64(0)
	tableTempName = "tracecheck-runs-*"
)

// runTable is a record per run number, in pages of tablePage bytes: a
// direct-mapped cache of tableSlots pages in memory, the rest in a
// temporary file (created when a page must leave the cache, unlinked at
// once). Runs numbered in order, as most files have them, fill a page at a
// time; runs interleaved over many pages cost a page read each, never more
// memory.
type runTable struct {
	nslots int // pages cached; 0 is tableSlots
	slots  []tableSlot
	f      *os.File
	pages  uint64 // pages in the file: later ones are all zeros
}

type tableSlot struct {
	page  uint64 // noPage when empty
	dirty bool
	data  *[tablePage]byte
}

func (t *runTable) slot(page uint64) (*[tablePage]byte, *bool, error) {
	if t.slots == nil {
		if t.nslots <= 0 {
			t.nslots = tableSlots
		}
		t.slots = make([]tableSlot, t.nslots)
		for i := range t.slots {
			t.slots[i].page = noPage
		}
	}
	s := &t.slots[page%uint64(len(t.slots))]
	if s.page == page {
		return s.data, &s.dirty, nil
	}
	if s.data == nil {
		s.data = new([tablePage]byte)
	}
	if s.page != noPage && s.dirty {
		if err := t.writePage(s.page, s.data); err != nil {
			return nil, nil, err
		}
	}
	*s.data = [tablePage]byte{}
	if page < t.pages {
		if _, err := t.f.ReadAt(s.data[:], int64(page)*tablePage); err != nil {
			return nil, nil, fmt.Errorf("run table: %w", err)
		}
	}
	s.page, s.dirty = page, false
	return s.data, &s.dirty, nil
}

func (t *runTable) writePage(page uint64, data *[tablePage]byte) error {
	if t.f == nil {
		f, err := os.CreateTemp("", tableTempName)
		if err != nil {
			return fmt.Errorf("run table: %w", err)
		}
		if err := os.Remove(f.Name()); err != nil {
			f.Close()
			return fmt.Errorf("run table: %w", err)
		}
		t.f = f
	}
	if _, err := t.f.WriteAt(data[:], int64(page)*tablePage); err != nil {
		return fmt.Errorf("run table: %w", err)
	}
	t.pages = max(t.pages, page+1)
	return nil
}

func (t *runTable) get(r uint64) (runRecord, error) {
	data, _, err := t.slot(r / pageRecords)
	if err != nil {
		return runRecord{}, err
	}
	b := data[r%pageRecords*recordBytes:]
	return runRecord{next: int64(binary.LittleEndian.Uint64(b)), flags: binary.LittleEndian.Uint64(b[8:])}, nil
}

func (t *runTable) set(r uint64, rec runRecord) error {
	data, dirty, err := t.slot(r / pageRecords)
	if err != nil {
		return err
	}
	b := data[r%pageRecords*recordBytes:]
	binary.LittleEndian.PutUint64(b, uint64(rec.next))
	binary.LittleEndian.PutUint64(b[8:], rec.flags)
	*dirty = true
	return nil
}

func (t *runTable) close() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}
