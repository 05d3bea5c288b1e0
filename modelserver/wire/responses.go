package wire

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// This file reads OpenAI Responses API requests (POST /v1/responses), the
// API OpenAI's Codex CLI speaks (wire_api = "responses") and the openai
// SDKs' client.responses.create sends.
//
// A request's conversation is its input: a string (one user message) or a
// list of items. Items map onto Messages as the other APIs' do:
//
//   - instructions (a string) is a leading RoleSystem message, as an
//     Anthropic request's system is;
//   - a message item (type "message", or no type and a role) is a message
//     of its role (developer, system, user or assistant);
//   - consecutive call items (function_call, custom_tool_call,
//     local_shell_call), with the assistant message right before them if
//     there is one, are one RoleAssistant message whose ToolCalls are
//     their call_ids;
//   - each output item (function_call_output, custom_tool_call_output,
//     local_shell_call_output) is a RoleTool message answering its call_id;
//   - every other item (reasoning, web_search_call, compaction,
//     item_reference, ...) is accepted and is no message: it neither adds
//     a role nor breaks a run of calls.
//
// The tool-call protocol is the one the Responses API enforces: a call
// needs an output item with its call_id somewhere after it, and an output
// needs a call with its call_id somewhere before it. An output may answer a
// call of another kind (Codex answers a local_shell_call with a
// function_call_output).
//
// The scripted server keeps no response state, so previous_response_id
// and conversation are refused: a client sends the whole conversation each
// time (store: false), as Codex does.

// callWords names a call item type as the API's errors do ("function
// call"), "" for an item that is no call.
func callWords(typ string) string {
	switch typ {
	case "function_call":
		return "function call"
	case "custom_tool_call":
		return "custom tool call"
	case "local_shell_call":
		return "local shell call"
	}
	return ""
}

// outputWords names an output item type as the API's errors do
// ("function call output"), "" for an item that is no output.
func outputWords(typ string) string {
	switch typ {
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		return callWords(strings.TrimSuffix(typ, "_output")) + " output"
	}
	return ""
}

// protocolItem is one call or output item, for the protocol check.
type protocolItem struct {
	at     int    // its index in input
	kind   string // the item type
	callID string
	output bool
}

// decodeResponses reads a Responses API request body (an object).
func (d *decoder) decodeResponses(v val) (*Request, *Error) {
	r := &Request{API: OpenAIResponses}
	var top [10]val
	v.pick(top[:], "model", "stream", "previous_response_id", "conversation", "instructions", "input", "tools",
		"parallel_tool_calls", "store", "tool_choice")
	model := top[0]
	switch {
	case !model.IsValid() || model.Kind() == jsonv.Null:
		return nil, missingParam("model")
	case model.Kind() != jsonv.String:
		return nil, invalidType("model", "a string", model)
	case !model.nonEmptyString():
		e := Invalid("model", "Invalid 'model': empty string. Expected a string with minimum length 1, but got an empty string instead.")
		e.Code = "empty_string"
		return nil, e
	}
	r.Model = model.Text()
	var e *Error
	if r.Stream, e = decodeStream(top[1], "stream"); e != nil {
		return nil, e
	}
	if prev := top[2]; prev.IsValid() && prev.Kind() != jsonv.Null {
		if prev.Kind() != jsonv.String {
			return nil, invalidType("previous_response_id", "a string", prev)
		}
		e := Invalid("previous_response_id", "Previous response with id '%s' not found: the scripted model server keeps no response state, so previous_response_id cannot be used; send the whole conversation in 'input' on every request (with store: false, as Codex does).", Short(prev.Text()))
		e.Code = "previous_response_not_found"
		return nil, e
	}
	if conv := top[3]; conv.IsValid() && conv.Kind() != jsonv.Null {
		return nil, Invalid("conversation", "The scripted model server keeps no conversation state, so 'conversation' cannot be used; send the whole conversation in 'input' on every request (with store: false, as Codex does).")
	}
	var echo []jsonv.Member // what the response echoes (Request.Body)
	if ins := top[4]; ins.IsValid() && ins.Kind() != jsonv.Null {
		if ins.Kind() != jsonv.String {
			return nil, invalidType("instructions", "a string", ins)
		}
		text, e := d.textOf(ins)
		if e != nil {
			return nil, e
		}
		if text != "" {
			r.Messages = append(r.Messages, Message{Role: RoleSystem, Text: text})
		}
		echo = append(echo, jsonv.M("instructions", jsonv.Str(text)))
	}
	input := top[5]
	var proto []protocolItem
	switch {
	case !input.IsValid() || input.Kind() == jsonv.Null:
		e := missingParam("input")
		e.Message = "Missing required parameter: 'input'. The scripted model server keeps no state: send the conversation as 'input' (a string or an array of input items)."
		return nil, e
	case input.Kind() == jsonv.String:
		text, e := d.textOf(input)
		if e != nil {
			return nil, e
		}
		r.Messages = append(r.Messages, Message{Role: RoleUser, Text: text})
	case input.Kind() != jsonv.Array:
		return nil, invalidType("input", "a string or an array of input items", input)
	case input.Empty():
		e := Invalid("input", "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead.")
		e.Code = "empty_array"
		return nil, e
	default:
		var e *Error
		if proto, e = d.responsesInput(r, input); e != nil {
			return nil, e
		}
	}
	if tools := top[6]; tools.IsValid() && tools.Kind() != jsonv.Null {
		if tools.Kind() != jsonv.Array {
			return nil, invalidType("tools", "an array of objects", tools)
		}
		for i, t := range tools.All() {
			if e := d.count(1); e != nil {
				return nil, e
			}
			name, e := responsesTool(i, t)
			if e != nil {
				return nil, e
			}
			r.Tools = append(r.Tools, name)
		}
	}
	for k, key := range []string{"parallel_tool_calls", "store"} {
		if m := top[7+k]; m.Kind() == jsonv.Bool {
			echo = append(echo, jsonv.M(key, jsonv.BoolValue(m.IsTrue())))
		}
	}
	if tc := top[9]; tc.IsValid() && tc.Kind() != jsonv.Null {
		if len(tc.b) > MaxEchoBytes {
			return nil, Invalid("tool_choice", "Invalid 'tool_choice': %d bytes; the scripted model server echoes at most %d", len(tc.b), MaxEchoBytes)
		}
		echo = append(echo, jsonv.M("tool_choice", tc.scalar()))
	}
	r.Body = jsonv.Obj(echo...)
	return r, checkResponsesToolProtocol(proto)
}

