package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
)

// Origin is where a set of scenarios or goldens came from.
type Origin struct {
	Kind OriginKind `json:"origin"`
	Dir  string     `json:"dir,omitempty"`
	// Flag is the flag that named Dir (OriginFlag only).
	Flag string `json:"flag,omitempty"`
}

func (o Origin) String() string {
	switch o.Kind {
	case OriginEmbedded:
		return "embedded in the binary (read-only)"
	case OriginWorkingTree:
		return quote(o.Dir) + " (working tree)"
	}
	return quote(o.Dir) + " (" + o.Flag + ")"
}

// Locations are where a command reads scenarios and goldens. Inside the
// tracecheck module both come from its working tree (<root>/scenarios and
// <root>/golden), so that a binary built before a scenario or golden
// changed still checks what is on disk; outside it both come from the
// copies embedded in the binary, which match each other. --scenario-dir
// and --golden-dir override each one.
type Locations struct {
	// Root is the tracecheck module's directory; "" outside it.
	Root           string
	Scenarios      scenarios.Source
	ScenarioOrigin Origin
	Goldens        *golden.Store
	GoldenOrigin   Origin
}

// Flag names.
const (
	ScenarioDirFlag = "--scenario-dir"
	GoldenDirFlag   = "--golden-dir"
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

// Locate finds both; see Locations.
func Locate(wd, scenarioDir, goldenDir string) (*Locations, error) {
	src, so, err := LocateScenarios(wd, scenarioDir)
	if err != nil {
		return nil, err
	}
	st, gorig, err := LocateGoldens(wd, goldenDir)
	if err != nil {
		return nil, err
	}
	root, ok := golden.ModuleRoot(wd)
	if !ok {
		root = ""
	}
	return &Locations{Root: root, Scenarios: src, ScenarioOrigin: so, Goldens: st, GoldenOrigin: gorig}, nil
}

// MixedOrigins says why the scenarios and the goldens do not come from the
// same place, or "" when they do: both from the working tree, both
// embedded, or both named on the command line (which pairs them).
func (l *Locations) MixedOrigins() string {
	if l.ScenarioOrigin.Kind == l.GoldenOrigin.Kind {
		return ""
	}
	return fmt.Sprintf("scenarios come from %s but goldens from %s (name both %s and %s to pair two directories)",
		l.ScenarioOrigin, l.GoldenOrigin, ScenarioDirFlag, GoldenDirFlag)
}
