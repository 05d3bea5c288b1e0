package agentlog

import (
	"fmt"

	"github.com/tracecheck/tracecheck/internal/idset"
)

// IDSet is the one place lint, import and repair remember ids (entry ids,
// tool call ids, emitted event ids). It must be exact: Has never answers
// true for an id that was not added, nor false for one that was.
//
// NewIDSet keeps the first ids in memory (an internal/idset.Small of at
// most smallIDBytes: about 150,000 UUIDs, more than most sessions hold),
// then moves them into an internal/idset.Set: a few bytes of memory an id
// whatever the ids look like (UUIDs, counters, anything), the ids' bytes
// in a temporary file that is unlinked when it is created. When that file
// fails (a full disk), the set can no longer answer: from then on Has says
// true and Add says the id is new (answers that add no finding), and Err
// returns the error, which the caller reports.
type IDSet interface {
	// Add puts id in the set and reports whether it was new.
	Add(id string) bool
	// Has reports whether id was added.
	Has(id string) bool
	// Prefetch says that id is about to be added or looked up, so that
	// the set can bring in what that will read; it changes no answer.
	Prefetch(id string)
	// Len returns how many distinct ids were added.
	Len() int
	// Err returns the error that stopped the set, if one did.
	Err() error
	// Close releases the set's temporary file; the set must not be used
	// afterwards.
	Close()
}

// NewIDSet returns an empty exact id set.
func NewIDSet() IDSet { return &flatSet{} }

// smallIDBytes bounds the memory of a set's first ids. A lint holds three
// sets, so the three fronts stay within 24 MiB of the 64 MB a lint of any
// size may take (BENCHMARKS.md); past it, the ids cost several hundred
// nanoseconds each instead of tens.
const smallIDBytes = 8 << 20

type flatSet struct {
	small *idset.Small // the first ids; nil once moved into s
	s     *idset.Set   // created when small is full
	err   error
}

func (f *flatSet) failed(err error) {
	if f.err == nil {
		f.err = fmt.Errorf("the ids seen so far could not be kept (%s): %w", idset.TempDirHint(""), err)
	}
}

func (f *flatSet) Add(id string) bool {
	if f.err != nil {
		return true
	}
	if f.s == nil {
		if f.small == nil {
			f.small = idset.NewSmall(smallIDBytes)
		}
		added, full := f.small.Add(id)
		if !full {
			return added
		}
		if !f.spill() {
			return true
		}
	}
	_, added, err := f.s.Add(id, 0)
	if err != nil {
		f.failed(err)
		return true
	}
	return added
}

func (f *flatSet) Prefetch(id string) {
	if f.s == nil && f.small != nil {
		f.small.Prefetch(id)
	}
}

func (f *flatSet) Has(id string) bool {
	if f.err != nil {
		return true
	}
	if f.s == nil {
		return f.small != nil && f.small.Has(id)
	}
	_, found, err := f.s.Lookup(id)
	if err != nil {
		f.failed(err)
		return true
	}
	return found
}

// spill moves the ids of the full front into a Set; false when the Set
// failed (f.err says why).
func (f *flatSet) spill() bool {
	f.s = idset.New(idset.Options{})
	var err error
	f.small.Each(func(id string) bool {
		_, _, err = f.s.Add(id, 0)
		return err == nil
	})
	f.small = nil
	if err != nil {
		f.failed(err)
		return false
	}
	return true
}

func (f *flatSet) Len() int {
	if f.s == nil {
		if f.small == nil {
			return 0
		}
		return f.small.Len()
	}
	return int(f.s.Len())
}

func (f *flatSet) Err() error { return f.err }

func (f *flatSet) Close() {
	f.small = nil
	if f.s != nil {
		f.s.Close()
		f.s = nil
	}
}
