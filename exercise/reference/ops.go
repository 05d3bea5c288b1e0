// Package reference answers every op of the subject protocol with
// tracecheck's own packages: journal for the invariants, reducer for
// replay, fingerprints, branches, checkpoints and resume, journal/store for
// duplicate delivery. It is the exercises' oracle (each check compares a
// learner's answer with the answer computed here for the same request) and,
// through Serve, a subject of its own: tracecheck's implementation checked
// through the same protocol as a learner's.
//
// The functions take events as JSON values (as a request carries them) and
// return either a result or an *Error whose Code is one of the protocol's
// error codes. Nothing here writes outside a store directory that a
// Handler creates for itself and removes on Close.
package reference

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// Error codes of the protocol (schema/protocol.schema.json, error_code).
// The journal codes are journal's own.
const (
	CodeOutOfRange      = "OUT_OF_RANGE"
	CodeBlankBranchID   = "BLANK_BRANCH_ID"
	CodeConflict        = "CONFLICT"
	CodeStaleCheckpoint = "STALE_CHECKPOINT"
	CodeNotFound        = "NOT_FOUND"
	CodeRunExists       = "RUN_EXISTS"
	CodeHistory         = "HISTORY"
	CodeUnsupportedOp   = "UNSUPPORTED_OP"
	CodeBadRequest      = "BAD_REQUEST"
)

// Error is a refused request: the protocol's error response.
type Error struct {
	Code string
	Msg  string
}

func (e *Error) Error() string { return e.Code + ": " + e.Msg }

func errorf(code, format string, a ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, a...)}
}

// Journal checks events as one journal: the schema of each event, then the
// journal invariants. A violation is an *Error carrying the journal's code
// (EMPTY_JOURNAL, SEQUENCE_GAP, MIXED_SESSION, MIXED_RUN,
// PARENT_NOT_EARLIER, DUPLICATE_EVENT_ID, SCHEMA), naming the first
// offending event by its index.
func Journal(events []jsonv.Value) (*journal.Journal, error) {
	var b []byte
	for _, e := range events {
		b = append(e.AppendJSON(b), '\n')
	}
	j, err := journal.Read(bytes.NewReader(b), "events")
	if err != nil {
		return nil, journalError(err)
	}
	return j, nil
}

// journalError turns a *journal.Error into the protocol's error, naming
// the event by its index in the request.
func journalError(err error) *Error {
	var je *journal.Error
	if !errors.As(err, &je) {
		return errorf(CodeBadRequest, "%v", err)
	}
	where := "events"
	if je.Line > 0 {
		where = fmt.Sprintf("events[%d]", je.Line-1)
	}
	if je.Pointer != "" {
		where += " at " + je.Pointer
	}
	return errorf(string(je.Code), "%s: %s", where, je.Msg)
}

// Replay replays events 0..through (all of them when through is nil).
func Replay(events []jsonv.Value, through *int64) (reducer.ReplayState, error) {
	j, err := Journal(events)
	if err != nil {
		return reducer.ReplayState{}, err
	}
	if through == nil {
		return reducer.Replay(j), nil
	}
	st, err := reducer.ReplayThrough(j, *through)
	if err != nil {
		return st, errorf(CodeOutOfRange, "through: %v", err)
	}
	return st, nil
}

// Branch records the branch branchID inheriting events 0..fork.
func Branch(events []jsonv.Value, fork int64, branchID string) (reducer.BranchRecord, error) {
	j, err := Journal(events)
	if err != nil {
		return reducer.BranchRecord{}, err
	}
	b, err := reducer.Branch(j, fork, branchID)
	var re *reducer.RangeError
	switch {
	case errors.Is(err, reducer.ErrBlankBranchID):
		return b, errorf(CodeBlankBranchID, "branch_id %q is blank", branchID)
	case errors.As(err, &re):
		return b, errorf(CodeOutOfRange, "fork_sequence: %v", err)
	}
	return b, err
}

