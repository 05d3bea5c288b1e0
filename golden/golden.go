// Package golden holds the committed golden traces (golden/<id>.trace.jsonl,
// one per scenario) and the logic to compare a rendered trace with one and
// to update them.
//
// Where goldens are read from: a Store. DefaultStore walks up from the
// working directory to the tracecheck module root (the go.mod declaring
// module github.com/tracecheck/tracecheck) and uses its golden/ directory;
// outside the module it falls back to the goldens embedded in the binary at
// build time (read-only), so an installed tracecheck can still verify its
// own scenarios. tracecheck verify --golden-dir DIR overrides both.
//
// Compare reports the first difference readably: the line, the event on it
// (sequence, event_id, type), the JSON pointer of every differing field with
// the expected and actual values, and a unified diff of the lines around
// it.
package golden

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/pmezard/go-difflib/difflib"

	"github.com/tracecheck/tracecheck/internal/atomicfile"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Suffix ends every golden file name: <id>.trace.jsonl.
const Suffix = ".trace.jsonl"

// ModulePath identifies the module whose golden/ directory DefaultStore
// finds.
const ModulePath = "github.com/tracecheck/tracecheck"

// The whole directory is embedded (not just *.trace.jsonl) so that the
// package still builds when every golden has been deleted; only names
// ending in Suffix are ever read from it.
//
//go:embed *
var embedded embed.FS

// Store is a directory of golden files, on disk or embedded.
type Store struct {
	dir  string // "" when embedded
	fsys fs.FS
}

// DiskStore returns the store of directory dir.
func DiskStore(dir string) *Store { return &Store{dir: dir, fsys: os.DirFS(dir)} }

// EmbeddedStore returns the goldens embedded in the binary; it cannot be
// written.
func EmbeddedStore() *Store { return &Store{fsys: embedded} }

// DefaultStore returns the golden/ directory of the tracecheck module
// containing start (a directory), found by walking up to the first go.mod;
// when that go.mod is not tracecheck's, or there is none, the embedded
// goldens.
func DefaultStore(start string) *Store {
	if root, ok := ModuleRoot(start); ok {
		dir := filepath.Join(root, "golden")
		if abs, err := filepath.Abs(start); err == nil {
			if rel, err := filepath.Rel(abs, dir); err == nil {
				dir = rel
			}
		}
		return DiskStore(dir)
	}
	return EmbeddedStore()
}

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

// Embedded reports whether the store is the binary's embedded copy.
func (s *Store) Embedded() bool { return s.dir == "" }

// Dir is the store's directory ("" when embedded).
func (s *Store) Dir() string { return s.dir }

// String names the store for messages.
func (s *Store) String() string {
	if s.Embedded() {
		return "embedded goldens"
	}
	return s.dir
}

// FileName is the golden file name of scenario id.
func FileName(id string) string { return id + Suffix }

// Path is where scenario id's golden lives, for messages.
func (s *Store) Path(id string) string {
	if s.Embedded() {
		return "embedded:" + FileName(id)
	}
	return filepath.Join(s.dir, FileName(id))
}

// Read returns scenario id's golden; a missing one is an error satisfying
// errors.Is(err, fs.ErrNotExist).
func (s *Store) Read(id string) ([]byte, error) {
	return fs.ReadFile(s.fsys, FileName(id))
}

// IDs lists the scenario ids that have a golden file, sorted. A missing
// directory holds none.
func (s *Store) IDs() ([]string, error) {
	entries, err := fs.ReadDir(s.fsys, ".")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, Suffix) && !strings.HasPrefix(n, ".") {
			ids = append(ids, strings.TrimSuffix(n, Suffix))
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// ErrReadOnly is returned when writing to the embedded store.
var ErrReadOnly = errors.New("the embedded goldens cannot be written: pass --golden-dir or run inside the tracecheck module")

// Write stores data as scenario id's golden when it differs from what is
// there, atomically (see atomicfile.Write). It reports whether the file
// changed.
func (s *Store) Write(id string, data []byte) (bool, error) {
	if s.Embedded() {
		return false, ErrReadOnly
	}
	if old, err := s.Read(id); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return false, err
	}
	if err := atomicfile.Write(filepath.Join(s.dir, FileName(id)), data, 0o644); err != nil {
		return false, err
	}
	return true, nil
}

