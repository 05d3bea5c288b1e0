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
func NewIDSet() IDSet { return &mapSet{uuids: map[[16]byte]struct{}{}, other: map[string]struct{}{}} }

// mapSet keeps ids spelled as canonical lowercase UUIDs (Claude Code's
// entry ids) as their 16 bytes, a third of a string key's cost; the
// spelling and the bytes map one to one, so the set stays exact. Other ids
// are strings.
type mapSet struct {
	uuids map[[16]byte]struct{}
	other map[string]struct{}
}

func (s *mapSet) Add(id string) bool {
	if u, ok := parseUUID(id); ok {
		if _, ok := s.uuids[u]; ok {
			return false
		}
		s.uuids[u] = struct{}{}
		return true
	}
	if _, ok := s.other[id]; ok {
		return false
	}
	s.other[id] = struct{}{}
	return true
}

func (s *mapSet) Has(id string) bool {
	if u, ok := parseUUID(id); ok {
		_, ok := s.uuids[u]
		return ok
	}
	_, ok := s.other[id]
	return ok
}

func (s *mapSet) Len() int { return len(s.uuids) + len(s.other) }

// parseUUID reads the canonical form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
// in lowercase hex only, so that every accepted spelling has one byte form.
func parseUUID(s string) (u [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	j := 0
	for i := 0; i < 36; {
		if s[i] == '-' {
			i++
			continue
		}
		hi, lo := lowerHex(s[i]), lowerHex(s[i+1])
		if hi < 0 || lo < 0 {
			return u, false
		}
		u[j] = byte(hi<<4 | lo)
		j++
		i += 2
	}
	return u, true
}

func lowerHex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}