// CheckpointFormat names the checkpoints Checkpoint makes.
const CheckpointFormat = "tracecheck-exercise-checkpoint/1"

// Checkpoint makes a checkpoint of the replay of events 0..through: the
// reducer version, the source sequence and fingerprint, the projection, and
// what continuing needs without the prefix: the SHA-256 state of the
// fingerprint and the invariant checker's state (base64).
func Checkpoint(events []jsonv.Value, through int64) (jsonv.Value, error) {
	st, err := Replay(events, &through)
	if err != nil {
		return jsonv.Value{}, err
	}
	j, _ := Journal(events) // Replay has checked it
	checker := journal.NewRunChecker()
	h := sha256.New()
	h.Write([]byte{'['})
	for i := int64(0); i <= through; i++ {
		ev := j.Events()[i]
		checker.Check(&ev)
		if i > 0 {
			h.Write([]byte{','})
		}
		h.Write(j.Values()[i].AppendCanonical(nil))
	}
	cs, _ := checker.MarshalBinary()
	hs, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return jsonv.Value{}, err
	}
	view := st.Value().Without("fingerprint").Without("session_id").Without("run_id")
	return jsonv.Obj(
		jsonv.M("format", jsonv.Str(CheckpointFormat)),
		jsonv.M("reducer_version", jsonv.Str(reducer.Version)),
		jsonv.M("source_sequence", jsonv.Int(through)),
		jsonv.M("source_fingerprint", jsonv.Str(st.Fingerprint)),
		jsonv.M("session_id", jsonv.Str(st.SessionID)),
		jsonv.M("run_id", jsonv.Str(st.RunID)),
		jsonv.M("fingerprint_state", jsonv.Str(base64.StdEncoding.EncodeToString(hs))),
		jsonv.M("checker_state", jsonv.Str(base64.StdEncoding.EncodeToString(cs))),
		jsonv.M("projection", view),
	), nil
}

// ReplayFromCheckpoint replays tail after a checkpoint made by Checkpoint.
// The result, fingerprint included, equals the replay of the checkpoint's
// source events followed by tail from event zero; a tail that does not
// continue them is refused with the code a journal of both would get.
func ReplayFromCheckpoint(cp jsonv.Value, tail []jsonv.Value) (reducer.ReplayState, error) {
	var st reducer.ReplayState
	stale := func(format string, a ...any) (reducer.ReplayState, error) {
		return st, errorf(CodeStaleCheckpoint, format, a...)
	}
	text := func(key string) string {
		v, _ := cp.Get(key)
		return v.Text()
	}
	if cp.Kind() != jsonv.Object || text("format") != CheckpointFormat {
		return stale("not a checkpoint of format %s", CheckpointFormat)
	}
	if v := text("reducer_version"); v != reducer.Version {
		return stale("made by reducer %q, this is %q: replay from event zero", v, reducer.Version)
	}
	hs, err1 := base64.StdEncoding.DecodeString(text("fingerprint_state"))
	cs, err2 := base64.StdEncoding.DecodeString(text("checker_state"))
	h := sha256.New()
	var checker journal.RunChecker
	if err1 != nil || err2 != nil || h.(encoding.BinaryUnmarshaler).UnmarshalBinary(hs) != nil || checker.UnmarshalBinary(cs) != nil {
		return stale("its fingerprint or checker state does not decode")
	}
	proj, _ := cp.Get("projection")
	st = reducer.ReplayState{SessionID: text("session_id"), RunID: text("run_id")}
	get := func(key string) []jsonv.Value { v, _ := proj.Get(key); return v.Elems() }
	for _, v := range get("applied_sequences") {
		n, _ := v.Int64()
		st.AppliedSequences = append(st.AppliedSequences, n)
	}
	for _, v := range get("user_messages") {
		st.UserMessages = append(st.UserMessages, v.Text())
	}
	for _, v := range get("assistant_messages") {
		st.AssistantMessages = append(st.AssistantMessages, v.Text())
	}
	st.ToolResults = append(st.ToolResults, get("tool_results")...)
	if v, _ := proj.Get("stop_reason"); v.Kind() == jsonv.String {
		s := v.Text()
		st.StopReason = &s
	}

	r := reducer.New()
	for i, v := range tail {
		raw := v.AppendJSON(nil)
		val, ev, jerr := journal.DecodeLine(raw)
		if jerr == nil {
			jerr = checker.Check(&ev)
		}
		if jerr != nil {
			jerr.Line = len(st.AppliedSequences) + 1 + i
			return reducer.ReplayState{}, journalError(jerr)
		}
		r.Apply(val, &ev)
		h.Write([]byte{','})
		h.Write(val.AppendCanonical(nil))
	}
	t := r.State()
	st.AppliedSequences = append(st.AppliedSequences, t.AppliedSequences...)
	st.UserMessages = append(st.UserMessages, t.UserMessages...)
	st.AssistantMessages = append(st.AssistantMessages, t.AssistantMessages...)
	st.ToolResults = append(st.ToolResults, t.ToolResults...)
	if t.StopReason != nil {
		st.StopReason = t.StopReason
	}
	h.Write([]byte{']'})
	st.Fingerprint = hex.EncodeToString(h.Sum(nil))
	return st, nil
}

