package reducer

// The resume state of a stored session, rebuilt from its file within a
// memory bound (docs/session-store.md, Memory): a resume of any session
// needs at most journal.MemoryPerLineByte bytes of heap per byte of its
// longest line, plus at most 4 MiB of history messages and 40 bytes per
// further message (a reference to the line it came from, see
// HistoryBuilder), plus a few MB. No payload becomes a tree: the history
// takes the members it needs from the payloads' text (history_payload.go);
// what it prints or writes, it reads back one message at a time.

import (
	"errors"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
)

// MaxKeptHistoryBytes is the largest model-visible history (the bytes its
// messages hold, HistoryBuilder.Size) that a session checkpoint keeps as
// its projection. Writing or reading a projection holds it whole a few
// times over, so it is small: a history that compaction keeps bounded (as
// long sessions do) fits many times over; a larger one is rebuilt from the
// session file by every resume.
const MaxKeptHistoryBytes = 4 << 20

// resumeState is what a resume needs from the events it has read.
type resumeState struct {
	hist *HistoryBuilder
	// lastStart is the last session.start payload that is an object, as
	// jsonv's AppendJSON writes it.
	lastStart []byte
	userActor *journal.Actor
	lastProv  *journal.Provenance
	lastRun   string
	// src reads back what hist references; nil for a state built in
	// memory. Whoever holds the state closes it.
	src *storedSource
}

func newResumeState(cfg HistoryConfig) *resumeState {
	return &resumeState{hist: NewHistoryBuilder(cfg)}
}

// apply applies an event in memory.
func (r *resumeState) apply(e *journal.Event) error {
	if err := r.hist.Apply(e); err != nil {
		return err
	}
	r.see(e, func() []byte { return e.Payload.AppendJSON(nil) })
	return nil
}

// applyStored applies an event read back from the session file, whose
// line the history references instead of keeping its text.
func (r *resumeState) applyStored(ev *store.StoredEvent) error {
	if err := r.hist.apply(&ev.Event, payloadText(ev.Payload), ev.Offset); err != nil {
		return err
	}
	r.see(&ev.Event, func() []byte { return payloadText(ev.Payload).ordered(&r.hist.canon) })
	return nil
}

// see keeps what a resume copies from the events: the last session.start
// payload (text gives it), the last user.message actor, the last
// provenance. e's strings may alias a buffer.
func (r *resumeState) see(e *journal.Event, text func() []byte) {
	switch e.Type {
	case "session.start":
		if t := text(); payloadText(t).kind() == jsonv.Object {
			r.lastStart = t
		}
	case "user.message":
		a := e.Actor
		r.userActor = &a
	}
	p := e.Provenance
	r.lastProv, r.lastRun = &p, p.RunID
}

// close closes the source the history reads back from.
func (r *resumeState) close() {
	if r != nil && r.src != nil {
		r.src.r.Close()
		r.src = nil
	}
}

// storedSource reads the events a history references back from the
// session file.
type storedSource struct{ r *store.EventReader }

func (s *storedSource) event(off int64) (string, []byte, error) {
	ev, err := s.r.ReadAt(off)
	if err != nil {
		return "", nil, err
	}
	return ev.Event.Type, ev.Payload, nil
}

// rebuildProbe, when a test sets it, is called after every event a
// rebuild reads: the memory tests measure the live heap there.
var rebuildProbe func()

// errStop stops a rebuild that cannot be kept.
var errStop = errors.New("stop")

// sessionState rebuilds the resume state of the session w holds: from the
// checkpoint's projection (when its key is cfg's) and the events after it,
// else from every event. The events are read from the file, and the
// history keeps references to their lines (rs holds a reader of the file:
// rs.close). With stopTooLarge the rebuild stops as soon as the history is
// larger than a checkpoint keeps and can never shrink again (there is no
// compactor), and rs is nil: CheckpointSession has no use for it, and
// reading on would only cost time.
func sessionState(w *store.Writer, cfg HistoryConfig, stopTooLarge bool) (rs *resumeState, how SessionHistory, err error) {
	er, err := w.OpenEventReader()
	if err != nil {
		return nil, how, err
	}
	src := &storedSource{er}
	rs = newResumeState(cfg)
	if p := w.Projection(); p != nil && p.Key == historyKey(cfg) {
		if loaded, err := unmarshalResumeState(cfg, p.Data); err == nil {
			rs, how = loaded, SessionHistory{FromProjection: true, Offset: p.Offset}
		}
	}
	rs.src, rs.hist.src = src, src
	var herr error
	err = w.EachStored(how.Offset, func(ev *store.StoredEvent) error {
		how.Read++
		if err := rs.applyStored(ev); err != nil {
			herr = err
			return err
		}
		if stopTooLarge && cfg.Compactor == nil && rs.hist.Size() > projectionLimit {
			return errStop
		}
		if rebuildProbe != nil {
			rebuildProbe()
		}
		return nil
	})
	if err != nil {
		rs.close()
		rs = nil
	}
	if err == errStop {
		how.TooLarge = true
		return nil, how, nil
	}
	if herr != nil {
		return nil, how, &ResumeError{SessionID: w.SessionID(), Msg: "cannot rebuild the model-visible history", Err: herr}
	}
	if err != nil {
		return nil, how, err
	}
	how.TooLarge = rs.hist.Size() > projectionLimit
	return rs, how, nil
}

// setProjection keeps rs, the state at the session's end, as the
// projection of w's next checkpoint, unless it is too large to keep (then
// the projection the writer has, if any, stays: it is still a valid
// starting point, older).
func setProjection(w *store.Writer, rs *resumeState, cfg HistoryConfig) error {
	if rs == nil || rs.hist.Size() > projectionLimit {
		return nil
	}
	data, err := rs.marshal()
	if err != nil {
		return err
	}
	pos := w.Position()
	return w.SetProjection(&store.Projection{Key: historyKey(cfg), Lines: pos.Events, Offset: pos.Size, Data: data})
}

// CheckpointSession writes the checkpoint of the session w holds, with the
// resume history at its end as projection (rebuilt from the previous
// projection and the events after it), so that the next resume reads only
// the events appended after this call. cfg is the history configuration
// the resumes will use. A history larger than a checkpoint keeps
// (MaxKeptHistoryBytes; SessionHistory.TooLarge) is left out; without a
// compactor the rebuild then stops as soon as it is that large. Nothing is
// written for a session without events (CheckpointWritten.Written is
// false).
func CheckpointSession(w *store.Writer, cfg HistoryConfig) (SessionHistory, store.CheckpointWritten, error) {
	rs, how, err := sessionState(w, cfg, true)
	if err != nil {
		return how, store.CheckpointWritten{}, err
	}
	defer rs.close()
	if err := setProjection(w, rs, cfg); err != nil {
		return how, store.CheckpointWritten{}, err
	}
	cw, err := w.WriteCheckpoint()
	return how, cw, err
}
