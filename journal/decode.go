package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/schema"
)

// Record is one decoded, schema-valid event with where it came from.
type Record struct {
	Line   int
	Offset int64
	Raw    []byte      // the line's bytes without the newline; reused by streaming readers
	Value  jsonv.Value // the event as parsed, member order and number spelling kept
	Event  Event
}

// DecodeLine parses one line and validates it against the Trace event
// schema. The returned error is an *Error whose File and Line the caller
// fills in.
func DecodeLine(raw []byte) (jsonv.Value, Event, *Error) {
	if isBlank(raw) {
		return jsonv.Value{}, Event{}, &Error{Code: BlankLine, Msg: "blank line: every line must hold one event"}
	}
	v, err := jsonv.Parse(raw)
	if err != nil {
		var se *jsonv.SyntaxError
		if errors.As(err, &se) {
			return jsonv.Value{}, Event{}, &Error{Code: Code(se.Code), Msg: fmt.Sprintf("column %d: %s", se.Offset+1, se.Msg)}
		}
		return jsonv.Value{}, Event{}, &Error{Code: jsonv.ErrInvalidJSON, Msg: err.Error()}
	}
	if v.Kind() != jsonv.Object {
		return jsonv.Value{}, Event{}, &Error{Code: NotObject, Msg: fmt.Sprintf("line holds a JSON %s; an event must be an object", v.Kind())}
	}
	// The fast envelope check (fast.go) accepts exactly what the schema
	// accepts; only a rejected line pays for the library, which explains it.
	if checkValue(v) {
		if ev, err := FromValue(v); err == nil {
			return v, ev, nil
		}
	}
	return slowDecode(v)
}

// slowDecode validates v with the JSON Schema library and reports its
// verdict; DecodeLine calls it when the fast check rejects v.
func slowDecode(v jsonv.Value) (jsonv.Value, Event, *Error) {
	id := ""
	if f, ok := v.Get("event_id"); ok && f.Kind() == jsonv.String {
		id = f.Text()
	}
	if err := schema.ValidateTraceEvent(v.Interface(schema.Number)); err != nil {
		e := &Error{Code: Schema, EventID: id, Msg: err.Error()}
		var se *schema.Error
		if errors.As(err, &se) && len(se.Violations) > 0 {
			e.Pointer = se.Violations[0].Pointer
			if e.Pointer == "" {
				e.Pointer = "/"
			}
			msgs := make([]string, 0, len(se.Violations))
			for i, viol := range se.Violations {
				if i == 0 {
					msgs = append(msgs, viol.Message)
					continue
				}
				msgs = append(msgs, viol.String())
			}
			e.Msg = strings.Join(msgs, "; ")
		}
		return jsonv.Value{}, Event{}, e
	}
	ev, err := FromValue(v)
	if err != nil {
		je := &Error{Code: Schema, EventID: id, Msg: err.Error()}
		if fe, ok := err.(*FieldError); ok {
			je.Pointer = fe.Pointer
		}
		return jsonv.Value{}, Event{}, je
	}
	return v, ev, nil
}

// decodeEnvelope is DecodeLine for the streaming pass, without a tree of
// the payload: the line is validated by c.Check (which keeps nothing), the
// envelope's members are parsed one by one, and the payload is returned as
// its text. In env and ev the payload is an empty object (or array, or the
// scalar itself) of the payload's kind: the schema asks no more of it than
// to be an object, so the fast check and the library decide and explain as
// they would with the whole payload.
func decodeEnvelope(c *jsonv.Canonicalizer, raw []byte) (env jsonv.Value, ev Event, payload []byte, _ *Error) {
	if isBlank(raw) {
		return env, ev, nil, &Error{Code: BlankLine, Msg: "blank line: every line must hold one event"}
	}
	if err := c.Check(raw); err != nil {
		var se *jsonv.SyntaxError
		if errors.As(err, &se) {
			return env, ev, nil, &Error{Code: Code(se.Code), Msg: fmt.Sprintf("column %d: %s", se.Offset+1, se.Msg)}
		}
		return env, ev, nil, &Error{Code: jsonv.ErrInvalidJSON, Msg: err.Error()}
	}
	var ms []jsonv.Member
	isObject := jsonv.EachMember(raw, func(rawKey, value []byte) bool {
		key := jsonv.KeyText(rawKey)
		if key == "payload" && isContainer(value) {
			payload = value
		}
		ms = append(ms, jsonv.M(key, envelopeValue(key, value)))
		return true
	})
	if !isObject {
		return env, ev, nil, &Error{Code: NotObject, Msg: fmt.Sprintf("line holds a JSON %s; an event must be an object", jsonv.KindOfText(raw))}
	}
	env = jsonv.Obj(ms...)
	if checkValue(env) {
		if ev, err := FromValue(env); err == nil {
			return env, ev, payload, nil
		}
	}
	env, ev, jerr := slowDecode(env)
	return env, ev, payload, jerr
}

