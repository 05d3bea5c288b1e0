package exercise

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tracecheck/tracecheck/exercise/reference"
	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Trace is one fixture: a name saying where it comes from and its events.
type Trace struct {
	Name   string
	Events []jsonv.Value
}

// Fixtures are the traces the criteria draw cases from: the golden traces
// embedded in tracecheck (the five reference lessons and the scenarios)
// and, when a reference directory is given, every *.trace.jsonl in it and
// in its subdirectories that is not already among them (and not longer than
// MaxFixtureBytes).
type Fixtures struct {
	// Sessions are whole files, every run in order.
	Sessions []Trace
	// Journals are single runs: each run of each session, named
	// "<file> run <n>" when the file holds several.
	Journals []Trace
}

// MaxFixtureBytes is the largest reference trace LoadFixtures uses: a
// request carries a whole trace, and tracecheck keeps its requests under a
// few MiB.
const MaxFixtureBytes = 2 << 20

// LoadFixtures reads the embedded goldens and, when referenceDir is not
// empty, the reference traces under it. A reference file that is not
// JSONL of objects is an error naming it.
func LoadFixtures(referenceDir string) (*Fixtures, error) {
	fx := &Fixtures{}
	seen := map[[32]byte]bool{}
	st := golden.EmbeddedStore()
	ids, err := st.IDs()
	if err != nil {
		return nil, err
	}
	// The reference lessons' goldens (s01-s08) first: they are what the
	// lessons talk about, and a failure on one of them reads best.
	sort.SliceStable(ids, func(i, j int) bool { return isLesson(ids[i]) && !isLesson(ids[j]) })
	for _, id := range ids {
		data, err := st.Read(id)
		if err != nil {
			return nil, err
		}
		if err := fx.add("golden "+id, data, seen); err != nil {
			return nil, err
		}
	}
	if referenceDir == "" {
		return fx, nil
	}
	var files []string
	err = filepath.WalkDir(referenceDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, golden.Suffix) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reference traces: %w", err)
	}
	sort.Strings(files)
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Size() > MaxFixtureBytes {
			continue // its requests would be too long for a learner's program to be expected to read
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("reference traces: %w", err)
		}
		rel, _ := filepath.Rel(referenceDir, f)
		if err := fx.add("reference "+strings.TrimSuffix(filepath.ToSlash(rel), golden.Suffix), data, seen); err != nil {
			return nil, err
		}
	}
	return fx, nil
}

// isLesson reports whether a golden id names a lesson of the curriculum
// ("s07-session-replay").
func isLesson(id string) bool {
	return len(id) > 3 && id[0] == 's' && id[1] >= '0' && id[1] <= '9' && id[2] >= '0' && id[2] <= '9' && id[3] == '-'
}

// add parses one file and adds it, and its runs, unless the same bytes
// were added before.
func (fx *Fixtures) add(name string, data []byte, seen map[[32]byte]bool) error {
	sum := sha256.Sum256(data)
	if seen[sum] {
		return nil
	}
	seen[sum] = true
	var events []jsonv.Value
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'}) {
		v, err := jsonv.Parse(line)
		if err != nil || v.Kind() != jsonv.Object {
			return fmt.Errorf("%s: line %d is not a JSON object", name, i+1)
		}
		events = append(events, v)
	}
	fx.Sessions = append(fx.Sessions, Trace{Name: name, Events: events})
	runs := splitRuns(events)
	for i, run := range runs {
		n := name
		if len(runs) > 1 {
			n = fmt.Sprintf("%s run %d", name, i+1)
		}
		if _, err := reference.Journal(run); err == nil {
			fx.Journals = append(fx.Journals, Trace{Name: n, Events: run})
		}
	}
	return nil
}

// splitRuns cuts a session into its runs: the segments of events sharing
// provenance.run_id.
func splitRuns(events []jsonv.Value) [][]jsonv.Value {
	var runs [][]jsonv.Value
	last := ""
	for i, e := range events {
		r := runID(e)
		if i == 0 || r != last {
			runs = append(runs, nil)
			last = r
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], e)
	}
	return runs
}

func runID(e jsonv.Value) string { return member(member(e, "provenance"), "run_id").Text() }

// Journal returns the journal fixture named name; it panics when there is
// none, since the names criteria use are the embedded goldens'.
func (fx *Fixtures) Journal(name string) Trace {
	for _, t := range fx.Journals {
		if t.Name == name {
			return t
		}
	}
	panic("exercise: no fixture " + name)
}

// DefaultReferenceDir returns ../shared/reference beside the tracecheck
// module that holds start, when that directory exists; else "".
func DefaultReferenceDir(start string) string {
	root, ok := golden.ModuleRoot(start)
	if !ok {
		return ""
	}
	dir := filepath.Join(filepath.Dir(root), "shared", "reference")
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir
	}
	return ""
}
