package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// PayloadsJSON holds the optional payload schemas of Trace 0.1.0, as
// embedded: one schema per event type under $defs, named by the type, and
// a root that applies the schema of an event's type to its payload, so the
// document validates whole events too. docs/payloads.md documents each
// payload and what tracecheck's features need of it.
//
//go:embed payloads.schema.json
var PayloadsJSON []byte

// PayloadsURL is the $id of the payload schemas.
const PayloadsURL = "urn:tracecheck:schema:trace-payloads:0.1.0"

// payloadSchemas are the compiled schemas: the root (whole events) and one
// per event type that has a payload schema.
type payloadSchemas struct {
	root   *jsonschema.Schema
	byType map[string]*jsonschema.Schema
	types  []string
}

var payloads = sync.OnceValues(func() (*payloadSchemas, error) {
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(PayloadsJSON, &doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", PayloadsURL, err)
	}
	var events struct {
		Properties struct {
			Type struct {
				Enum []string `json:"enum"`
			} `json:"type"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(TraceEventJSON, &events); err != nil {
		return nil, fmt.Errorf("schema %s: %w", TraceEventURL, err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	if err := c.AddResource(PayloadsURL, bytes.NewReader(PayloadsJSON)); err != nil {
		return nil, fmt.Errorf("schema %s: %w", PayloadsURL, err)
	}
	ps := &payloadSchemas{byType: map[string]*jsonschema.Schema{}}
	var err error
	if ps.root, err = c.Compile(PayloadsURL); err != nil {
		return nil, fmt.Errorf("schema %s: %w", PayloadsURL, err)
	}
	// The $defs named by an event type are payload schemas; the others
	// (id, count, ...) are parts of them.
	for _, typ := range events.Properties.Type.Enum {
		if _, ok := doc.Defs[typ]; !ok {
			continue
		}
		s, err := c.Compile(PayloadsURL + "#/$defs/" + typ)
		if err != nil {
			return nil, fmt.Errorf("schema %s, %s: %w", PayloadsURL, typ, err)
		}
		ps.byType[typ] = s
		ps.types = append(ps.types, typ)
	}
	sort.Strings(ps.types)
	return ps, nil
})

// Payloads returns the compiled root of the payload schemas, which
// validates a whole event (decoded as for ValidateTraceEvent): the payload
// of an event whose type has a schema must match it.
func Payloads() (*jsonschema.Schema, error) {
	ps, err := payloads()
	if err != nil {
		return nil, err
	}
	return ps.root, nil
}

// PayloadTypes returns the event types that have a payload schema, sorted.
func PayloadTypes() []string {
	ps, err := payloads()
	if err != nil {
		return nil
	}
	return append([]string(nil), ps.types...)
}

// PayloadSchema returns the compiled schema of the payload of events of
// type typ; ok is false when the type has none.
func PayloadSchema(typ string) (s *jsonschema.Schema, ok bool, err error) {
	ps, err := payloads()
	if err != nil {
		return nil, false, err
	}
	s, ok = ps.byType[typ]
	return s, ok, nil
}

// ValidatePayload validates a decoded payload (encoding/json with
// UseNumber) against the schema of its event type: nil when it matches or
// the type has no payload schema, else an *Error whose pointers are
// relative to the payload ("" is the payload itself). A missing required
// member is reported at the pointer it would have.
func ValidatePayload(typ string, doc any) error {
	s, ok, err := PayloadSchema(typ)
	if err != nil || !ok {
		return err
	}
	verr := s.Validate(doc)
	if verr == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return verr
	}
	return &Error{Violations: payloadViolations(ve)}
}

// CheckPayload is ValidatePayload for a payload given as its JSON text (as
// a journal holds it, valid JSON): the violations found, none when the
// payload matches or typ has no payload schema. A schema that does not
// compile, or text that does not decode, is one violation at the payload
// saying so. It is safe for concurrent use.
func CheckPayload(typ string, payload []byte) []Violation {
	if _, ok, err := PayloadSchema(typ); err != nil {
		return []Violation{{Message: err.Error()}}
	} else if !ok {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(payload))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		return []Violation{{Message: "payload does not decode: " + err.Error()}}
	}
	err := ValidatePayload(typ, doc)
	var se *Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return se.Violations
	}
	return []Violation{{Message: err.Error()}}
}

// missingRE reads the names in the library's "missing properties: 'a',
// 'b'" message; the payload schemas name only plain members.
var missingRE = regexp.MustCompile(`'([^'\\]*)'`)

// payloadViolations flattens the error tree into its leaves, sorted by
// pointer, as Check does; a leaf of a "required" keyword becomes one
// violation per missing member, at the member's own pointer, so that the
// pointer names what is missing.
func payloadViolations(ve *jsonschema.ValidationError) []Violation {
	var out []Violation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		if strings.HasSuffix(e.KeywordLocation, "/required") && strings.HasPrefix(e.Message, "missing properties: ") {
			if names := missingRE.FindAllStringSubmatch(e.Message, -1); len(names) > 0 {
				for _, n := range names {
					out = append(out, Violation{Pointer: e.InstanceLocation + "/" + escapePointer(n[1]),
						Message: "missing required member '" + n[1] + "'"})
				}
				return
			}
		}
		out = append(out, Violation{Pointer: e.InstanceLocation, Message: e.Message})
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return out
}

// escapePointer escapes a member name as a JSON pointer token.
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
