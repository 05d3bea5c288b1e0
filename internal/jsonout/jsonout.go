// Package jsonout writes the JSON documents tracecheck prints for machines
// (--format json, exercise results, reports): one value, indented by two
// spaces, with <, > and & written as they are (encoding/json escapes them
// for HTML by default, which no reader of these documents needs), and one
// newline at the end. Every command's JSON looks the same, and the same
// value always gives the same bytes.
package jsonout

import (
	"encoding/json"
	"io"
)

// Write writes v to w as one indented JSON document and a newline.
func Write(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
