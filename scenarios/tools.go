package scenarios

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tracecheck/tracecheck/journal"
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
	Builtin      string      // one of Builtins
	Options      jsonv.Value // the built-in's options as written; may be absent
	Result       jsonv.Value // returned as is when valid
	ErrorType    string      // ToolExecutionError or ToolValidationError
	ErrorMessage string
}

// Built-in tools. Each is a handler of the reference runtime's tools or of
// a lesson's tool, generalised by its options (see scenarios/README.md).
const (
	BuiltinEcho            = "echo"
	BuiltinInspectArtifact = "inspect_artifact"
	BuiltinReadFile        = "read_file"
	BuiltinWriteFile       = "write_file"
	BuiltinReplaceText     = "replace_text"
	BuiltinMemorySearch    = "memory_search"
	BuiltinLoadSkill       = "load_skill"
	BuiltinSandboxedFetch  = "sandboxed_fetch"
	BuiltinCheckpointEdit  = "checkpoint_edit"
)

// Tool error types, named as the reference's exception classes.
const (
	ToolValidationError = "ToolValidationError"
	ToolExecutionError  = "ToolExecutionError"
	// ApprovalDenied is the error_type of a call the approval gate denied;
	// the tool never ran.
	ApprovalDenied = "ApprovalDenied"
)

// ToolError is a failed call: its type (error_type) and message (error).
type ToolError struct {
	Type string
	Msg  string
}

func (e *ToolError) Error() string { return e.Type + ": " + e.Msg }

// pyException is a failure of a handler that is not a ToolError in the
// reference (a KeyError, ValueError, CheckpointError, SandboxDenied...):
// the registry reports it as ToolExecutionError "<tool> failed: <Msg>",
// Msg being Python's str() of the exception.
type pyException struct{ Msg string }

func (e *pyException) Error() string { return e.Msg }

// keyError is Python's str(KeyError(key)): the key's repr.
func keyError(key string) *pyException { return &pyException{pyRepr(key)} }

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

// toolEnv is what a built-in acts on: the scenario's configuration, the
// workspace of the render, and the trace, where a handler records events
// of its own (memory.read, sandbox.configure, file.patch...).
type toolEnv struct {
	sc *Scenario
	ws *workspace
	// emit records an event during the call. Its parent is the event
	// before it in the trace, so a handler's events chain from the
	// tool.request (or approval.decision) and among themselves, and the
	// tool.result still takes the runner's last event as its parent: the
	// fan-out of the reference's lessons s09, s11 and s13.
	emit func(typ string, actor journal.Actor, payload jsonv.Value) error
}

// call is one execution of a built-in.
type call struct {
	name string // the tool's name (actor id of its events, prefix of its errors)
	args jsonv.Value
	opts jsonv.Value
	env  *toolEnv
}

// execute runs a call: unknown tool and argument problems are
// ToolValidationError, a failing handler ToolExecutionError (both as a
// *ToolError). Any other error (an interrupt, a store failure while a
// handler recorded an event) ends the run.
func (r *registry) execute(name string, args jsonv.Value, env *toolEnv) (jsonv.Value, error) {
	t := r.lookup(name)
	if t == nil {
		return jsonv.Value{}, &ToolError{ToolValidationError, "unknown tool: " + name}
	}
	if err := validateArguments(t.Parameters, args); err != nil {
		return jsonv.Value{}, err
	}
	h := t.Handler
	var v jsonv.Value
	var err error
	switch {
	case h.Builtin != "":
		v, err = runBuiltin(&call{name: name, args: args, opts: h.Options, env: env}, h.Builtin)
	case h.ErrorType != "":
		err = &ToolError{h.ErrorType, h.ErrorMessage}
	case h.Result.IsValid():
		v = h.Result
	default:
		v = jsonv.NullValue()
	}
	var pe *pyException
	if errors.As(err, &pe) {
		return jsonv.Value{}, &ToolError{ToolExecutionError, name + " failed: " + pe.Msg}
	}
	return v, err
}

// runBuiltin dispatches to the built-in's handler.
func runBuiltin(c *call, name string) (jsonv.Value, error) {
	switch name {
	case BuiltinEcho:
		text, ok := c.args.Get("text")
		if !ok {
			return jsonv.Value{}, keyError("text")
		}
		return jsonv.Obj(jsonv.M("echo", text)), nil
	case BuiltinInspectArtifact:
		return jsonv.Obj(
			jsonv.M("artifact", jsonv.Str("artifact://large-report")),
			jsonv.M("preview", jsonv.Str(strings.Repeat("verified-output-", 32))),
		), nil
	case BuiltinReadFile:
		return readFileTool(c)
	case BuiltinWriteFile:
		return writeFileTool(c)
	case BuiltinReplaceText:
		return replaceTextTool(c)
	case BuiltinMemorySearch:
		return memorySearchTool(c)
	case BuiltinLoadSkill:
		return loadSkillTool(c)
	case BuiltinSandboxedFetch:
		return sandboxedFetchTool(c)
	case BuiltinCheckpointEdit:
		return checkpointEditTool(c)
	}
	return jsonv.Value{}, fmt.Errorf("unknown built-in tool %q", name)
}

// stringArg is args[key] of a handler that needs a string: a missing key
// is the reference's KeyError. A value of another type fails too, saying
// what was expected (the reference's handlers fail on it each in their own
// way; a scenario's parameters that declare the type catch it first, as a
// ToolValidationError).
func stringArg(args jsonv.Value, key string) (string, error) {
	v, ok := args.Get(key)
	if !ok {
		return "", keyError(key)
	}
	if v.Kind() != jsonv.String {
		return "", &pyException{fmt.Sprintf("argument %s must be a string, not a JSON %s", pyRepr(key), v.Kind())}
	}
	return v.Text(), nil
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
