package agentlog

// Code names one class of problem. The strings are stable: they appear in
// tracecheck's output and in docs/agent-logs.md, which says for each what
// the agent will do with the file.
type Code string

// Severity says whether a finding fails the file.
type Severity uint8

// Severities. Errors and warnings fail a file (exit 1); information never
// does.
const (
	Info Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	return [...]string{"info", "warning", "error"}[s]
}

// Codes of the agent formats. Trace files report the journal package's
// codes instead (see LintTrace).
const (
	// OrphanCall: a tool call that no result in the file answers.
	OrphanCall Code = "ORPHAN_CALL"
	// OrphanResult: a tool result whose call the agent will not load
	// before it (none in the file, or only before a compaction).
	OrphanResult Code = "ORPHAN_RESULT"
	// DanglingParent: a parent link (or a compaction's first kept entry)
	// naming no earlier entry of the file.
	DanglingParent Code = "DANGLING_PARENT"
	// DuplicateID: an entry id or a tool call id used a second time.
	DuplicateID Code = "DUPLICATE_ID"
	// MixedSession: a line of another session in this session's file.
	MixedSession Code = "MIXED_SESSION"
	// TornTail: the last line is incomplete: not a whole JSON record, or a
	// whole record without its newline.
	TornTail Code = "TORN_TAIL"
	// ConcatenatedLines: two records (or a torn one and a whole one) on
	// one line.
	ConcatenatedLines Code = "CONCATENATED_LINES"
	// InvalidJSON: a line that is not one JSON object.
	InvalidJSON Code = "INVALID_JSON"
	// InvalidUTF8: a line holding bytes that are not UTF-8.
	InvalidUTF8 Code = "INVALID_UTF8"
	// CompactionWithoutSummary: a compaction that leaves the model no
	// summary of what it removed.
	CompactionWithoutSummary Code = "COMPACTION_WITHOUT_SUMMARY"
	// Unreachable: entries a resume never loads because the parent chain
	// from the latest entry breaks.
	Unreachable Code = "UNREACHABLE"
	// MissingHeader: the session header the agent needs is absent or not
	// where the agent reads it.
	MissingHeader Code = "MISSING_HEADER"
	// LineTooLong: a line longer than the reader's limit; it is skipped.
	LineTooLong Code = "LINE_TOO_LONG"
	// UnknownRecord: a record type this version of tracecheck does not
	// know; the agents skip such records (information only).
	UnknownRecord Code = "UNKNOWN_RECORD"
	// OpenCallLimit: more calls await results at once than are tracked;
	// later calls are not checked for ORPHAN_CALL (information only).
	OpenCallLimit Code = "OPEN_CALL_LIMIT"
	// UnknownFormat: the file is none of the formats lint reads.
	UnknownFormat Code = "UNKNOWN_FORMAT"
	// TooManyFindings: reporting stopped; counting and repair go on.
	TooManyFindings Code = "TOO_MANY_FINDINGS"
	// ReadFailed: the file could not be read, or the ids seen so far could
	// not be kept (IDSet.Err).
	ReadFailed Code = "READ_FAILED"
)

// CodeInfo documents a code: its default severity and whether lint
// --repair can fix it.
type CodeInfo struct {
	Code       Code
	Severity   Severity
	Repairable bool
	Summary    string
}

// Codes lists every agent-format code with its documentation, in the order
// docs/agent-logs.md presents them.
var Codes = []CodeInfo{
	{TornTail, Error, true, "the last line is not a whole record (or lacks its newline)"},
	{ConcatenatedLines, Error, true, "two records, or a torn record and a whole one, share a line"},
	{InvalidJSON, Error, true, "a line that is not one JSON object"},
	{InvalidUTF8, Warning, true, "bytes that are not UTF-8 (an error for Codex, which then cannot read the file)"},
	{MissingHeader, Error, false, "the session header the agent reads first is absent"},
	{MixedSession, Error, false, "a line of another session"},
	{DuplicateID, Error, false, "an entry id or tool call id used twice"},
	{DanglingParent, Error, true, "a parent link naming no earlier entry (repaired when exactly one entry fits)"},
	{Unreachable, Error, false, "entries a resume never loads because the chain from the latest entry breaks"},
	{OrphanCall, Error, true, "a tool call without a result"},
	{OrphanResult, Error, false, "a tool result whose call is not loaded before it"},
	{CompactionWithoutSummary, Error, false, "a compaction that leaves no summary"},
	{LineTooLong, Error, false, "a line longer than the reader's limit"},
	{UnknownRecord, Info, false, "a record type the agents skip"},
	{OpenCallLimit, Info, false, "too many calls await results at once to track them all"},
	{UnknownFormat, Error, false, "not a format lint reads"},
	{TooManyFindings, Info, false, "reporting stopped for this file"},
	{ReadFailed, Error, false, "the file could not be read"},
}

// Info returns the documentation of c, and false for a code that is not
// an agent-format code (a Trace code, say).
func (c Code) Info() (CodeInfo, bool) {
	for _, ci := range Codes {
		if ci.Code == c {
			return ci, true
		}
	}
	return CodeInfo{}, false
}
