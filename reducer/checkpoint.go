package reducer

// Streaming replay and checkpoints (the curriculum's lesson s07, exercise F).
//
// StreamReplay replays a journal file in one parallel streaming pass
// (journal.Stream): it never holds the events, only the view. A Checkpoint
// records where a replay stopped: the reducer and schema versions, the last
// applied sequence, line and byte offset, the SHA-256 state of the
// fingerprint's prefix, the invariant checker's state (so that the tail is
// checked exactly as in a replay from zero: parents and duplicate ids of the
// prefix included) and the serialized projection. Resuming seeks to the
// offset and reads only the tail; the result equals a replay from event zero.
//
// A checkpoint is an acceleration structure, never an authority: the source
// journal is only read, never changed or truncated. Before it is used, a
// checkpoint is checked twice. Against itself: its SHA-256 trailer (the
// header's digest, checked when it is loaded, and the projection's, checked
// before the projection is used), and the state it restores (the fingerprint
// state must hash to the fingerprint it records, the prefix state to the
// prefix digest over exactly Offset bytes, the checker state must be at the
// next sequence of the same session and run). Against its source (Verify):
// versions, the size, the digest of the last checkpointed line, of the first
// line and of 16 blocks sampled across the prefix, and on request the digest
// of the whole prefix. Any mismatch means the checkpoint is ignored and the
// replay starts from zero.
//
// ReplayFile writes a checkpoint only where it may: never over the journal
// it replays (the same path, or the same file by device and inode: a hard
// link or a symbolic link to it), never over a directory or anything but a
// regular file, and never over a file that does not start like a
// checkpoint (a missing file is created).
//
// File format: the first line is CheckpointFormat; the second a JSON header
// (Checkpoint); then the invariant checker's state, binary
// (journal.RunChecker.AppendCompactState: its id set in about two bytes an
// id), of the length the header gives, and a newline; then one line per
// projection item, user messages, then assistant messages (JSON strings),
// then tool results (JSON objects as recorded); last the trailer, "sha256
// <header> <items>\n": the SHA-256 of the header line and of the item
// lines. The header holds the checker state's SHA-256, so the trailer seals
// it too. Resuming reads the header and the checker state only; the items
// are read when the whole view is asked for. Checkpoints of the earlier
// formats (/1: a JSON header first; /2: the checker state in the header,
// its ids listed) are stale: ignored with a note, and replaced.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/tracecheck/tracecheck/internal/atomicfile"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/schema"
)

// CheckpointFormat names the checkpoint file format; it is also the file's
// first line.
const CheckpointFormat = "tracecheck-checkpoint/3"

// checkpointMagic is a checkpoint's first line, olderMagic that of format
// /2, and oldCheckpointStart how a checkpoint of the first format (a JSON
// header first) begins: all are files ReplayFile may replace.
const (
	checkpointMagic    = CheckpointFormat + "\n"
	olderMagic         = "tracecheck-checkpoint/2\n"
	oldCheckpointStart = `{"format":"tracecheck-checkpoint/`
	trailerStart       = "sha256 "
	trailerLen         = len(trailerStart) + 64 + 1 + 64 + 1
)

// sampleBlocks and sampleSize set the prefix sample digest: 16 blocks of
// 4 KiB spread evenly over the prefix, read in constant time.
const (
	sampleBlocks = 16
	sampleSize   = 4096
)

// schemaDigest identifies the schema a checkpoint's prefix was validated
// against; a changed schema invalidates every checkpoint.
var schemaDigest = func() string {
	s := sha256.Sum256(schema.TraceEventJSON)
	return hex.EncodeToString(s[:])
}()