// Remove deletes scenario id's golden.
func (s *Store) Remove(id string) error {
	if s.Embedded() {
		return ErrReadOnly
	}
	return os.Remove(filepath.Join(s.dir, FileName(id)))
}

// Drift describes where a render first departs from its golden.
type Drift struct {
	// Line is the 1-based number of the first line that differs.
	Line int `json:"line"`
	// The event on that line: the render's when it has the line and it
	// parses, else the golden's.
	Sequence *int64 `json:"sequence,omitempty"`
	EventID  string `json:"event_id,omitempty"`
	Type     string `json:"type,omitempty"`
	// Fields are the differing JSON fields of that line.
	Fields []FieldDiff `json:"fields,omitempty"`
	// Note explains a difference that is not a field's value: extra or
	// missing lines, a line that is not JSON, equal JSON written with other
	// bytes, line endings.
	Note string `json:"note,omitempty"`
	// Diff is the unified diff of the lines around the first difference.
	Diff string `json:"diff"`
}

// FieldDiff is one differing field: its JSON pointer within the event, and
// the expected (golden) and actual (rendered) values as JSON, or "(absent)".
type FieldDiff struct {
	Path     string `json:"path"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
}

// Absent stands for a field or line one side does not have.
const Absent = "(absent)"

// Compare compares the golden bytes expected (named expName in the diff
// header) with the rendered bytes actual (actName). It returns nil when they
// are byte-identical.
func Compare(expected, actual []byte, expName, actName string) *Drift {
	if bytes.Equal(expected, actual) {
		return nil
	}
	el, al := splitLines(expected), splitLines(actual)
	i := 0
	for i < len(el) && i < len(al) && el[i] == al[i] {
		i++
	}
	d := &Drift{Line: i + 1}
	var ev, av jsonv.Value
	var eerr, aerr error
	hasE, hasA := i < len(el), i < len(al)
	if hasE {
		ev, eerr = jsonv.Parse([]byte(strings.TrimSuffix(el[i], "\n")))
	}
	if hasA {
		av, aerr = jsonv.Parse([]byte(strings.TrimSuffix(al[i], "\n")))
	}
	switch {
	case hasA && aerr == nil:
		d.identify(av)
	case hasE && eerr == nil:
		d.identify(ev)
	}
	switch {
	case !hasE && !hasA:
		d.Note = "the lines are equal; the files differ in what follows the last newline"
	case !hasE:
		d.Note = fmt.Sprintf("the golden file ends after line %d; the render has %d lines", len(el), len(al))
	case !hasA:
		d.Note = fmt.Sprintf("the render ends after line %d; the golden file has %d lines", len(al), len(el))
	case eerr != nil:
		d.Note = fmt.Sprintf("golden line %d is not valid JSON: %v", i+1, eerr)
	case aerr != nil:
		d.Note = fmt.Sprintf("rendered line %d is not valid JSON: %v", i+1, aerr)
	default:
		d.Fields = FieldDiffs(ev, av)
		if len(d.Fields) == 0 {
			switch {
			case !strings.HasSuffix(el[i], "\n") || !strings.HasSuffix(al[i], "\n"):
				d.Note = "the same event; one side lacks the final newline"
			case strings.TrimRight(el[i], "\r\n") == strings.TrimRight(al[i], "\r\n"):
				d.Note = "the same event; the line endings differ (CRLF)"
			default:
				d.Note = "the same JSON value written with other bytes (member order, spacing, escaping or number spelling)"
			}
		}
	}
	d.Diff = unifiedHunk(el, al, expName, actName)
	return d
}

func (d *Drift) identify(v jsonv.Value) {
	if s, ok := v.Get("sequence"); ok {
		if n, ok := s.Int64(); ok {
			d.Sequence = &n
		}
	}
	if s, ok := v.Get("event_id"); ok && s.Kind() == jsonv.String {
		d.EventID = s.Text()
	}
	if s, ok := v.Get("type"); ok && s.Kind() == jsonv.String {
		d.Type = s.Text()
	}
}

// splitLines splits b after each LF, keeping the LF.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// FieldDiffs lists the differing leaves of two JSON values, each named by
// its JSON pointer, using go-cmp. Member order is not a difference; a
// number's spelling is (1 and 1.0 differ on the wire).
func FieldDiffs(expected, actual jsonv.Value) []FieldDiff {
	var r reporter
	cmp.Equal(toAny(expected), toAny(actual), cmp.Reporter(&r))
	return r.diffs
}

// number keeps a JSON number's spelling through go-cmp.
type number string

func toAny(v jsonv.Value) any {
	return v.Interface(func(s string) any { return number(s) })
}

type reporter struct {
	path  cmp.Path
	diffs []FieldDiff
}

func (r *reporter) PushStep(ps cmp.PathStep) { r.path = append(r.path, ps) }
func (r *reporter) PopStep()                 { r.path = r.path[:len(r.path)-1] }

func (r *reporter) Report(rs cmp.Result) {
	if rs.Equal() {
		return
	}
	vx, vy := r.path.Last().Values()
	r.diffs = append(r.diffs, FieldDiff{Path: pointer(r.path), Expected: showValue(vx), Actual: showValue(vy)})
}

// pointer renders a cmp path through maps and slices as a JSON pointer.
func pointer(p cmp.Path) string {
	var b strings.Builder
	for _, s := range p {
		switch s := s.(type) {
		case cmp.MapIndex:
			b.WriteByte('/')
			k := s.Key().String()
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
		case cmp.SliceIndex:
			b.WriteByte('/')
			k := s.Key()
			if k < 0 { // an element only one side has
				x, y := s.SplitKeys()
				k = max(x, y)
			}
			b.WriteString(strconv.Itoa(k))
		}
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

func showValue(v reflect.Value) string {
	if !v.IsValid() {
		return Absent
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(jsonable(v.Interface())); err != nil {
		return fmt.Sprint(v.Interface())
	}
	return strings.TrimSuffix(out.String(), "\n")
}

// jsonable turns number back into json.Number for encoding.
func jsonable(x any) any {
	switch x := x.(type) {
	case number:
		return json.Number(x)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, v := range x {
			m[k] = jsonable(v)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, v := range x {
			s[i] = jsonable(v)
		}
		return s
	}
	return x
}

// unifiedHunk is the unified diff of the first group of changes, with one
// line of context.
func unifiedHunk(a, b []string, aName, bName string) string {
	m := difflib.NewMatcherWithJunk(a, b, false, nil)
	groups := m.GetGroupedOpCodes(1)
	if len(groups) == 0 {
		return ""
	}
	g := groups[0]
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	first, last := g[0], g[len(g)-1]
	fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(first.I1, last.I2), hunkRange(first.J1, last.J2))
	for _, c := range g {
		switch c.Tag {
		case 'e':
			writeLines(&out, " ", a[c.I1:c.I2])
		case 'r', 'd':
			writeLines(&out, "-", a[c.I1:c.I2])
		}
		if c.Tag == 'r' || c.Tag == 'i' {
			writeLines(&out, "+", b[c.J1:c.J2])
		}
	}
	return out.String()
}

func hunkRange(start, stop int) string {
	n := stop - start
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return strconv.Itoa(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func writeLines(out *strings.Builder, prefix string, lines []string) {
	for _, l := range lines {
		out.WriteString(prefix)
		out.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}