// Resume plans the resume of session sessionID whose file holds events
// (every run, in order): a new run runID that answers every interrupted
// tool call with the SESSION_RESUME_INTERRUPTED result and then appends
// message (none when empty). It writes nothing. An empty session is
// NOT_FOUND; a run_id the session holds is RUN_EXISTS.
//
// The new events' timestamps continue the session's clock: the last
// event's timestamp plus one second per new event.
func Resume(sessionID string, events []jsonv.Value, runID, message string) (*reducer.Resumed, error) {
	if len(events) == 0 {
		return nil, errorf(CodeNotFound, "session not found: %s (nothing was created)", sessionID)
	}
	evs := make([]journal.Event, 0, len(events))
	for i, v := range events {
		_, ev, jerr := journal.DecodeLine(v.AppendJSON(nil))
		if jerr != nil {
			jerr.Line = i + 1
			return nil, journalError(jerr)
		}
		if ev.SessionID != sessionID {
			return nil, errorf(CodeBadRequest, "events[%d] belongs to session %q, not %q", i, ev.SessionID, sessionID)
		}
		if ev.Provenance.RunID == runID {
			return nil, errorf(CodeRunExists, "run %q is already in the session; a resumed run needs a new run_id", runID)
		}
		evs = append(evs, ev)
	}
	last, err := time.Parse(time.RFC3339, evs[len(evs)-1].Timestamp)
	if err != nil {
		last = time.Now().UTC().Truncate(time.Second)
	}
	res, err := reducer.PlanResume(evs, reducer.ResumeOptions{
		RunID:     runID,
		Message:   message,
		Timestamp: func(seq int64) string { return last.Add(time.Duration(seq+1) * time.Second).UTC().Format(time.RFC3339) },
	})
	if err != nil {
		return nil, errorf(CodeHistory, "%v", strings.TrimPrefix(err.Error(), "resume session "))
	}
	return res, nil
}

// ResumeValue is a resume's answer as the protocol carries it:
// {"appended": [events], "history": [messages]}.
func ResumeValue(res *reducer.Resumed) (appended, history jsonv.Value) {
	evs := make([]jsonv.Value, len(res.Appended))
	for i := range res.Appended {
		evs[i] = res.Appended[i].Value()
	}
	msgs := make([]jsonv.Value, len(res.History))
	for i, m := range res.History {
		msgs[i] = m.Wire()
	}
	return jsonv.Arr(evs...), jsonv.Arr(msgs...)
}
