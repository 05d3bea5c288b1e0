package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tracecheck/tracecheck/internal/textsafe"
)

// outputProblem says why the output file a flag names cannot be written,
// or "": it is a directory, or the directory it would go in is missing or
// no directory. Checked before any work, so that a bad output path is a
// usage error (exit 2), never a run that fails at its end.
func outputProblem(flag, path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Sprintf("%s %s: is a directory", flag, textsafe.Quote(path))
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Sprintf("%s %s: the directory %s cannot be used: %v", flag, textsafe.Quote(path), textsafe.Quote(dir), errorCause(err))
	case !st.IsDir():
		return fmt.Sprintf("%s %s: %s is not a directory", flag, textsafe.Quote(path), textsafe.Quote(dir))
	}
	return ""
}

// errorCause is a *PathError's cause (its path is said by the caller).
func errorCause(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