// MaxEchoBytes bounds a member a Responses answer echoes from its request
// (tool_choice: a string, or an object naming a tool or a few).
const MaxEchoBytes = 64 << 10

// responsesInput appends the messages of input's items to r and returns
// its call and output items.
func (d *decoder) responsesInput(r *Request, items val) ([]protocolItem, *Error) {
	r.Messages = slices.Grow(r.Messages, items.Len(d.limit()+1))
	var proto []protocolItem
	open := false      // the last message is an assistant message that calls may join
	var lines []string // that message's text and the lines of the calls joined to it
	flush := func() {
		if open && len(lines) > 1 {
			r.Messages[len(r.Messages)-1].Text = joinText(lines...)
		}
		open, lines = false, nil
	}
	for i, it := range items.All() {
		if e := d.count(1); e != nil {
			return nil, e
		}
		p := inputParam(i, "")
		if it.Kind() != jsonv.Object {
			return nil, invalidType(p, "an object", it)
		}
		var f [10]val
		it.pick(f[:], "type", "role", "content", "call_id", "id", "name", "arguments", "input", "action", "output")
		typ, e := itemType(i, f[:])
		if e != nil {
			return nil, e
		}
		switch {
		case typ == "message":
			msg, e := d.responsesMessage(i, f[:])
			if e != nil {
				return nil, e
			}
			flush()
			r.Messages = append(r.Messages, msg)
			if msg.Role == RoleAssistant {
				open, lines = true, []string{msg.Text}
			}
		case callWords(typ) != "":
			id, line, e := d.responsesCall(i, typ, f[:])
			if e != nil {
				return nil, e
			}
			if !open {
				flush()
				r.Messages = append(r.Messages, Message{Role: RoleAssistant})
				open, lines = true, []string{""}
			}
			last := &r.Messages[len(r.Messages)-1]
			last.ToolCalls = append(last.ToolCalls, id)
			lines = append(lines, line)
			proto = append(proto, protocolItem{at: i, kind: typ, callID: id})
		case outputWords(typ) != "":
			id, e := itemCallID(i, typ, f[:])
			if e != nil {
				return nil, e
			}
			text, e := d.outputText(i, typ, f[:])
			if e != nil {
				return nil, e
			}
			flush()
			r.Messages = append(r.Messages, Message{Role: RoleTool, Answers: id, Text: text})
			proto = append(proto, protocolItem{at: i, kind: typ, callID: id, output: true})
		}
		// Any other item (reasoning, web_search_call, ...) is no message.
	}
	flush()
	return proto, nil
}

// item is the members of an input item that decoding reads, as
// responsesInput picks them.
type item []val

