package golden

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tracecheck/tracecheck/internal/atomicfile"
)

// Store is a directory of golden files, on disk or embedded.
type Store struct {
	dir   string // "" when embedded
	fsys  fs.FS
	mkdir bool // the directory may be created by the first write
}

// DiskStore returns the store of directory dir. It never creates dir: a
// write into a directory that does not exist fails.
func DiskStore(dir string) *Store { return &Store{dir: dir, fsys: os.DirFS(dir)} }

// ModuleStore returns the golden/ directory of the tracecheck module rooted
// at root, named relative to the directory start. It is the one directory
// a write may create: a module's golden/ is known to be meant, where a
// directory typed on a command line may be a typo.
func ModuleStore(root, start string) *Store {
	dir := RelTo(start, filepath.Join(root, "golden"))
	return &Store{dir: dir, fsys: os.DirFS(dir), mkdir: true}
}

// EmbeddedStore returns the goldens embedded in the binary; it cannot be
// written.
func EmbeddedStore() *Store { return &Store{fsys: embedded} }

// DefaultStore returns the golden/ directory of the tracecheck module
// containing start (a directory), found by walking up to the first go.mod;
// when that go.mod is not tracecheck's, or there is none, the embedded
// goldens.
func DefaultStore(start string) *Store {
	if root, ok := ModuleRoot(start); ok {
		return ModuleStore(root, start)
	}
	return EmbeddedStore()
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

// Path is where id's golden lives, for messages.
func (s *Store) Path(id string) string {
	if s.Embedded() {
		return "embedded:" + FileName(id)
	}
	return filepath.Join(s.dir, FileName(id))
}

// PendingPath is where id's pending golden lives.
func (s *Store) PendingPath(id string) string {
	if s.Embedded() {
		return "embedded:" + PendingName(id)
	}
	return filepath.Join(s.dir, PendingName(id))
}

// ErrReadOnly is returned when writing to the embedded store.
var ErrReadOnly = errors.New("the embedded goldens cannot be written: pass --golden-dir or run inside the tracecheck module")

// ErrNotRegular is returned for a golden name that is not a regular file
// (a directory, a FIFO, a device): reading it could hang or never end.
var ErrNotRegular = errors.New("not a regular file")

// Read returns id's golden; a missing one is an error satisfying
// errors.Is(err, fs.ErrNotExist).
func (s *Store) Read(id string) ([]byte, error) { return s.read(FileName(id)) }

// ReadPending returns id's pending golden.
func (s *Store) ReadPending(id string) ([]byte, error) { return s.read(PendingName(id)) }

func (s *Store) read(name string) ([]byte, error) {
	info, err := fs.Stat(s.fsys, name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", filepath.Join(s.dir, name), ErrNotRegular)
	}
	return fs.ReadFile(s.fsys, name)
}

// IDs lists the ids that have a golden file, sorted: the names in the
// directory itself (no subdirectory) that end in Suffix and do not start
// with a dot. A missing directory holds none.
func (s *Store) IDs() ([]string, error) { return s.list(Suffix) }

// PendingIDs lists the ids that have a pending golden, sorted.
func (s *Store) PendingIDs() ([]string, error) { return s.list(Suffix + PendingSuffix) }

func (s *Store) list(suffix string) ([]string, error) {
	entries, err := fs.ReadDir(s.fsys, ".")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, suffix) || strings.HasPrefix(n, ".") {
			continue
		}
		if id := strings.TrimSuffix(n, suffix); id != "" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// Write stores data as id's golden when it differs from what is there,
// atomically (see atomicfile.Write). It reports whether the file changed.
func (s *Store) Write(id string, data []byte) (bool, error) {
	if s.Embedded() {
		return false, ErrReadOnly
	}
	if old, err := s.Read(id); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	return true, s.write(FileName(id), data)
}

// WritePending stores data as id's pending golden, atomically.
func (s *Store) WritePending(id string, data []byte) error {
	if s.Embedded() {
		return ErrReadOnly
	}
	return s.write(PendingName(id), data)
}

func (s *Store) write(name string, data []byte) error {
	if s.mkdir {
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return err
		}
	}
	path := filepath.Join(s.dir, name)
	// A verify --update that was killed mid-write left its temporary file.
	if _, err := atomicfile.RemoveStale(path); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o644)
}

// Remove deletes id's golden.
func (s *Store) Remove(id string) error {
	if s.Embedded() {
		return ErrReadOnly
	}
	return os.Remove(filepath.Join(s.dir, FileName(id)))
}

// RemovePending deletes id's pending golden when there is one, and reports
// whether there was. Only that one name is ever removed, and only when it
// is a regular file.
func (s *Store) RemovePending(id string) (bool, error) {
	if s.Embedded() {
		return false, nil
	}
	path := filepath.Join(s.dir, PendingName(id))
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !info.Mode().IsRegular() {
		return false, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	if err := os.Remove(path); err != nil {
		return false, err
	}
	return true, nil
}

// Accept makes id's pending golden its golden: the .new file is renamed
// over the golden (one atomic step) and the directory synced, so the
// golden is either the old bytes or the new ones, never a mix, and no
// .new is left.
func (s *Store) Accept(id string) error {
	if s.Embedded() {
		return ErrReadOnly
	}
	from := filepath.Join(s.dir, PendingName(id))
	info, err := os.Lstat(from)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", from, ErrNotRegular)
	}
	return atomicfile.Rename(from, filepath.Join(s.dir, FileName(id)))
}
