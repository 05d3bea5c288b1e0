package wire

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Decode parses body as a request to api and checks it as the real API
// would: required fields and their types, the roles, and the tool-call
// protocol. The *Error is what the API answers (status 400; 413 for a
// request past MaxItems). When only the tool-call protocol is broken the
// Request is returned with the error, so a caller can still record what
// was sent.
//
// The body is validated once and then read in place (raw.go): decoding
// costs about what the Request keeps (its messages' text, ids and tool
// names, about the body's size at most), whatever the body holds.
func Decode(api API, body []byte) (*Request, *Error) {
	return DecodeWith(api, body, DecodeOptions{})
}

// MaxItems is how many messages (a Responses request's input items),
// content parts, tool calls and tools one request may hold in all
// (DecodeOptions.MaxItems changes it): far more than an agent's
// conversation holds, and a bound on what a request costs the server (a
// record per message in its trace) whatever the size of its items.
const MaxItems = 100_000

// DecodeOptions are what a request's headers change in how its body is
// read.
type DecodeOptions struct {
	// MidConversationSystem accepts a message of role "system" inside an
	// Anthropic request's messages, as the API does when the request's
	// anthropic-beta header names the feature (see AnthropicBetaAllowsSystem);
	// without it such a message is refused with the API's own wording, so
	// that a client's fallback can fire.
	MidConversationSystem bool
	// MaxItems bounds the request's messages, content parts, tool calls
	// and tools in all (413 beyond); 0 is MaxItems.
	MaxItems int
}

// decoder is the state of one Decode: its options, the items counted and
// the text made so far.
type decoder struct {
	opt   DecodeOptions
	items int
	// text counts the bytes of the messages' Text made so far, bounded by
	// budget: the body's size and TextSlack.
	text, budget int
	num          []byte // scratch: a number's spelling
	nested       int    // tool_result blocks open in partText
}

// TextSlack is how much larger than its body a request's text (its
// messages' Text, all told) may be: text is the body's strings, parts
// named "[TYPE]" and tool-call arguments written again, so a request's
// text is about its body's size at most, unless its numbers' Python
// spellings are much longer than they were written (1e15 is
// 1000000000000000.0). Such a request is refused with 413.
const TextSlack = 1 << 20

func newDecoder(opt DecodeOptions, body []byte) *decoder {
	return &decoder{opt: opt, budget: len(body) + TextSlack}
}

// addText counts n bytes of text and refuses the request past the budget.
func (d *decoder) addText(n int) *Error {
	d.text += n
	if d.text > d.budget {
		return &Error{Status: 413, Type: TypeTooLarge, Message: fmt.Sprintf("the request's text as the scripted model server records it (numbers in Python's spelling: 1e15 is 1000000000000000.0) is larger than %d bytes, its body's size and %d more", d.budget, TextSlack)}
	}
	return nil
}

// textOf is a string value's text, counted.
func (d *decoder) textOf(v val) (string, *Error) {
	t := v.Text()
	return t, d.addText(len(t))
}

// limit is the bound on items.
func (d *decoder) limit() int {
	if d.opt.MaxItems > 0 {
		return d.opt.MaxItems
	}
	return MaxItems
}

// count adds n items and refuses the request past the bound.
func (d *decoder) count(n int) *Error {
	d.items += n
	if limit := d.limit(); d.items > limit {
		return &Error{Status: 413, Type: TypeTooLarge, Message: fmt.Sprintf("the request holds more than %d messages, content parts, tool calls and tools in all: the scripted model server reads at most %d", limit, limit)}
	}
	return nil
}

// body validates a request body with k and returns its top-level
// object, read until k is done.
func body(k *checker, raw []byte) (val, *Error) {
	v, err := k.check(raw)
	if err != nil {
		return val{}, Invalid("", "the request body is not valid JSON (%v): send one JSON object", err)
	}
	if v.Kind() != jsonv.Object {
		return val{}, Invalid("", "the request body is a JSON %s: send one JSON object", v.Kind())
	}
	return v, nil
}

