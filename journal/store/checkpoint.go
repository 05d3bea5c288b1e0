package store

// Session checkpoints: a side file that lets a writer open a long session
// by reading only the events after it.
//
// <session file>.checkpoint holds what OpenWriter would otherwise rebuild
// by reading the whole file: the size and line count it covers, the runs,
// the current run's invariant checker (journal.RunChecker's compact state:
// its identity and next sequence; its IDs are the session's), the
// session's event IDs (the encoding of the index's internal/idset.Set:
// about two bytes an event whatever the IDs look like, the newest 1,024
// with their bytes and offsets), the last event ID, and the offsets of the
// last checkpointRecent lines. A caller may keep a projection of its own
// with it (Projection: package reducer keeps the resume history there).
//
// The SHA-256 trailer catches a damaged or mixed-up file (the ID index's
// encoding by its CRC-32C, which the trailer hashes); the fields that
// decide what the writer accepts next are also checked against the file (the
// last covered event's ID, run and sequence against the state's last event
// ID, last run and checker). A checkpoint crafted with a valid trailer could
// still misstate older runs' lengths or the current run's ID set, as a
// crafted session file could misstate anything: the store directory is
// trusted as a whole.
//
// A checkpoint is an acceleration, never an authority. The session file is
// never rewritten or truncated because of it. Before it is used it is
// checked against the file: its own SHA-256 trailer, format, store rules,
// trace version and event schema; the session ID; the file's device and
// inode; that the file is at least as long as the covered prefix; the
// SHA-256 of the last covered line (which must end with a newline), of the
// first line, and of 16 blocks of 4 KiB spread over the prefix. Any
// mismatch and the checkpoint is ignored: the whole file is read, as
// without one. Bytes after the covered prefix are the tail: appended by a
// writer that stopped before writing a new checkpoint, they are read and
// checked like any line. An edit inside the prefix that changes none of the
// checked bytes is not detected (Store.Check reads everything).

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unsafe"

	"github.com/tracecheck/tracecheck/internal/atomicfile"
	"github.com/tracecheck/tracecheck/internal/bincodec"
	"github.com/tracecheck/tracecheck/internal/idset"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/schema"
)

// CheckpointExt is appended to a session file's name to name its
// checkpoint: <name>.jsonl.checkpoint.
const CheckpointExt = ".checkpoint"

// DefaultCheckpointMinEvents is the session length from which Close writes
// a checkpoint: below it, reading the file costs about what writing the
// checkpoint does.
const DefaultCheckpointMinEvents = 1000

// Size limits of checkpoints. A checkpoint file larger than
// MaxCheckpointBytes is ignored without being read, and none that large is
// ever written: a projection that would make it so is left out (the caller
// rebuilds from the file instead), and a state too large even without one
// is not checkpointed. SetProjection refuses a projection larger than
// MaxProjectionBytes.
const (
	MaxCheckpointBytes = 256 << 20
	MaxProjectionBytes = 64 << 20
)

// checkpointLimit is MaxCheckpointBytes; tests lower it.
var checkpointLimit int64 = MaxCheckpointBytes

const (
	checkpointMagic  = "tracecheck-session-checkpoint/3\n"
	olderMagic       = "tracecheck-session-checkpoint/" // /1 and /2
	rulesVersion     = "session-rules/1"                // change when the session rules change
	checkpointRecent = 1024                             // events whose line, offset and ID are kept
	sampleBlocks     = 16
	sampleSize       = 4096
)

var schemaDigest = func() string {
	s := sha256.Sum256(schema.TraceEventJSON)
	return hex.EncodeToString(s[:])
}()

// Projection is a caller's state derived from the session's first Lines
// events (bytes [0, Offset) of the file), kept with the checkpoint so that
// the caller can go on from it and read only the events after Offset
// (Writer.EachEvent). The store does not interpret Data; Key says what made
// it, and a caller ignores a projection whose key it does not know.
type Projection struct {
	Key    string
	Lines  int
	Offset int64
	Data   []byte
}

// CheckpointUse says how OpenWriter opened the session.
type CheckpointUse struct {
	Path string // the checkpoint file
	// Used: the state was loaded from the checkpoint, covering Lines events
	// (Offset bytes), and only TailLines events after it were read, the
	// first TailVouched of them vouched for by the tail receipt (their IDs
	// known new to the checkpoint's; see <session file>.receipt).
	Used        bool
	Lines       int
	Offset      int64
	TailLines   int
	TailVouched int
	// Ignored says why an existing checkpoint was not used; "" when it was
	// used, when there was none, or with WriterOptions.NoCheckpoint.
	Ignored string
}

