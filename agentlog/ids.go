package agentlog

import (
	"fmt"

	"github.com/tracecheck/tracecheck/internal/idset"
)

// IDSet is the one place lint, import and repair remember ids (entry ids,
// tool call ids, emitted event ids). It must be exact: Has never answers
// true for an id that was not added, nor false for one that was.
//
// NewIDSet keeps the ids in an internal/idset.Set: a few bytes of memory
// an id whatever the ids look like (UUIDs, counters, anything), the ids'
// bytes in a temporary file that is unlinked when it is created. When
// that file fails (a full disk), the set can no longer answer: from then
// on Has says true and Add says the id is new (answers that add no
// finding), and Err returns the error, which the caller reports.
type IDSet interface {
	// Add puts id in the set and reports whether it was new.
	Add(id string) bool
	// Has reports whether id was added.
	Has(id string) bool
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

type flatSet struct {
	s   *idset.Set // created with the first id
	err error
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
		f.s = idset.New(idset.Options{})
	}
	_, added, err := f.s.Add(id, 0)
	if err != nil {
		f.failed(err)
		return true
	}
	return added
}

func (f *flatSet) Has(id string) bool {
	if f.err != nil {
		return true
	}
	if f.s == nil {
		return false
	}
	_, found, err := f.s.Lookup(id)
	if err != nil {
		f.failed(err)
		return true
	}
	return found
}

func (f *flatSet) Len() int {
	if f.s == nil {
		return 0
	}
	return int(f.s.Len())
}

func (f *flatSet) Err() error { return f.err }

func (f *flatSet) Close() {
	if f.s != nil {
		f.s.Close()
		f.s = nil
	}
}
