package schema

import (
	_ "embed"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// ResultJSON is the schema of a shard's result file (tracecheck verify,
// lint and conform --result FILE; read by tracecheck merge), format
// "tracecheck-result" version 1, as embedded.
//
//go:embed result.schema.json
var ResultJSON []byte

// ResultURL is the $id of the result file schema.
const ResultURL = "urn:tracecheck:schema:result:1"

var resultSchema = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(ResultURL, ResultJSON) })

// Result returns the compiled result file schema.
func Result() (*jsonschema.Schema, error) { return resultSchema() }

// ValidateResult validates one decoded result document (encoding/json
// with UseNumber); nil or an *Error with the JSON pointer of each failing
// field.
func ValidateResult(doc any) error { return validate(Result, doc) }
