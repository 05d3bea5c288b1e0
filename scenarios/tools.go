package scenarios

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Tool is a tool a scenario's model may call.
type Tool struct {
	Name        string
	Description string
	Parameters  jsonv.Value // the JSON Schema subset the reference checks; may be absent
	Handler     Handler
}

// Handler is what a tool does: a built-in, a fixed result or a fixed error.
type Handler struct {
	Builtin      string      // "echo" or "inspect_artifact"
	Result       jsonv.Value // returned as is when valid
	ErrorType    string      // ToolExecutionError or ToolValidationError
	ErrorMessage string
}

// Built-in tools.
const (
	BuiltinEcho            = "echo"
	BuiltinInspectArtifact = "inspect_artifact"
)

// Tool error types, named as the reference's exception classes.
const (
	ToolValidationError = "ToolValidationError"
	ToolExecutionError  = "ToolExecutionError"
)

// ToolError is a failed call: its type (error_type) and message (error).
type ToolError struct {
	Type string
	Msg  string
}

func (e *ToolError) Error() string { return e.Type + ": " + e.Msg }

// registry dispatches calls by name, validating arguments as the
// reference's ToolRegistry does.
type registry struct {
	tools []Tool
}

// names lists the tool names in declaration order (model.request "tools").
func (r *registry) names() []string {
	out := make([]string, len(r.tools))
	for i, t := range r.tools {
		out[i] = t.Name
	}
	return out
}

func (r *registry) lookup(name string) *Tool {
	for i := range r.tools {
		if r.tools[i].Name == name {
			return &r.tools[i]
		}
	}
	return nil
}

// execute runs a call: unknown tool and argument problems are
// ToolValidationError, a failing handler ToolExecutionError.
func (r *registry) execute(name string, args jsonv.Value) (jsonv.Value, *ToolError) {
	t := r.lookup(name)
	if t == nil {
		return jsonv.Value{}, &ToolError{ToolValidationError, "unknown tool: " + name}
	}
	if err := validateArguments(t.Parameters, args); err != nil {
		return jsonv.Value{}, err
	}
	h := t.Handler
	switch {
	case h.Builtin == BuiltinEcho:
		text, ok := args.Get("text")
		if !ok {
			// The reference's handler is args["text"]: a KeyError, wrapped.
			return jsonv.Value{}, &ToolError{ToolExecutionError, name + " failed: 'text'"}
		}
		return jsonv.Obj(jsonv.M("echo", text)), nil
	case h.Builtin == BuiltinInspectArtifact:
		return jsonv.Obj(
			jsonv.M("artifact", jsonv.Str("artifact://large-report")),
			jsonv.M("preview", jsonv.Str(strings.Repeat("verified-output-", 32))),
		), nil
	case h.ErrorType != "":
		return jsonv.Value{}, &ToolError{h.ErrorType, h.ErrorMessage}
	case h.Result.IsValid():
		return h.Result, nil
	}
	return jsonv.NullValue(), nil
}

// validateArguments is the reference's ToolRegistry._validate: required
// arguments, no unknown ones when additionalProperties is false, and each
// declared property's type.
func validateArguments(params, args jsonv.Value) *ToolError {
	if params.Kind() != jsonv.Object {
		return nil
	}
	if t, _ := params.Get("type"); t.Text() == "object" && args.Kind() != jsonv.Object {
		return &ToolError{ToolValidationError, "tool arguments must be an object"}
	}
	props, _ := params.Get("properties")
	req, _ := params.Get("required")
	var missing []string
	for _, r := range req.Elems() {
		if !args.Has(r.Text()) {
			missing = append(missing, r.Text())
		}
	}
	if len(missing) > 0 {
		return &ToolError{ToolValidationError, "missing required arguments: " + strings.Join(missing, ", ")}
	}
	if ap, ok := params.Get("additionalProperties"); ok && ap.Kind() == jsonv.Bool && !ap.Bool() {
		var extras []string
		for _, m := range args.Members() {
			if !props.Has(m.Key) {
				extras = append(extras, m.Key)
			}
		}
		if len(extras) > 0 {
			sort.Strings(extras)
			return &ToolError{ToolValidationError, "unknown arguments: " + strings.Join(extras, ", ")}
		}
	}
	for _, m := range args.Members() {
		p, _ := props.Get(m.Key)
		want, _ := p.Get("type")
		if want.Kind() == jsonv.String && !matchesType(m.Value, want.Text()) {
			return &ToolError{ToolValidationError, fmt.Sprintf("%s must be %s", m.Key, want.Text())}
		}
	}
	return nil
}

// matchesType is the reference's _matches_type on decoded JSON: integers
// are numbers written without a fraction or exponent (Python ints), and an
// unknown type name matches anything.
func matchesType(v jsonv.Value, typ string) bool {
	switch typ {
	case "string":
		return v.Kind() == jsonv.String
	case "integer":
		return v.Kind() == jsonv.Number && !v.IsFloat()
	case "number":
		return v.Kind() == jsonv.Number
	case "boolean":
		return v.Kind() == jsonv.Bool
	case "object":
		return v.Kind() == jsonv.Object
	case "array":
		return v.Kind() == jsonv.Array
	}
	return true
}
