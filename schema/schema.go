// Package schema embeds tracecheck's JSON Schemas and compiles them once.
//
// trace-event.schema.json is the single source of truth for what one Trace
// 0.1.0 event may look like. Validation goes through
// github.com/santhosh-tekuri/jsonschema/v5 with format assertions on, so
// "date-time" is enforced; every rejection is reported as a Violation with
// the JSON pointer of the failing field.
//
// payloads.schema.json adds optional per-type payload schemas (see
// payload.go): the envelope schema asks only that a payload be an object;
// tracecheck validate --strict-payloads checks each payload whose event
// type has one against it.
package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// TraceEventJSON is the Trace 0.1.0 event schema, as embedded.
//
//go:embed trace-event.schema.json
var TraceEventJSON []byte

// TraceEventURL is the $id of the Trace event schema.
const TraceEventURL = "urn:inside-coding-agents:schema:trace-event:0.1.0"

// Violation is one reason a document does not match a schema.
type Violation struct {
	Pointer string // JSON pointer of the failing value ("" is the root)
	Message string
}

func (v Violation) String() string {
	p := v.Pointer
	if p == "" {
		p = "/"
	}
	return p + ": " + v.Message
}

// Error lists every leaf violation found in one document, sorted by
// pointer.
type Error struct {
	Violations []Violation
}

func (e *Error) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.String()
	}
	return strings.Join(parts, "; ")
}

// resource is one more schema document added to a compiler, so that the
// schema being compiled can $ref it.
type resource struct {
	url string
	doc []byte
}

// compile builds the schema url from embedded bytes with format assertions
// on; extra are added to the same compiler first, for its $refs.
func compile(url string, doc []byte, extra ...resource) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	all := append([]resource{{url, doc}}, extra...)
	for _, r := range all {
		if err := c.AddResource(r.url, bytes.NewReader(r.doc)); err != nil {
			return nil, fmt.Errorf("schema %s: %w", r.url, err)
		}
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", url, err)
	}
	return s, nil
}

// validate compiles (or fetches) a schema with get and checks doc against
// it: nil, the compile error, or an *Error.
func validate(get func() (*jsonschema.Schema, error), doc any) error {
	s, err := get()
	if err != nil {
		return err
	}
	return Check(s, doc)
}

var traceEvent = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(TraceEventURL, TraceEventJSON) })

// TraceEvent returns the compiled Trace event schema.
func TraceEvent() (*jsonschema.Schema, error) { return traceEvent() }

// Number converts a JSON number's text to the type the validator expects;
// pass it to jsonv.Value.Interface.
func Number(text string) any { return json.Number(text) }

// ValidateTraceEvent validates one decoded event (as produced by
// encoding/json with UseNumber, or jsonv.Value.Interface(schema.Number)).
// It returns nil or an *Error.
func ValidateTraceEvent(doc any) error { return validate(TraceEvent, doc) }

// Check validates doc against s and converts the library's error tree into a
// flat, sorted list of leaf violations.
func Check(s *jsonschema.Schema, doc any) error {
	err := s.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var out []Violation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, Violation{Pointer: e.InstanceLocation, Message: e.Message})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return &Error{Violations: out}
}
