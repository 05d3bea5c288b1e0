package journal

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// TraceVersion is the only trace_version this package reads and writes.
const TraceVersion = "0.1.0"

// Event is one Trace 0.1.0 event. Optional envelope fields whose schema
// forbids the empty string (parent_event_id, actor.parent_id,
// provenance.experiment_id) are absent when empty; optional fields that may
// legally be empty are pointers.
type Event struct {
	TraceVersion  string
	EventID       string
	SessionID     string
	Sequence      int64
	Timestamp     string
	Type          string
	Actor         Actor
	Payload       jsonv.Value // an object; member order is kept
	Provenance    Provenance
	Redaction     Redaction
	ParentEventID string
	DurationMS    jsonv.Value // a number, or the zero Value when absent
}

// Actor says who produced an event.
type Actor struct {
	Kind     string
	ID       string
	ParentID string
}

// Provenance says which agent, run and experiment produced an event.
// RunID is the run identity of a journal.
type Provenance struct {
	AgentID      string
	SnapshotID   string
	Surface      string
	HarnessMode  string
	RunID        string
	ExperimentID string
	Model        *string
	Provider     *string
}

// Redaction records what was removed from an event before it was stored.
type Redaction struct {
	Status string
	Fields []string
	Notes  *string
}

// CleanRedaction is the default redaction record: {"status":"clean","fields":[]}.
func CleanRedaction() Redaction { return Redaction{Status: "clean", Fields: []string{}} }

// Value returns the event as a JSON object with the envelope keys in the
// reference's order.
func (e *Event) Value() jsonv.Value {
	ms := make([]jsonv.Member, 0, 12)
	ms = append(ms,
		jsonv.M("trace_version", jsonv.Str(e.TraceVersion)),
		jsonv.M("event_id", jsonv.Str(e.EventID)),
		jsonv.M("session_id", jsonv.Str(e.SessionID)),
		jsonv.M("sequence", jsonv.Int(e.Sequence)),
		jsonv.M("timestamp", jsonv.Str(e.Timestamp)),
		jsonv.M("type", jsonv.Str(e.Type)),
		jsonv.M("actor", e.Actor.value()),
		jsonv.M("payload", e.payload()),
		jsonv.M("provenance", e.Provenance.value()),
		jsonv.M("redaction", e.Redaction.value()),
	)
	if e.ParentEventID != "" {
		ms = append(ms, jsonv.M("parent_event_id", jsonv.Str(e.ParentEventID)))
	}
	if e.DurationMS.IsValid() {
		ms = append(ms, jsonv.M("duration_ms", e.DurationMS))
	}
	return jsonv.Obj(ms...)
}

func (e *Event) payload() jsonv.Value {
	if !e.Payload.IsValid() {
		return jsonv.Obj()
	}
	return e.Payload
}

func (a Actor) value() jsonv.Value {
	ms := []jsonv.Member{jsonv.M("kind", jsonv.Str(a.Kind)), jsonv.M("id", jsonv.Str(a.ID))}
	if a.ParentID != "" {
		ms = append(ms, jsonv.M("parent_id", jsonv.Str(a.ParentID)))
	}
	return jsonv.Obj(ms...)
}

func (p Provenance) value() jsonv.Value {
	ms := []jsonv.Member{
		jsonv.M("agent_id", jsonv.Str(p.AgentID)),
		jsonv.M("snapshot_id", jsonv.Str(p.SnapshotID)),
		jsonv.M("surface", jsonv.Str(p.Surface)),
		jsonv.M("harness_mode", jsonv.Str(p.HarnessMode)),
		jsonv.M("run_id", jsonv.Str(p.RunID)),
	}
	if p.ExperimentID != "" {
		ms = append(ms, jsonv.M("experiment_id", jsonv.Str(p.ExperimentID)))
	}
	if p.Model != nil {
		ms = append(ms, jsonv.M("model", jsonv.Str(*p.Model)))
	}
	if p.Provider != nil {
		ms = append(ms, jsonv.M("provider", jsonv.Str(*p.Provider)))
	}
	return jsonv.Obj(ms...)
}

func (r Redaction) value() jsonv.Value {
	fields := r.Fields
	if fields == nil {
		fields = []string{}
	}
	ms := []jsonv.Member{jsonv.M("status", jsonv.Str(r.Status)), jsonv.M("fields", jsonv.StrArr(fields))}
	if r.Notes != nil {
		ms = append(ms, jsonv.M("notes", jsonv.Str(*r.Notes)))
	}
	return jsonv.Obj(ms...)
}

// AppendGolden appends the event in the golden layout: compact JSON, the
// reference's key order, payload members in their own order, non-ASCII as
// is, and a trailing LF.
//
// It writes what e.Value().AppendJSON writes, member by member, without
// building the envelope's Values (TestAppendGoldenMatchesValue).
func (e *Event) AppendGolden(dst []byte) []byte { return e.AppendGoldenPayload(dst, nil) }