func (f item) get(key string) val {
	switch key {
	case "type":
		return f[0]
	case "role":
		return f[1]
	case "content":
		return f[2]
	case "call_id":
		return f[3]
	case "id":
		return f[4]
	case "name":
		return f[5]
	case "arguments":
		return f[6]
	case "input":
		return f[7]
	case "action":
		return f[8]
	case "output":
		return f[9]
	}
	panic("wire: input item member " + key + " not picked")
}

// itemType is an input item's type: its "type", or "message" for an item
// with a role and no type (an easy input message).
func itemType(i int, it item) (string, *Error) {
	typ := it.get("type")
	if !typ.IsValid() || typ.Kind() == jsonv.Null {
		if it.get("role").IsValid() {
			return "message", nil
		}
		return "", missingParam(inputParam(i, ".type"))
	}
	if typ.Kind() != jsonv.String {
		return "", invalidType(inputParam(i, ".type"), "a string", typ)
	}
	return typ.Text(), nil
}

var responsesRoles = []string{RoleUser, RoleAssistant, RoleSystem, RoleDeveloper}

func (d *decoder) responsesMessage(i int, it item) (Message, *Error) {
	role := it.get("role")
	if !role.IsValid() || role.Kind() == jsonv.Null {
		return Message{}, missingParam(inputParam(i, ".role"))
	}
	roleText := role.oneOf(responsesRoles)
	if roleText == "" {
		e := Invalid(inputParam(i, ".role"), "Invalid value: %s. Supported values are: 'user', 'assistant', 'system', and 'developer'.", describe(role))
		e.Code = "invalid_value"
		return Message{}, e
	}
	content := it.get("content")
	if !content.IsValid() || content.Kind() == jsonv.Null {
		return Message{}, missingParam(inputParam(i, ".content"))
	}
	text, e := d.partsText(inputParam(i, ".content"), content, "a string or an array of content parts")
	if e != nil {
		return Message{}, e
	}
	return Message{Role: roleText, Text: text}, nil
}

// responsesCall reads a call item: its call id and its line of the
// assistant message's Text ("NAME ARGUMENTS").
func (d *decoder) responsesCall(i int, typ string, it item) (id, line string, e *Error) {
	if id, e = itemCallID(i, typ, it); e != nil {
		return "", "", e
	}
	switch typ {
	case "local_shell_call":
		action := it.get("action")
		if !action.IsValid() || action.Kind() == jsonv.Null {
			return "", "", missingParam(inputParam(i, ".action"))
		}
		line, e := d.callLine("local_shell", action)
		return id, line, e
	case "custom_tool_call":
		name, e := requiredString(it, i, ".name")
		if e != nil {
			return "", "", e
		}
		in, e := requiredString(it, i, ".input")
		if e != nil {
			return "", "", e
		}
		return id, name + " " + in, d.addText(len(name) + 1 + len(in))
	}
	name, e := requiredString(it, i, ".name")
	if e != nil {
		return "", "", e
	}
	args, e := requiredString(it, i, ".arguments")
	if e != nil {
		return "", "", e
	}
	return id, name + " " + args, d.addText(len(name) + 1 + len(args))
}

// itemCallID is a call or output item's call_id. A local shell item may
// carry its id as "id" instead (the local_shell_call_output of the API's
// own types does, and older Codex local_shell_call items did).
func itemCallID(i int, typ string, it item) (string, *Error) {
	id := it.get("call_id")
	if (!id.IsValid() || id.Kind() == jsonv.Null) && strings.HasPrefix(typ, "local_shell_call") {
		id = it.get("id")
	}
	switch {
	case !id.IsValid() || id.Kind() == jsonv.Null:
		return "", missingParam(inputParam(i, ".call_id"))
	case id.Kind() != jsonv.String:
		return "", invalidType(inputParam(i, ".call_id"), "a string", id)
	}
	text := id.Text()
	if text == "" {
		e := Invalid(inputParam(i, ".call_id"), "Invalid 'input[%d].call_id': empty string. Expected a string with minimum length 1, but got an empty string instead.", i)
		e.Code = "empty_string"
		return "", e
	}
	return text, nil
}

// outputText is an output item's output as text: a string as it is, an
// array of content parts as partsText writes it.
func (d *decoder) outputText(i int, typ string, it item) (string, *Error) {
	out := it.get("output")
	if !out.IsValid() || out.Kind() == jsonv.Null {
		return "", missingParam(inputParam(i, ".output"))
	}
	if typ == "local_shell_call_output" && out.Kind() != jsonv.String {
		return "", invalidType(inputParam(i, ".output"), "a string", out)
	}
	return d.partsText(inputParam(i, ".output"), out, "a string or an array of content parts")
}

