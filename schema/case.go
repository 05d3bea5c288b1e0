package schema

import (
	"bytes"
	_ "embed"
	"fmt"
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

// The case schema refers to the match config schema, so both are added to
// one compiler.
var caseSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	for _, r := range []struct {
		url string
		doc []byte
	}{{MatchConfigURL, MatchConfigJSON}, {CaseURL, CaseJSON}} {
		if err := c.AddResource(r.url, bytes.NewReader(r.doc)); err != nil {
			return nil, fmt.Errorf("schema %s: %w", r.url, err)
		}
	}
	s, err := c.Compile(CaseURL)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", CaseURL, err)
	}
	return s, nil
})

// Case returns the compiled command case schema.
func Case() (*jsonschema.Schema, error) { return caseSchema() }

// ValidateCase validates one decoded case document (encoding/json with
// UseNumber, or jsonv.Value.Interface(schema.Number)); nil or an *Error
// with the JSON pointer of each failing field. The caller adds the file.
func ValidateCase(doc any) error {
	s, err := Case()
	if err != nil {
		return err
	}
	return Check(s, doc)
}
