package tolerant

import (
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// IDKeys are the member names whose values are identities that differ from
// run to run, wherever they appear in an event (the envelope's event_id,
// parent_event_id and session_id, provenance.run_id, and these names inside
// payloads). The "id" of an element of a "tool_calls" array is one too.
var IDKeys = []string{
	"event_id", "parent_event_id", "session_id", "run_id",
	"tool_call_id", "call_id", "parent_run_id", "parent_session_id",
}

// Normalizer rewrites the events of an actual trace into the tolerant form,
// so that a first golden can be captured from a real run:
//
//   - every identity (the IDKeys members, tool_calls[].id) and every
//     UUID-shaped string anywhere becomes a binding [ID-1], [ID-2], … numbered
//     in order of first appearance; equal values get the same name, so the
//     links between events (parents, call ids) are kept;
//   - the envelope's timestamp and every other RFC 3339 date-time string
//     becomes [TIMESTAMP];
//   - every duration_ms number (envelope or payload) becomes [DURATION];
//   - a UUID inside a longer string becomes an embedded [UUID];
//   - any other string that would read as a placeholder is escaped.
//
// sequence, type, trace_version and every other value are kept as they
// are. One Normalizer must see a trace's events in order.
type Normalizer struct {
	ids map[string]string // canonical JSON of an identity → its binding
}

// NewNormalizer returns a Normalizer with no names given yet.
func NewNormalizer() *Normalizer { return &Normalizer{ids: map[string]string{}} }

// Event returns the tolerant form of one event.
func (z *Normalizer) Event(v jsonv.Value) jsonv.Value {
	if v.Kind() != jsonv.Object {
		return z.value(v, "")
	}
	ms := make([]jsonv.Member, len(v.Members()))
	for i, m := range v.Members() {
		val := m.Value
		switch m.Key {
		case "timestamp":
			if val.Kind() == jsonv.String {
				if _, ok := ParseTimestamp(val.Text()); ok {
					val = jsonv.Str(TimestampToken)
					break
				}
			}
			val = z.value(val, m.Key)
		case "sequence", "trace_version", "type":
			// kept: the alignment key and the event's kind
		default:
			val = z.member(m.Key, val, false)
		}
		ms[i] = jsonv.M(m.Key, val)
	}
	return jsonv.Obj(ms...)
}

func isIDKey(k string) bool {
	for _, id := range IDKeys {
		if k == id {
			return true
		}
	}
	return false
}

// member rewrites the value of member key; toolCall says the member belongs
// to an element of a tool_calls array.
func (z *Normalizer) member(key string, v jsonv.Value, toolCall bool) jsonv.Value {
	switch {
	case isIDKey(key) || toolCall && key == "id":
		if k := v.Kind(); k == jsonv.String || k == jsonv.Number {
			return z.id(v)
		}
	case key == "duration_ms":
		if f, ok := v.Float64(); ok && f >= 0 {
			return jsonv.Str(DurationToken)
		}
	}
	return z.value(v, key)
}

func (z *Normalizer) value(v jsonv.Value, key string) jsonv.Value {
	switch v.Kind() {
	case jsonv.Object:
		ms := make([]jsonv.Member, len(v.Members()))
		for i, m := range v.Members() {
			ms[i] = jsonv.M(m.Key, z.member(m.Key, m.Value, false))
		}
		return jsonv.Obj(ms...)
	case jsonv.Array:
		es := make([]jsonv.Value, len(v.Elems()))
		for i, e := range v.Elems() {
			if key == "tool_calls" && e.Kind() == jsonv.Object {
				ms := make([]jsonv.Member, len(e.Members()))
				for j, m := range e.Members() {
					ms[j] = jsonv.M(m.Key, z.member(m.Key, m.Value, true))
				}
				es[i] = jsonv.Obj(ms...)
				continue
			}
			es[i] = z.value(e, "")
		}
		return jsonv.Arr(es...)
	case jsonv.String:
		return z.str(v)
	}
	return v
}

func (z *Normalizer) str(v jsonv.Value) jsonv.Value {
	s := v.Text()
	if IsUUID(s) {
		return z.id(v)
	}
	if _, ok := ParseTimestamp(s); ok {
		return jsonv.Str(TimestampToken)
	}
	if g, ok := embedUUIDs(s); ok {
		return jsonv.Str(g)
	}
	return jsonv.Str(Escape(s))
}

// id returns the binding of an identity, giving the next name to a value
// not seen before.
func (z *Normalizer) id(v jsonv.Value) jsonv.Value {
	canon := string(v.AppendCanonical(nil))
	name, ok := z.ids[canon]
	if !ok {
		name = "[ID-" + strconv.Itoa(len(z.ids)+1) + "]"
		z.ids[canon] = name
	}
	return jsonv.Str(name)
}

// embedUUIDs replaces each UUID inside s by [UUID]. It reports false when s
// holds none, or when s would not read back as the same pattern (it starts
// with the escape character or already holds a hole).
func embedUUIDs(s string) (string, bool) {
	if len(s) < 36 || strings.Contains(s, AnyRun) || strings.Contains(s, UUIDToken) || s[0] == escapeChar {
		return "", false
	}
	var b strings.Builder
	found := false
	last := 0
	for i := 0; i+36 <= len(s); {
		if IsUUID(s[i : i+36]) {
			b.WriteString(s[last:i])
			b.WriteString(UUIDToken)
			i += 36
			last, found = i, true
			continue
		}
		i++
	}
	if !found {
		return "", false
	}
	b.WriteString(s[last:])
	out := b.String()
	if k, _ := Classify(out); k != Glob {
		return "", false
	}
	return out, true
}