// DecodeWith is Decode with the options the request's headers set.
func DecodeWith(api API, raw []byte, opt DecodeOptions) (*Request, *Error) {
	k := checkers.Get().(*checker)
	defer k.done()
	v, e := body(k, raw)
	if e != nil {
		return nil, e
	}
	return decodeBody(api, v, raw, opt)
}

// decodeBody decodes the top-level object v of the validated body raw.
func decodeBody(api API, v val, raw []byte, opt DecodeOptions) (*Request, *Error) {
	d := newDecoder(opt, raw)
	switch api {
	case OpenAIChat:
		return d.decodeOpenAI(v)
	case OpenAIResponses:
		return d.decodeResponses(v)
	case AnthropicMessages:
		return d.decodeAnthropic(v, false)
	}
	return nil, &Error{Status: 404, Type: TypeNotFound, Message: fmt.Sprintf("unknown API %q", Short(string(api)))}
}

// field reads an optional member (a null counts as absent) of kind k.
func field(f val, k jsonv.Kind) (val, bool, bool) {
	if !f.IsValid() || f.Kind() == jsonv.Null {
		return val{}, false, true
	}
	return f, true, f.Kind() == k
}

func decodeStream(f val, param string) (bool, *Error) {
	f, ok, typed := field(f, jsonv.Bool)
	if ok && !typed {
		return false, Invalid(param, "Invalid type for 'stream': expected a boolean, but got a JSON %s instead.", f.Kind())
	}
	return f.IsTrue(), nil
}

func (d *decoder) decodeOpenAI(v val) (*Request, *Error) {
	r := &Request{API: OpenAIChat}
	var top [5]val
	v.pick(top[:], "model", "stream", "stream_options", "messages", "tools")
	model, ok, typed := field(top[0], jsonv.String)
	if ok && typed {
		r.Model = model.Text()
	}
	if r.Model == "" {
		return nil, Invalid("model", "you must provide a model parameter (a non-empty string)")
	}
	var e *Error
	if r.Stream, e = decodeStream(top[1], "stream"); e != nil {
		return nil, e
	}
	if so, ok, _ := field(top[2], jsonv.Object); ok {
		if iu, ok := so.Get("include_usage"); ok {
			r.IncludeUsage = iu.IsTrue()
		}
	}
	msgs, ok, typed := field(top[3], jsonv.Array)
	switch {
	case !ok:
		e := Invalid("messages", "Missing required parameter: 'messages'.")
		e.Code = "missing_required_parameter"
		return nil, e
	case !typed:
		return nil, Invalid("messages", "Invalid type for 'messages': expected an array of objects, but got a JSON %s instead.", msgs.Kind())
	case msgs.Empty():
		e := Invalid("messages", "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.")
		e.Code = "empty_array"
		return nil, e
	}
	r.Messages = make([]Message, 0, msgs.Len(d.limit()+1)) // appends would allocate five times the slice
	for i, m := range msgs.All() {
		if e = d.count(1); e != nil {
			return nil, e
		}
		msg, e := d.openAIMessage(i, m)
		if e != nil {
			return nil, e
		}
		r.Messages = append(r.Messages, msg)
	}
	if tools, ok, typed := field(top[4], jsonv.Array); ok {
		if !typed {
			return nil, Invalid("tools", "Invalid type for 'tools': expected an array of objects, but got a JSON %s instead.", tools.Kind())
		}
		for i, t := range tools.All() {
			if e = d.count(1); e != nil {
				return nil, e
			}
			fn, _ := t.Get("function")
			name, _ := fn.Get("name")
			if t.Kind() != jsonv.Object || !name.nonEmptyString() {
				return nil, Invalid(index("tools", i, ".function.name"), "Missing required parameter: 'tools[%d].function.name'.", i)
			}
			r.Tools = append(r.Tools, name.Text())
		}
	}
	return r, checkOpenAIToolProtocol(r.Messages)
}

var openAIRoles = []string{"system", "developer", "user", "assistant", "tool", "function"}

