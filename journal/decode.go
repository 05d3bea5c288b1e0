package journal

import (
	"errors"
	"fmt"
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
		return jsonv.Value{}, Event{}, &Error{Code: Schema, EventID: id, Msg: err.Error()}
	}
	return v, ev, nil
}
