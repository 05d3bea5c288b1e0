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
	last   []byte  // the previous event's run key
	lastR  uint64
	hasRun bool
	ref    []byte // scratch: a reference id
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

// run returns the number of e's run, adding the run when it is new.
func (g *runGroups) run(e *Event) (uint64, error) {
	g.key = binary.AppendUvarint(g.key[:0], uint64(len(e.SessionID)))
	g.key = append(g.key, e.SessionID...)
	g.key = append(g.key, e.Provenance.RunID...)
	if g.hasRun && string(g.key) == string(g.last) {
		return g.lastR, nil
	}
	if g.keys == nil {
		g.keys = idset.New(idset.Options{})
	}
	ent, _, err := g.keys.Add(aliasString(g.key), 0)
	if err != nil {
		return 0, err
	}
	g.last = append(g.last[:0], g.key...)
	g.lastR, g.hasRun = ent.Ord, true
	return ent.Ord, nil
}

// runFull marks a run record that left the reference shape.
const runFull = 1

// check applies the invariants to e in its run; want is the sequence the
// run expected.
func (g *runGroups) check(e *Event) (want int64, err *Error) {
	r, ferr := g.run(e)
	var rec runRecord
	if ferr == nil {
		rec, ferr = g.table.get(r)
	}
	if ferr != nil {
		return 0, idsFailed(e, ferr)
	}
	next := rec.next
	ids := idSet{st: &g.shared, keyed: true, run: r}
	if rec.flags&runFull == 0 {
		if k, ok := RefEventNumber(e.EventID); ok && int64(k) == next && e.Sequence == next {
			parentOK := e.ParentEventID == ""
			if p, ok := RefEventNumber(e.ParentEventID); ok && int64(p) < next {
				parentOK = true
			}
			if parentOK {
				if ferr := g.table.set(r, runRecord{next: next + 1}); ferr != nil {
					return next, idsFailed(e, ferr)
				}
				return next, nil
			}
		}
		// The run leaves the reference shape: its ids so far join the
		// shared set.
		for k := int64(0); k < next; k++ {
			g.ref = fmt.Appendf(g.ref[:0], "evt-%03d", k)
			if _, ferr := ids.add(aliasString(g.ref), noOffset); ferr != nil {
				return next, idsFailed(e, ferr)
			}
		}
	}
	cerr := checkRun(e, &next, &ids, noOffset)
	if cerr != nil && cerr.Code == ReadFailed {
		return rec.next, cerr
	}
	if ferr := g.table.set(r, runRecord{next: next, flags: runFull}); ferr != nil {
		return rec.next, idsFailed(e, ferr)
	}
	return rec.next, cerr
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
	slots [tableSlots]struct {
		page  uint64 // noPage when empty
		dirty bool
		data  *[tablePage]byte
	}
	init  bool
	f     *os.File
	pages uint64 // pages in the file: later ones are all zeros
}

func (t *runTable) slot(page uint64) (*[tablePage]byte, *bool, error) {
	if !t.init {
		for i := range t.slots {
			t.slots[i].page = noPage
		}
		t.init = true
	}
	s := &t.slots[page%tableSlots]
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
