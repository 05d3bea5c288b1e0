package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/scenarios"
)

// OriginKind says where scenarios or goldens were read from.
type OriginKind string

// Origins.
const (
	// OriginWorkingTree: the scenarios/ or golden/ directory of the
	// tracecheck module found by walking up from the working directory.
	OriginWorkingTree OriginKind = "working-tree"
	// OriginEmbedded: the copies embedded in the binary when it was built.
	OriginEmbedded OriginKind = "embedded"
	// OriginFlag: a directory named on the command line.
	OriginFlag OriginKind = "flag"
	// OriginNone: nothing of this kind runs (Origin.Note says why).
	OriginNone OriginKind = "none"
)

// Origin is where a set of scenarios or goldens came from.
type Origin struct {
	Kind OriginKind `json:"origin"`
	Dir  string     `json:"dir,omitempty"`
	// Flag is the flag that named Dir (OriginFlag only).
	Flag string `json:"flag,omitempty"`
	// Note says why nothing runs (OriginNone only).
	Note string `json:"note,omitempty"`
}

func (o Origin) String() string {
	switch o.Kind {
	case OriginEmbedded:
		return "embedded in the binary (read-only)"
	case OriginWorkingTree:
		return quote(o.Dir) + " (working tree)"
	case OriginNone:
		return "none (" + o.Note + ")"
	}
	return quote(o.Dir) + " (" + o.Flag + ")"
}

// place names where the set came from in a few words: its directory as
// given, or the binary.
func (o Origin) place() string {
	if o.Kind == OriginEmbedded {
		return "the binary"
	}
	return quote(o.Dir)
}

// Locations are where verify reads scenarios, cases and goldens: one
// place for all of them (so that a golden no subject renders is known to
// be unreferenced).
//
// Inside the tracecheck module scenarios and goldens come from its working
// tree (<root>/scenarios and <root>/golden), so that a binary built before a
// scenario or golden changed still checks what is on disk; outside it both
// come from the copies embedded in the binary, which match each other.
// --scenario-dir and --golden-dir override each one.
//
// Cases run only from a directory named by --cases (a case runs a program:
// tracecheck runs the programs of a directory it is given, never of one it
// found). There is one golden directory per run: --golden-dir; else, when
// the cases run without scenarios, the cases directory itself (goldens
// beside the case files); else the scenarios' (a run of cases beside
// scenarios must name one directory for both with --golden-dir). With
// --cases, scenarios run beside the cases only when --scenario-dir names
// them: the built-in ones (embedded, or the module's working tree) are
// tracecheck's own, checked by a plain verify.
type Locations struct {
	// Root is the tracecheck module's directory; "" outside it.
	Root string
	// Scenarios is where scenarios are read (to run, and to look a case's
	// model scenario up); RunScenarios says whether they run.
	Scenarios      scenarios.Source
	ScenarioOrigin Origin
	RunScenarios   bool
	// Cases is the cases directory ("" for none).
	Cases        string
	CaseOrigin   Origin
	Goldens      *golden.Store
	GoldenOrigin Origin
}

// Dirs are the directories a verify command line names ("" for none).
type Dirs struct {
	Scenarios, Cases, Goldens string
	// NoScenarios leaves the scenarios out of the run.
	NoScenarios bool
}

// Flag names.
const (
	ScenarioDirFlag = "--scenario-dir"
	GoldenDirFlag   = "--golden-dir"
	CasesFlag       = "--cases"
	NoScenariosFlag = "--no-scenarios"
)

// DirError is a directory that cannot serve: missing, or not a directory.
// Commands report it as a usage error.
type DirError struct {
	Flag    string // the flag that named it; "" for the module's own
	Dir     string
	Problem string
}

func (e *DirError) Error() string {
	if e.Flag == "" {
		return fmt.Sprintf("%s: %s", quote(e.Dir), e.Problem)
	}
	return fmt.Sprintf("%s %s: %s", e.Flag, quote(e.Dir), e.Problem)
}

// dirProblem says what keeps dir from serving as a directory: "" when
// nothing does, else "no such directory", "not a directory" or the error.
func dirProblem(dir string) string {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return noSuchDir
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return err.Error()
	case !info.IsDir():
		return "not a directory"
	}
	return ""
}

const noSuchDir = "no such directory"

// LocateScenarios returns where scenarios are read from: dir (the
// --scenario-dir value) when given, else the module's scenarios/ found
// from wd, else the embedded copies.
func LocateScenarios(wd, dir string) (scenarios.Source, Origin, error) {
	if dir != "" {
		if p := dirProblem(dir); p != "" {
			return scenarios.Source{}, Origin{}, &DirError{Flag: ScenarioDirFlag, Dir: dir, Problem: p}
		}
		return scenarios.DirSource(dir), Origin{Kind: OriginFlag, Dir: dir, Flag: ScenarioDirFlag}, nil
	}
	root, ok := golden.ModuleRoot(wd)
	if !ok {
		return scenarios.EmbeddedSource(), Origin{Kind: OriginEmbedded}, nil
	}
	d := golden.RelTo(wd, filepath.Join(root, "scenarios"))
	if p := dirProblem(d); p != "" {
		return scenarios.Source{}, Origin{}, &DirError{Dir: d, Problem: "the tracecheck module's scenarios directory: " + p}
	}
	return scenarios.DirSource(d), Origin{Kind: OriginWorkingTree, Dir: d}, nil
}