// partsText is a content (a message's content or an output) as
// Message.Text has it (contentText's rule): a string as it is; an array of
// parts, each text part's text and every other part as "[TYPE]" ("[image]"
// for an image), joined by "\n". Each part must be an object with a type,
// and a text part must have its text.
func (d *decoder) partsText(param string, c val, want string) (string, *Error) {
	switch c.Kind() {
	case jsonv.String:
		return c.Text(), nil
	case jsonv.Array:
	default:
		return "", invalidType(param, want, c)
	}
	for k, p := range c.All() {
		pp := param + "[" + strconv.Itoa(k) + "]"
		if p.Kind() != jsonv.Object {
			return "", invalidType(pp, "an object", p)
		}
		var f [2]val
		p.pick(f[:], "type", "text")
		typ := f[0]
		switch {
		case !typ.IsValid() || typ.Kind() == jsonv.Null:
			return "", missingParam(pp + ".type")
		case typ.Kind() != jsonv.String:
			return "", invalidType(pp+".type", "a string", typ)
		}
		switch typ.Text() {
		case "input_text", "output_text", "text":
			t := f[1]
			switch {
			case !t.IsValid() || t.Kind() == jsonv.Null:
				return "", missingParam(pp + ".text")
			case t.Kind() != jsonv.String:
				return "", invalidType(pp+".text", "a string", t)
			}
		}
	}
	return d.contentText(c)
}

// responsesTool is the name a tool of the request's tools is recorded
// under: a function's or custom tool's name (required), the name of any
// other tool that has one (a namespace's), else its type (web_search,
// local_shell, image_generation, mcp, file_search, tool_search, ...).
func responsesTool(i int, t val) (string, *Error) {
	p := "tools[" + strconv.Itoa(i) + "]"
	if t.Kind() != jsonv.Object {
		return "", invalidType(p, "an object", t)
	}
	var f [2]val
	t.pick(f[:], "type", "name")
	typ := f[0]
	switch {
	case !typ.IsValid() || typ.Kind() == jsonv.Null:
		return "", missingParam(p + ".type")
	case !typ.nonEmptyString():
		return "", invalidType(p+".type", "a non-empty string", typ)
	}
	name := f[1]
	hasName := name.nonEmptyString()
	if (typ.isString("function") || typ.isString("custom")) && !hasName {
		return "", missingParam(p + ".name")
	}
	if hasName {
		return name.Text(), nil
	}
	return typ.Text(), nil
}

// checkResponsesToolProtocol reports the first item, in input order, that
// breaks the Responses tool-call protocol: an output whose call_id no
// earlier call has, or a call whose call_id no later output answers.
func checkResponsesToolProtocol(items []protocolItem) *Error {
	var first *protocolItem
	seen := map[string]bool{} // call ids of the calls so far
	for k := range items {
		it := &items[k]
		if it.output {
			if !seen[it.callID] && (first == nil || it.at < first.at) {
				first = it
			}
			continue
		}
		seen[it.callID] = true
	}
	answered := map[string]bool{} // call ids of the outputs after the current item
	for k := len(items) - 1; k >= 0; k-- {
		it := &items[k]
		if it.output {
			answered[it.callID] = true
			continue
		}
		if !answered[it.callID] && (first == nil || it.at < first.at) {
			first = it
		}
	}
	switch {
	case first == nil:
		return nil
	case first.output:
		return Invalid("input", "No tool call found for %s with call_id %s.", outputWords(first.kind), Short(first.callID))
	}
	return Invalid("input", "No tool output found for %s %s.", callWords(first.kind), Short(first.callID))
}

// requiredString is the string member key (".name") of input item i.
func requiredString(it item, i int, key string) (string, *Error) {
	s := it.get(key[1:])
	switch {
	case !s.IsValid() || s.Kind() == jsonv.Null:
		return "", missingParam(inputParam(i, key))
	case s.Kind() != jsonv.String:
		return "", invalidType(inputParam(i, key), "a string", s)
	}
	return s.Text(), nil
}

// inputParam formats the Responses API's param paths: input[3].call_id.
func inputParam(i int, suffix string) string {
	return "input[" + strconv.Itoa(i) + "]" + suffix
}

func missingParam(param string) *Error {
	e := Invalid(param, "Missing required parameter: '%s'.", param)
	e.Code = "missing_required_parameter"
	return e
}

func invalidType(param, want string, got val) *Error {
	e := Invalid(param, "Invalid type for '%s': expected %s, but got a JSON %s instead.", param, want, got.Kind())
	e.Code = "invalid_type"
	return e
}