// Checkpoint is a replay's state after a prefix of a journal file.
type Checkpoint struct {
	Format         string `json:"format"`
	ReducerVersion string `json:"reducer_version"`
	TraceVersion   string `json:"trace_version"`
	SchemaSHA256   string `json:"schema_sha256"`

	Sequence int64 `json:"sequence"` // last applied sequence
	Applied  int   `json:"applied"`  // events applied: Sequence+1
	Line     int   `json:"line"`     // line of the last applied event
	Offset   int64 `json:"offset"`   // byte offset just past that line

	SessionID  string  `json:"session_id"`
	RunID      string  `json:"run_id"`
	StopReason *string `json:"stop_reason"`
	// FingerprintState is the SHA-256 state after "[" and the applied
	// events' canonical encodings (encoding.BinaryMarshaler of sha256).
	FingerprintState []byte `json:"fingerprint_state"`
	Fingerprint      string `json:"fingerprint"` // of the applied prefix, for people reading the file
	// CheckerState is the invariant checker's compact state, written
	// after the header; the header keeps its length and SHA-256.
	CheckerState       []byte `json:"-"`
	CheckerStateLen    int64  `json:"checker_state_len"`
	CheckerStateSHA256 string `json:"checker_state_sha256"`

	Source Anchors `json:"source"`

	UserMessages      int `json:"user_messages"`
	AssistantMessages int `json:"assistant_messages"`
	ToolResults       int `json:"tool_results"`

	path      string   // where it was loaded from
	itemsFrom int64    // offset of the first item line
	itemsEnd  int64    // offset of the trailer
	itemsSHA  string   // the trailer's digest of the item lines
	itemsOK   bool     // VerifyItems succeeded
	f         *os.File // open from LoadCheckpoint until Close
}

// Anchors tie a checkpoint to the exact bytes of its source's prefix.
type Anchors struct {
	LastLineOffset int64  `json:"last_line_offset"`
	LastLineSHA256 string `json:"last_line_sha256"` // the last applied line with its newline
	FirstLineLen   int64  `json:"first_line_len"`
	FirstLineSHA   string `json:"first_line_sha256"`
	SampleSHA256   string `json:"sample_sha256"` // 16 blocks spread over [0, Offset)
	PrefixSHA256   string `json:"prefix_sha256"` // all of [0, Offset); checked on request
	PrefixState    []byte `json:"prefix_state"`  // its SHA-256 state, to extend it after a tail
}

// StreamOptions tune StreamReplay.
type StreamOptions struct {
	// Through, when HasThrough, applies events 0..Through only (the rest of
	// the file is still checked). Out of range is a *RangeError.
	Through    int64
	HasThrough bool
	// From resumes after a verified checkpoint: the reader must start at
	// From.Offset.
	From *Checkpoint
	// Anchors keeps what Checkpoint needs (the raw prefix digest).
	Anchors bool
	// Normalized hashes the normalized encoding (no session_id, timestamp or
	// provenance.run_id). It cannot be combined with From.
	Normalized bool
	// FingerprintOnly computes the fingerprint without the view.
	FingerprintOnly bool
	// RunID reads one run of a multi-run file (journal.StreamOptions.RunID).
	// It cannot be combined with checkpoints.
	RunID string
	// Source is the journal file, for a replay that resumes From a
	// checkpoint: the checker's restored id set reads ids of the prefix
	// back from it. When nil, the reader given to StreamReplay must be an
	// io.ReaderAt of the file (an *os.File is).
	Source io.ReaderAt
	// Each, when set, is called with every applied event after it has been
	// applied (see journal.Entry for what it may keep).
	Each func(e *journal.Entry)
	// SpillItems: once a view list holds this many items they move to a
	// temporary file (see checkpoint_view.go); 0 is DefaultSpillItems,
	// negative keeps the view in memory.
	SpillItems int
}

// Progress is a finished streaming replay.
type Progress struct {
	red     *Reducer
	base    *Checkpoint
	checker []byte // checker state after the last applied event
	total   int    // events in the journal (base included)

	applied  int
	lastSeq  int64
	line     int
	offset   int64
	lastOff  int64
	lastSHA  [32]byte
	firstLen int64
	firstSHA [32]byte
	raw      hash.Hash

	spill   *spill // the view's items once they outgrow memory
	spillAt int
}

// newline ends each line hashed into the anchors (a package variable: a
// literal passed to hash.Hash.Write escapes).
var newline = []byte{'\n'}

