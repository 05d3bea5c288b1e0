package wire

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Decode parses body as a request to api and checks it as the real API
// would: required fields and their types, the roles, and the tool-call
// protocol. The *Error is what the API answers (status 400). When only the
// tool-call protocol is broken the Request is returned with the error, so
// a caller can still record what was sent.
func Decode(api API, body []byte) (*Request, *Error) {
	return DecodeWith(api, body, DecodeOptions{})
}

// DecodeOptions are what a request's headers change in how its body is
// read.
type DecodeOptions struct {
	// MidConversationSystem accepts a message of role "system" inside an
	// Anthropic request's messages, as the API does when the request's
	// anthropic-beta header names the feature (see AnthropicBetaAllowsSystem);
	// without it such a message is refused with the API's own wording, so
	// that a client's fallback can fire.
	MidConversationSystem bool
}

// DecodeWith is Decode with the options the request's headers set.
func DecodeWith(api API, body []byte, opt DecodeOptions) (*Request, *Error) {
	v, err := jsonv.Parse(body)
	if err != nil {
		return nil, Invalid("", "the request body is not valid JSON (%v): send one JSON object", err)
	}
	if v.Kind() != jsonv.Object {
		return nil, Invalid("", "the request body is a JSON %s: send one JSON object", v.Kind())
	}
	switch api {
	case OpenAIChat:
		return decodeOpenAI(v)
	case OpenAIResponses:
		return decodeResponses(v)
	case AnthropicMessages:
		return decodeAnthropic(v, opt)
	}
	return nil, &Error{Status: 404, Type: TypeNotFound, Message: fmt.Sprintf("unknown API %q", api)}
}

// field reads an optional member of kind k (a null counts as absent).
func field(v jsonv.Value, key string, k jsonv.Kind) (jsonv.Value, bool, bool) {
	f, ok := v.Get(key)
	if !ok || f.Kind() == jsonv.Null {
		return jsonv.Value{}, false, true
	}
	return f, true, f.Kind() == k
}

func decodeStream(v jsonv.Value, param string) (bool, *Error) {
	f, ok, typed := field(v, "stream", jsonv.Bool)
	if ok && !typed {
		return false, Invalid(param, "Invalid type for 'stream': expected a boolean, but got a JSON %s instead.", f.Kind())
	}
	return f.IsTrue(), nil
}

func decodeOpenAI(v jsonv.Value) (*Request, *Error) {
	r := &Request{API: OpenAIChat, Body: v}
	model, ok, typed := field(v, "model", jsonv.String)
	if !ok || !typed || model.Text() == "" {
		return nil, Invalid("model", "you must provide a model parameter (a non-empty string)")
	}
	r.Model = model.Text()
	var e *Error
	if r.Stream, e = decodeStream(v, "stream"); e != nil {
		return nil, e
	}
	if so, ok, _ := field(v, "stream_options", jsonv.Object); ok {
		if iu, ok := so.Get("include_usage"); ok {
			r.IncludeUsage = iu.IsTrue()
		}
	}
	msgs, ok, typed := field(v, "messages", jsonv.Array)
	switch {
	case !ok:
		e := Invalid("messages", "Missing required parameter: 'messages'.")
		e.Code = "missing_required_parameter"
		return nil, e
	case !typed:
		return nil, Invalid("messages", "Invalid type for 'messages': expected an array of objects, but got a JSON %s instead.", msgs.Kind())
	case msgs.Len() == 0:
		e := Invalid("messages", "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.")
		e.Code = "empty_array"
		return nil, e
	}
	for i, m := range msgs.Elems() {
		msg, e := openAIMessage(i, m)
		if e != nil {
			return nil, e
		}
		r.Messages = append(r.Messages, msg)
	}
	if tools, ok, typed := field(v, "tools", jsonv.Array); ok {
		if !typed {
			return nil, Invalid("tools", "Invalid type for 'tools': expected an array of objects, but got a JSON %s instead.", tools.Kind())
		}
		for i, t := range tools.Elems() {
			fn, _ := t.Get("function")
			name, _ := fn.Get("name")
			if t.Kind() != jsonv.Object || name.Kind() != jsonv.String || name.Text() == "" {
				return nil, Invalid(index("tools", i, ".function.name"), "Missing required parameter: 'tools[%d].function.name'.", i)
			}
			r.Tools = append(r.Tools, name.Text())
		}
	}
	return r, checkOpenAIToolProtocol(r.Messages)
}

