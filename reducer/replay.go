// Package reducer rebuilds derived views from a validated journal: the
// replay state of the curriculum's lesson s07 (user and assistant
// messages, tool results, stop reason; the curriculum is
// github.com/vpromise/inside-coding-agents), the SHA-256 fingerprint of the
// exact prefix replayed, and branch records that point at a parent prefix
// without copying or editing it.
//
// Replay is a pure function of the ordered events. The fingerprint is the
// SHA-256 of Python's json.dumps(events, ensure_ascii=False, sort_keys=True,
// separators=(",", ":")) over the selected events as one JSON array, so it
// equals the reference implementation's digest byte for byte. It is
// computed incrementally: a Reducer never holds more than the view itself,
// and the streaming replay (StreamReplay) holds no tree of any payload and
// moves the view to disk past 4 MiB, so its memory is bounded by the
// longest line (journal.MemoryPerLineByte).
package reducer

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Version identifies the replay rules; a checkpoint made by another version
// is not reused.
const Version = "replay/1"

// ReplayState is the view replay rebuilds from a journal prefix.
type ReplayState struct {
	SessionID         string
	RunID             string
	AppliedSequences  []int64
	UserMessages      []string
	AssistantMessages []string
	ToolResults       []jsonv.Value // tool.result payloads, as recorded
	StopReason        *string       // nil when the prefix has no session.stop
	Fingerprint       string        // SHA-256 hex of the applied prefix
}

// Value returns the state as a JSON object with the reference's field names.
func (s ReplayState) Value() jsonv.Value {
	seqs := make([]jsonv.Value, len(s.AppliedSequences))
	for i, q := range s.AppliedSequences {
		seqs[i] = jsonv.Int(q)
	}
	stop := jsonv.NullValue()
	if s.StopReason != nil {
		stop = jsonv.Str(*s.StopReason)
	}
	results := s.ToolResults
	if results == nil {
		results = []jsonv.Value{}
	}
	return jsonv.Obj(
		jsonv.M("session_id", jsonv.Str(s.SessionID)),
		jsonv.M("run_id", jsonv.Str(s.RunID)),
		jsonv.M("applied_sequences", jsonv.Arr(seqs...)),
		jsonv.M("user_messages", jsonv.StrArr(nonNil(s.UserMessages))),
		jsonv.M("assistant_messages", jsonv.StrArr(nonNil(s.AssistantMessages))),
		jsonv.M("tool_results", jsonv.Arr(results...)),
		jsonv.M("stop_reason", stop),
		jsonv.M("fingerprint", jsonv.Str(s.Fingerprint)),
	)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// RangeError reports a replay or fork point outside the journal.
type RangeError struct {
	Sequence int64
	Len      int
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("sequence %d is outside the journal (it holds sequences 0..%d)", e.Sequence, e.Len-1)
}

// ErrBlankBranchID is returned by Branch for an empty or blank branch id.
var ErrBlankBranchID = errors.New("branch_id must be non-empty")

// Reducer applies events one at a time. The zero value is not ready; use New.
type Reducer struct {
	state ReplayState
	hash  hash.Hash
	n     int
	buf   []byte

	// The streaming replay (applyText) keeps tool results as their JSON
	// text, not as trees, and counts the bytes its lists hold.
	canon    jsonv.Canonicalizer
	results  [][]byte
	memBytes int
}

// New returns an empty reducer.
func New() *Reducer {
	h := sha256.New()
	h.Write([]byte{'['})
	return &Reducer{hash: h}
}

// Applied returns how many events have been applied.
func (r *Reducer) Applied() int { return r.n }

// Apply folds one event into the view. v is the event's JSON (as parsed,
// so that the fingerprint covers exactly the recorded bytes' meaning).
func (r *Reducer) Apply(v jsonv.Value, e *journal.Event) {
	r.buf = v.AppendCanonical(r.buf[:0])
	r.ApplyCanonical(r.buf, e)
}

// ApplyCanonical is Apply for a caller that already holds the event's
// canonical encoding (jsonv.Canonicalizer output).
func (r *Reducer) ApplyCanonical(canonical []byte, e *journal.Event) {
	r.hashCanonical(canonical, e)
	s := &r.state
	s.AppliedSequences = append(s.AppliedSequences, e.Sequence)
	p := e.Payload
	switch e.Type {
	case "user.message":
		s.UserMessages = append(s.UserMessages, pyStr(p, "content", ""))
	case "model.response":
		if p.Has("content") {
			s.AssistantMessages = append(s.AssistantMessages, pyStr(p, "content", ""))
		} else if f, _ := p.Get("final"); f.IsTrue() {
			s.AssistantMessages = append(s.AssistantMessages, pyStr(p, "accumulated", ""))
		}
	case "tool.result":
		s.ToolResults = append(s.ToolResults, p)
	case "session.stop":
		reason := pyStr(p, "reason", "unknown")
		s.StopReason = &reason
	}
}

// applyText is ApplyCanonical for a payload given as its (valid) text, as
// the streaming replay reads it: only what the view keeps is decoded (a
// text member) or re-encoded (a tool result, as Value.AppendJSON would
// write it), so a huge payload costs what the view holds of it, never a
// tree of it.
func (r *Reducer) applyText(canonical []byte, e *journal.Event, payload []byte) {
	r.hashCanonical(canonical, e)
	s := &r.state
	s.AppliedSequences = append(s.AppliedSequences, e.Sequence)
	text := func(key, def string) string {
		t := pyStrText(&r.canon, payload, key, def)
		r.memBytes += len(t)
		return t
	}
	switch e.Type {
	case "user.message":
		s.UserMessages = append(s.UserMessages, text("content", ""))
	case "model.response":
		if _, ok := jsonv.MemberText(payload, "content"); ok {
			s.AssistantMessages = append(s.AssistantMessages, text("content", ""))
		} else if f, _ := jsonv.MemberText(payload, "final"); string(f) == "true" {
			s.AssistantMessages = append(s.AssistantMessages, text("accumulated", ""))
		}
	case "tool.result":
		b, _ := r.canon.AppendOrdered(nil, payload) // the payload was checked
		r.results = append(r.results, b)
		r.memBytes += len(b)
	case "session.stop":
		reason := pyStrText(&r.canon, payload, "reason", "unknown")
		s.StopReason = &reason
	}
}

// comma separates the events hashed into the fingerprint; a package
// variable, since a literal passed to hash.Hash.Write escapes (one
// allocation per event).
var comma = []byte{','}

// hashCanonical folds one event into the fingerprint and, for the first
// event, takes the session and run identity; it leaves the view alone.
func (r *Reducer) hashCanonical(canonical []byte, e *journal.Event) {
	if r.n > 0 {
		r.hash.Write(comma)
	}
	r.hash.Write(canonical)
	if r.n == 0 {
		r.state.SessionID = e.SessionID
		r.state.RunID = e.Provenance.RunID
	}
	r.n++
}

// State returns the view of everything applied so far, with its fingerprint.
// The reducer can keep applying events afterwards.
func (r *Reducer) State() ReplayState {
	s := r.state
	s.AppliedSequences = append([]int64(nil), s.AppliedSequences...)
	s.UserMessages = append([]string(nil), s.UserMessages...)
	s.AssistantMessages = append([]string(nil), s.AssistantMessages...)
	s.ToolResults = append([]jsonv.Value(nil), s.ToolResults...)
	s.Fingerprint = closeArray(r.hash)
	return s
}

// closeArray returns the hex digest of the hashed array so far plus "]",
// leaving h untouched.
func closeArray(h hash.Hash) string {
	c := cloneHash(h)
	c.Write([]byte{']'})
	return hex.EncodeToString(c.Sum(nil))
}

func cloneHash(h hash.Hash) hash.Hash {
	st, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic(err) // sha256 always marshals
	}
	c := sha256.New()
	if err := c.(encoding.BinaryUnmarshaler).UnmarshalBinary(st); err != nil {
		panic(err)
	}
	return c
}