// checkpoint is the decoded side file.
type checkpoint struct {
	sessionID string
	dev, ino  uint64
	size      int64
	lines     int
	lastOff   int64
	lastSHA   []byte
	firstLen  int64
	firstSHA  []byte
	sample    []byte
	runs      []Run
	checker   []byte
	ids       []byte          // the ID index's encoding, as read
	idsEnc    *idset.Encoding // the ID index's encoding, to write
	lastID    string
	recentOff []int64 // offsets of the last len(recentOff) lines
	proj      *Projection

	// As read: the SHA-256 trailer and the file's size (what receipts
	// build on).
	digest   [sha256.Size]byte
	fileSize int64
}

// A checkpoint is written as head, middle, the projection's data, the ID
// index's encoding, its length (8 bytes, little-endian) and the SHA-256
// trailer: the two large parts (the index at about 1.8 bytes an event for
// UUID sessions, the projection up to the limit) go to the file from where
// they are, never copied into one buffer with the rest. The trailer hashes
// every byte but the index's own, for which its CRC-32C (its last four
// bytes, checked by idset.Decode) stands in: hashing a 1.8 MB index again
// on every open would cost more than the rest of opening a session.
type checkpointParts struct {
	head, middle []byte
	ids          *idset.Encoding
	projData     []byte
	pad          int // zero bytes before ids, so that its words start at a multiple of 8
}

func (c *checkpoint) parts() checkpointParts {
	e := &bincodec.Encoder{B: append(make([]byte, 0, len(checkpointMagic)+1024+len(c.checker)+64*len(c.runs)), checkpointMagic...)}
	e.String(rulesVersion)
	e.String(journal.TraceVersion)
	e.String(schemaDigest)
	e.String(c.sessionID)
	e.Uvarint(c.dev)
	e.Uvarint(c.ino)
	e.Varint(c.size)
	e.Uvarint(uint64(c.lines))
	e.Varint(c.lastOff)
	e.Bytes(c.lastSHA)
	e.Varint(c.firstLen)
	e.Bytes(c.firstSHA)
	e.Bytes(c.sample)
	e.Uvarint(uint64(len(c.runs)))
	for _, r := range c.runs {
		e.String(r.RunID)
		e.Uvarint(uint64(r.FirstLine))
		e.Uvarint(uint64(r.Events))
	}
	e.Bytes(c.checker)
	m := &bincodec.Encoder{B: make([]byte, 0, 64+len(c.lastID)+10*len(c.recentOff))}
	m.String(c.lastID)
	m.Uvarint(uint64(len(c.recentOff)))
	prev := int64(0)
	for _, off := range c.recentOff {
		m.Varint(off - prev)
		prev = off
	}
	m.Flag(c.proj != nil)
	p := checkpointParts{head: e.B, ids: c.idsEnc, middle: m.B}
	if c.proj != nil {
		m.String(c.proj.Key)
		m.Uvarint(uint64(c.proj.Lines))
		m.Varint(c.proj.Offset)
		m.Uvarint(uint64(len(c.proj.Data)))
		p.middle, p.projData = m.B, c.proj.Data
	}
	at := len(p.head) + len(p.middle) + len(p.projData) + c.idsEnc.WordsOffset()
	p.pad = (8 - at%8) % 8
	return p
}

// len is the checkpoint's size in bytes.
func (p checkpointParts) len() int {
	return len(p.head) + len(p.middle) + len(p.projData) + p.pad + p.ids.Len() + 8 + sha256.Size
}

// writeTo writes the checkpoint to w and keeps its SHA-256 trailer in
// digest.
func (p checkpointParts) writeTo(w io.Writer, digest *[sha256.Size]byte) error {
	h := sha256.New()
	mw := io.MultiWriter(w, h)
	var pad [8]byte
	for _, b := range [][]byte{p.head, p.middle, p.projData, pad[:p.pad]} {
		if _, err := mw.Write(b); err != nil {
			return err
		}
	}
	last := &lastBytes{w: w}
	if _, err := p.ids.WriteTo(last); err != nil {
		return err
	}
	h.Write(last.b[:])
	if _, err := mw.Write(binary.LittleEndian.AppendUint64(nil, uint64(p.ids.Len()))); err != nil {
		return err
	}
	h.Sum(digest[:0])
	_, err := w.Write(digest[:])
	return err
}