var openAIRoles = []string{"system", "developer", "user", "assistant", "tool", "function"}

func openAIMessage(i int, m jsonv.Value) (Message, *Error) {
	if m.Kind() != jsonv.Object {
		return Message{}, Invalid(index("messages", i, ""), "Invalid type for 'messages[%d]': expected an object, but got a JSON %s instead.", i, m.Kind())
	}
	role, _, _ := field(m, "role", jsonv.String)
	msg := Message{Role: role.Text()}
	known := false
	for _, r := range openAIRoles {
		known = known || r == msg.Role
	}
	if role.Kind() != jsonv.String || !known {
		e := Invalid(index("messages", i, ".role"), "Invalid value for 'messages[%d].role': %s. Supported values are: 'system', 'developer', 'user', 'assistant', 'tool' and 'function'.", i, describe(role))
		e.Code = "invalid_value"
		return Message{}, e
	}
	content, _ := m.Get("content")
	msg.Text = contentText(content)
	switch msg.Role {
	case RoleAssistant:
		calls, ok, typed := field(m, "tool_calls", jsonv.Array)
		if ok && !typed {
			return Message{}, Invalid(index("messages", i, ".tool_calls"), "Invalid type for 'messages[%d].tool_calls': expected an array, but got a JSON %s instead.", i, calls.Kind())
		}
		for k, c := range calls.Elems() {
			id, _ := c.Get("id")
			fn, _ := c.Get("function")
			name, _ := fn.Get("name")
			if id.Kind() != jsonv.String || id.Text() == "" {
				return Message{}, Invalid(index("messages", i, ".tool_calls")+".["+strconv.Itoa(k)+"].id", "Missing required parameter: 'messages[%d].tool_calls[%d].id'.", i, k)
			}
			if name.Kind() != jsonv.String || name.Text() == "" {
				return Message{}, Invalid(index("messages", i, ".tool_calls")+".["+strconv.Itoa(k)+"].function.name", "Missing required parameter: 'messages[%d].tool_calls[%d].function.name'.", i, k)
			}
			msg.ToolCalls = append(msg.ToolCalls, id.Text())
			args, _ := fn.Get("arguments")
			msg.Text = joinText(msg.Text, callLine(name.Text(), args))
		}
	case RoleTool:
		id, _ := m.Get("tool_call_id")
		if id.Kind() != jsonv.String || id.Text() == "" {
			e := Invalid(index("messages", i, ".tool_call_id"), "Missing required parameter: 'messages[%d].tool_call_id'.", i)
			e.Code = "missing_required_parameter"
			return Message{}, e
		}
		msg.Answers = id.Text()
	}
	return msg, nil
}

func describe(v jsonv.Value) string {
	switch v.Kind() {
	case jsonv.Invalid:
		return "missing"
	case jsonv.String:
		return "'" + v.Text() + "'"
	}
	return "a JSON " + v.Kind().String()
}

// checkOpenAIToolProtocol applies the Chat Completions rule: an assistant
// message with tool_calls must be followed by tool messages answering each
// call, and a tool message must answer a call of that assistant message.
func checkOpenAIToolProtocol(msgs []Message) *Error {
	var pending []string // calls of the last assistant message not answered yet
	open := -1           // index of that assistant message, -1 outside a tool block
	for i, m := range msgs {
		if m.Role == RoleTool {
			k := indexOf(pending, m.Answers)
			if open < 0 {
				return Invalid(index("messages", i, ".role"), "Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'.")
			}
			if k < 0 {
				return Invalid(index("messages", i, ".tool_call_id"), "Invalid parameter: 'tool_call_id' of '%s' not found in 'tool_calls' of previous message.", m.Answers)
			}
			pending = append(pending[:k], pending[k+1:]...)
			continue
		}
		if len(pending) > 0 {
			return orphanOpenAI(i, pending)
		}
		open, pending = -1, nil
		if m.Role == RoleAssistant && len(m.ToolCalls) > 0 {
			open, pending = i, append([]string(nil), m.ToolCalls...)
		}
	}
	if len(pending) > 0 {
		return orphanOpenAI(open, pending)
	}
	return nil
}

