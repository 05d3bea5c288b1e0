package reducer

// Session resume (chapter 20 of the TypeScript harness): continue a stored
// session in a new run.
//
// Resume re-reads the session file (no cache), rebuilds the model-visible
// history with History (replaying every context.compact), answers every
// tool call the history leaves unanswered with a synthesized failure
// (InterruptedToolResult: ok false, the call's own tool_call_id, error
// InterruptedToolError, error_type InterruptedToolErrorType), and appends,
// as the first events of the new run and in one group commit:
//
//	session.start  {<the previous session.start's members>, "resumed": true, "resumes_run_id": <previous run>}
//	tool.result    one per unanswered call, in call order (actor: the harness; the tool never ran)
//	user.message   the new user message, when there is one
//
// Nothing else is written: every byte of the file before the resume is
// unchanged. Because the repairs are persisted, the next resume rebuilds
// them from the file and has nothing left to repair. History reads the
// file in order, so a synthesized result follows everything the previous
// run recorded; for a run that stopped between tool.request and
// tool.result (the only way a call is left open) that is right after the
// call.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
)

// ResumeOptions configure Resume. The zero value resumes with a generated
// run ID, the wall clock, no new user message and a history without a
// system prompt or compactor.
type ResumeOptions struct {
	// RunID is the new run's provenance.run_id. Empty: "run-" and 12
	// random hex digits. It must not name a run already in the session.
	RunID string
	// Message is the new user message; empty appends none.
	Message string
	// History is what the previous runs held that the journal does not
	// record: the system prompt and the compactor (required when the
	// session holds a context.compact).
	History HistoryConfig
	// Provenance of the new events; nil copies the session's last event's.
	// RunID is always replaced by the new run's.
	Provenance *journal.Provenance
	// StartPayload holds the members of the new session.start before
	// "resumed" and "resumes_run_id"; the zero Value copies the members of
	// the session's last session.start (max_turns, tool_count, ...).
	StartPayload jsonv.Value
	// UserActor is the new user.message's actor; the zero Actor copies the
	// session's last user.message's, or {user, "user"}.
	UserActor journal.Actor
	// Timestamp returns the timestamp of the new run's event at sequence;
	// nil uses the wall clock (UTC, RFC 3339, seconds).
	Timestamp func(sequence int64) string
	// Repair repairs a torn tail when Resume opens the session (see
	// store.WriterOptions). ResumeWriter ignores it.
	Repair bool
	// StreamHistory leaves Resumed.History nil and gives the history as
	// Resumed.Transcript instead, read back from the session file one
	// message at a time, so that a history larger than memory can be
	// printed: the resume then needs the memory of its longest line, not
	// of its history (see resume_state.go). Tool call arguments in
	// Resumed.Repaired and in the transcript are then text
	// (ToolCall.ArgumentsJSON).
	StreamHistory bool
}

// Resumed is the outcome of a resume.
type Resumed struct {
	SessionID string
	RunID     string
	// PreviousRunID is the run the new one resumes; "" when the session
	// held no event, in which case the new run is its first.
	PreviousRunID string
	// History is the full model-visible history: the rebuilt history, the
	// synthesized tool messages, and the new user message. It is what the
	// new run's first model.request sends, and what History rebuilds from
	// the file as it now stands. Nil with ResumeOptions.StreamHistory.
	History []Message
	// Transcript is the same history read one message at a time, with
	// ResumeOptions.StreamHistory (nil otherwise). Close it when done.
	Transcript *Transcript
	// Repaired lists the calls answered by a synthesized result.
	Repaired []ToolCall
	// Appended are the events the resume wrote, in order, and Acks their
	// acknowledgements (each durable).
	Appended []journal.Event
	Acks     []store.Ack
	// Offset is the file size before the resume: every byte before it is
	// unchanged.
	Offset int64
	// Rebuilt says how ResumeWriter rebuilt the history: from the
	// checkpoint's projection and the events after it, or from every event.
	Rebuilt SessionHistory
	// Checkpoint says how the writer opened the session: from its
	// checkpoint, or why an existing checkpoint was ignored.
	Checkpoint store.CheckpointUse
	// TornTail is what Resume repaired when it opened the session
	// (ResumeOptions.Repair): the torn last line moved aside to its side
	// file. nil when there was nothing to repair, and from ResumeWriter.
	TornTail *store.Report
}

// ResumeError is a resume that could not be done; nothing was written.
// Err, when set, is the cause: a *HistoryError, ErrEmptySession, or the
// store's error for an event of the resume that the session rejects
// (errors.Is(err, store.ErrRejected)).
type ResumeError struct {
	SessionID string
	Msg       string
	Err       error
}

