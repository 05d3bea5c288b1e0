// Package wire speaks the model APIs coding agents call, from the
// server's side: OpenAI Chat Completions (POST /v1/chat/completions),
// the OpenAI Responses API (POST /v1/responses, which Codex speaks) and
// Anthropic Messages (POST /v1/messages).
//
// Decode reads a request body into a Request: the model, whether a stream
// was asked for, and the conversation reduced to what a trace records (each
// message's role, the tool calls an assistant message makes, the call a
// tool message answers, the tool names offered). It reads the body in
// place after validating it once, so its memory follows what the Request
// keeps, not the body's number of values; a request holds at most MaxItems
// messages, content parts, tool calls and tools (413 beyond), and an error
// message quotes what the client sent cut short (Short). It rejects what the real
// APIs reject with the status and error body they use, among them the
// tool-call protocol every one of them enforces: every tool call of an
// assistant message needs a matching tool result (right after it; for the
// Responses API anywhere after it), and a tool result needs the call it
// answers.
//
// Render turns one scripted answer (a fakemodel.Turn) into the bytes of a
// response: one JSON body for a whole answer, or the server-sent events a
// streaming client expects (OpenAI chat.completion.chunk objects ending in
// "data: [DONE]"; Anthropic message_start, content_block_start/delta/stop,
// message_delta, message_stop; Responses response.created … response.completed
// with one output item per message and function call). A streamed turn's
// chunks become one content delta each, in order; a tool call's arguments,
// compact JSON, arrive split into several deltas, as the real APIs send them.
//
// Nothing here touches the network: the caller writes the bytes.
package wire

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// API names one of the wire formats.
type API string

// The APIs served, named as the trace and the cassettes name them.
const (
	OpenAIChat        API = "openai.chat"
	OpenAIResponses   API = "openai.responses"
	AnthropicMessages API = "anthropic.messages"
)

// Paths of the endpoints.
const (
	PathChatCompletions = "/v1/chat/completions"
	PathResponses       = "/v1/responses"
	PathMessages        = "/v1/messages"
	PathModels          = "/v1/models"
)

// PathCountTokens is Anthropic's token counting endpoint, answered
// without taking a turn.
const PathCountTokens = "/v1/messages/count_tokens"

// AnthropicBetaAllowsSystem reports whether an anthropic-beta header value
// (comma-separated beta names, possibly sent as several headers) names a
// beta under which the Messages API accepts a "system" message inside
// messages: mid-conversation-system-*, and per-turn-control-*, with which
// Claude Code 2.1 sends its system turns.
func AnthropicBetaAllowsSystem(values []string) bool {
	for _, v := range values {
		for _, b := range strings.Split(v, ",") {
			b = strings.TrimSpace(b)
			if strings.HasPrefix(b, "mid-conversation-system") || strings.HasPrefix(b, "per-turn-control") {
				return true
			}
		}
	}
	return false
}

// ForPath returns the API whose endpoint path is, and whether there is one.
func ForPath(path string) (API, bool) {
	switch path {
	case PathChatCompletions:
		return OpenAIChat, true
	case PathResponses:
		return OpenAIResponses, true
	case PathMessages:
		return AnthropicMessages, true
	}
	return "", false
}

// Message roles as a trace records them. An Anthropic request is mapped
// onto them: its system field is a RoleSystem message, and each
// tool_result block of a user message is a RoleTool message of its own
// (before a RoleUser message for the rest of that message's content, if
// any), so that both APIs give the roles the reference runtime records.
const (
	RoleSystem    = "system"
	RoleDeveloper = "developer" // OpenAI's newer spelling of system; kept as sent
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one message of a request, reduced to what the protocol check
// and the trace need.
type Message struct {
	Role      string
	ToolCalls []string // assistant: the ids of the tool calls it makes, in order
	Answers   string   // tool: the id of the call it answers
	// Text is the message's content as the model reads it, what a trace
	// hashes: its text parts joined by "\n" (a tool message: its output;
	// a part that is not text as "[TYPE]", an image as "[image]"), then,
	// for an assistant message, one line per tool call, "NAME ARGUMENTS"
	// with the arguments as sent.
	Text string
}

// Request is a decoded request.
type Request struct {
	API          API
	Model        string
	Stream       bool
	IncludeUsage bool // OpenAI stream_options.include_usage
	Messages     []Message
	Tools        []string // the names of the tools offered, in order
	// Body holds the members of the body an answer echoes: for a
	// Responses request its instructions, parallel_tool_calls, store and
	// tool_choice as sent (Decode keeps no tree of the whole body).
	Body jsonv.Value
}

// Roles lists the role of each message.
func (r *Request) Roles() []string {
	out := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		out[i] = m.Role
	}
	return out
}

// Error is an API error: the HTTP status and the fields of the error body.
// Body writes it in the shape of the API it answers.
type Error struct {
	Status  int
	Type    string // invalid_request_error, not_found_error, ...
	Message string
	Param   string // OpenAI's param ("" is null); Anthropic has none
	Code    string // OpenAI's code ("" is null); Anthropic has none
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Type, e.Message) }

// Error types, as both APIs spell them.
const (
	TypeInvalidRequest = "invalid_request_error"
	TypeNotFound       = "not_found_error"
	TypeTooLarge       = "request_too_large"
	TypeAPIError       = "api_error"
)

// Invalid is a 400 invalid_request_error.
func Invalid(param, format string, args ...any) *Error {
	return &Error{Status: 400, Type: TypeInvalidRequest, Message: fmt.Sprintf(format, args...), Param: param}
}

// Body is the error's JSON body in api's shape: OpenAI's
// {"error":{"message","type","param","code"}} or Anthropic's
// {"type":"error","error":{"type","message"}}.
func (e *Error) Body(api API) []byte {
	var v jsonv.Value
	if api == AnthropicMessages {
		typ := e.Type
		if typ == TypeTooLarge && e.Status != 413 {
			typ = TypeInvalidRequest
		}
		v = jsonv.Obj(
			jsonv.M("type", jsonv.Str("error")),
			jsonv.M("error", jsonv.Obj(
				jsonv.M("type", jsonv.Str(typ)),
				jsonv.M("message", jsonv.Str(e.Message)),
			)),
		)
	} else {
		typ := e.Type
		if typ == TypeNotFound || typ == TypeTooLarge {
			typ = TypeInvalidRequest // OpenAI reports both as invalid requests
		}
		v = jsonv.Obj(jsonv.M("error", jsonv.Obj(
			jsonv.M("message", jsonv.Str(e.Message)),
			jsonv.M("type", jsonv.Str(typ)),
			jsonv.M("param", nullable(e.Param)),
			jsonv.M("code", nullable(e.Code)),
		)))
	}
	return append(v.AppendJSON(nil), '\n')
}

func nullable(s string) jsonv.Value {
	if s == "" {
		return jsonv.NullValue()
	}
	return jsonv.Str(s)
}

// APIOf guesses which API a request to path meant, for the shape of an
// error about a path that is not served: Anthropic for /v1/messages and
// below or when the client sent an anthropic-version header, OpenAI
// otherwise.
func APIOf(path string, anthropicVersion string) API {
	if anthropicVersion != "" || path == PathMessages || len(path) > len(PathMessages) && path[:len(PathMessages)+1] == PathMessages+"/" {
		return AnthropicMessages
	}
	return OpenAIChat
}

// index formats OpenAI's param paths: messages.[3].role.
func index(prefix string, i int, suffix string) string {
	return prefix + ".[" + strconv.Itoa(i) + "]" + suffix
}
