// Package store keeps durable Trace 0.1.0 sessions: one append-only JSONL
// file per session, written by one process at a time, each event durable
// on disk before it is acknowledged.
//
// # File layout
//
// A store is a directory. Session <id> lives in <dir>/<name>.jsonl, where
// <name> is the session_id with every byte outside [A-Za-z0-9._-] (and a
// leading '.') written as %XX (upper-case hex), so no session_id can name
// a path outside the directory, a hidden file, "." or "..". Names longer
// than 255 bytes are refused (ErrInvalidSessionID). Every other file in the
// directory is ignored; torn-tail side files are named
// <name>.jsonl.torn-<offset>, checkpoints <name>.jsonl.checkpoint, tail
// receipts <name>.jsonl.receipt, and temporary files
// .<name>.jsonl[.checkpoint|.receipt].tmp-<pid>-<random>.
//
// # File types and links
//
// Session files, checkpoints and side files are opened only as regular
// files and never through a symbolic link: O_NOFOLLOW, O_NONBLOCK (a FIFO
// never blocks the open), then fstat on the descriptor. A session file that
// is anything else is ErrNotRegular on every path (OpenWriter, Check,
// Load); Sessions lists it so that checking a store reports it. A
// checkpoint that is not a regular file, or larger than
// MaxCheckpointBytes, is ignored without being read; a side-file name taken
// by anything but a regular file holding a prefix of the torn bytes is
// skipped. New files are created with O_EXCL, and a session file only with
// its first accepted event (a temporary file, locked, fsynced and linked
// into place with link(2), which never replaces an existing file), so a
// writer that accepts nothing leaves no file. Opening a session removes
// the temporary files that killed writers of it left (atomicfile).
//
// The file holds one event per line in the golden layout (compact JSON,
// member order as received, non-ASCII as is, LF). It holds one or more
// runs, one after the other; a run is the contiguous segment of events that
// share provenance.run_id, and each run satisfies the journal invariants on
// its own (journal.RunChecker: sequence 0, 1, 2, ...; one run_id;
// parent_event_id naming an earlier event of the run). Across the whole
// file every event carries the session's session_id and every event_id is
// unique. A run that has ended (a later run started) receives no more
// events. The first event of every run after the first is the resume
// marker: a session.start whose payload holds "resumed": true and
// "resumes_run_id": the run_id of the run just before it; the first run
// may not claim to resume. A single-run file such as a reference golden
// trace is a valid session as it is.
//
// # Durability point
//
// Writer.Append and Writer.AppendBatch validate each event (the Trace
// schema through journal.LineScanner, which gives journal.DecodeLine's
// verdict without a tree of the payload, then the session rules above), write
// the accepted lines with one write(2), and fsync(2) the file. Only after
// that fsync returns does the writer acknowledge the events (return their
// Ack). A rejected event writes nothing. AppendBatch stops at the first
// rejected event and keeps the ones before it; AppendGroup is all or
// nothing: any rejected event and nothing of the group is written. When the writer creates the file
// it fsyncs the directory; every writer open also fsyncs the file and the
// directory before reading anything back, so an event left by a writer
// that crashed before its fsync is durable before it can be acknowledged
// as a duplicate. After a failed write or fsync the writer refuses every
// later call (ErrBroken): the page cache can no longer be trusted, and the
// next open recovers from what is on disk.
//
// # Lock
//
// A Writer holds an exclusive flock(2) on the session file for its
// lifetime. A second writer, in this process or another, fails at once
// with ErrLocked; it never waits and never interleaves lines. Check takes a
// shared lock (an exclusive one to repair), so it also fails with ErrLocked
// while a writer is active instead of reporting a half-written line.
//
// # Duplicate delivery
//
// An event whose event_id is already stored is compared with the stored
// one after parsing: two deliveries are the same event when their
// canonical encodings (sorted keys, compact, the encoding fingerprints
// hash) are byte-identical. Whitespace, member order and string escape
// spelling do not matter; every field and number spelling (1 vs 1.0) does.
//
//	stored event_id?  same event?   result
//	no                -             validated, written, fsynced, then acknowledged
//	yes               yes           nothing written; acknowledged at once (Ack.Duplicate)
//	yes               no            rejected: ErrConflict, nothing written
//
// The duplicate comparison comes before the sequence check, so a retry of
// an old event is recognised rather than reported as a sequence gap.
//
// # Torn tail
//
// A last line without its newline is what a crash in the middle of a write
// leaves. It was never acknowledged (the fsync that would acknowledge it
// covers the newline). Opening such a session reports ErrTornTail; with
// repair the torn bytes are first copied to the side file
// <name>.jsonl.torn-<offset> (fsynced, directory fsynced), then the session
// file is truncated to the end of its last complete line and fsynced. Any
// other bad line (invalid JSON, a schema or invariant violation, a blank
// line, a bad line that does end with a newline) is ErrCorrupt naming the
// line; it is never skipped and never repaired, because repairing it would
// mean dropping events that may have been acknowledged.
//
// # Checkpoints
//
// <name>.jsonl.checkpoint lets a writer open a long session by reading only
// the events after it: it keeps the covered size, the runs, the current
// run's invariant checker, the session's event IDs (as ranges), the last
// event ID and the last events' positions, and a projection the caller may
// keep with it (package reducer keeps the resume history). It is written
// atomically by Close (from WriterOptions.CheckpointMinEvents events on),
// WriteCheckpoint and `tracecheck session checkpoint`, never larger than
// MaxCheckpointBytes (a projection that would make it so is left out), and
// is never trusted blindly: OpenWriter checks its SHA-256 trailer, versions, session,
// the file's device and inode, the SHA-256 of the last covered line, of the
// first line and of 16 sampled blocks, and reads the whole file when any of
// them differs (Writer.OpenedFrom says why). The session file is never
// changed because of a checkpoint. Close rewrites a checkpoint only once the
// opens since it have read tail bytes amounting to a sixth of its size (a
// rent-or-buy rule); until then
// <name>.jsonl.receipt, written after every append, lets the next writer
// take the IDs of those events as new without asking the checkpoint's
// fingerprints (receipt.go).
package store
