package reducer

// Resume from a session checkpoint: the resume history kept as the store
// checkpoint's projection, so that a resume reads only the events after it.
//
// The projection holds what a resume needs from the events before it: the
// history builder's state (the model-visible messages after every
// compaction, the open turn), the last session.start payload, the last
// user.message actor, the last event's provenance and run. Its key names
// the reducer version and the history configuration (system prompt,
// compactor trigger and keep) it was built with; a resume with another
// configuration, or a projection that does not decode, starts from event
// zero. The compactor's summarizer cannot be compared: it must be the
// deterministic one the session was built with, as History already
// requires.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
)

// resumeState is what a resume needs from the events it has read.
type resumeState struct {
	hist      *HistoryBuilder
	lastStart jsonv.Value // the last session.start payload that is an object
	userActor *journal.Actor
	lastProv  *journal.Provenance
	lastRun   string
}

func newResumeState(cfg HistoryConfig) *resumeState {
	return &resumeState{hist: NewHistoryBuilder(cfg)}
}

func (r *resumeState) apply(e *journal.Event) error {
	if err := r.hist.Apply(e); err != nil {
		return err
	}
	switch e.Type {
	case "session.start":
		if e.Payload.Kind() == jsonv.Object {
			r.lastStart = e.Payload
		}
	case "user.message":
		a := e.Actor
		r.userActor = &a
	}
	p := e.Provenance
	r.lastProv, r.lastRun = &p, p.RunID
	return nil
}

func (r *resumeState) clone() *resumeState {
	c := *r
	c.hist = r.hist.Clone()
	return &c
}

// historyKey names a projection's format and configuration.
func historyKey(cfg HistoryConfig) string {
	h := sha256.New()
	fmt.Fprintf(h, "%q %q", Version, cfg.SystemPrompt)
	if c := cfg.Compactor; c != nil {
		fmt.Fprintf(h, " compactor %d %d", c.TriggerChars, c.KeepRecentMessages)
	}
	return "reducer-resume-history/1 " + hex.EncodeToString(h.Sum(nil))
}

type benc struct{ b []byte }

