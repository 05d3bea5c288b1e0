package agentlog

import (
	"encoding/json"
	"errors"

	"github.com/tracecheck/tracecheck/agentlog/jsonpeek"
)

type jsonValue = jsonpeek.Value

const (
	objectKind = jsonpeek.Object
	stringKind = jsonpeek.String
	arrayKind  = jsonpeek.Array
)

// docReader reads one line as the agents do: encoding/json (independent of
// jsonpeek) decides whether it is JSON, jsonpeek reads the fields.
type docReader struct{ d jsonpeek.Doc }

func (r *docReader) object(b []byte) (jsonpeek.Value, error) {
	if !json.Valid(b) {
		return jsonpeek.Value{}, errors.New("not JSON")
	}
	if err := r.d.Parse(b); err != nil {
		return jsonpeek.Value{}, err
	}
	if r.d.Root().Kind() != jsonpeek.Object {
		return jsonpeek.Value{}, errors.New("not an object")
	}
	return r.d.Root(), nil
}
