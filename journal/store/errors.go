package store

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal"
)

// Error kinds. Every error the store returns is an *Error whose Kind is one
// of these, so callers branch with errors.Is(err, store.ErrLocked).
var (
	// ErrNotFound: no file for the session ID; nothing was created.
	ErrNotFound = errors.New("session not found")
	// ErrLocked: another writer (or a check) holds the session's lock.
	ErrLocked = errors.New("session is locked by another writer")
	// ErrConflict: a different event is already stored under the event_id.
	ErrConflict = errors.New("event_id already stored with different content")
	// ErrRejected: the event breaks the schema or the session rules.
	ErrRejected = errors.New("event rejected")
	// ErrTornTail: the file's last line has no newline.
	ErrTornTail = errors.New("torn tail")
	// ErrCorrupt: a line other than a torn tail is bad.
	ErrCorrupt = errors.New("corrupt session file")
	// ErrInvalidSessionID: the session ID cannot name a file.
	ErrInvalidSessionID = errors.New("invalid session id")
	// ErrBroken: an earlier write or fsync failed; reopen the session.
	ErrBroken = errors.New("writer is broken by an earlier I/O error")
	// ErrClosed: the writer was closed.
	ErrClosed = errors.New("writer is closed")
	// ErrNotRegular: a session file, checkpoint or side file is a symbolic
	// link, a FIFO, a device or a directory (the cause is a
	// *FileTypeError). The store never opens one.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: a checkpoint, or a projection kept in one, would be
	// larger than its limit (MaxCheckpointBytes, MaxProjectionBytes);
	// nothing was written or set.
	ErrTooLarge = errors.New("too large for a checkpoint")
	// ErrIO: reading or writing the store failed.
	ErrIO = errors.New("store I/O failed")
)

// Codes of the session rules, carried by the *journal.Error that is the
// cause of an ErrRejected or ErrCorrupt error.
const (
	// WrongSession: the event's session_id is not the session's.
	WrongSession journal.Code = "WRONG_SESSION"
	// RunEnded: the event belongs to a run that a later run followed.
	RunEnded journal.Code = "RUN_ENDED"
	// ResumeMarker: a run's first event is not the resume marker it must be
	// (or the first run claims to resume).
	ResumeMarker journal.Code = "RESUME_MARKER"
	// EventIDConflict: a different event is already stored under the event_id.
	EventIDConflict journal.Code = "EVENT_ID_CONFLICT"
	// EmbeddedNewline: an appended line contains a newline byte.
	EmbeddedNewline journal.Code = "EMBEDDED_NEWLINE"
)

// Error is every error of this package: what kind (Kind, one of the Err*
// values), which session and file, where (1-based Line, byte Offset, when
// known), which event, and the cause (Err: a *journal.Error for a rejected
// event or a corrupt line, an OS error for I/O).
//
// Its message is safe to print in text output: the session and event IDs
// and the path are written with textsafe.Quote, so an ID holding a newline
// or an ANSI escape cannot forge a line or recolour a terminal.
type Error struct {
	Kind      error
	SessionID string
	Path      string
	Line      int
	Offset    int64
	EventID   string
	Err       error
	Msg       string
}

func (e *Error) Error() string { return printable(e.message()) }

func (e *Error) message() string {
	var b strings.Builder
	switch e.Kind {
	case ErrNotFound:
		return "session not found: " + q(e.SessionID)
	case ErrLocked:
		fmt.Fprintf(&b, "session %s is locked by another writer (%s)", q(e.SessionID), q(e.Path))
		return b.String()
	case ErrRejected, ErrConflict:
		fmt.Fprintf(&b, "session %s: event %s rejected: ", q(e.SessionID), orUnknown(e.EventID))
		var je *journal.Error
		if errors.As(e.Err, &je) {
			b.WriteString(describe(je))
		} else if e.Err != nil {
			b.WriteString(e.Err.Error())
		}
		return b.String()
	case ErrCorrupt, ErrTornTail:
		var je *journal.Error
		if errors.As(e.Err, &je) {
			return je.Error()
		}
	}
	if e.Path != "" {
		b.WriteString(q(e.Path))
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	} else if e.SessionID != "" {
		fmt.Fprintf(&b, "session %s: ", q(e.SessionID))
	}
	switch {
	case e.Msg != "":
		b.WriteString(e.Msg)
	case e.Kind == ErrNotRegular && e.Err != nil:
		// The cause says it all: "it is a symbolic link, not a regular file ...".
		b.WriteString(e.Err.Error())
		return b.String()
	default:
		b.WriteString(e.Kind.Error())
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// openError is the error of opening a session file: ErrNotFound when it
// does not exist, ErrNotRegular when it is not a regular file, else ErrIO.
func openError(id, path string, err error) *Error {
	var te *FileTypeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Error{Kind: ErrNotFound, SessionID: id, Path: path}
	case errors.As(err, &te):
		return &Error{Kind: ErrNotRegular, SessionID: id, Path: path, Err: te}
	}
	return &Error{Kind: ErrIO, SessionID: id, Path: path, Err: err}
}

// Is matches the kind: errors.Is(err, store.ErrConflict).
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Code returns the journal code of the cause, or "" when there is none.
func (e *Error) Code() journal.Code {
	var je *journal.Error
	if errors.As(e.Err, &je) {
		return je.Code
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "(no event_id)"
	}
	return q(s)
}

// q quotes a string that came from input for a message (textsafe.Quote).
func q(s string) string { return textsafe.Quote(s) }

// printable escapes, in a whole message, every character that textsafe
// would not print as is (controls, DEL, formatting characters such as
// bidirectional overrides, invalid UTF-8), without quoting the message
// (textsafe.Escape): the IDs in it are already quoted, but a cause's text
// (a schema error citing the offending value, say) may hold input too.
func printable(s string) string { return textsafe.Escape(s) }

// describe formats a journal error without its file and line.
func describe(je *journal.Error) string {
	var b strings.Builder
	b.WriteString(string(je.Code))
	if je.Pointer != "" {
		fmt.Fprintf(&b, " at %s", je.Pointer)
	}
	b.WriteString(": ")
	b.WriteString(je.Msg)
	return b.String()
}
