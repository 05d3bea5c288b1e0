package schema

import (
	_ "embed"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// CaseJSON is the schema of a command case file (tracecheck verify --cases
// DIR: DIR/<id>.json), as embedded. Its "match" member is a match config,
// by $ref to MatchConfigURL.
//
//go:embed case.schema.json
var CaseJSON []byte

// CaseURL is the $id of the command case schema.
const CaseURL = "urn:tracecheck:schema:case:1"

// The case schema refers to the match config schema, so that is added to
// the same compiler.
var caseSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	return compile(CaseURL, CaseJSON, resource{MatchConfigURL, MatchConfigJSON})
})

// Case returns the compiled command case schema.
func Case() (*jsonschema.Schema, error) { return caseSchema() }

// ValidateCase validates one decoded case document (encoding/json with
// UseNumber, or jsonv.Value.Interface(schema.Number)); nil or an *Error
// with the JSON pointer of each failing field. The caller adds the file.
func ValidateCase(doc any) error { return validate(Case, doc) }