// AppendGoldenPayload is AppendGolden with the payload written by
// appendPayload, when it is not nil, in place of e.Payload: it must append
// one compact JSON object in the golden layout.
func (e *Event) AppendGoldenPayload(dst []byte, appendPayload func(dst []byte) []byte) []byte {
	str := func(dst []byte, key, s string) []byte {
		return jsonv.AppendPyString(append(dst, key...), s)
	}
	dst = str(dst, `{"trace_version":`, e.TraceVersion)
	dst = str(dst, `,"event_id":`, e.EventID)
	dst = str(dst, `,"session_id":`, e.SessionID)
	dst = strconv.AppendInt(append(dst, `,"sequence":`...), e.Sequence, 10)
	dst = str(dst, `,"timestamp":`, e.Timestamp)
	dst = str(dst, `,"type":`, e.Type)
	dst = str(dst, `,"actor":{"kind":`, e.Actor.Kind)
	dst = str(dst, `,"id":`, e.Actor.ID)
	if e.Actor.ParentID != "" {
		dst = str(dst, `,"parent_id":`, e.Actor.ParentID)
	}
	dst = append(dst, `},"payload":`...)
	if appendPayload != nil {
		dst = appendPayload(dst)
	} else if e.Payload.IsValid() {
		dst = e.Payload.AppendJSON(dst)
	} else {
		dst = append(dst, "{}"...)
	}
	p := &e.Provenance
	dst = str(dst, `,"provenance":{"agent_id":`, p.AgentID)
	dst = str(dst, `,"snapshot_id":`, p.SnapshotID)
	dst = str(dst, `,"surface":`, p.Surface)
	dst = str(dst, `,"harness_mode":`, p.HarnessMode)
	dst = str(dst, `,"run_id":`, p.RunID)
	if p.ExperimentID != "" {
		dst = str(dst, `,"experiment_id":`, p.ExperimentID)
	}
	if p.Model != nil {
		dst = str(dst, `,"model":`, *p.Model)
	}
	if p.Provider != nil {
		dst = str(dst, `,"provider":`, *p.Provider)
	}
	dst = str(dst, `},"redaction":{"status":`, e.Redaction.Status)
	dst = append(dst, `,"fields":[`...)
	for i, f := range e.Redaction.Fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonv.AppendPyString(dst, f)
	}
	dst = append(dst, ']')
	if e.Redaction.Notes != nil {
		dst = str(dst, `,"notes":`, *e.Redaction.Notes)
	}
	dst = append(dst, '}')
	if e.ParentEventID != "" {
		dst = str(dst, `,"parent_event_id":`, e.ParentEventID)
	}
	if e.DurationMS.IsValid() {
		dst = e.DurationMS.AppendJSON(append(dst, `,"duration_ms":`...))
	}
	return append(dst, '}', '\n')
}

// EncodeGolden returns the golden-layout bytes of events: one line each.
func EncodeGolden(events []Event) []byte {
	var out []byte
	for i := range events {
		out = events[i].AppendGolden(out)
	}
	return out
}

// FieldError is FromValue's error about one member, which Pointer names.
type FieldError struct {
	Pointer string
	Msg     string
}

func (e *FieldError) Error() string { return e.Msg }

// FromValue builds an Event from a decoded JSON object. It assumes the
// object already passed schema validation; a wrong type is reported, not
// guessed at.
func FromValue(v jsonv.Value) (Event, error) {
	var e Event
	if v.Kind() != jsonv.Object {
		return e, fmt.Errorf("event is a JSON %s, not an object", v.Kind())
	}
	var err error
	str := func(obj jsonv.Value, key string) string {
		f, ok := obj.Get(key)
		if !ok {
			return ""
		}
		if f.Kind() != jsonv.String {
			if err == nil {
				err = fmt.Errorf("%s is a JSON %s, not a string", key, f.Kind())
			}
			return ""
		}
		return f.Text()
	}
	optStr := func(obj jsonv.Value, key string) *string {
		if !obj.Has(key) {
			return nil
		}
		s := str(obj, key)
		return &s
	}
	e.TraceVersion = str(v, "trace_version")
	e.EventID = str(v, "event_id")
	e.SessionID = str(v, "session_id")
	e.Timestamp = str(v, "timestamp")
	e.Type = str(v, "type")
	e.ParentEventID = str(v, "parent_event_id")
	if seq, ok := v.Get("sequence"); ok {
		n, isInt := seq.Int64()
		if !isInt {
			if f, ok := seq.Float64(); ok && seq.IsFloat() && f == float64(int64(f)) {
				n, isInt = int64(f), true
			}
		}
		if !isInt && err == nil {
			msg := fmt.Sprintf("sequence %s is not an integer", seq.Text())
			if t := seq.Text(); !seq.IsFloat() && !strings.ContainsAny(t, ".eE") {
				msg = fmt.Sprintf("sequence %s is out of range: a sequence is at most 9223372036854775807", t)
			}
			err = &FieldError{Pointer: "/sequence", Msg: msg}
		}
		e.Sequence = n
	}
	if a, ok := v.Get("actor"); ok {
		e.Actor = Actor{Kind: str(a, "kind"), ID: str(a, "id"), ParentID: str(a, "parent_id")}
	}
	if p, ok := v.Get("payload"); ok {
		e.Payload = p
	}
	if p, ok := v.Get("provenance"); ok {
		e.Provenance = Provenance{
			AgentID:      str(p, "agent_id"),
			SnapshotID:   str(p, "snapshot_id"),
			Surface:      str(p, "surface"),
			HarnessMode:  str(p, "harness_mode"),
			RunID:        str(p, "run_id"),
			ExperimentID: str(p, "experiment_id"),
			Model:        optStr(p, "model"),
			Provider:     optStr(p, "provider"),
		}
	}
	if r, ok := v.Get("redaction"); ok {
		e.Redaction = Redaction{Status: str(r, "status"), Notes: optStr(r, "notes"), Fields: []string{}}
		if f, ok := r.Get("fields"); ok {
			for _, x := range f.Elems() {
				e.Redaction.Fields = append(e.Redaction.Fields, x.Text())
			}
		}
	}
	if d, ok := v.Get("duration_ms"); ok {
		e.DurationMS = d
	}
	return e, err
}
