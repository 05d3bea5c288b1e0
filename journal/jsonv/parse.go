package jsonv

// TEMPORARY: a token-based stand-in so the rest of the module builds while
// the strict scanner is written. Replace wholesale.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// MaxDepth is the deepest nesting of arrays and objects Parse accepts.
const MaxDepth = 512

// SyntaxError reports why a JSON text was rejected and where.
type SyntaxError struct {
	Offset int    // byte offset into the input
	Code   string // machine-readable class, see the Err* constants
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// Syntax error codes.
const (
	ErrInvalidJSON    = "INVALID_JSON"
	ErrDuplicateKey   = "DUPLICATE_KEY"
	ErrNonFinite      = "NON_FINITE_NUMBER"
	ErrNumberOverflow = "NUMBER_OVERFLOW"
	ErrInvalidUTF8    = "INVALID_UTF8"
	ErrLoneSurrogate  = "LONE_SURROGATE"
	ErrTooDeep        = "TOO_DEEP"
	ErrTrailingData   = "TRAILING_DATA"
)

// Parse decodes exactly one JSON text (surrounding whitespace allowed).
func Parse(data []byte) (Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseTok(dec)
	if err != nil {
		return Value{}, &SyntaxError{Offset: int(dec.InputOffset()), Code: ErrInvalidJSON, Msg: err.Error()}
	}
	if _, err := dec.Token(); err != io.EOF {
		return Value{}, &SyntaxError{Offset: int(dec.InputOffset()), Code: ErrTrailingData, Msg: "data after the JSON value"}
	}
	return v, nil
}

func parseTok(dec *json.Decoder) (Value, error) {
	t, err := dec.Token()
	if err != nil {
		return Value{}, err
	}
	switch t := t.(type) {
	case nil:
		return NullValue(), nil
	case bool:
		return BoolValue(t), nil
	case string:
		return Str(t), nil
	case json.Number:
		s := string(t)
		if bytes.ContainsAny([]byte(s), ".eE") {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return Value{}, err
			}
			return Float(f), nil
		}
		if s == "-0" {
			s = "0"
		}
		return Value{kind: Number, s: s}, nil
	case json.Delim:
		if t == '[' {
			var vs []Value
			for dec.More() {
				v, err := parseTok(dec)
				if err != nil {
					return Value{}, err
				}
				vs = append(vs, v)
			}
			_, err := dec.Token()
			return Arr(vs...), err
		}
		var ms []Member
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return Value{}, err
			}
			v, err := parseTok(dec)
			if err != nil {
				return Value{}, err
			}
			ms = append(ms, M(k.(string), v))
		}
		_, err := dec.Token()
		return Obj(ms...), err
	}
	return Value{}, fmt.Errorf("unexpected token %v", t)
}
