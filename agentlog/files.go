package agentlog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/internal/atomicfile"
	"github.com/tracecheck/tracecheck/internal/regularfile"
)

// Input is one file to lint: a path named on the command line, or one
// found below a named directory.
type Input struct {
	Path string
	// Rel is the path below the named directory (the base name for a
	// named file); a repaired copy goes to OUT/Rel.
	Rel string
	// Found: the file was found by walking a directory.
	Found bool
}

// SideSuffix and BackupSuffix name the files a repair writes beside its
// copy (the bytes it took out) and beside an original repaired in place.
// Neither ends in .jsonl, so a later walk does not lint them.
const (
	SideSuffix   = ".sidelined"
	BackupSuffix = ".bak"
)

// Walk calls fn for each file arg names: a regular file as is, a
// directory recursively: every regular *.jsonl file below it, in lexical
// order. Symbolic links found while walking are not followed (a link to a
// directory could lead outside the tree or into a cycle). An arg that does
// not exist is reported to fn with its error.
func Walk(arg string, fn func(in Input, err error) error) error {
	st, err := os.Stat(arg)
	if err != nil {
		return fn(Input{Path: arg, Rel: filepath.Base(arg)}, err)
	}
	if !st.IsDir() {
		if !st.Mode().IsRegular() {
			return fn(Input{Path: arg, Rel: filepath.Base(arg)}, &fs.PathError{Op: "open", Path: arg, Err: regularfile.ErrNotRegular})
		}
		return fn(Input{Path: arg, Rel: filepath.Base(arg)}, nil)
	}
	return filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fn(Input{Path: path, Found: true}, err)
		}
		if d.IsDir() || !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".jsonl") || atomicfile.IsTemp(d.Name()) {
			return nil
		}
		rel, rerr := filepath.Rel(arg, path)
		if rerr != nil {
			rel = d.Name()
		}
		return fn(Input{Path: path, Rel: rel, Found: true}, nil)
	})
}

// LintFile lints the file at path.
func LintFile(path string, opt Options) *FileReport {
	f, err := os.Open(path)
	if err != nil {
		rep := &FileReport{File: path, Counts: map[Code]int{}}
		rep.add(Finding{Code: ReadFailed, Severity: Error, Message: err.Error()})
		return rep
	}
	defer f.Close()
	return Lint(f, path, opt)
}

// ErrExists is returned when a repair would overwrite a file.
var ErrExists = errors.New("exists; a repair never overwrites a file")

// RepairTo writes a repaired copy of src to dst and what it sidelines to
// dst+SideSuffix. Neither may exist: nothing is overwritten. The copy is
// written to a temporary file and renamed into place, so dst is whole or
// absent.
func RepairTo(src, dst string, opt Options) (*RepairResult, error) {
	for _, p := range []string{dst, dst + SideSuffix} {
		if _, err := os.Lstat(p); err == nil {
			return nil, fmt.Errorf("%s %w", p, ErrExists)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return nil, err
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(src); err == nil {
		mode = st.Mode().Perm()
	}
	var res *RepairResult
	var side *os.File
	err := atomicfile.WriteFunc(dst, mode, func(w io.Writer) error {
		var err error
		res, err = repairFile(src, w, func() (io.Writer, error) {
			side, err = os.OpenFile(dst+SideSuffix, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
			return side, err
		}, opt)
		return err
	})
	err = closeSide(side, err)
	return res, err
}

// RepairBelow writes a repaired copy of src to dir/rel (RepairTo), rel
// being the path below the directory the file was found in. No file is
// written outside dir: rel must stay inside it, and a symbolic link on the
// path below dir is refused (atomicfile.ErrLinkBelow), not followed.
// It returns the copy's path.
func RepairBelow(src, dir, rel string, opt Options) (string, *RepairResult, error) {
	sub, err := atomicfile.MkdirBelow(dir, filepath.Dir(rel))
	if err != nil {
		return "", nil, err
	}
	dst := filepath.Join(sub, filepath.Base(rel))
	res, err := RepairTo(src, dst, opt)
	return dst, res, err
}

// RepairInPlace repairs src where it is. A backup of the original is
// written first (src+BackupSuffix, or .bak.1, .bak.2, … when that exists)
// and synced; then the repaired copy replaces src atomically. A file with
// nothing to repair is left untouched. The returned path is the backup's.
func RepairInPlace(src string, opt Options) (*RepairResult, string, error) {
	rep := LintFile(src, opt)
	if rep.Repairable == 0 {
		return &RepairResult{Report: rep}, "", nil
	}
	st, err := os.Stat(src)
	if err != nil {
		return nil, "", err
	}
	backup, err := copyExclusive(src, src+BackupSuffix, st.Mode().Perm())
	if err != nil {
		return nil, "", fmt.Errorf("backup of %s: %w", src, err)
	}
	var res *RepairResult
	var side *os.File
	err = atomicfile.WriteFunc(src, st.Mode().Perm(), func(w io.Writer) error {
		var err error
		res, err = repairFile(backup, w, func() (io.Writer, error) {
			side, _, err = createExclusive(src+SideSuffix, st.Mode().Perm())
			return side, err
		}, opt)
		return err
	})
	err = closeSide(side, err)
	if res != nil {
		res.Report.File = src
	}
	return res, backup, err
}

func repairFile(src string, out io.Writer, side func() (io.Writer, error), opt Options) (*RepairResult, error) {
	return Repair(func() (io.ReadCloser, error) { return os.Open(src) }, src, out, side, opt)
}

// createExclusive creates path, or path.1, path.2, … when it exists.
func createExclusive(path string, mode fs.FileMode) (*os.File, string, error) {
	for n := 0; n < 1000; n++ {
		p := path
		if n > 0 {
			p += "." + strconv.Itoa(n)
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err == nil {
			return f, p, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, "", err
		}
	}
	return nil, "", fmt.Errorf("%s: too many earlier copies", path)
}

// copyExclusive copies src to a new file (see createExclusive), synced.
func copyExclusive(src, dst string, mode fs.FileMode) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, p, err := createExclusive(dst, mode)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(p)
		return "", err
	}
	if err := closeSynced(out); err != nil {
		os.Remove(p)
		return "", err
	}
	return p, nil
}

func closeSynced(f *os.File) error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// DetectFile names the format of the file at path from its first lines.
func DetectFile(path string) (Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return Unknown, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return Unknown, fmt.Errorf("%s is a directory", path)
	}
	format, _ := DetectReader(f)
	return format, nil
}

// DetectReader names the format of what r holds from its first lines, as
// DetectFile does, and returns a reader that yields all of r again (the
// lines it looked at, then the rest): a stream such as standard input is
// detected and then read once.
func DetectReader(r io.Reader) (Format, io.Reader) {
	lines, rr := sniff(r)
	return Detect(lines), rr
}

// closeSide syncs and closes a side file, if one was opened, and returns
// the first error.
func closeSide(side *os.File, err error) error {
	if side == nil {
		return err
	}
	if cerr := closeSynced(side); err == nil {
		err = cerr
	}
	return err
}
