package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/tracecheck/tracecheck/journal"
)

// Store is a directory of session files. It holds no state of its own:
// every operation reads the files.
type Store struct {
	dir string
}

// Open returns the store in dir, which must be an existing directory.
func Open(dir string) (*Store, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, &Error{Kind: ErrIO, Path: dir, Msg: "cannot open the store directory", Err: err}
	}
	if !fi.IsDir() {
		return nil, &Error{Kind: ErrIO, Path: dir, Msg: "the store is not a directory"}
	}
	return &Store{dir: dir}, nil
}

// Create returns the store in dir, creating the directory (and its missing
// parents) first; each created directory's entry is fsynced.
func Create(dir string) (*Store, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &Error{Kind: ErrIO, Path: dir, Msg: "cannot create the store directory", Err: err}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := syncDir(filepath.Dir(missing[i])); err != nil {
			return nil, &Error{Kind: ErrIO, Path: dir, Msg: "cannot fsync the directory", Err: err}
		}
	}
	return Open(dir)
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// Path returns the file that holds session id (whether or not it exists).
func (s *Store) Path(id string) (string, error) {
	name, err := FileName(id)
	if err != nil {
		return "", err
	}
	return filepath.Join(s.dir, name), nil
}

// Sessions lists the IDs of the sessions in the store, sorted.
func (s *Store) Sessions() ([]string, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, &Error{Kind: ErrIO, Path: s.dir, Err: err}
	}
	var ids []string
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if id, ok := SessionID(e.Name()); ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// Exists reports whether the store has a file for session id.
func (s *Store) Exists(id string) (bool, error) {
	path, err := s.Path(id)
	if err != nil {
		return false, err
	}
	_, err = os.Stat(path)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, &Error{Kind: ErrIO, SessionID: id, Path: path, Err: err}
}

// Report is what Check found in one session file.
type Report struct {
	SessionID string
	Path      string
	Events    int
	Runs      []Run
	Size      int64 // bytes of complete lines (after a repair, the file size)
	// Torn is the torn last line found, if any.
	Torn *Torn
	// SideFile is where a repair kept the torn bytes; "" when nothing was
	// repaired.
	SideFile string
}

// Check reads and validates session id under a shared lock. A torn tail is
// ErrTornTail (with the report filled in up to it) unless repair is set, in
// which case it is repaired under an exclusive lock as the package doc
// describes. A bad line is ErrCorrupt naming it.
func (s *Store) Check(id string, repair bool) (*Report, error) {
	path, err := s.Path(id)
	if err != nil {
		return nil, err
	}
	flag := os.O_RDONLY
	if repair {
		flag = os.O_RDWR
	}
	f, err := openExisting(id, path, flag)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := lock(f, repair); err != nil {
		return nil, lockError(id, path, err)
	}
	st, torn, err := scanFile(f, path, id, nil)
	rep := &Report{SessionID: id, Path: path, Events: st.lines, Runs: st.runs, Size: st.size, Torn: torn}
	if err != nil {
		return rep, err
	}
	if torn == nil {
		return rep, nil
	}
	if !repair {
		return rep, tornError(id, path, torn)
	}
	side, err := repairTorn(f, s.dir, path, id, torn)
	if err != nil {
		return rep, err
	}
	rep.SideFile = side
	return rep, nil
}

// Load reads every event of session id under a shared lock, validating the
// file as Check does (a torn tail is ErrTornTail; nothing is repaired).
func (s *Store) Load(id string) ([]journal.Event, []Run, error) {
	path, err := s.Path(id)
	if err != nil {
		return nil, nil, err
	}
	f, err := openExisting(id, path, os.O_RDONLY)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if err := lock(f, false); err != nil {
		return nil, nil, lockError(id, path, err)
	}
	var evs []journal.Event
	st, torn, err := scanFile(f, path, id, func(ev *journal.Event) { evs = append(evs, *ev) })
	if err != nil {
		return nil, nil, err
	}
	if torn != nil {
		return nil, nil, tornError(id, path, torn)
	}
	return evs, st.runs, nil
}

func openExisting(id, path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Kind: ErrNotFound, SessionID: id, Path: path}
	}
	if err != nil {
		return nil, &Error{Kind: ErrIO, SessionID: id, Path: path, Err: err}
	}
	return f, nil
}

func lockError(id, path string, err error) error {
	if err == errWouldBlock {
		return &Error{Kind: ErrLocked, SessionID: id, Path: path}
	}
	return &Error{Kind: ErrIO, SessionID: id, Path: path, Msg: "cannot lock the session file", Err: err}
}

// repairTorn keeps the torn bytes in a side file, durably, then truncates
// the session file to its last complete line and fsyncs it. The caller
// holds the exclusive lock on f.
func repairTorn(f *os.File, dir, path, id string, t *Torn) (string, error) {
	ioErr := func(msg string, err error) error {
		return &Error{Kind: ErrIO, SessionID: id, Path: path, Line: t.Line, Offset: t.Offset, Msg: msg, Err: err}
	}
	side, err := keepTorn(sideName(path, t.Offset), t.Bytes)
	if err != nil {
		return "", ioErr("cannot keep the torn tail in a side file", err)
	}
	if err := syncDir(dir); err != nil {
		return "", ioErr("cannot fsync the store directory", err)
	}
	if err := f.Truncate(t.Offset); err != nil {
		return "", ioErr("cannot truncate the torn tail", err)
	}
	if err := f.Sync(); err != nil {
		return "", ioErr("cannot fsync the repaired file", err)
	}
	return side, nil
}

// keepTorn writes b to the first free name of base, base.1, base.2, ... and
// fsyncs it. A file that already holds exactly b (left by a repair that
// stopped before truncating) is reused.
func keepTorn(base string, b []byte) (string, error) {
	for i := 0; ; i++ {
		name := base
		if i > 0 {
			name = fmt.Sprintf("%s.%d", base, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			old, rerr := os.ReadFile(name)
			if rerr == nil && bytes.Equal(old, b) {
				return name, syncFile(name)
			}
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(b)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return name, err
	}
}

func syncFile(name string) error {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readAll scans the first size bytes of f, which end at a line end.
func readAll(f *os.File, size int64, path, id string) ([]journal.Event, error) {
	var evs []journal.Event
	_, torn, err := scanFile(io.NewSectionReader(f, 0, size), path, id, func(ev *journal.Event) { evs = append(evs, *ev) })
	if err != nil {
		return nil, err
	}
	if torn != nil {
		return nil, tornError(id, path, torn)
	}
	return evs, nil
}