// envelopeValue decodes the value of the top-level member key for the
// envelope checks, without a tree of any part the schema does not look
// into: a container is an empty one of its kind where the schema only asks
// for a type (the payload, a string or number field) or looks at the key
// alone (a key it does not allow). actor, provenance and redaction are
// decoded member by member the same way; redaction.fields element by
// element, a container element standing for itself by its digest (so that
// uniqueItems still tells equal texts from different ones). A field whose
// verdict depends on its contents is never replaced: the verdict and the
// schema library's explanation are those of the whole line, at the cost of
// the envelope's scalars.
func envelopeValue(key string, value []byte) jsonv.Value {
	if !isContainer(value) {
		v, _ := jsonv.Parse(value) // valid: the line was checked
		return v
	}
	switch {
	case value[0] == '{' && (key == "actor" || key == "provenance" || key == "redaction"):
		var ms []jsonv.Member
		jsonv.EachMember(value, func(rawKey, v []byte) bool {
			k := jsonv.KeyText(rawKey)
			switch {
			case key == "redaction" && k == "fields" && v[0] == '[':
				var es []jsonv.Value
				jsonv.EachElement(v, func(e []byte) bool {
					es = append(es, fieldsElement(e))
					return true
				})
				ms = append(ms, jsonv.M(k, jsonv.Arr(es...)))
			default:
				ms = append(ms, jsonv.M(k, envelopeValue("", v)))
			}
			return true
		})
		return jsonv.Obj(ms...)
	case value[0] == '{':
		return jsonv.Obj()
	}
	return jsonv.Arr()
}

// fieldsElement is a redaction.fields element for the schema library: a
// scalar as it is, a container (invalid there) as an empty one of its kind
// holding the SHA-256 of its canonical encoding.
func fieldsElement(e []byte) jsonv.Value {
	if !isContainer(e) {
		v, _ := jsonv.Parse(e)
		return v
	}
	var c jsonv.Canonicalizer
	canon, _ := c.Append(nil, e)
	sum := sha256.Sum256(canon)
	mark := jsonv.Str(hex.EncodeToString(sum[:]))
	if e[0] == '{' {
		return jsonv.Obj(jsonv.M("", mark))
	}
	return jsonv.Arr(mark)
}

func isContainer(value []byte) bool { return value[0] == '{' || value[0] == '[' }

// appendCanonicalEvent appends the canonical encoding of the event env,
// whose payload member stands for the payload text (see decodeEnvelope):
// env's members in key order, the payload canonicalized from its text.
func appendCanonicalEvent(dst []byte, c *jsonv.Canonicalizer, env jsonv.Value, payload []byte) ([]byte, error) {
	ms := env.Members()
	idx := make([]int, len(ms))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(ms[a].Key, ms[b].Key) })
	dst = append(dst, '{')
	for j, i := range idx {
		if j > 0 {
			dst = append(dst, ',')
		}
		dst = jsonv.AppendPyString(dst, ms[i].Key)
		dst = append(dst, ':')
		if ms[i].Key == "payload" && payload != nil {
			var err error
			if dst, err = c.Append(dst, payload); err != nil {
				return dst, err
			}
			continue
		}
		dst = ms[i].Value.AppendCanonical(dst)
	}
	return append(dst, '}'), nil
}
