package schema

import (
	_ "embed"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// ScenarioJSON is the schema of a scenario data file (scenarios/<id>.json),
// as embedded.
//
//go:embed scenario.schema.json
var ScenarioJSON []byte

// ScenarioURL is the $id of the scenario schema.
const ScenarioURL = "urn:tracecheck:schema:scenario:1"

var scenario = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(ScenarioURL, ScenarioJSON) })

// Scenario returns the compiled scenario schema.
func Scenario() (*jsonschema.Schema, error) { return scenario() }

// ValidateScenario validates one decoded scenario document (encoding/json
// with UseNumber, or jsonv.Value.Interface(schema.Number)). It returns nil
// or an *Error whose violations carry the JSON pointer of each failing
// field; the caller adds the file name.
func ValidateScenario(doc any) error { return validate(Scenario, doc) }
