package view

import (
	"bytes"
	"io"
	"io/fs"
	"os"

	"github.com/tracecheck/tracecheck/internal/regularfile"
)

// Source is one trace file to show. Open is called once per pass over the
// file (Build reads a file two or three times: validation, the page's rows,
// and fingerprint checks when the file records any), so it must give the
// same bytes each time.
type Source struct {
	Name string
	Open func() (io.ReadCloser, error)
	// Origin, when set, says where the trace came from when it is not the
	// file itself (an agent's session log imported by tracecheck import).
	Origin string
	// Findings are problems another checker found in the original file
	// (tracecheck lint's, for an imported log), at its own lines; the page
	// lists them with the trace's problems.
	Findings []Finding
}

// Finding is one problem a checker other than validation reported, at a
// line of the original file. Severity is "error", "warning" or "info";
// errors and warnings count as problems.
type Finding struct {
	Line                    int
	Code, Severity, Message string
}

// FileSource reads the file at path, which must be a regular file: a
// FIFO, a device or a directory is refused before it is opened (the page
// reads a file more than once, and opening a FIFO with no writer would
// wait forever), with a *fs.PathError whose Err is
// regularfile.ErrNotRegular.
func FileSource(path string) Source {
	return Source{Name: path, Open: func() (io.ReadCloser, error) {
		st, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, &fs.PathError{Op: "open", Path: path, Err: regularfile.ErrNotRegular}
		}
		return os.Open(path)
	}}
}

// BytesSource reads data, named name in the page and in problems.
func BytesSource(name string, data []byte) Source {
	return Source{Name: name, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}}
}
