package wire

import (
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

// responsesRole reports whether role is one a Responses message item may
// have.
func responsesRole(role string) bool {
	switch role {
	case RoleUser, RoleAssistant, RoleSystem, RoleDeveloper:
		return true
	}
	return false
}

// protocolItem is one call or output item, for the protocol check.
type protocolItem struct {
	at     int    // its index in input
	kind   string // the item type
	callID string
	output bool
}

// decodeResponses reads a Responses API request body (an object).
func decodeResponses(v jsonv.Value) (*Request, *Error) {
	r := &Request{API: OpenAIResponses, Body: v}
	model, ok := v.Get("model")
	switch {
	case !ok || model.Kind() == jsonv.Null:
		return nil, missingParam("model")
	case model.Kind() != jsonv.String:
		return nil, invalidType("model", "a string", model)
	case model.Text() == "":
		e := Invalid("model", "Invalid 'model': empty string. Expected a string with minimum length 1, but got an empty string instead.")
		e.Code = "empty_string"
		return nil, e
	}
	r.Model = model.Text()
	var e *Error
	if r.Stream, e = decodeStream(v, "stream"); e != nil {
		return nil, e
	}
	if prev, ok := v.Get("previous_response_id"); ok && prev.Kind() != jsonv.Null {
		if prev.Kind() != jsonv.String {
			return nil, invalidType("previous_response_id", "a string", prev)
		}
		e := Invalid("previous_response_id", "Previous response with id '%s' not found: the scripted model server keeps no response state, so previous_response_id cannot be used; send the whole conversation in 'input' on every request (with store: false, as Codex does).", prev.Text())
		e.Code = "previous_response_not_found"
		return nil, e
	}
	if conv, ok := v.Get("conversation"); ok && conv.Kind() != jsonv.Null {
		return nil, Invalid("conversation", "The scripted model server keeps no conversation state, so 'conversation' cannot be used; send the whole conversation in 'input' on every request (with store: false, as Codex does).")
	}
	if ins, ok := v.Get("instructions"); ok && ins.Kind() != jsonv.Null {
		if ins.Kind() != jsonv.String {
			return nil, invalidType("instructions", "a string", ins)
		}
		if ins.Text() != "" {
			r.Messages = append(r.Messages, Message{Role: RoleSystem, Text: ins.Text()})
		}
	}
	input, ok := v.Get("input")
	var proto []protocolItem
	switch {
	case !ok || input.Kind() == jsonv.Null:
		e := missingParam("input")
		e.Message = "Missing required parameter: 'input'. The scripted model server keeps no state: send the conversation as 'input' (a string or an array of input items)."
		return nil, e
	case input.Kind() == jsonv.String:
		r.Messages = append(r.Messages, Message{Role: RoleUser, Text: input.Text()})
	case input.Kind() != jsonv.Array:
		return nil, invalidType("input", "a string or an array of input items", input)
	case input.Len() == 0:
		e := Invalid("input", "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead.")
		e.Code = "empty_array"
		return nil, e
	default:
		var e *Error
		if proto, e = responsesInput(r, input.Elems()); e != nil {
			return nil, e
		}
	}
	if tools, ok := v.Get("tools"); ok && tools.Kind() != jsonv.Null {
		if tools.Kind() != jsonv.Array {
			return nil, invalidType("tools", "an array of objects", tools)
		}
		for i, t := range tools.Elems() {
			name, e := responsesTool(i, t)
			if e != nil {
				return nil, e
			}
			r.Tools = append(r.Tools, name)
		}
	}
	return r, checkResponsesToolProtocol(proto)
}

// responsesInput appends the messages of input's items to r and returns
// its call and output items.
func responsesInput(r *Request, items []jsonv.Value) ([]protocolItem, *Error) {
	var proto []protocolItem
	open := false // the last message is an assistant message that calls may join
	for i, it := range items {
		p := inputParam(i, "")
		if it.Kind() != jsonv.Object {
			return nil, invalidType(p, "an object", it)
		}
		typ, e := itemType(i, it)
		if e != nil {
			return nil, e
		}
		switch {
		case typ == "message":
			msg, e := responsesMessage(i, it)
			if e != nil {
				return nil, e
			}
			r.Messages = append(r.Messages, msg)
			open = msg.Role == RoleAssistant
		case callWords(typ) != "":
			id, line, e := responsesCall(i, typ, it)
			if e != nil {
				return nil, e
			}
			if !open {
				r.Messages = append(r.Messages, Message{Role: RoleAssistant})
				open = true
			}
			last := &r.Messages[len(r.Messages)-1]
			last.ToolCalls = append(last.ToolCalls, id)
			last.Text = joinText(last.Text, line)
			proto = append(proto, protocolItem{at: i, kind: typ, callID: id})
		case outputWords(typ) != "":
			id, e := itemCallID(i, typ, it)
			if e != nil {
				return nil, e
			}
			text, e := outputText(i, typ, it)
			if e != nil {
				return nil, e
			}
			r.Messages = append(r.Messages, Message{Role: RoleTool, Answers: id, Text: text})
			open = false
			proto = append(proto, protocolItem{at: i, kind: typ, callID: id, output: true})
		}
		// Any other item (reasoning, web_search_call, ...) is no message.
	}
	return proto, nil
}

// itemType is an input item's type: its "type", or "message" for an item
// with a role and no type (an easy input message).
func itemType(i int, it jsonv.Value) (string, *Error) {
	typ, ok := it.Get("type")
	if !ok || typ.Kind() == jsonv.Null {
		if _, hasRole := it.Get("role"); hasRole {
			return "message", nil
		}
		return "", missingParam(inputParam(i, ".type"))
	}
	if typ.Kind() != jsonv.String {
		return "", invalidType(inputParam(i, ".type"), "a string", typ)
	}
	return typ.Text(), nil
}

func responsesMessage(i int, it jsonv.Value) (Message, *Error) {
	role, ok := it.Get("role")
	if !ok || role.Kind() == jsonv.Null {
		return Message{}, missingParam(inputParam(i, ".role"))
	}
	if role.Kind() != jsonv.String || !responsesRole(role.Text()) {
		e := Invalid(inputParam(i, ".role"), "Invalid value: %s. Supported values are: 'user', 'assistant', 'system', and 'developer'.", describe(role))
		e.Code = "invalid_value"
		return Message{}, e
	}
	content, ok := it.Get("content")
	if !ok || content.Kind() == jsonv.Null {
		return Message{}, missingParam(inputParam(i, ".content"))
	}
	text, e := partsText(inputParam(i, ".content"), content, "a string or an array of content parts")
	if e != nil {
		return Message{}, e
	}
	return Message{Role: role.Text(), Text: text}, nil
}

// responsesCall reads a call item: its call id and its line of the
// assistant message's Text ("NAME ARGUMENTS").
func responsesCall(i int, typ string, it jsonv.Value) (id, line string, e *Error) {
	if id, e = itemCallID(i, typ, it); e != nil {
		return "", "", e
	}
	switch typ {
	case "local_shell_call":
		action, _ := it.Get("action")
		if !action.IsValid() || action.Kind() == jsonv.Null {
			return "", "", missingParam(inputParam(i, ".action"))
		}
		return id, callLine("local_shell", action), nil
	case "custom_tool_call":
		name, e := requiredString(it, i, ".name")
		if e != nil {
			return "", "", e
		}
		in, e := requiredString(it, i, ".input")
		if e != nil {
			return "", "", e
		}
		return id, callLine(name, jsonv.Str(in)), nil
	}
	name, e := requiredString(it, i, ".name")
	if e != nil {
		return "", "", e
	}
	args, e := requiredString(it, i, ".arguments")
	if e != nil {
		return "", "", e
	}
	return id, callLine(name, jsonv.Str(args)), nil
}

// itemCallID is a call or output item's call_id. A local shell item may
// carry its id as "id" instead (the local_shell_call_output of the API's
// own types does, and older Codex local_shell_call items did).
func itemCallID(i int, typ string, it jsonv.Value) (string, *Error) {
	id, ok := it.Get("call_id")
	if (!ok || id.Kind() == jsonv.Null) && strings.HasPrefix(typ, "local_shell_call") {
		id, ok = it.Get("id")
	}
	switch {
	case !ok || id.Kind() == jsonv.Null:
		return "", missingParam(inputParam(i, ".call_id"))
	case id.Kind() != jsonv.String:
		return "", invalidType(inputParam(i, ".call_id"), "a string", id)
	case id.Text() == "":
		e := Invalid(inputParam(i, ".call_id"), "Invalid 'input[%d].call_id': empty string. Expected a string with minimum length 1, but got an empty string instead.", i)
		e.Code = "empty_string"
		return "", e
	}
	return id.Text(), nil
}

// outputText is an output item's output as text: a string as it is, an
// array of content parts as partsText writes it.
func outputText(i int, typ string, it jsonv.Value) (string, *Error) {
	out, ok := it.Get("output")
	if !ok || out.Kind() == jsonv.Null {
		return "", missingParam(inputParam(i, ".output"))
	}
	if typ == "local_shell_call_output" && out.Kind() != jsonv.String {
		return "", invalidType(inputParam(i, ".output"), "a string", out)
	}
	return partsText(inputParam(i, ".output"), out, "a string or an array of content parts")
}

// partsText is a content (a message's content or an output) as
// Message.Text has it (contentText's rule): a string as it is; an array of
// parts, each text part's text and every other part as "[TYPE]" ("[image]"
// for an image), joined by "\n". Each part must be an object with a type,
// and a text part must have its text.
func partsText(param string, c jsonv.Value, want string) (string, *Error) {
	switch c.Kind() {
	case jsonv.String:
		return c.Text(), nil
	case jsonv.Array:
	default:
		return "", invalidType(param, want, c)
	}
	pieces := make([]string, 0, c.Len())
	for k, p := range c.Elems() {
		pp := param + "[" + strconv.Itoa(k) + "]"
		if p.Kind() != jsonv.Object {
			return "", invalidType(pp, "an object", p)
		}
		typ, ok := p.Get("type")
		switch {
		case !ok || typ.Kind() == jsonv.Null:
			return "", missingParam(pp + ".type")
		case typ.Kind() != jsonv.String:
			return "", invalidType(pp+".type", "a string", typ)
		}
		switch typ.Text() {
		case "input_text", "output_text", "text":
			t, ok := p.Get("text")
			switch {
			case !ok || t.Kind() == jsonv.Null:
				return "", missingParam(pp + ".text")
			case t.Kind() != jsonv.String:
				return "", invalidType(pp+".text", "a string", t)
			}
		}
		pieces = append(pieces, partText(p))
	}
	return strings.Join(pieces, "\n"), nil
}

// responsesTool is the name a tool of the request's tools is recorded
// under: a function's or custom tool's name (required), the name of any
// other tool that has one (a namespace's), else its type (web_search,
// local_shell, image_generation, mcp, file_search, tool_search, ...).
func responsesTool(i int, t jsonv.Value) (string, *Error) {
	p := "tools[" + strconv.Itoa(i) + "]"
	if t.Kind() != jsonv.Object {
		return "", invalidType(p, "an object", t)
	}
	typ, ok := t.Get("type")
	switch {
	case !ok || typ.Kind() == jsonv.Null:
		return "", missingParam(p + ".type")
	case typ.Kind() != jsonv.String || typ.Text() == "":
		return "", invalidType(p+".type", "a non-empty string", typ)
	}
	name, _ := t.Get("name")
	hasName := name.Kind() == jsonv.String && name.Text() != ""
	if (typ.Text() == "function" || typ.Text() == "custom") && !hasName {
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
		return Invalid("input", "No tool call found for %s with call_id %s.", outputWords(first.kind), first.callID)
	}
	return Invalid("input", "No tool output found for %s %s.", callWords(first.kind), first.callID)
}

// requiredString is the string member key (".name") of input item i.
func requiredString(it jsonv.Value, i int, key string) (string, *Error) {
	s, ok := it.Get(key[1:])
	switch {
	case !ok || s.Kind() == jsonv.Null:
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

func invalidType(param, want string, got jsonv.Value) *Error {
	e := Invalid(param, "Invalid type for '%s': expected %s, but got a JSON %s instead.", param, want, got.Kind())
	e.Code = "invalid_type"
	return e
}
