package exercise

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// MaxWatchedFiles bounds the files a DirState records, so that watching a
// directory by mistake (a home directory, a checkout with its build
// outputs) fails at once instead of taking the machine's memory and I/O.
const MaxWatchedFiles = 10_000

// DirState is what `tracecheck exercise watch` compares to see that the
// learner saved a file: each regular file's size and modification time,
// by its path under the watched directory. Hidden files and directories
// (.git, .tracecheck, editors' swap files), node_modules and __pycache__
// are left out: they change without the learner's code changing.
type DirState map[string]fileStamp

type fileStamp struct {
	size    int64
	modNano int64
}

// TooManyFilesError: the directory holds more than MaxWatchedFiles files.
type TooManyFilesError struct{ Dir string }

func (e *TooManyFilesError) Error() string {
	return fmt.Sprintf("%s holds more than %d files: watch the folder of your subject (--dir)", e.Dir, MaxWatchedFiles)
}

// SnapshotDir records the state of the files under dir.
func SnapshotDir(dir string) (DirState, error) {
	st := DirState{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if path != dir && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "__pycache__") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed since the directory was read: not a file now
		}
		if len(st) == MaxWatchedFiles {
			return &TooManyFilesError{Dir: dir}
		}
		st[path] = fileStamp{size: info.Size(), modNano: info.ModTime().UnixNano()}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Changed returns the paths that are in one state and not the other, or in
// both with another size or modification time, sorted.
func (s DirState) Changed(later DirState) []string {
	var out []string
	for p, a := range s {
		if b, ok := later[p]; !ok || a != b {
			out = append(out, p)
		}
	}
	for p := range later {
		if _, ok := s[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