func (d *decoder) openAIMessage(i int, m val) (Message, *Error) {
	if m.Kind() != jsonv.Object {
		return Message{}, Invalid(index("messages", i, ""), "Invalid type for 'messages[%d]': expected an object, but got a JSON %s instead.", i, m.Kind())
	}
	var f [4]val
	m.pick(f[:], "role", "content", "tool_calls", "tool_call_id")
	role, _, _ := field(f[0], jsonv.String)
	msg := Message{Role: role.oneOf(openAIRoles)}
	if role.Kind() != jsonv.String || msg.Role == "" {
		e := Invalid(index("messages", i, ".role"), "Invalid value for 'messages[%d].role': %s. Supported values are: 'system', 'developer', 'user', 'assistant', 'tool' and 'function'.", i, describe(role))
		e.Code = "invalid_value"
		return Message{}, e
	}
	var e *Error
	if msg.Text, e = d.contentText(f[1]); e != nil {
		return Message{}, e
	}
	switch msg.Role {
	case RoleAssistant:
		calls, ok, typed := field(f[2], jsonv.Array)
		if ok && !typed {
			return Message{}, Invalid(index("messages", i, ".tool_calls"), "Invalid type for 'messages[%d].tool_calls': expected an array, but got a JSON %s instead.", i, calls.Kind())
		}
		lines := []string{msg.Text}
		for k, c := range calls.All() {
			if e := d.count(1); e != nil {
				return Message{}, e
			}
			var cf [2]val
			c.pick(cf[:], "id", "function")
			id := cf[0]
			var fn [2]val
			cf[1].pick(fn[:], "name", "arguments")
			name := fn[0]
			if !id.nonEmptyString() {
				return Message{}, Invalid(index("messages", i, ".tool_calls")+".["+strconv.Itoa(k)+"].id", "Missing required parameter: 'messages[%d].tool_calls[%d].id'.", i, k)
			}
			if !name.nonEmptyString() {
				return Message{}, Invalid(index("messages", i, ".tool_calls")+".["+strconv.Itoa(k)+"].function.name", "Missing required parameter: 'messages[%d].tool_calls[%d].function.name'.", i, k)
			}
			line, e := d.callLine(name.Text(), fn[1])
			if e != nil {
				return Message{}, e
			}
			msg.ToolCalls = append(msg.ToolCalls, id.Text())
			lines = append(lines, line)
		}
		msg.Text = joinText(lines...)
	case RoleTool:
		id := f[3]
		if !id.nonEmptyString() {
			e := Invalid(index("messages", i, ".tool_call_id"), "Missing required parameter: 'messages[%d].tool_call_id'.", i)
			e.Code = "missing_required_parameter"
			return Message{}, e
		}
		msg.Answers = id.Text()
	}
	return msg, nil
}