// ErrEmptySession: the session holds no event, so there is no run to
// resume and no provenance to copy for the new one (unless
// ResumeOptions.Provenance supplies it).
var ErrEmptySession = errors.New("the session holds no event")

func (e *ResumeError) Error() string {
	s := fmt.Sprintf("resume session %s: %s", textsafe.Quote(e.SessionID), e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *ResumeError) Unwrap() error { return e.Err }

// Resume opens session sessionID in st, resumes it (ResumeWriter) and
// closes it. An unknown session is store.ErrNotFound ("session not found:
// <id>") and creates no file. When opening repaired a torn tail
// (opts.Repair) and the resume then failed, the error comes with a
// Resumed that holds only SessionID and TornTail: the repair stands.
func Resume(st *store.Store, sessionID string, opts ResumeOptions) (*Resumed, error) {
	w, err := st.OpenWriter(sessionID, store.WriterOptions{Repair: opts.Repair})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	res, err := ResumeWriter(w, opts)
	if r := w.Repaired(); r != nil {
		if err != nil {
			// The repair is done and stays done: say so with the error.
			return &Resumed{SessionID: sessionID, TornTail: r}, err
		}
		res.TornTail = r
	}
	return res, err
}

// ResumeWriter resumes the session w holds and leaves w open, so that the
// caller can go on with the new run: its next event carries sequence
// w.Position().NextSequence, parent_event_id w.Position().LastEventID and
// event_id w.NextEventID() (event IDs are unique across the session, so a
// resumed run cannot restart at evt-000). The events are PlanResume's for
// the file as it stands (but for an event ID that only a read of every ID
// the writer's checkpoint covers could prove free: the writer skips it, as
// NextEventID does, about one in 4,096 in a session of UUIDs), appended all or nothing in one group commit
// (store.Writer.AppendGroup): when the session would reject any of them
// (a repair result longer than a line may be, a timestamp the schema
// refuses, ...), nothing is written and the error is a *ResumeError
// wrapping the store's.
//
// The history is rebuilt from the file: from the resume history that the
// session's checkpoint keeps (when it was made with the same history
// configuration) and the events after it, else from every event. The
// history after the resume becomes the projection of w's next checkpoint
// (written by Close), so the next resume reads only what follows.
func ResumeWriter(w *store.Writer, opts ResumeOptions) (*Resumed, error) {
	rs, how, err := sessionState(w, opts.History, false)
	if err != nil {
		return nil, err
	}
	streamed := false
	defer func() {
		if !streamed {
			rs.close()
		}
	}()
	pos := w.Position()
	res, err := planResume(w.SessionID(), rs, pos.Events, w.MayHaveEventID, w.HasRun, opts)
	if err != nil {
		return nil, err
	}
	lines := make([][]byte, len(res.Appended))
	for i := range res.Appended {
		lines[i] = res.Appended[i].Value().AppendJSON(nil)
	}
	acks, err := w.AppendGroup(lines)
	if errors.Is(err, store.ErrRejected) || errors.Is(err, store.ErrConflict) {
		return nil, &ResumeError{SessionID: w.SessionID(), Msg: "the session rejects an event of the resume, so nothing was written", Err: err}
	}
	if err != nil {
		return nil, err
	}
	res.Acks, res.Offset, res.Rebuilt, res.Checkpoint = acks, pos.Size, how, w.OpenedFrom()
	// rs now holds the history after the appended events. Keeping it is
	// only an acceleration: a projection that cannot be set is not kept.
	_ = setProjection(w, rs, opts.History)
	if opts.StreamHistory {
		res.Transcript, streamed = &Transcript{b: rs.hist, src: rs}, true
	}
	return res, nil
}

// PlanResume computes, without writing anything, the resume of the session
// whose events (in file order) are given: the events ResumeWriter would
// append and the history the new run starts from. A runner that renders a
// session in memory gets the same events a store resume writes; with a
// generated run ID the two differ only in it. Acks and Offset are left
// zero.
func PlanResume(events []journal.Event, opts ResumeOptions) (*Resumed, error) {
	if len(events) == 0 {
		return nil, &ResumeError{Msg: "there is no run to resume", Err: ErrEmptySession}
	}
	id := events[0].SessionID
	runs := map[string]bool{}
	taken := make(map[string]bool, len(events))
	rs := newResumeState(opts.History)
	for i := range events {
		runs[events[i].Provenance.RunID] = true
		taken[events[i].EventID] = true
		if err := rs.apply(&events[i]); err != nil {
			return nil, &ResumeError{SessionID: id, Msg: "cannot rebuild the model-visible history", Err: err}
		}
	}
	res, err := planResume(id, rs, len(events), func(e string) bool { return taken[e] }, func(r string) bool { return runs[r] }, opts)
	if err == nil && opts.StreamHistory {
		res.Transcript = &Transcript{b: rs.hist}
	}
	return res, err
}

// planResume plans the resume of a session of n events whose resume state
// is rs, and applies the appended events to rs: it then holds the state
// after them.
func planResume(id string, rs *resumeState, n int, taken, hasRun func(string) bool, opts ResumeOptions) (*Resumed, error) {
	fail := func(msg string, err error) (*Resumed, error) {
		return nil, &ResumeError{SessionID: id, Msg: msg, Err: err}
	}
	// Only assistant and tool messages are read back for this.
	var tracker callTracker
	if err := rs.hist.eachCalling(tracker.see); err != nil {
		return fail("cannot read the model-visible history back", err)
	}
	calls := slices.Clone(tracker.open)

	res := &Resumed{SessionID: id, Repaired: calls, PreviousRunID: rs.lastRun}
	if !opts.StreamHistory {
		for i := range res.Repaired {
			res.Repaired[i] = res.Repaired[i].withArgumentValue()
		}
	}
	res.RunID = opts.RunID
	if res.RunID == "" {
		for res.RunID == "" || hasRun(res.RunID) {
			res.RunID = newRunID()
		}
	} else if hasRun(res.RunID) {
		return fail(fmt.Sprintf("run %q is already in the session; a resumed run needs a new run_id", res.RunID), nil)
	}

	var prov journal.Provenance
	switch {
	case opts.Provenance != nil:
		prov = *opts.Provenance
	case rs.lastProv != nil:
		prov = *rs.lastProv
	default:
		return fail("there is no run to resume and no provenance to copy for the new one", ErrEmptySession)
	}
	prov.RunID = res.RunID
	harness := journal.Actor{Kind: "harness", ID: prov.AgentID}

	stamp := opts.Timestamp
	if stamp == nil {
		stamp = func(int64) string { return time.Now().UTC().Format(time.RFC3339) }
	}
	ids := store.NextEventIDs(n, taken, 2+len(calls))
	var out []journal.Event
	emit := func(typ string, actor journal.Actor, payload jsonv.Value) {
		seq := int64(len(out))
		e := journal.Event{
			TraceVersion: journal.TraceVersion,
			EventID:      ids[seq],
			SessionID:    id,
			Sequence:     seq,
			Timestamp:    stamp(seq),
			Type:         typ,
			Actor:        actor,
			Payload:      payload,
			Provenance:   prov,
			Redaction:    journal.CleanRedaction(),
		}
		if seq > 0 {
			e.ParentEventID = out[seq-1].EventID
		}
		out = append(out, e)
	}

	emit("session.start", harness, startPayload(rs.lastStart, opts.StartPayload, res.PreviousRunID))
	for _, c := range calls {
		emit("tool.result", harness, InterruptedToolResult(c))
	}
	if opts.Message != "" {
		emit("user.message", userActor(rs.userActor, opts.UserActor), jsonv.Obj(jsonv.M("content", jsonv.Str(opts.Message))))
	}
	res.Appended = out

	// The history the new run holds is the one the file will give.
	before := rs.hist.Len()
	for i := range out {
		if err := rs.apply(&out[i]); err != nil {
			return fail("the resumed session's history does not rebuild", err)
		}
	}
	for i := before; i < rs.hist.Len(); i++ {
		m, _ := rs.hist.message(i, false) // held in memory: the appended events'
		tracker.see(m)
	}
	if left := tracker.open; len(left) > 0 {
		return fail(fmt.Sprintf("%d tool call(s) still unanswered after the repair, first %q", len(left), left[0].ID), nil)
	}
	if !opts.StreamHistory {
		var err error
		if res.History, err = rs.hist.messages(); err != nil {
			return fail("cannot read the model-visible history back", err)
		}
	}
	return res, nil
}

// startPayload is the resumed run's session.start payload: base (or the
// last session.start's members, last) then resumed and resumes_run_id. A
// first run (prev == "") gets no resume members.
func startPayload(last []byte, base jsonv.Value, prev string) jsonv.Value {
	if !base.IsValid() {
		base = jsonv.Obj()
		if last != nil {
			base, _ = jsonv.Parse(last) // written by AppendJSON or AppendOrdered
		}
	}
	base = base.Without(store.ResumedKey).Without(store.ResumesRunIDKey)
	if prev == "" {
		return base
	}
	return base.With(store.ResumedKey, jsonv.BoolValue(true)).With(store.ResumesRunIDKey, jsonv.Str(prev))
}

func userActor(last *journal.Actor, a journal.Actor) journal.Actor {
	if a.Kind != "" {
		return a
	}
	if last != nil {
		return *last
	}
	return journal.Actor{Kind: "user", ID: "user"}
}

func newRunID() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return "run-" + hex.EncodeToString(b[:])
}
