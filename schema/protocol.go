package schema

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// ProtocolJSON is the schema of the subject protocol (tracecheck exercise
// and tracecheck conform talk to a learner's program with it), as
// embedded. Each message is one definition under $defs: "<op>_request",
// "<op>_response", "error_response", "response_envelope".
//
//go:embed protocol.schema.json
var ProtocolJSON []byte

// ProtocolURL is the $id of the subject protocol schema.
const ProtocolURL = "urn:tracecheck:schema:subject-protocol:1"

// protocolDefs caches each compiled definition; one compiler holds the
// document, so every definition is compiled from the same resource.
var protocolDefs = struct {
	sync.Mutex
	c    *jsonschema.Compiler
	defs map[string]*jsonschema.Schema
}{defs: map[string]*jsonschema.Schema{}}

// ProtocolDef returns the compiled definition name of the protocol schema
// (a key of its $defs, such as "replay_response").
func ProtocolDef(name string) (*jsonschema.Schema, error) {
	protocolDefs.Lock()
	defer protocolDefs.Unlock()
	if s, ok := protocolDefs.defs[name]; ok {
		return s, nil
	}
	if protocolDefs.c == nil {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		c.AssertFormat = true
		if err := c.AddResource(ProtocolURL, bytes.NewReader(ProtocolJSON)); err != nil {
			return nil, fmt.Errorf("schema %s: %w", ProtocolURL, err)
		}
		protocolDefs.c = c
	}
	s, err := protocolDefs.c.Compile(ProtocolURL + "#/$defs/" + name)
	if err != nil {
		return nil, fmt.Errorf("schema %s: definition %q: %w", ProtocolURL, name, err)
	}
	protocolDefs.defs[name] = s
	return s, nil
}

// ValidateProtocol validates one decoded message (encoding/json with
// UseNumber, or jsonv.Value.Interface(schema.Number)) against the
// definition name. It returns nil or an *Error.
func ValidateProtocol(name string, doc any) error {
	s, err := ProtocolDef(name)
	if err != nil {
		return err
	}
	return Check(s, doc)
}