// lastBytes writes to w and keeps the last four bytes written.
type lastBytes struct {
	w io.Writer
	b [4]byte
}

func (l *lastBytes) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if len(p) >= 4 {
		copy(l.b[:], p[len(p)-4:])
	} else {
		l.b = [4]byte(append(l.b[len(p):], p...))
	}
	return n, err
}

// checkpointFile is a checkpoint as read: head, every byte before the ID
// index's encoding, and rest, the encoding, its length and the trailer.
// readCheckpoint reads them apart so that the encoding's words land in
// memory 8-byte aligned, as the writer put them in the file, and the
// index uses them in place (idset.Options.KeepEncoding).
type checkpointFile struct{ head, rest []byte }

// trailerLen is what follows the ID index's encoding: its length and the
// SHA-256 trailer.
const trailerLen = 8 + sha256.Size

// splitCheckpoint splits the bytes of a whole checkpoint file where its
// last bytes say the ID index's encoding starts; rest is nil when they
// cannot say.
func splitCheckpoint(b []byte) checkpointFile {
	start, ok := idsStartOf(b[max(len(b)-trailerLen, 0):], int64(len(b)))
	if !ok {
		return checkpointFile{head: b}
	}
	return checkpointFile{head: b[:start:start], rest: b[start:]}
}

// idsStartOf returns where the ID index's encoding of a checkpoint file of
// size bytes starts, from its last trailerLen bytes.
func idsStartOf(last []byte, size int64) (int64, bool) {
	if len(last) != trailerLen || size < int64(len(checkpointMagic)+trailerLen) {
		return 0, false
	}
	n := binary.LittleEndian.Uint64(last)
	if n < 4 || n > uint64(size)-uint64(len(checkpointMagic)+trailerLen) {
		return 0, false
	}
	return size - trailerLen - int64(n), true
}

// trailer is the SHA-256 trailer cf should end with: of head, the last four
// bytes of the ID index's encoding (its CRC-32C) and its length. ok is false
// when cf cannot be a checkpoint.
func (cf checkpointFile) trailer() (sum [sha256.Size]byte, ok bool) {
	if len(cf.rest) < trailerLen+4 {
		return sum, false
	}
	ids := len(cf.rest) - trailerLen
	h := sha256.New()
	h.Write(cf.head)
	h.Write(cf.rest[ids-4 : ids+8])
	h.Sum(sum[:0])
	return sum, true
}

// checkpointTrailer is the SHA-256 trailer a checkpoint whose bytes before
// the trailer are body should end with (zero when body cannot be one).
func checkpointTrailer(body []byte) [sha256.Size]byte {
	b := append(append([]byte(nil), body...), make([]byte, sha256.Size)...)
	sum, _ := splitCheckpoint(b).trailer()
	return sum
}

// decodeCheckpoint decodes the bytes of a whole checkpoint file.
func decodeCheckpoint(b []byte) (*checkpoint, error) { return splitCheckpoint(b).decode() }

