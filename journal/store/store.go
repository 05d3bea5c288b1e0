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

	"github.com/tracecheck/tracecheck/internal/atomicfile"
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

// Sessions lists the IDs of the sessions in the store, sorted: every entry
// whose name is a session file's (FileName), whatever its type, so that a
// symbolic link or a FIFO under a session's name is reported by Check
// (ErrNotRegular) rather than skipped. Temporary files (atomicfile.IsTemp)
// are never listed.
func (s *Store) Sessions() ([]string, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, &Error{Kind: ErrIO, Path: s.dir, Err: err}
	}
	var ids []string
	for _, e := range ents {
		if atomicfile.IsTemp(e.Name()) {
			continue
		}
		if id, ok := SessionID(e.Name()); ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// Exists reports whether the store has an entry under session id's file
// name (of any type: a link there is reported, never followed).
func (s *Store) Exists(id string) (bool, error) {
	path, err := s.Path(id)
	if err != nil {
		return false, err
	}
	_, err = os.Lstat(path)
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
	if repair {
		removeStale(path) // under the exclusive lock, as a writer open does
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

// openExisting opens a session file that must exist, as a regular file and
// not through a link (openFile).
func openExisting(id, path string, flag int) (*os.File, error) {
	f, err := openFile(path, flag, 0)
	if err != nil {
		return nil, openError(id, path, err)
	}
	return f, nil
}

// removeStale removes the temporary files that killed writers of the
// session file, of its checkpoint and of its receipt left (atomicfile.RemoveStale: only
// those whose process is gone). It is housekeeping: a failure changes
// nothing else and is not reported.
func removeStale(path string) {
	atomicfile.RemoveStale(path)
	atomicfile.RemoveStale(checkpointPath(path))
	atomicfile.RemoveStale(receiptPath(path))
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

// keepTorn writes b to the first usable name of base, base.1, base.2, ...
// and fsyncs it. A name is usable when it is free, or when it is a regular
// file holding a prefix of b: what a repair that stopped early (killed, or
// out of space) left there, which is completed rather than abandoned. A
// link, a FIFO or any other entry is skipped, never opened. When writing
// fails, a file keepTorn created is removed again, so repeated attempts on
// a full disk leave no empty side files behind.
func keepTorn(base string, b []byte) (string, error) {
	for i := 0; ; i++ {
		name := base
		if i > 0 {
			name = fmt.Sprintf("%s.%d", base, i)
		}
		f, err := openFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		created := err == nil
		if errors.Is(err, fs.ErrExist) {
			f, err = openFile(name, os.O_RDWR, 0)
			if err != nil {
				continue // a link or another type: never ours
			}
			if have, ok := tornPrefix(f, b); !ok {
				f.Close()
				continue
			} else {
				b = b[have:] // complete it
			}
		} else if err != nil {
			return "", err
		}
		if len(b) > 0 {
			_, err = writeSideFile(f, b)
		}
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil && created {
			os.Remove(name)
		}
		return name, err
	}
}

// tornPrefix reports whether the side file f holds a prefix of b, and how
// many bytes of it; f's offset is left at its end. A file larger than b
// is not read.
func tornPrefix(f *os.File, b []byte) (int, bool) {
	fi, err := f.Stat()
	if err != nil || fi.Size() > int64(len(b)) {
		return 0, false
	}
	have := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, have); err != nil || !bytes.Equal(have, b[:len(have)]) {
		return 0, false
	}
	return len(have), true
}

// writeSideFile is the write(2) of a torn-tail side file. Tests replace it
// to fail as a full disk does.
var writeSideFile = func(f *os.File, b []byte) (int, error) { return f.Write(b) }

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
