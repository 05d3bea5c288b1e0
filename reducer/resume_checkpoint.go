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
)

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

func (r *resumeState) marshal() ([]byte, error) {
	e := &benc{}
	e.uv(uint64(r.hist.open + 1))
	e.uv(uint64(r.hist.Len()))
	err := r.hist.each(func(_ int, m Message) error {
		e.str(m.Role)
		e.str(m.Content)
		e.str(m.Name)
		e.str(m.ToolCallID)
		e.uv(uint64(len(m.ToolCalls)))
		for _, c := range m.ToolCalls {
			e.str(c.ID)
			e.str(c.Name)
			has := c.ArgumentsJSON != nil || c.Arguments.IsValid()
			e.flag(has)
			if has {
				e.str(string(c.AppendArguments(nil)))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	e.flag(r.lastStart != nil)
	if r.lastStart != nil {
		e.str(string(r.lastStart))
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
	return e.b, nil
}

func unmarshalResumeState(cfg HistoryConfig, b []byte) (*resumeState, error) {
	d := &bdec{b: b}
	r := newResumeState(cfg)
	open := int(d.uv()) - 1
	n := d.uv()
	if n > uint64(len(d.b)) {
		return nil, errProjection
	}
	var msgs []Message
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
		msgs = append(msgs, m)
	}
	if d.flag() {
		r.lastStart = d.json().AppendJSON(nil)
	}
	if d.flag() {
		r.userActor = &journal.Actor{Kind: d.str(), ID: d.str(), ParentID: d.str()}
	}
	if d.flag() {
		p := journal.Provenance{AgentID: d.str(), SnapshotID: d.str(), Surface: d.str(), HarnessMode: d.str(), RunID: d.str(), ExperimentID: d.str()}
		p.Model, p.Provider = d.optStr(), d.optStr()
		r.lastProv, r.lastRun = &p, p.RunID
	}
	if d.err != nil || len(d.b) != 0 || open < -1 || open >= len(msgs) {
		return nil, errProjection
	}
	r.hist.restore(msgs, open)
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
// checkpoint's projection, MaxKeptHistoryBytes (a variable so that tests
// can lower it).
var projectionLimit = MaxKeptHistoryBytes
