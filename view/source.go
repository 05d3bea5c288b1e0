package view

import (
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Source is one trace file to show. Open is called once per pass over the
// file (Build reads a file two or three times: validation, the page's rows,
// and fingerprint checks when the file records any), so it must give the
// same bytes each time.
type Source struct {
	Name string
	Open func() (io.ReadCloser, error)
}

// FileSource reads the file at path.
func FileSource(path string) Source {
	return Source{Name: path, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

// BytesSource reads data, named name in the page and in problems.
func BytesSource(name string, data []byte) Source {
	return Source{Name: name, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}}
}

// line is one line of a source as the page's passes see it. raw is only
// valid during the callback. val is the line's JSON object when it parses
// as one (strictly, as package journal parses: duplicate keys, NaN or bad
// UTF-8 make a line unreadable), else the zero Value.
type line struct {
	num  int
	raw  []byte
	torn bool
	val  jsonv.Value
}

// scan calls fn for each line of src in order, parsing each one. It stops
// quietly at a line over journal.DefaultMaxLineBytes or a read that fails
// midway (validation reports both as problems); it returns the error of
// opening src, or of fn.
func scan(src Source, fn func(l *line) error) error {
	rc, err := src.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	r := journal.NewReader(rc)
	var l line
	for {
		jl, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if je := (*journal.Error)(nil); errors.As(err, &je) {
			// A line over the limit, or a read that failed: reading stops
			// there, and validation has reported it as a problem.
			return nil
		}
		if err != nil {
			return err
		}
		l = line{num: jl.Num, raw: jl.Raw, torn: jl.Torn}
		// A torn last line is parsed too: it may be a whole event that
		// only lacks its newline.
		if v, err := jsonv.Parse(jl.Raw); err == nil && v.Kind() == jsonv.Object {
			l.val = v
		}
		if err := fn(&l); err != nil {
			return err
		}
	}
}
