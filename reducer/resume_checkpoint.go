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
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/tracecheck/tracecheck/internal/bincodec"
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

var errProjection = errors.New("reducer: bad resume projection")

// putOptString writes a flag, then s when it is set.
func putOptString(e *bincodec.Encoder, s *string) {
	e.Flag(s != nil)
	if s != nil {
		e.String(*s)
	}
}

func optString(d *bincodec.Decoder) *string {
	if !d.Flag() {
		return nil
	}
	s := d.String()
	return &s
}

// jsonValue reads a string holding JSON text, parsed.
func jsonValue(d *bincodec.Decoder) jsonv.Value {
	b := d.Bytes()
	if d.Err() != nil {
		return jsonv.Value{}
	}
	v, err := jsonv.Parse(b)
	if err != nil {
		d.Fail()
	}
	return v
}

func (r *resumeState) marshal() ([]byte, error) {
	e := &bincodec.Encoder{}
	e.Uvarint(uint64(r.hist.open + 1))
	e.Uvarint(uint64(r.hist.Len()))
	err := r.hist.each(func(_ int, m Message) error {
		e.String(m.Role)
		e.String(m.Content)
		e.String(m.Name)
		e.String(m.ToolCallID)
		e.Uvarint(uint64(len(m.ToolCalls)))
		for _, c := range m.ToolCalls {
			e.String(c.ID)
			e.String(c.Name)
			has := c.ArgumentsJSON != nil || c.Arguments.IsValid()
			e.Flag(has)
			if has {
				e.String(string(c.AppendArguments(nil)))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	e.Flag(r.lastStart != nil)
	if r.lastStart != nil {
		e.String(string(r.lastStart))
	}
	e.Flag(r.userActor != nil)
	if a := r.userActor; a != nil {
		e.String(a.Kind)
		e.String(a.ID)
		e.String(a.ParentID)
	}
	e.Flag(r.lastProv != nil)
	if p := r.lastProv; p != nil {
		for _, s := range []string{p.AgentID, p.SnapshotID, p.Surface, p.HarnessMode, p.RunID, p.ExperimentID} {
			e.String(s)
		}
		putOptString(e, p.Model)
		putOptString(e, p.Provider)
	}
	return e.B, nil
}

func unmarshalResumeState(cfg HistoryConfig, b []byte) (*resumeState, error) {
	d := bincodec.NewDecoder(b)
	r := newResumeState(cfg)
	open := int(d.Uvarint()) - 1
	n := d.Count()
	var msgs []Message
	for range n {
		m := Message{Role: d.String(), Content: d.String(), Name: d.String(), ToolCallID: d.String()}
		nc := d.Count()
		for range nc {
			c := ToolCall{ID: d.String(), Name: d.String()}
			if d.Flag() {
				c.Arguments = jsonValue(d)
			}
			m.ToolCalls = append(m.ToolCalls, c)
		}
		msgs = append(msgs, m)
	}
	if d.Flag() {
		r.lastStart = jsonValue(d).AppendJSON(nil)
	}
	if d.Flag() {
		r.userActor = &journal.Actor{Kind: d.String(), ID: d.String(), ParentID: d.String()}
	}
	if d.Flag() {
		p := journal.Provenance{AgentID: d.String(), SnapshotID: d.String(), Surface: d.String(), HarnessMode: d.String(), RunID: d.String(), ExperimentID: d.String()}
		p.Model, p.Provider = optString(d), optString(d)
		r.lastProv, r.lastRun = &p, p.RunID
	}
	if d.Err() != nil || len(d.Rest()) != 0 || open < -1 || open >= len(msgs) {
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
