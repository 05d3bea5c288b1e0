package agentlog

// IDSet is the one place lint, import and repair remember ids (entry ids,
// tool call ids, emitted event ids). It must be exact: Has never answers
// true for an id that was not added, nor false for one that was.
//
// NewIDSet returns the map-backed implementation; a flat-memory set can
// replace it here without touching the callers.
type IDSet interface {
	// Add puts id in the set and reports whether it was new.
	Add(id string) bool
	// Has reports whether id was added.
	Has(id string) bool
	// Len returns how many distinct ids were added.
	Len() int
}

// NewIDSet returns an empty exact id set.
func NewIDSet() IDSet { return mapSet{} }

type mapSet map[string]struct{}

func (s mapSet) Add(id string) bool {
	if _, ok := s[id]; ok {
		return false
	}
	s[id] = struct{}{}
	return true
}

func (s mapSet) Has(id string) bool { _, ok := s[id]; return ok }
func (s mapSet) Len() int           { return len(s) }
