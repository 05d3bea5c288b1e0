package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tracecheck/tracecheck/internal/regularfile"
)

// Source is where a command reads scenarios from: a directory of
// <id>.json files on disk, or the copies embedded in the binary when it was
// built. A binary's embedded copies are what it was built from; the
// working tree may have moved on since, which is why commands run inside
// the tracecheck module read its scenarios/ directory instead (see package
// verify).
type Source struct {
	dir string // "" for the embedded copies
}

// DirSource reads the scenarios of directory dir.
func DirSource(dir string) Source { return Source{dir: dir} }

// EmbeddedSource reads the scenarios embedded in the binary.
func EmbeddedSource() Source { return Source{} }

// Embedded reports whether s is the binary's embedded copy.
func (s Source) Embedded() bool { return s.dir == "" }

// Dir is the source's directory ("" when embedded).
func (s Source) Dir() string { return s.dir }

// String names the source for messages.
func (s Source) String() string {
	if s.Embedded() {
		return "embedded scenarios"
	}
	return s.dir
}

// Load reads every scenario of the source, sorted by id (see LoadFS).
func (s Source) Load() ([]*Scenario, error) {
	if s.Embedded() {
		return Builtin()
	}
	return LoadDir(s.dir)
}

// UnknownError names ids a source does not hold.
type UnknownError struct {
	IDs   []string
	Known []string
	// Noun names what the ids should have named, such as "scenario or
	// case"; "" is "scenario", or "scenarios" for more than one id.
	Noun string
}

func (e *UnknownError) Error() string {
	q := make([]string, len(e.IDs))
	for i, id := range e.IDs {
		q[i] = fmt.Sprintf("%q", id)
	}
	noun := e.Noun
	switch {
	case noun != "":
	case len(q) > 1:
		noun = "scenarios"
	default:
		noun = "scenario"
	}
	msg := fmt.Sprintf("unknown %s %s", noun, strings.Join(q, ", "))
	if len(e.IDs) == 1 {
		if near := nearIDs(e.IDs[0], e.Known); len(near) > 0 {
			msg += fmt.Sprintf(": did you mean %s?", strings.Join(near, " or "))
		}
	}
	return msg + fmt.Sprintf(" (known: %s)", strings.Join(e.Known, ", "))
}

// nearIDs are the known ids id is most likely short for: those it starts
// with a whole part of ("s01" of "s01-agent-loop"), at most three, quoted.
func nearIDs(id string, known []string) []string {
	if id == "" {
		return nil
	}
	var near []string
	for _, k := range known {
		if len(k) > len(id) && strings.HasPrefix(k, id) && strings.ContainsRune("-_.", rune(k[len(id)])) {
			near = append(near, fmt.Sprintf("%q", k))
		}
	}
	if len(near) > 3 {
		return nil // too short to say which
	}
	return near
}

// Select returns the scenarios of all named by ids, in the order given and
// once each; with no ids, all of them. Ids that name no scenario make an
// *UnknownError.
func Select(all []*Scenario, ids []string) ([]*Scenario, error) {
	if len(ids) == 0 {
		return all, nil
	}
	byID := make(map[string]*Scenario, len(all))
	known := make([]string, len(all))
	for i, s := range all {
		byID[s.ID] = s
		known[i] = s.ID
	}
	var out []*Scenario
	var unknown []string
	for _, id := range ids {
		s, ok := byID[id]
		switch {
		case !ok:
			if !slices.Contains(unknown, id) {
				unknown = append(unknown, id)
			}
		case !slices.Contains(out, s):
			out = append(out, s)
		}
	}
	if len(unknown) > 0 {
		return nil, &UnknownError{IDs: unknown, Known: known}
	}
	return out, nil
}

// MaxFileSize bounds a scenario file: scenarios are small hand-written
// documents, and a path given on the command line may name anything.
const MaxFileSize = 16 << 20

// LoadFile reads and parses one scenario file, path as given (its base
// name must be <id>.json). It must be a regular file of at most
// MaxFileSize bytes.
func LoadFile(path string) (*Scenario, error) {
	data, err := regularfile.Read(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}