// Replay replays the whole journal.
func Replay(j *journal.Journal) ReplayState {
	st, _ := replay(j, int64(j.Len()-1))
	return st
}

// ReplayThrough replays events 0..seq inclusive; seq outside the journal is
// a *RangeError.
func ReplayThrough(j *journal.Journal, seq int64) (ReplayState, error) {
	return replay(j, seq)
}

func replay(j *journal.Journal, through int64) (ReplayState, error) {
	if through < 0 || through >= int64(j.Len()) {
		return ReplayState{}, &RangeError{Sequence: through, Len: j.Len()}
	}
	r := New()
	evs, vals := j.Events(), j.Values()
	for i := int64(0); i <= through; i++ {
		r.Apply(vals[i], &evs[i])
	}
	return r.State(), nil
}

// BranchRecord is the lineage of a branch: which exact parent prefix it
// inherits. It never claims the inherited events were executed again.
type BranchRecord struct {
	BranchID          string
	ParentSessionID   string
	ParentRunID       string
	ForkSequence      int64
	InheritedEventIDs []string
	ParentFingerprint string
}

// Value returns the record as a JSON object with the reference's field names.
func (b BranchRecord) Value() jsonv.Value {
	return jsonv.Obj(
		jsonv.M("branch_id", jsonv.Str(b.BranchID)),
		jsonv.M("parent_session_id", jsonv.Str(b.ParentSessionID)),
		jsonv.M("parent_run_id", jsonv.Str(b.ParentRunID)),
		jsonv.M("fork_sequence", jsonv.Int(b.ForkSequence)),
		jsonv.M("inherited_event_ids", jsonv.StrArr(nonNil(b.InheritedEventIDs))),
		jsonv.M("parent_fingerprint", jsonv.Str(b.ParentFingerprint)),
	)
}

// Branch records a branch of j that inherits events 0..forkSeq. A blank
// branchID is ErrBlankBranchID; a fork point outside j is a *RangeError.
func Branch(j *journal.Journal, forkSeq int64, branchID string) (BranchRecord, error) {
	if strings.TrimSpace(branchID) == "" {
		return BranchRecord{}, ErrBlankBranchID
	}
	parent, err := ReplayThrough(j, forkSeq)
	if err != nil {
		return BranchRecord{}, err
	}
	ids := make([]string, 0, forkSeq+1)
	for _, e := range j.Events()[:forkSeq+1] {
		ids = append(ids, e.EventID)
	}
	return BranchRecord{
		BranchID:          branchID,
		ParentSessionID:   parent.SessionID,
		ParentRunID:       parent.RunID,
		ForkSequence:      forkSeq,
		InheritedEventIDs: ids,
		ParentFingerprint: parent.Fingerprint,
	}, nil
}
