// Package golden holds the committed golden traces (golden/<id>.trace.jsonl,
// one per scenario), the Store that reads and writes a directory of them,
// and Compare, which says readably where a trace departs from its golden.
//
// A Store is a directory on disk or the copies embedded in the binary at
// build time (read-only, so an installed tracecheck can still verify its
// own scenarios). Which one a command uses is decided by its caller (see
// package verify): the golden/ directory of the tracecheck module found by
// walking up from the working directory (ModuleRoot), a directory given on
// the command line, or the embedded copies.
//
// Beside a golden, a Store keeps at most one pending golden,
// <id>.trace.jsonl.new: a render written for review instead of over the
// golden (insta's .snap.new). Accepting it renames it over the golden;
// rejecting it removes it. Every write is atomic (internal/atomicfile) and
// first removes the temporary files a killed writer left for that target.
//
// Compare reports every difference readably (built on package tracediff,
// every byte counted): each differing event (sequence, event_id, type, its
// line in each file) with the JSON pointer of every differing field and the
// expected and actual values, an event equal as JSON but written with other
// bytes (member order, spacing, CRLF) with a note saying so, the counts, and
// a bounded unified diff. A file whose events cannot be aligned (a line that
// is not JSON, a torn last line) is compared line by line instead, the
// first differing line shown and why. A line that is not JSON, or holds
// characters a terminal would act on, is shown quoted (textsafe.Quote) and
// cut to MaxShown bytes, never raw.
package golden

import (
	"embed"
	"os"
	"path/filepath"
	"strings"
)

// Suffix ends every golden file name: <id>.trace.jsonl.
const Suffix = ".trace.jsonl"

// PendingSuffix follows Suffix in a pending golden's name:
// <id>.trace.jsonl.new.
const PendingSuffix = ".new"

// ModulePath identifies the module whose golden/ directory DefaultStore
// finds.
const ModulePath = "github.com/tracecheck/tracecheck"

// The whole directory is embedded (not just *.trace.jsonl) so that the
// package still builds when every golden has been deleted; only names
// ending in Suffix are ever read from it.
//
//go:embed *
var embedded embed.FS

// FileName is the golden file name of id.
func FileName(id string) string { return id + Suffix }

// PendingName is the file name of id's pending golden.
func PendingName(id string) string { return id + Suffix + PendingSuffix }

// ModuleRoot walks up from dir to the nearest go.mod and reports its
// directory when it declares ModulePath.
func ModuleRoot(dir string) (string, bool) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			return dir, modulePathOf(data) == ModulePath
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func modulePathOf(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// RelTo returns path relative to the directory start when it can, so that
// messages name files the way a user in start would type them; otherwise
// path unchanged.
func RelTo(start, path string) string {
	abs, err := filepath.Abs(start)
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(abs, path); err == nil {
		return rel
	}
	return path
}
