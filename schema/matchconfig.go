package schema

import (
	_ "embed"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// MatchConfigJSON is the schema of a trajectory match config (tracecheck
// diff --match-config FILE), as embedded. Every member is optional, so a
// command case can embed the object under a member of its own by $ref to
// MatchConfigURL.
//
//go:embed match-config.schema.json
var MatchConfigJSON []byte

// MatchConfigURL is the $id of the match config schema.
const MatchConfigURL = "urn:tracecheck:schema:match-config:1"

var matchConfig = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(MatchConfigURL, MatchConfigJSON) })

// MatchConfig returns the compiled match config schema.
func MatchConfig() (*jsonschema.Schema, error) { return matchConfig() }

// ValidateMatchConfig validates one decoded match config (encoding/json
// with UseNumber, or jsonv.Value.Interface(schema.Number)); nil or an
// *Error with the pointer of each failing field.
func ValidateMatchConfig(doc any) error { return validate(MatchConfig, doc) }
