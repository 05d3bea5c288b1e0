package agentrun

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/tracecheck/tracecheck/agentlog"
	"github.com/tracecheck/tracecheck/internal/placeholder"
	"github.com/tracecheck/tracecheck/internal/regularfile"
	"github.com/tracecheck/tracecheck/journal"
)

// MaxNativeLog bounds the session log a run reads.
const MaxNativeLog = 256 << 20

// NativeReport is what a run found of the agent's own session log.
type NativeReport struct {
	FindErr error                // no log could be found
	Lint    *agentlog.FileReport // its lint
	// Trace is its import to Trace 0.1.0 (nil when the import failed);
	// Portable the same with the run's values replaced by placeholders and
	// without payload.source_line (see portable).
	Trace, Portable []byte
	ImportErr       error
	Invalid         []*journal.Error // the import's validation problems
}

// Problems says what is wrong with the log, in order.
func (n NativeReport) Problems() []string {
	var out []string
	if n.FindErr != nil {
		return append(out, n.FindErr.Error())
	}
	if n.Lint != nil && n.Lint.Errors > 0 {
		first := ""
		for _, f := range n.Lint.Findings {
			if f.Severity == agentlog.Error {
				first = "; the first: " + f.String()
				break
			}
		}
		out = append(out, fmt.Sprintf("the session log has %d lint error(s)%s", n.Lint.Errors, first))
	}
	switch {
	case n.ImportErr != nil:
		out = append(out, "importing the session log: "+n.ImportErr.Error())
	case len(n.Invalid) > 0:
		out = append(out, fmt.Sprintf("the session log's import is not a valid trace: %v", n.Invalid[0]))
	}
	return out
}

// NoLogError is a run's problem when the agent wrote no session log where
// its preset looks.
type NoLogError struct{ Pattern string }

func (e *NoLogError) Error() string {
	return "the agent wrote no session log (looked for " + e.Pattern + ")"
}

// newestLog is the most recently modified regular file matching pattern
// (a glob relative to home).
func newestLog(home, pattern string) (string, error) {
	matches, err := filepath.Glob(filepath.Join(home, filepath.FromSlash(pattern)))
	if err != nil {
		return "", err
	}
	type cand struct {
		path string
		mod  int64
	}
	var cs []cand
	for _, m := range matches {
		st, err := os.Lstat(m)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		cs = append(cs, cand{m, st.ModTime().UnixNano()})
	}
	if len(cs) == 0 {
		return "", &NoLogError{Pattern: "~/" + pattern}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].mod > cs[j].mod || cs[i].mod == cs[j].mod && cs[i].path < cs[j].path })
	return cs[0].path, nil
}

// checkNative copies the log into out, lints it, imports it and validates
// the import, writing native.jsonl and native.trace.jsonl.
func checkNative(logPath, out string, ph *placeholder.Set) NativeReport {
	var n NativeReport
	data, err := regularfile.Read(logPath, MaxNativeLog)
	if err != nil {
		n.FindErr = fmt.Errorf("reading the session log: %w", err)
		return n
	}
	native := filepath.Join(out, NativeLogFile)
	if err := os.WriteFile(native, data, 0o644); err != nil {
		n.FindErr = err
		return n
	}
	n.Lint = agentlog.Lint(bytes.NewReader(data), native, agentlog.Options{})
	var trace bytes.Buffer
	if _, err := agentlog.Import(bytes.NewReader(data), native, n.Lint.Format, &trace); err != nil {
		n.ImportErr = err
		return n
	}
	n.Trace = trace.Bytes()
	if err := os.WriteFile(filepath.Join(out, NativeTraceFile), n.Trace, 0o644); err != nil {
		n.ImportErr = err
		return n
	}
	n.Invalid = journal.Validate(bytes.NewReader(n.Trace), NativeTraceFile)
	n.Portable = portable(n.Trace, ph)
	return n
}

// sourceLine is the member import writes first in every payload.
var sourceLine = regexp.MustCompile(`"payload":\{"source_line":[0-9]+,?`)

// portable is an imported trace as a golden can hold it run after run: the
// run's values replaced by placeholders, and without payload.source_line
// (the event's line in the native log, which moves with the records an
// agent writes on its own timing, such as Claude Code's api-request and
// atis-latch records).
func portable(trace []byte, ph *placeholder.Set) []byte {
	return sourceLine.ReplaceAll(ph.JSON(trace), []byte(`"payload":{`))
}

// lintCodes are the codes of the warnings and errors lint finds in the
// log at path, sorted and each once, and the number of errors.
func lintCodes(path string) ([]string, int) {
	rep := agentlog.LintFile(path, agentlog.Options{})
	seen := map[string]bool{}
	var out []string
	for _, f := range rep.Findings {
		if f.Severity == agentlog.Info || seen[string(f.Code)] {
			continue
		}
		seen[string(f.Code)] = true
		out = append(out, string(f.Code))
	}
	sort.Strings(out)
	return out, rep.Errors
}