// describe names a value in an error message: a string quoted (cut short,
// see Short), else its kind.
func describe(v val) string {
	switch v.Kind() {
	case jsonv.Invalid:
		return "missing"
	case jsonv.String:
		return "'" + Short(v.Text()) + "'"
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
				return Invalid(index("messages", i, ".tool_call_id"), "Invalid parameter: 'tool_call_id' of '%s' not found in 'tool_calls' of previous message.", Short(m.Answers))
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
	return Invalid(index("messages", at, ".role"), "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", ShortList(ids))
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

var anthropicRoles, systemRole = []string{RoleUser, RoleAssistant}, []string{RoleSystem}

// decodeAnthropic reads a Messages request; countTokens reads a
// count_tokens request, which has no max_tokens.
func (d *decoder) decodeAnthropic(v val, countTokens bool) (*Request, *Error) {
	r := &Request{API: AnthropicMessages}
	var top [6]val
	v.pick(top[:], "model", "max_tokens", "stream", "system", "messages", "tools")
	model, ok, typed := field(top[0], jsonv.String)
	if ok && typed {
		r.Model = model.Text()
	}
	if r.Model == "" {
		return nil, Invalid("", "model: Field required (a non-empty string)")
	}
	if !countTokens || top[1].IsValid() { // count_tokens takes no max_tokens, but checks one it is sent
		mt, ok, _ := field(top[1], jsonv.Number)
		if n, isInt := mt.Int64(); !ok || !isInt || n < 1 {
			return nil, Invalid("", "max_tokens: Field required (an integer of at least 1)")
		}
	}
	var e *Error
	if r.Stream, e = decodeStream(top[2], ""); e != nil {
		return nil, e
	}
	if sys := top[3]; sys.IsValid() && sys.Kind() != jsonv.Null {
		switch {
		case sys.Kind() == jsonv.String:
			t, e := d.textOf(sys)
			if e != nil {
				return nil, e
			}
			if t != "" {
				r.Messages = append(r.Messages, Message{Role: RoleSystem, Text: t})
			}
		case sys.Kind() == jsonv.Array:
			for k, b := range sys.All() {
				if t, _ := b.Get("type"); !t.isString("text") {
					return nil, Invalid("", "system.%d.type: Input should be 'text'", k)
				}
			}
			if !sys.Empty() {
				text, e := d.contentText(sys)
				if e != nil {
					return nil, e
				}
				r.Messages = append(r.Messages, Message{Role: RoleSystem, Text: text})
			}
		default:
			return nil, Invalid("", "system: Input should be a valid string or a list of text blocks")
		}
	}
	msgs, ok, typed := field(top[4], jsonv.Array)
	switch {
	case !ok:
		return nil, Invalid("", "messages: Field required")
	case !typed:
		return nil, Invalid("", "messages: Input should be a valid list")
	case msgs.Empty():
		return nil, Invalid("", "messages: at least one message is required")
	}
	r.Messages = slices.Grow(r.Messages, msgs.Len(d.limit()+1))
	var prevUses []string // tool_use ids of the previous message
	var proto *Error      // the first break of the tool-call protocol
	last := -1
	for i, m := range msgs.All() {
		last = i
		if e := d.count(1); e != nil {
			return nil, e
		}
		if m.Kind() != jsonv.Object {
			return nil, Invalid("", "messages.%d: Input should be a valid dictionary", i)
		}
		var f [2]val
		m.pick(f[:], "role", "content")
		role := f[0]
		roleText := role.oneOf(anthropicRoles)
		if role.oneOf(systemRole) == RoleSystem && d.opt.MidConversationSystem {
			c := f[1]
			if c.Kind() != jsonv.String && c.Kind() != jsonv.Array {
				return nil, Invalid("", "messages.%d.content: Input should be a valid string or a list of content blocks", i)
			}
			text, e := d.contentText(c)
			if e != nil {
				return nil, e
			}
			r.Messages = append(r.Messages, Message{Role: RoleSystem, Text: text})
			continue // a system turn is not part of the tool-call protocol
		}
		if roleText == "" {
			return nil, Invalid("", "messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		blocks, e := anthropicBlocks(i, f[1])
		if e != nil {
			return nil, e
		}
		var uses, results []string
		var resultTexts, texts []string
		other := false
		if f[1].Kind() == jsonv.String { // one text block
			t, e := d.textOf(f[1])
			if e != nil {
				return nil, e
			}
			other, texts = true, []string{t}
		}
		for k, b := range blocks.All() {
			if e := d.count(1); e != nil {
				return nil, e
			}
			var bf [5]val
			b.pick(bf[:], "type", "id", "name", "input", "tool_use_id")
			switch bf[0].Text() {
			case "tool_use":
				if roleText != RoleAssistant {
					return nil, Invalid("", "messages.%d.content.%d: `tool_use` blocks can only be in `assistant` messages", i, k)
				}
				id, name := bf[1], bf[2]
				if !id.nonEmptyString() || !name.nonEmptyString() {
					return nil, Invalid("", "messages.%d.content.%d.tool_use: `id` and `name` are required strings", i, k)
				}
				line, e := d.callLine(name.Text(), bf[3])
				if e != nil {
					return nil, e
				}
				uses = append(uses, id.Text())
				texts = append(texts, line)
			case "tool_result":
				if roleText != RoleUser {
					return nil, Invalid("", "messages.%d.content.%d: `tool_result` blocks can only be in `user` messages", i, k)
				}
				id := bf[4]
				if !id.nonEmptyString() {
					return nil, Invalid("", "messages.%d.content.%d.tool_result.tool_use_id: Field required", i, k)
				}
				if indexOf(prevUses, id.Text()) < 0 && proto == nil {
					proto = Invalid("", "messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, k, Short(id.Text()))
				}
				text, e := d.partText(b)
				if e != nil {
					return nil, e
				}
				results = append(results, id.Text())
				resultTexts = append(resultTexts, text)
			default:
				other = true
				text, e := d.partText(b)
				if e != nil {
					return nil, e
				}
				texts = append(texts, text)
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
		if roleText == RoleAssistant {
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
		proto = orphanAnthropic(last, prevUses)
	}
	if tools, ok, typed := field(top[5], jsonv.Array); ok {
		if !typed {
			return nil, Invalid("", "tools: Input should be a valid list")
		}
		for i, t := range tools.All() {
			if e := d.count(1); e != nil {
				return nil, e
			}
			name, _ := t.Get("name")
			if !name.nonEmptyString() {
				return nil, Invalid("", "tools.%d.name: Field required", i)
			}
			r.Tools = append(r.Tools, name.Text())
		}
	}
	return r, proto
}

// anthropicBlocks checks a message's content and returns its blocks; none
// for string content, one text block that the caller reads itself.
func anthropicBlocks(i int, c val) (val, *Error) {
	switch c.Kind() {
	case jsonv.String:
		return val{}, nil
	case jsonv.Array:
		for k, b := range c.All() {
			if t, _ := b.Get("type"); b.Kind() != jsonv.Object || t.Kind() != jsonv.String {
				return val{}, Invalid("", "messages.%d.content.%d: each content block must be an object with a string `type`", i, k)
			}
		}
		return c, nil
	case jsonv.Invalid:
		return val{}, Invalid("", "messages.%d.content: Field required", i)
	}
	return val{}, Invalid("", "messages.%d.content: Input should be a valid string or a list of content blocks", i)
}

func orphanAnthropic(at int, ids []string) *Error {
	return Invalid("", "messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", at, ShortList(ids))
}

// DecodeCountTokens checks the body of a count_tokens request: a Messages
// request without max_tokens (the tool-call protocol is not enforced).
func DecodeCountTokens(raw []byte, opt DecodeOptions) (*Request, *Error) {
	k := checkers.Get().(*checker)
	defer k.done()
	v, e := body(k, raw)
	if e != nil {
		return nil, e
	}
	d := newDecoder(opt, raw)
	r, e := d.decodeAnthropic(v, true)
	if r != nil && e != nil {
		e = nil // an unanswered call is counted, not refused
	}
	return r, e
}

// Short is s for an error message that quotes a request: s itself when
// short, else its first ShortRunes runes, "…" and its length, so that a
// message (and the trace and log lines that hold it) never grows with
// what a client sent.
func Short(s string) string {
	const max = 2 * ShortRunes
	if len(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == ShortRunes {
			return fmt.Sprintf("%s… (%d bytes)", s[:i], len(s))
		}
		n++
	}
	return s
}

// ShortRunes is how much of a quoted request part an error message keeps.
const ShortRunes = 64

// ShortList joins ids by ", " as an error message lists them, each cut by
// Short and the list cut after a few hundred bytes ("… and N more").
func ShortList(ids []string) string {
	var b strings.Builder
	for k, id := range ids {
		if k > 0 {
			if b.Len() > 4*ShortRunes {
				fmt.Fprintf(&b, " … and %d more", len(ids)-k)
				break
			}
			b.WriteString(", ")
		}
		b.WriteString(Short(id))
	}
	return b.String()
}