func (cf checkpointFile) decode() (*checkpoint, error) {
	head := cf.head
	if len(head) < len(checkpointMagic) || string(head[:len(checkpointMagic)]) != checkpointMagic {
		if bytes.HasPrefix(head, []byte(olderMagic)) {
			return nil, errors.New("an older format, this is " + checkpointMagic[:len(checkpointMagic)-1])
		}
		return nil, errors.New("not a session checkpoint")
	}
	want, ok := cf.trailer()
	if !ok || !bytes.Equal(want[:], cf.rest[len(cf.rest)-sha256.Size:]) {
		return nil, errors.New("its SHA-256 trailer does not match: the file is damaged")
	}
	d := bincodec.NewDecoder(head[len(checkpointMagic):])
	if v := d.String(); d.Err() == nil && v != rulesVersion {
		return nil, fmt.Errorf("made under session rules %q, these are %q", v, rulesVersion)
	}
	if v := d.String(); d.Err() == nil && v != journal.TraceVersion {
		return nil, fmt.Errorf("made for trace version %q", v)
	}
	if v := d.String(); d.Err() == nil && v != schemaDigest {
		return nil, errors.New("made with another event schema")
	}
	c := &checkpoint{fileSize: int64(len(cf.head) + len(cf.rest))}
	copy(c.digest[:], cf.rest[len(cf.rest)-sha256.Size:])
	c.sessionID = d.String()
	c.dev, c.ino = d.Uvarint(), d.Uvarint()
	c.size = d.Varint()
	c.lines = int(d.Uvarint())
	c.lastOff = d.Varint()
	c.lastSHA = d.Bytes()
	c.firstLen = d.Varint()
	c.firstSHA = d.Bytes()
	c.sample = d.Bytes()
	nr := d.Count()
	c.runs = make([]Run, 0, nr)
	for range nr {
		r := Run{RunID: d.String(), FirstLine: int(d.Uvarint()), Events: int(d.Uvarint())}
		if n := len(c.runs); n > 0 {
			r.ResumesRunID = c.runs[n-1].RunID
		}
		c.runs = append(c.runs, r)
	}
	c.checker = d.Bytes()
	n := len(cf.rest) - trailerLen
	c.ids = cf.rest[:n:n]
	c.lastID = d.String()
	nrec := d.Count()
	prev := int64(0)
	for range nrec {
		prev += d.Varint()
		c.recentOff = append(c.recentOff, prev)
	}
	if d.Flag() {
		c.proj = &Projection{Key: d.String(), Lines: int(d.Uvarint()), Offset: d.Varint(), Data: d.Bytes()}
	}
	// Then only the padding that aligns the index's words: zero bytes.
	if rest := d.Rest(); d.Err() == nil && (len(rest) > 7 || !bytes.Equal(rest, make([]byte, len(rest)))) {
		d.Fail()
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// checkpointPath is the side file of a session file.
func checkpointPath(path string) string { return path + CheckpointExt }

// readCheckpoint reads a checkpoint file: a regular file, not through a
// link, at most MaxCheckpointBytes long, checked before a byte is read (so
// a FIFO, a device, a link to one or a huge sparse file costs nothing). The
// ID index's encoding is read into memory at the same offset modulo 8 as in
// the file (checkpointFile). It returns the bytes, or why they were not read
// (ok false; why "" when there is no checkpoint).
func readCheckpoint(path string) (cf checkpointFile, ok bool, why string) {
	f, err := openFile(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return cf, false, ""
	}
	var te *FileTypeError
	if errors.As(err, &te) {
		return cf, false, te.Error()
	}
	if err != nil {
		return cf, false, err.Error()
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return cf, false, err.Error()
	}
	size := fi.Size()
	if size > checkpointLimit {
		return cf, false, fmt.Sprintf("it is %d bytes, more than the %d a checkpoint may hold", size, checkpointLimit)
	}
	read := func(b []byte, off int64) string {
		if _, err := f.ReadAt(b, off); err != nil {
			return "cannot read it: " + err.Error()
		}
		return ""
	}
	var last [trailerLen]byte
	start, split := int64(0), false
	if size >= trailerLen {
		if why := read(last[:], size-trailerLen); why != "" {
			return cf, false, why
		}
		start, split = idsStartOf(last[:], size)
	}
	if !split {
		cf.head = make([]byte, size)
		if why := read(cf.head, 0); why != "" {
			return cf, false, why
		}
		return cf, true, ""
	}
	cf.head = make([]byte, start)
	if why := read(cf.head, 0); why != "" {
		return cf, false, why
	}
	shift := start % 8
	words := make([]uint64, (shift+size-start+7)/8)
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 8*len(words))
	cf.rest = mem[shift : shift+size-start]
	if why := read(cf.rest, start); why != "" {
		return cf, false, why
	}
	return cf, true, ""
}

// loadCheckpoint reads the checkpoint of w's session and checks it against
// the file. It returns the state it holds, or nil and why it was not used
// ("" when there is no checkpoint).
func (w *Writer) loadCheckpoint() (*state, *receiptBase, string) {
	cf, ok, why := readCheckpoint(checkpointPath(w.path))
	if !ok {
		return nil, nil, why
	}
	c, err := cf.decode()
	if err != nil {
		return nil, nil, err.Error()
	}
	st, err := c.verify(w.f, w.id)
	if err != nil {
		return nil, nil, err.Error()
	}
	// The projection is cloned out of the checkpoint's bytes, so that they
	// (megabytes for a large session, the ID index's encoding above all)
	// are garbage once the state is restored.
	if c.proj != nil {
		p := *c.proj
		p.Data = bytes.Clone(p.Data)
		w.proj = &p
	}
	return st, &receiptBase{digest: c.digest, size: c.size, fileSize: c.fileSize}, ""
}

// verify checks c against the open session file f and returns the state it
// describes.
func (c *checkpoint) verify(f *os.File, sessionID string) (_ *state, err error) {
	var st *state
	defer func() {
		if err != nil && st != nil {
			st.ids.close() // its temporary files
		}
	}()
	stale := func(format string, args ...any) (*state, error) {
		return nil, fmt.Errorf(format, args...)
	}
	if c.sessionID != sessionID {
		return stale("made for session %q", c.sessionID)
	}
	dev, ino, size, err := fileID(f)
	if err != nil {
		return stale("cannot stat the session file: %v", err)
	}
	switch {
	case dev != c.dev || ino != c.ino:
		return stale("made for another file (device %d inode %d; this one is %d, %d)", c.dev, c.ino, dev, ino)
	case c.lines <= 0 || c.size <= 0 || int64(c.lines) > c.size/2:
		return stale("covers no event, or more events than bytes allow")
	case size < c.size:
		return stale("the file is %d bytes, shorter than the %d it covered", size, c.size)
	case c.lastOff < 0 || c.lastOff >= c.size || c.size-c.lastOff > journal.DefaultMaxLineBytes+1:
		return stale("bad last line offset")
	case c.firstLen <= 0 || c.firstLen > c.size || c.firstLen > journal.DefaultMaxLineBytes+1:
		return stale("bad first line length")
	case len(c.recentOff) > c.lines || len(c.recentOff) > checkpointRecent:
		return stale("bad recent events")
	}
	digest := func(off, n int64) ([]byte, error) {
		h := sha256.New()
		if _, err := io.Copy(h, io.NewSectionReader(f, off, n)); err != nil {
			return nil, err
		}
		return h.Sum(nil), nil
	}
	last, err := readLineAt(f, c.lastOff)
	if err != nil || c.lastOff+int64(len(last))+1 != c.size {
		return stale("the last covered line does not end where the checkpoint does")
	}
	if s, err := digest(c.lastOff, c.size-c.lastOff); err != nil || !bytes.Equal(s, c.lastSHA) {
		return stale("the last covered line changed")
	}
	if s, err := digest(0, c.firstLen); err != nil || !bytes.Equal(s, c.firstSHA) {
		return stale("the first line changed")
	}
	if s, err := sampleDigest(f, c.size); err != nil || !bytes.Equal(s, c.sample) {
		return stale("the sampled blocks of the covered bytes changed")
	}
	st = newState(sessionID)
	st.src = f
	if err := st.ids.readBinary(st, c.ids); err != nil || st.ids.len() != c.lines {
		return stale("bad event-id set")
	}
	if len(c.runs) == 0 {
		return stale("bad runs")
	}
	st.checker = &journal.RunChecker{}
	if err := st.checker.RestoreCompactStateOver(c.checker, runIDs{st, c.runs[len(c.runs)-1].FirstLine}); err != nil {
		return stale("bad checker state")
	}
	total, line := 0, 1
	for _, r := range c.runs {
		if r.RunID == "" || r.FirstLine != line || r.Events <= 0 {
			return stale("bad runs")
		}
		if _, dup := st.runSet[r.RunID]; dup {
			return stale("bad runs")
		}
		st.runSet[r.RunID] = struct{}{}
		total += r.Events
		line += r.Events
	}
	if total != c.lines {
		return stale("runs, events and IDs disagree")
	}
	if line, _, found, err := st.ids.lookup(c.lastID); err != nil || !found || line != c.lines {
		return stale("runs, events and IDs disagree")
	}
	if p := c.proj; p != nil && (p.Lines < 0 || p.Lines > c.lines || p.Offset < 0 || p.Offset > c.size || (p.Lines == 0) != (p.Offset == 0)) {
		return stale("bad projection bounds")
	}
	// The last covered event is the one the state ends with: its ID, run
	// and sequence.
	var sc journal.LineScanner
	_, ev, _, ok := sc.Scan(nil, last)
	if !ok {
		var jerr *journal.Error
		if _, ev, jerr = journal.DecodeLine(last); jerr != nil {
			return stale("the last covered line is not an event")
		}
	}
	lastRun := c.runs[len(c.runs)-1]
	if ev.SessionID != sessionID || ev.EventID != c.lastID || ev.Provenance.RunID != lastRun.RunID ||
		ev.Sequence+1 != st.checker.Next() || int64(lastRun.Events) != st.checker.Next() {
		return stale("the last covered event is not the one the checkpoint ends with")
	}
	st.runs = c.runs
	st.lines, st.size = c.lines, c.size
	st.lastID = []byte(c.lastID)
	st.lastOff, st.firstLen = c.lastOff, c.firstLen
	// The recent events: their lines and offsets are known again.
	n := len(c.recentOff)
	st.offBase = c.lines - n
	for i := range n {
		if i > 0 && c.recentOff[i] <= c.recentOff[i-1] || c.recentOff[i] >= c.size {
			return stale("bad recent events")
		}
		st.offs = append(st.offs, c.recentOff[i])
	}
	if n > 0 && c.recentOff[n-1] != c.lastOff {
		return stale("bad recent events")
	}
	return st, nil
}

// sampleDigest hashes sampleBlocks blocks spread evenly over [0, n).
func sampleDigest(src io.ReaderAt, n int64) ([]byte, error) {
	h := sha256.New()
	if n <= sampleBlocks*sampleSize {
		if _, err := io.Copy(h, io.NewSectionReader(src, 0, n)); err != nil {
			return nil, err
		}
		return h.Sum(nil), nil
	}
	buf := make([]byte, sampleSize)
	for i := int64(0); i < sampleBlocks; i++ {
		off := i * (n - sampleSize) / (sampleBlocks - 1)
		if _, err := src.ReadAt(buf, off); err != nil {
			return nil, err
		}
		h.Write(buf)
	}
	return h.Sum(nil), nil
}

// makeCheckpoint describes the session as w's state has it.
func (w *Writer) makeCheckpoint() (*checkpoint, error) {
	st := w.st
	dev, ino, _, err := fileID(w.f)
	if err != nil {
		return nil, err
	}
	c := &checkpoint{sessionID: w.id, dev: dev, ino: ino, size: st.size, lines: st.lines,
		lastOff: st.lastOff, firstLen: st.firstLen, runs: st.runs, lastID: st.lastEventID(), proj: w.proj}
	digest := func(off, n int64) ([]byte, error) {
		h := sha256.New()
		if _, err := io.Copy(h, io.NewSectionReader(w.f, off, n)); err != nil {
			return nil, err
		}
		return h.Sum(nil), nil
	}
	if c.lastSHA, err = digest(st.lastOff, st.size-st.lastOff); err != nil {
		return nil, err
	}
	if c.firstSHA, err = digest(0, st.firstLen); err != nil {
		return nil, err
	}
	if c.sample, err = sampleDigest(w.f, st.size); err != nil {
		return nil, err
	}
	if c.checker, err = st.checker.AppendCompactState(nil); err != nil {
		return nil, err
	}
	if c.idsEnc, err = st.ids.encode(); err != nil {
		return nil, err
	}
	c.recentOff = st.recent()
	return c, nil
}

// CheckpointTooLargeError: the session's state does not fit in a
// checkpoint (MaxCheckpointBytes) even without a projection; none was
// written.
type CheckpointTooLargeError struct {
	Bytes int // the size it would have had
}

func (e *CheckpointTooLargeError) Error() string {
	return fmt.Sprintf("the session's state takes %d bytes, more than the %d a checkpoint may hold: none written (opening reads the whole file)", e.Bytes, checkpointLimit)
}

// writeCheckpoint replaces the checkpoint atomically (atomicfile.Write:
// a temporary file, fsynced, renamed over it, the directory fsynced). The
// caller holds w.mu and the session lock. It never writes a checkpoint the
// reader would refuse: a projection that makes it too large is left out
// (w.projDropped), and a state too large without one is a
// *CheckpointTooLargeError.
func (w *Writer) writeCheckpoint() error {
	w.projDropped = false
	if w.st.lines == 0 {
		return nil
	}
	c, err := w.makeCheckpoint()
	if err != nil {
		return err
	}
	p := c.parts()
	if int64(p.len()) > checkpointLimit && c.proj != nil {
		c.proj = nil
		p = c.parts()
		w.projDropped = true
	}
	if n := p.len(); int64(n) > checkpointLimit {
		return &CheckpointTooLargeError{Bytes: n}
	}
	var digest [sha256.Size]byte
	err = atomicfile.WriteFunc(checkpointPath(w.path), 0o644, func(f io.Writer) error { return p.writeTo(f, &digest) })
	if err != nil {
		return err
	}
	w.cpLines, w.projDirty = w.st.lines, false
	w.rc.start(&receiptBase{digest: digest, size: w.st.size, fileSize: int64(p.len())})
	return nil
}