func (e *benc) uv(v uint64)  { e.b = binary.AppendUvarint(e.b, v) }
func (e *benc) str(s string) { e.uv(uint64(len(s))); e.b = append(e.b, s...) }
func (e *benc) flag(ok bool) {
	if ok {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}
func (e *benc) optStr(s *string) {
	e.flag(s != nil)
	if s != nil {
		e.str(*s)
	}
}

type bdec struct {
	b   []byte
	err error
}

var errProjection = errors.New("reducer: bad resume projection")

func (d *bdec) uv() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errProjection
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *bdec) str() string {
	n := d.uv()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errProjection
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *bdec) flag() bool {
	if len(d.b) == 0 || d.b[0] > 1 {
		d.err = errProjection
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

func (d *bdec) optStr() *string {
	if !d.flag() {
		return nil
	}
	s := d.str()
	return &s
}

func (d *bdec) json() jsonv.Value {
	s := d.str()
	if d.err != nil {
		return jsonv.Value{}
	}
	v, err := jsonv.Parse([]byte(s))
	if err != nil {
		d.err = errProjection
	}
	return v
}

func (r *resumeState) marshal() []byte {
	e := &benc{}
	msgs := r.hist.msgs
	e.uv(uint64(r.hist.open + 1))
	e.uv(uint64(len(msgs)))
	for _, m := range msgs {
		e.str(m.Role)
		e.str(m.Content)
		e.str(m.Name)
		e.str(m.ToolCallID)
		e.uv(uint64(len(m.ToolCalls)))
		for _, c := range m.ToolCalls {
			e.str(c.ID)
			e.str(c.Name)
			e.flag(c.Arguments.IsValid())
			if c.Arguments.IsValid() {
				e.str(string(c.Arguments.AppendJSON(nil)))
			}
		}
	}
	e.flag(r.lastStart.IsValid())
	if r.lastStart.IsValid() {
		e.str(string(r.lastStart.AppendJSON(nil)))
	}
	e.flag(r.userActor != nil)
	if a := r.userActor; a != nil {
		e.str(a.Kind)
		e.str(a.ID)
		e.str(a.ParentID)
	}
	e.flag(r.lastProv != nil)
	if p := r.lastProv; p != nil {
		for _, s := range []string{p.AgentID, p.SnapshotID, p.Surface, p.HarnessMode, p.RunID, p.ExperimentID} {
			e.str(s)
		}
		e.optStr(p.Model)
		e.optStr(p.Provider)
	}
	return e.b
}

func unmarshalResumeState(cfg HistoryConfig, b []byte) (*resumeState, error) {
	d := &bdec{b: b}
	r := newResumeState(cfg)
	r.hist.msgs = nil
	r.hist.open = int(d.uv()) - 1
	n := d.uv()
	if n > uint64(len(d.b)) {
		return nil, errProjection
	}
	for range n {
		m := Message{Role: d.str(), Content: d.str(), Name: d.str(), ToolCallID: d.str()}
		nc := d.uv()
		if nc > uint64(len(d.b)) {
			return nil, errProjection
		}
		for range nc {
			c := ToolCall{ID: d.str(), Name: d.str()}
			if d.flag() {
				c.Arguments = d.json()
			}
			m.ToolCalls = append(m.ToolCalls, c)
		}
		r.hist.msgs = append(r.hist.msgs, m)
	}
	if d.flag() {
		r.lastStart = d.json()
	}
	if d.flag() {
		r.userActor = &journal.Actor{Kind: d.str(), ID: d.str(), ParentID: d.str()}
	}
	if d.flag() {
		p := journal.Provenance{AgentID: d.str(), SnapshotID: d.str(), Surface: d.str(), HarnessMode: d.str(), RunID: d.str(), ExperimentID: d.str()}
		p.Model, p.Provider = d.optStr(), d.optStr()
		r.lastProv, r.lastRun = &p, p.RunID
	}
	if d.err != nil || len(d.b) != 0 || r.hist.open < -1 || r.hist.open >= len(r.hist.msgs) {
		return nil, errProjection
	}
	r.hist.size = sizeOf(r.hist.msgs)
	return r, nil
}

// SessionHistory says how a resume state was rebuilt.
type SessionHistory struct {
	// FromProjection: the checkpoint's projection was used, and only the
	// events after its Offset were read.
	FromProjection bool
	Offset         int64 // where reading started
	Read           int   // events read
	// TooLarge: the history is larger than a checkpoint keeps
	// (projectionLimit), so it is not kept: the next resume rebuilds it
	// from the file (from an older projection, when one is kept).
	TooLarge bool
}

// projectionLimit is the largest history (HistoryBuilder.Size) kept as a
// checkpoint's projection: the store's limit, less room for the rest of
// the resume state (a variable so that tests can lower it).
var projectionLimit = store.MaxProjectionBytes - 1<<20

// errStop stops a rebuild that cannot be kept.
var errStop = errors.New("stop")

// sessionState rebuilds the resume state of the session w holds: from the
// checkpoint's projection (when its key is cfg's) and the events after it,
// else from every event. The events are read from the file. With
// stopTooLarge the rebuild stops as soon as the history is larger than a
// checkpoint keeps and can never shrink again (there is no compactor), and
// rs is nil: CheckpointSession has no use for it, and reading on would
// only cost memory.
func sessionState(w *store.Writer, cfg HistoryConfig, stopTooLarge bool) (*resumeState, SessionHistory, error) {
	rs := newResumeState(cfg)
	var how SessionHistory
	if p := w.Projection(); p != nil && p.Key == historyKey(cfg) {
		if loaded, err := unmarshalResumeState(cfg, p.Data); err == nil {
			rs, how = loaded, SessionHistory{FromProjection: true, Offset: p.Offset}
		}
	}
	var herr error
	err := w.EachEvent(how.Offset, func(e *journal.Event) error {
		how.Read++
		if err := rs.apply(e); err != nil {
			herr = err
			return err
		}
		if stopTooLarge && cfg.Compactor == nil && rs.hist.Size() > projectionLimit {
			return errStop
		}
		return nil
	})
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
	pos := w.Position()
	return w.SetProjection(&store.Projection{Key: historyKey(cfg), Lines: pos.Events, Offset: pos.Size, Data: rs.marshal()})
}

// CheckpointSession writes the checkpoint of the session w holds, with the
// resume history at its end as projection (rebuilt from the previous
// projection and the events after it), so that the next resume reads only
// the events appended after this call. cfg is the history configuration
// the resumes will use. A history larger than a checkpoint keeps
// (SessionHistory.TooLarge) is left out; without a compactor the rebuild
// then stops as soon as it is that large. Nothing is written for a session
// without events (CheckpointWritten.Written is false).
func CheckpointSession(w *store.Writer, cfg HistoryConfig) (SessionHistory, store.CheckpointWritten, error) {
	rs, how, err := sessionState(w, cfg, true)
	if err != nil {
		return how, store.CheckpointWritten{}, err
	}
	if err := setProjection(w, rs, cfg); err != nil {
		return how, store.CheckpointWritten{}, err
	}
	cw, err := w.WriteCheckpoint()
	return how, cw, err
}