// StreamReplay replays the journal read from r (named file in errors) in one
// streaming pass, validating every line and invariant as journal.Read does.
func StreamReplay(r io.Reader, file string, opt StreamOptions) (*Progress, error) {
	p := &Progress{red: New(), lastSeq: -1, spillAt: opt.SpillItems}
	if p.spillAt == 0 {
		p.spillAt = DefaultSpillItems
	}
	checker := journal.NewRunChecker()
	defer checker.Close()
	resume := &journal.Resume{Checker: checker}
	if b := opt.From; b != nil {
		if opt.Normalized {
			return nil, errors.New("reducer: a checkpoint holds the plain fingerprint, not the normalized one")
		}
		src := opt.Source
		if src == nil {
			ra, ok := r.(io.ReaderAt)
			if !ok {
				return nil, errors.New("reducer: resuming from a checkpoint needs the journal file (StreamOptions.Source)")
			}
			src = ra
		}
		if err := checker.RestoreCompactState(b.CheckerState, src); err != nil {
			return nil, fmt.Errorf("checkpoint: %w", err)
		}
		h, err := restoreSHA(b.FingerprintState)
		if err != nil {
			return nil, err
		}
		p.base = b
		p.red.hash, p.red.n = h, b.Applied
		p.red.state.SessionID, p.red.state.RunID, p.red.state.StopReason = b.SessionID, b.RunID, b.StopReason
		p.applied, p.total, p.lastSeq, p.line, p.offset = b.Applied, b.Applied, b.Sequence, b.Line, b.Offset
		resume.Line, resume.Offset = b.Line, b.Offset
		p.lastOff = b.Source.LastLineOffset
		if s, err := hex.DecodeString(b.Source.LastLineSHA256); err == nil && len(s) == 32 {
			copy(p.lastSHA[:], s)
		}
		p.firstLen = b.Source.FirstLineLen
		if s, err := hex.DecodeString(b.Source.FirstLineSHA); err == nil && len(s) == 32 {
			copy(p.firstSHA[:], s)
		}
		if opt.Anchors {
			if p.raw, err = restoreSHA(b.Source.PrefixState); err != nil {
				return nil, err
			}
		}
		if opt.HasThrough && opt.Through < b.Sequence {
			return nil, fmt.Errorf("reducer: checkpoint at sequence %d is past --through %d", b.Sequence, opt.Through)
		}
	} else if opt.Anchors {
		p.raw = sha256.New()
	}
	var lineHash hash.Hash // the digest of each applied line, for the anchors
	if opt.Anchors {
		lineHash = sha256.New()
	}
	through := int64(math.MaxInt64)
	if opt.HasThrough {
		through = opt.Through
	}
	if opt.RunID != "" && (opt.From != nil || opt.Anchors) {
		return nil, errors.New("reducer: a checkpoint covers a whole file, not one run of it")
	}
	var err error
	err = journal.Stream(r, file, journal.StreamOptions{Normalized: opt.Normalized, Resume: resume, RunID: opt.RunID}, func(e *journal.Entry) error {
		p.total++
		if e.Event.Sequence > through {
			return nil
		}
		if opt.FingerprintOnly {
			p.red.hashCanonical(e.Canonical, e.Event)
		} else {
			p.red.applyText(e.Canonical, e.Event, e.PayloadText)
			if len(p.red.state.AppliedSequences) >= 1024 || p.red.memBytes >= spillBytes {
				if err := p.drain(); err != nil {
					return err
				}
			}
		}
		p.applied++
		p.lastSeq, p.line, p.offset, p.lastOff = e.Event.Sequence, e.Line, e.End, e.Offset
		if opt.Each != nil {
			opt.Each(e)
		}
		if opt.Anchors {
			p.raw.Write(e.Raw)
			p.raw.Write(newline)
			lineHash.Reset()
			lineHash.Write(e.Raw)
			lineHash.Write(newline)
			lineHash.Sum(p.lastSHA[:0])
			if e.Offset == 0 {
				p.firstLen, p.firstSHA = e.End, p.lastSHA
			}
			if e.Event.Sequence == through {
				if p.checker, err = checker.AppendCompactState(nil); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err == nil {
		err = p.drain()
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	if p.total == 0 {
		if opt.RunID != "" {
			return nil, &journal.RunNotFoundError{File: file, RunID: opt.RunID}
		}
		return nil, &journal.Error{File: file, Code: journal.EmptyJournal, Msg: "a session journal needs at least one event"}
	}
	if opt.HasThrough && (through < 0 || through >= int64(p.total)) {
		p.Close()
		return nil, &RangeError{Sequence: through, Len: p.total}
	}
	if opt.Anchors && p.checker == nil {
		if p.checker, err = checker.AppendCompactState(nil); err != nil {
			p.Close()
			return nil, err
		}
	}
	return p, nil
}

// SessionID and RunID return the replayed run's identity.
func (p *Progress) SessionID() string { return p.red.state.SessionID }

// RunID returns the run identity (provenance.run_id) of the replayed run.
func (p *Progress) RunID() string { return p.red.state.RunID }

// StreamBranch is Branch for a journal read from r in one streaming pass:
// the journal is never held in memory, only the inherited event ids. Errors
// come in Branch's order after the journal's own: ErrBlankBranchID, then a
// *RangeError.
func StreamBranch(r io.Reader, file string, forkSeq int64, branchID string) (BranchRecord, error) {
	return StreamBranchRun(r, file, "", forkSeq, branchID)
}

// StreamBranchRun is StreamBranch for the run runID of a multi-run file
// (all of a single-run file when runID is empty); see
// journal.StreamOptions.RunID.
func StreamBranchRun(r io.Reader, file, runID string, forkSeq int64, branchID string) (BranchRecord, error) {
	// The ids are gathered in one buffer and cut into strings at the end:
	// a million ids cost their bytes and one string header each.
	var text []byte
	var ends []int
	p, err := StreamReplay(r, file, StreamOptions{Through: forkSeq, HasThrough: true, FingerprintOnly: true, RunID: runID,
		Each: func(e *journal.Entry) {
			text = append(text, e.Event.EventID...)
			ends = append(ends, len(text))
		}})
	var re *RangeError
	if err != nil && !errors.As(err, &re) {
		return BranchRecord{}, err
	}
	if strings.TrimSpace(branchID) == "" {
		return BranchRecord{}, ErrBlankBranchID
	}
	if err != nil {
		return BranchRecord{}, err
	}
	defer p.Close()
	all, start := string(text), 0
	text = nil
	ids := make([]string, len(ends))
	for i, end := range ends {
		ids[i], start = all[start:end], end
	}
	return BranchRecord{
		BranchID:          branchID,
		ParentSessionID:   p.SessionID(),
		ParentRunID:       p.RunID(),
		ForkSequence:      forkSeq,
		InheritedEventIDs: ids,
		ParentFingerprint: p.Fingerprint(),
	}, nil
}

// Applied returns how many events the view covers, checkpointed prefix
// included.
func (p *Progress) Applied() int { return p.applied }

// Len returns how many events the journal holds (those after Through too).
func (p *Progress) Len() int { return p.total }

// Resumed reports whether the replay continued a checkpoint.
func (p *Progress) Resumed() bool { return p.base != nil }

// Fingerprint returns the fingerprint of the applied prefix without
// materializing the view.
func (p *Progress) Fingerprint() string { return closeArray(p.red.hash) }

// Checkpoint returns the checkpoint of everything applied. The source must
// be the journal file the replay read (for the sample digest) and the replay
// must have been made with Anchors.
func (p *Progress) Checkpoint(src io.ReaderAt) (*Checkpoint, error) {
	if p.raw == nil {
		return nil, errors.New("reducer: replay made without Anchors")
	}
	st, err := restoreState(p.red.hash)
	if err != nil {
		return nil, err
	}
	rawState, err := p.raw.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return nil, err
	}
	sample, err := sampleDigest(src, p.offset)
	if err != nil {
		return nil, err
	}
	cp := &Checkpoint{
		Format: CheckpointFormat, ReducerVersion: Version, TraceVersion: journal.TraceVersion, SchemaSHA256: schemaDigest,
		Sequence: p.lastSeq, Applied: p.applied, Line: p.line, Offset: p.offset,
		SessionID: p.red.state.SessionID, RunID: p.red.state.RunID, StopReason: p.red.state.StopReason,
		FingerprintState: st, Fingerprint: p.Fingerprint(), CheckerState: p.checker,
		Source: Anchors{
			LastLineOffset: p.lastOff, LastLineSHA256: hex.EncodeToString(p.lastSHA[:]),
			FirstLineLen: p.firstLen, FirstLineSHA: hex.EncodeToString(p.firstSHA[:]),
			SampleSHA256: sample, PrefixSHA256: hex.EncodeToString(p.raw.Sum(nil)), PrefixState: rawState,
		},
	}
	return cp, nil
}

// WriteCheckpoint writes cp and p's view to path, atomically (see
// atomicfile.WriteFunc), with mode 0600, sealed with the SHA-256 trailer.
// It replaces whatever path holds: ReplayFile checks first that path may
// be replaced (see CheckCheckpointPath).
func WriteCheckpoint(path string, cp *Checkpoint, p *Progress) error {
	n := p.listCounts()
	cp.Format = CheckpointFormat
	cp.UserMessages, cp.AssistantMessages, cp.ToolResults = n[listUsers], n[listAssistants], n[listResults]
	stateSum := sha256.Sum256(cp.CheckerState)
	cp.CheckerStateLen, cp.CheckerStateSHA256 = int64(len(cp.CheckerState)), hex.EncodeToString(stateSum[:])
	head, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	head = append(head, '\n')
	headSum := sha256.Sum256(head)
	return atomicfile.WriteFunc(path, 0o600, func(w io.Writer) error {
		if _, err := io.WriteString(w, checkpointMagic); err != nil {
			return err
		}
		if _, err := w.Write(head); err != nil {
			return err
		}
		if _, err := w.Write(cp.CheckerState); err != nil {
			return err
		}
		if _, err := w.Write(newline); err != nil {
			return err
		}
		items := sha256.New()
		iw := io.MultiWriter(w, items)
		err := p.eachItem(func(_ int, line []byte) error {
			if _, err := iw.Write(line); err != nil {
				return err
			}
			_, err := iw.Write(newline)
			return err
		})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s%x %x\n", trailerStart, headSum, items.Sum(nil))
		return err
	})
}

// maxHeader bounds a checkpoint header line.
const maxHeader = 1 << 20

// DamagedError says that a checkpoint file is not intact: its trailer does
// not match what it seals, or the state it holds contradicts itself.
type DamagedError struct{ Path, Reason string }

func (e *DamagedError) Error() string {
	return fmt.Sprintf("checkpoint %s is damaged: %s", e.Path, e.Reason)
}

// LoadCheckpoint reads a checkpoint's header, checks it against the
// trailer's digest, and checks the state it restores against itself. It
// does not read the projection items (see VerifyItems) and does not check
// the source (see Verify). A path that is not a regular file is an error
// saying what it is; a damaged file is a *DamagedError.
func LoadCheckpoint(path string) (*Checkpoint, error) {
	// Look before opening: opening a FIFO would wait for a writer.
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if err := regularFile(fi); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := regularFile(fi); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	damaged := func(f string, a ...any) error { return &DamagedError{Path: path, Reason: fmt.Sprintf(f, a...)} }
	size := fi.Size()
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 64<<10)
	first, err := br.ReadSlice('\n')
	switch {
	case bytes.HasPrefix(first, []byte(oldCheckpointStart)) || string(first) == olderMagic:
		return nil, fmt.Errorf("checkpoint %s is stale: an older format, this is %q", path, CheckpointFormat)
	case err != nil || string(first) != checkpointMagic:
		return nil, fmt.Errorf("checkpoint %s: not a replay checkpoint (no %q line)", path, CheckpointFormat)
	}
	var head []byte
	for {
		frag, err := br.ReadSlice('\n')
		head = append(head, frag...)
		if err == bufio.ErrBufferFull && len(head) < maxHeader {
			continue
		}
		if err != nil {
			return nil, damaged("no header line")
		}
		break
	}
	itemsFrom := int64(len(checkpointMagic) + len(head))
	if size < itemsFrom+int64(trailerLen) {
		return nil, damaged("no trailer")
	}
	var tr [trailerLen]byte
	if _, err := f.ReadAt(tr[:], size-int64(trailerLen)); err != nil {
		return nil, damaged("reading the trailer: %v", err)
	}
	headSum, itemsSum, found := parseTrailer(tr[:])
	if !found {
		return nil, damaged("no trailer")
	}
	if s := sha256.Sum256(head); hex.EncodeToString(s[:]) != headSum {
		return nil, damaged("the header does not match its SHA-256 in the trailer")
	}
	cp := &Checkpoint{}
	if err := json.Unmarshal(head, cp); err != nil {
		return nil, damaged("header: %v", err)
	}
	if cp.Format != CheckpointFormat {
		return nil, fmt.Errorf("checkpoint %s: format %q, want %q", path, cp.Format, CheckpointFormat)
	}
	// The checker state follows the header, sealed by its SHA-256 there.
	if n := cp.CheckerStateLen; n < 0 || n > size-itemsFrom-int64(trailerLen)-1 {
		return nil, damaged("checker state of %d bytes", n)
	}
	state := make([]byte, cp.CheckerStateLen+1)
	if _, err := f.ReadAt(state, itemsFrom); err != nil {
		return nil, damaged("reading the checker state: %v", err)
	}
	if s := sha256.Sum256(state[:cp.CheckerStateLen]); hex.EncodeToString(s[:]) != cp.CheckerStateSHA256 || state[cp.CheckerStateLen] != '\n' {
		return nil, damaged("the checker state does not match its SHA-256 in the header")
	}
	cp.CheckerState = state[:cp.CheckerStateLen]
	itemsFrom += cp.CheckerStateLen + 1
	if reason := cp.stateProblem(); reason != "" {
		return nil, damaged("%s", reason)
	}
	cp.path, cp.itemsFrom, cp.itemsEnd, cp.itemsSHA, cp.f = path, itemsFrom, size-int64(trailerLen), itemsSum, f
	ok = true
	return cp, nil
}

// parseTrailer splits "sha256 <hex> <hex>\n".
func parseTrailer(tr []byte) (head, items string, ok bool) {
	rest, found := bytes.CutPrefix(tr, []byte(trailerStart))
	if !found || rest[64] != ' ' || rest[len(rest)-1] != '\n' {
		return "", "", false
	}
	head, items = string(rest[:64]), string(rest[65:129])
	for _, h := range [2]string{head, items} {
		if _, err := hex.DecodeString(h); err != nil {
			return "", "", false
		}
	}
	return head, items, true
}

// stateProblem checks the state a checkpoint restores against the rest of
// it: what the trailer cannot vouch for (a checkpoint from a faulty writer,
// or sealed again after an edit) must still hold together. It returns ""
// when it does.
func (c *Checkpoint) stateProblem() string {
	if c.Applied <= 0 || c.Applied != int(c.Sequence)+1 || c.Line < c.Applied || c.Offset <= 0 ||
		c.UserMessages < 0 || c.AssistantMessages < 0 || c.ToolResults < 0 {
		return fmt.Sprintf("applied %d events through sequence %d, line %d, offset %d", c.Applied, c.Sequence, c.Line, c.Offset)
	}
	fp, err := restoreSHA(c.FingerprintState)
	if err != nil || closeArray(fp) != c.Fingerprint {
		return "the fingerprint state does not hash to the fingerprint it records"
	}
	raw, err := restoreSHA(c.Source.PrefixState)
	if err != nil || hex.EncodeToString(raw.Sum(nil)) != c.Source.PrefixSHA256 || shaLen(c.Source.PrefixState) != uint64(c.Offset) {
		return "the prefix state does not match the prefix digest and length"
	}
	session, run, next, err := journal.CompactStatePosition(c.CheckerState)
	if err != nil {
		return "the checker state does not decode"
	}
	if session != c.SessionID || run != c.RunID || next != c.Sequence+1 {
		return "the checker state is not at the checkpoint's session, run and sequence"
	}
	return ""
}

// shaLen returns the message length recorded in a marshaled SHA-256 state
// (its last 8 bytes, big-endian), or MaxUint64 for a state too short.
func shaLen(state []byte) uint64 {
	if len(state) < 8 {
		return math.MaxUint64
	}
	return binary.BigEndian.Uint64(state[len(state)-8:])
}

// VerifyItems checks the projection items against the trailer's digest,
// reading them (no parsing). The view is printed from them, so a caller
// that resumes from c and prints the view calls it first.
func (c *Checkpoint) VerifyItems() error {
	if c.itemsOK {
		return nil
	}
	if c.f == nil {
		return fmt.Errorf("checkpoint %s: closed", c.path)
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(c.f, c.itemsFrom, c.itemsEnd-c.itemsFrom)); err != nil {
		return &DamagedError{Path: c.path, Reason: fmt.Sprintf("reading the projection: %v", err)}
	}
	if hex.EncodeToString(h.Sum(nil)) != c.itemsSHA {
		return &DamagedError{Path: c.path, Reason: "the projection does not match its SHA-256 in the trailer"}
	}
	c.itemsOK = true
	return nil
}

// regularFile says what fi is when it is not a regular file.
func regularFile(fi os.FileInfo) error {
	switch {
	case fi.IsDir():
		return errors.New("is a directory, not a checkpoint file")
	case !fi.Mode().IsRegular():
		return fmt.Errorf("is not a regular file (%s)", fi.Mode().Type())
	}
	return nil
}

// PathError says why ReplayFile will not use a checkpoint path: it is the
// journal itself, a directory or another non-regular file, or a file that
// is not a replay checkpoint (which would be lost if it were replaced).
type PathError struct{ Path, Reason string }

func (e *PathError) Error() string { return fmt.Sprintf("checkpoint %s: %s", e.Path, e.Reason) }

// CheckCheckpointPath reports, as a *PathError, why cpPath must not be
// written as the checkpoint of the journal at path (open as jf): it names
// the journal itself (the same path, or the same file through a hard or a
// symbolic link), is not a regular file, or exists and does not start
// like a replay checkpoint. A missing cpPath is fine: it will be created.
func CheckCheckpointPath(path string, jf *os.File, cpPath string) error {
	refuse := func(f string, a ...any) error { return &PathError{Path: cpPath, Reason: fmt.Sprintf(f, a...)} }
	if filepath.Clean(path) == filepath.Clean(cpPath) {
		return refuse("is the journal being replayed; refusing to overwrite it")
	}
	st, err := os.Stat(cpPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if jst, err := jf.Stat(); err == nil && os.SameFile(st, jst) {
		return refuse("is the journal being replayed (the same file); refusing to overwrite it")
	}
	if err := regularFile(st); err != nil {
		return refuse("%v", err)
	}
	f, err := os.Open(cpPath)
	if err != nil {
		return err
	}
	defer f.Close()
	start := make([]byte, len(oldCheckpointStart))
	n, _ := io.ReadFull(f, start)
	start = start[:n]
	if !bytes.HasPrefix(start, []byte(checkpointMagic)) && !bytes.HasPrefix(start, []byte(olderMagic)) && !bytes.Equal(start, []byte(oldCheckpointStart)) {
		return refuse("exists and is not a replay checkpoint; refusing to replace it (remove it or name another path)")
	}
	return nil
}

// Close releases the checkpoint file. A checkpoint being resumed from is
// closed by the Progress's Close.
func (c *Checkpoint) Close() error {
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}

// items reads the projection items, from the file opened by LoadCheckpoint
// (so a checkpoint replaced since is still read whole).
func (c *Checkpoint) items() (*journal.Reader, error) {
	if c.f == nil {
		return nil, fmt.Errorf("checkpoint %s: closed", c.path)
	}
	return journal.NewReader(io.NewSectionReader(c.f, c.itemsFrom, c.itemsEnd-c.itemsFrom)), nil
}

// StaleError says why a checkpoint does not match its source.
type StaleError struct{ Reason string }

func (e *StaleError) Error() string { return "checkpoint does not match its source: " + e.Reason }

// Verify checks that c was made by this reducer and schema from the same
// bytes that src (of the given size) now starts with. fullPrefix also
// rehashes the whole prefix, which reads it (no parsing). A mismatch is a
// *StaleError.
func (c *Checkpoint) Verify(src io.ReaderAt, size int64, fullPrefix bool) error {
	stale := func(f string, a ...any) error { return &StaleError{Reason: fmt.Sprintf(f, a...)} }
	switch {
	case c.ReducerVersion != Version:
		return stale("reducer version %q, this is %q", c.ReducerVersion, Version)
	case c.TraceVersion != journal.TraceVersion:
		return stale("trace version %q, this is %q", c.TraceVersion, journal.TraceVersion)
	case c.SchemaSHA256 != schemaDigest:
		return stale("made with another event schema")
	case c.Applied != int(c.Sequence)+1 || c.Applied <= 0:
		return stale("applied %d events through sequence %d", c.Applied, c.Sequence)
	case size < c.Offset:
		return stale("source is %d bytes, shorter than the checkpointed prefix (%d bytes)", size, c.Offset)
	case c.Source.LastLineOffset < 0 || c.Source.LastLineOffset >= c.Offset || c.Offset-c.Source.LastLineOffset > journal.DefaultMaxLineBytes+1:
		return stale("bad last line offset")
	case c.Source.FirstLineLen <= 0 || c.Source.FirstLineLen > c.Offset || c.Source.FirstLineLen > journal.DefaultMaxLineBytes+1:
		return stale("bad first line length")
	}
	check := func(what string, off, n int64, want string) error {
		h := sha256.New()
		if _, err := io.Copy(h, io.NewSectionReader(src, off, n)); err != nil {
			return stale("reading the %s: %v", what, err)
		}
		if hex.EncodeToString(h.Sum(nil)) != want {
			return stale("the %s changed", what)
		}
		return nil
	}
	if err := check("last checkpointed line", c.Source.LastLineOffset, c.Offset-c.Source.LastLineOffset, c.Source.LastLineSHA256); err != nil {
		return err
	}
	if err := check("first line", 0, c.Source.FirstLineLen, c.Source.FirstLineSHA); err != nil {
		return err
	}
	if s, err := sampleDigest(src, c.Offset); err != nil || s != c.Source.SampleSHA256 {
		return stale("the sampled prefix blocks changed")
	}
	if fullPrefix {
		if err := check("prefix", 0, c.Offset, c.Source.PrefixSHA256); err != nil {
			return err
		}
	}
	var last [1]byte
	if _, err := src.ReadAt(last[:], c.Offset-1); err != nil || last[0] != '\n' {
		return stale("the prefix does not end with a newline")
	}
	return nil
}

// sampleDigest hashes sampleBlocks blocks spread evenly over [0, n).
func sampleDigest(src io.ReaderAt, n int64) (string, error) {
	h := sha256.New()
	buf := make([]byte, sampleSize)
	if n <= sampleBlocks*sampleSize {
		if _, err := io.Copy(h, io.NewSectionReader(src, 0, n)); err != nil {
			return "", err
		}
	} else {
		for i := int64(0); i < sampleBlocks; i++ {
			off := i * (n - sampleSize) / (sampleBlocks - 1)
			if _, err := src.ReadAt(buf, off); err != nil {
				return "", err
			}
			h.Write(buf)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func restoreSHA(state []byte) (hash.Hash, error) {
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
		return nil, fmt.Errorf("checkpoint: hash state: %v", err)
	}
	return h, nil
}

func restoreState(h hash.Hash) ([]byte, error) {
	return h.(encoding.BinaryMarshaler).MarshalBinary()
}

// ReplayFile replays the journal file at path, using and refreshing the
// checkpoint at cpPath when it is not empty. A checkpoint that is missing,
// unreadable or does not match the file is ignored (note says why) and the
// replay starts from event zero. A new checkpoint is written after a replay
// of the whole file (not with Through) that applied events the checkpoint
// did not cover. The file itself is only read. The caller must Close p.
func ReplayFile(path, cpPath string, opt StreamOptions, fullPrefix bool) (p *Progress, note string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	if cpPath == "" {
		p, err = StreamReplay(f, path, opt)
		return p, "", err
	}
	if err := CheckCheckpointPath(path, f, cpPath); err != nil {
		return nil, "", err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, "", err
	}
	cp, lerr := LoadCheckpoint(cpPath)
	if lerr == nil {
		defer func() {
			if p == nil || !p.Resumed() {
				cp.Close() // not resumed from; one resumed from is closed with the Progress
			}
		}()
	}
	switch {
	case lerr != nil && errors.Is(lerr, os.ErrNotExist):
		note = "no checkpoint yet; replaying from event zero"
	case lerr != nil:
		note = fmt.Sprintf("checkpoint ignored (%v); replaying from event zero", lerr)
	default:
		if verr := cp.Verify(f, fi.Size(), fullPrefix); verr != nil {
			note = fmt.Sprintf("checkpoint ignored (%v); replaying from event zero", verr)
		} else if opt.HasThrough && opt.Through < cp.Sequence {
			note = fmt.Sprintf("checkpoint at sequence %d is past --through %d; replaying from event zero", cp.Sequence, opt.Through)
		} else if ierr := cp.VerifyItems(); ierr != nil {
			note = fmt.Sprintf("checkpoint ignored (%v); replaying from event zero", ierr)
		} else {
			opt.From = cp
		}
	}
	if opt.From != nil {
		if _, err := f.Seek(opt.From.Offset, io.SeekStart); err != nil {
			return nil, "", err
		}
	}
	opt.Anchors = true
	opt.Source = f
	p, err = StreamReplay(f, path, opt)
	if err != nil {
		return nil, note, err
	}
	if opt.From != nil {
		note = fmt.Sprintf("resumed from checkpoint at sequence %d (byte %d); read %d new events", opt.From.Sequence, opt.From.Offset, p.Len()-opt.From.Applied)
	}
	upToDate := opt.From != nil && p.applied == opt.From.Applied
	if !opt.HasThrough && !upToDate {
		ncp, err := p.Checkpoint(f)
		if err == nil {
			err = WriteCheckpoint(cpPath, ncp, p)
		}
		if err != nil {
			p.Close()
			return nil, note, fmt.Errorf("writing checkpoint: %w", err)
		}
	}
	return p, note, nil
}