// LocateGoldens returns where goldens are read and written: dir (the
// --golden-dir value, which must exist: a mistyped directory is never
// created) when given, else the module's golden/ found from wd (created by
// the first write when missing), else the embedded copies (read-only).
func LocateGoldens(wd, dir string) (*golden.Store, Origin, error) {
	if dir != "" {
		if p := dirProblem(dir); p != "" {
			return nil, Origin{}, &DirError{Flag: GoldenDirFlag, Dir: dir, Problem: p}
		}
		return golden.DiskStore(dir), Origin{Kind: OriginFlag, Dir: dir, Flag: GoldenDirFlag}, nil
	}
	root, ok := golden.ModuleRoot(wd)
	if !ok {
		return golden.EmbeddedStore(), Origin{Kind: OriginEmbedded}, nil
	}
	s := golden.ModuleStore(root, wd)
	if p := dirProblem(s.Dir()); p != "" && p != noSuchDir {
		return nil, Origin{}, &DirError{Dir: s.Dir(), Problem: "the tracecheck module's golden directory: " + p}
	}
	return s, Origin{Kind: OriginWorkingTree, Dir: s.Dir()}, nil
}

// UsageError is a combination of directories a run cannot use.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Locate finds where a verify run reads and writes; see Locations. A
// directory that cannot serve is a *DirError, a combination that cannot
// run a *UsageError.
func Locate(wd string, d Dirs) (*Locations, error) {
	src, so, err := LocateScenarios(wd, d.Scenarios)
	if err != nil {
		return nil, err
	}
	root, ok := golden.ModuleRoot(wd)
	if !ok {
		root = ""
	}
	loc := &Locations{Root: root, Scenarios: src, ScenarioOrigin: so, RunScenarios: true}
	if d.Cases != "" {
		if p := dirProblem(d.Cases); p != "" {
			return nil, &DirError{Flag: CasesFlag, Dir: d.Cases, Problem: p}
		}
		loc.Cases, loc.CaseOrigin = d.Cases, Origin{Kind: OriginFlag, Dir: d.Cases, Flag: CasesFlag}
	}
	switch {
	case d.NoScenarios:
		loc.RunScenarios = false
		loc.ScenarioOrigin = Origin{Kind: OriginNone, Note: NoScenariosFlag}
	case loc.Cases != "" && so.Kind != OriginFlag:
		// Running a team's cases is what --cases asks for, inside the
		// tracecheck clone as outside: the built-in scenarios (embedded,
		// or the clone's own) are tracecheck's, checked by a plain verify.
		loc.RunScenarios = false
		loc.ScenarioOrigin = Origin{Kind: OriginNone, Note: "the built-in scenarios are tracecheck's own, checked by a plain verify; " + ScenarioDirFlag + " adds yours"}
	}
	switch {
	case d.Goldens != "":
		loc.Goldens, loc.GoldenOrigin, err = LocateGoldens(wd, d.Goldens)
		if err != nil {
			return nil, err
		}
	case loc.Cases != "" && !loc.RunScenarios:
		loc.Goldens, loc.GoldenOrigin = golden.DiskStore(loc.Cases), Origin{Kind: OriginFlag, Dir: loc.Cases, Flag: CasesFlag}
	case loc.Cases != "":
		return nil, &UsageError{Msg: fmt.Sprintf("%s runs the cases beside the scenarios of %s: name one directory for both goldens with %s, or add %s (the goldens are then beside the cases)",
			CasesFlag, so, GoldenDirFlag, NoScenariosFlag)}
	default:
		loc.Goldens, loc.GoldenOrigin, err = LocateGoldens(wd, "")
		if err != nil {
			return nil, err
		}
	}
	return loc, nil
}

// MixedOrigins says why the subjects that run (scenarios, cases) and the
// goldens do not come from the same place, or "" when they do: all from the
// working tree, all embedded, or all named on the command line (which pairs
// them; the cases directory serving as the golden directory is named too).
func (l *Locations) MixedOrigins() string {
	var from []string
	same := true
	if l.RunScenarios {
		from = append(from, "scenarios come from "+l.ScenarioOrigin.String())
		same = l.ScenarioOrigin.Kind == l.GoldenOrigin.Kind
	}
	if l.Cases != "" {
		from = append(from, "cases from "+l.CaseOrigin.String())
		same = same && l.CaseOrigin.Kind == l.GoldenOrigin.Kind
	}
	if same {
		return ""
	}
	if l.Cases == "" {
		return fmt.Sprintf("scenarios come from %s but goldens from %s (name both %s and %s to pair two directories)",
			l.ScenarioOrigin, l.GoldenOrigin, ScenarioDirFlag, GoldenDirFlag)
	}
	return fmt.Sprintf("%s but goldens from %s (name every directory: %s, %s and %s, to pair them)",
		strings.Join(from, ", "), l.GoldenOrigin, ScenarioDirFlag, CasesFlag, GoldenDirFlag)
}