func orphanOpenAI(at int, ids []string) *Error {
	return Invalid(index("messages", at, ".role"), "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(ids, ", "))
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

func decodeAnthropic(v jsonv.Value, opt DecodeOptions) (*Request, *Error) {
	r := &Request{API: AnthropicMessages, Body: v}
	model, ok, typed := field(v, "model", jsonv.String)
	if !ok || !typed || model.Text() == "" {
		return nil, Invalid("", "model: Field required (a non-empty string)")
	}
	r.Model = model.Text()
	mt, ok, _ := field(v, "max_tokens", jsonv.Number)
	if n, isInt := mt.Int64(); !ok || !isInt || n < 1 {
		return nil, Invalid("", "max_tokens: Field required (an integer of at least 1)")
	}
	var e *Error
	if r.Stream, e = decodeStream(v, ""); e != nil {
		return nil, e
	}
	if sys, ok := v.Get("system"); ok && sys.Kind() != jsonv.Null {
		switch {
		case sys.Kind() == jsonv.String:
			if sys.Text() != "" {
				r.Messages = append(r.Messages, Message{Role: RoleSystem, Text: sys.Text()})
			}
		case sys.Kind() == jsonv.Array:
			for k, b := range sys.Elems() {
				if t, _ := b.Get("type"); t.Text() != "text" {
					return nil, Invalid("", "system.%d.type: Input should be 'text'", k)
				}
			}
			if sys.Len() > 0 {
				r.Messages = append(r.Messages, Message{Role: RoleSystem, Text: contentText(sys)})
			}
		default:
			return nil, Invalid("", "system: Input should be a valid string or a list of text blocks")
		}
	}
	msgs, ok, typed := field(v, "messages", jsonv.Array)
	switch {
	case !ok:
		return nil, Invalid("", "messages: Field required")
	case !typed:
		return nil, Invalid("", "messages: Input should be a valid list")
	case msgs.Len() == 0:
		return nil, Invalid("", "messages: at least one message is required")
	}
	var prevUses []string // tool_use ids of the previous message
	var proto *Error      // the first break of the tool-call protocol
	for i, m := range msgs.Elems() {
		if m.Kind() != jsonv.Object {
			return nil, Invalid("", "messages.%d: Input should be a valid dictionary", i)
		}
		role, _ := m.Get("role")
		if role.Text() == RoleSystem && role.Kind() == jsonv.String && opt.MidConversationSystem {
			c, _ := m.Get("content")
			if c.Kind() != jsonv.String && c.Kind() != jsonv.Array {
				return nil, Invalid("", "messages.%d.content: Input should be a valid string or a list of content blocks", i)
			}
			r.Messages = append(r.Messages, Message{Role: RoleSystem, Text: contentText(c)})
			continue // a system turn is not part of the tool-call protocol
		}
		if role.Text() != RoleUser && role.Text() != RoleAssistant || role.Kind() != jsonv.String {
			return nil, Invalid("", "messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		blocks, e := anthropicBlocks(i, m)
		if e != nil {
			return nil, e
		}
		var uses, results []string
		var resultTexts, texts []string
		other := false
		for k, b := range blocks {
			typ, _ := b.Get("type")
			switch typ.Text() {
			case "tool_use":
				if role.Text() != RoleAssistant {
					return nil, Invalid("", "messages.%d.content.%d: `tool_use` blocks can only be in `assistant` messages", i, k)
				}
				id, _ := b.Get("id")
				name, _ := b.Get("name")
				if id.Kind() != jsonv.String || id.Text() == "" || name.Kind() != jsonv.String || name.Text() == "" {
					return nil, Invalid("", "messages.%d.content.%d.tool_use: `id` and `name` are required strings", i, k)
				}
				uses = append(uses, id.Text())
				input, _ := b.Get("input")
				texts = append(texts, callLine(name.Text(), input))
			case "tool_result":
				if role.Text() != RoleUser {
					return nil, Invalid("", "messages.%d.content.%d: `tool_result` blocks can only be in `user` messages", i, k)
				}
				id, _ := b.Get("tool_use_id")
				if id.Kind() != jsonv.String || id.Text() == "" {
					return nil, Invalid("", "messages.%d.content.%d.tool_result.tool_use_id: Field required", i, k)
				}
				if indexOf(prevUses, id.Text()) < 0 && proto == nil {
					proto = Invalid("", "messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, k, id.Text())
				}
				results = append(results, id.Text())
				resultTexts = append(resultTexts, partText(b))
			default:
				other = true
				texts = append(texts, partText(b))
			}
		}
		if len(prevUses) > 0 {
			var missing []string
			for _, id := range prevUses {
				if indexOf(results, id) < 0 {
					missing = append(missing, id)
				}
			}
			if len(missing) > 0 && proto == nil {
				proto = orphanAnthropic(i-1, missing)
			}
		}
		if role.Text() == RoleAssistant {
			r.Messages = append(r.Messages, Message{Role: RoleAssistant, ToolCalls: uses, Text: joinText(texts...)})
		} else {
			for k, id := range results {
				r.Messages = append(r.Messages, Message{Role: RoleTool, Answers: id, Text: resultTexts[k]})
			}
			if other || len(results) == 0 {
				r.Messages = append(r.Messages, Message{Role: RoleUser, Text: joinText(texts...)})
			}
		}
		prevUses = uses
	}
	if len(prevUses) > 0 && proto == nil {
		proto = orphanAnthropic(msgs.Len()-1, prevUses)
	}
	if tools, ok, typed := field(v, "tools", jsonv.Array); ok {
		if !typed {
			return nil, Invalid("", "tools: Input should be a valid list")
		}
		for i, t := range tools.Elems() {
			name, _ := t.Get("name")
			if name.Kind() != jsonv.String || name.Text() == "" {
				return nil, Invalid("", "tools.%d.name: Field required", i)
			}
			r.Tools = append(r.Tools, name.Text())
		}
	}
	return r, proto
}

// anthropicBlocks returns a message's content blocks; string content is
// one text block.
func anthropicBlocks(i int, m jsonv.Value) ([]jsonv.Value, *Error) {
	c, _ := m.Get("content")
	switch c.Kind() {
	case jsonv.String:
		return []jsonv.Value{jsonv.Obj(jsonv.M("type", jsonv.Str("text")), jsonv.M("text", c))}, nil
	case jsonv.Array:
		for k, b := range c.Elems() {
			if t, _ := b.Get("type"); b.Kind() != jsonv.Object || t.Kind() != jsonv.String {
				return nil, Invalid("", "messages.%d.content.%d: each content block must be an object with a string `type`", i, k)
			}
		}
		return c.Elems(), nil
	case jsonv.Invalid:
		return nil, Invalid("", "messages.%d.content: Field required", i)
	}
	return nil, Invalid("", "messages.%d.content: Input should be a valid string or a list of content blocks", i)
}

func orphanAnthropic(at int, ids []string) *Error {
	return Invalid("", "messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", at, strings.Join(ids, ", "))
}

// DecodeCountTokens checks the body of a count_tokens request: a Messages
// request without max_tokens (the tool-call protocol is not enforced).
func DecodeCountTokens(body []byte, opt DecodeOptions) (*Request, *Error) {
	v, err := jsonv.Parse(body)
	if err != nil {
		return nil, Invalid("", "the request body is not valid JSON (%v): send one JSON object", err)
	}
	if v.Kind() != jsonv.Object {
		return nil, Invalid("", "the request body is a JSON %s: send one JSON object", v.Kind())
	}
	if !v.Has("max_tokens") {
		v = v.With("max_tokens", jsonv.Int(1))
	}
	r, e := decodeAnthropic(v, opt)
	if r != nil && e != nil {
		e = nil // an unanswered call is counted, not refused
	}
	return r, e
}
