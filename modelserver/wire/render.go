package wire

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Answer is one scripted answer to render.
type Answer struct {
	ID      string // the response id: chatcmpl-… for OpenAI, msg_… for Anthropic
	Created int64  // Unix seconds, OpenAI's created
	Model   string // the model named in the response (the request's, as real APIs echo it)
	Turn    fakemodel.Turn
}

// Response is a rendered answer: a whole JSON Body, or, for a stream,
// Events, each one complete server-sent event to write and flush in
// order.
type Response struct {
	ContentType string
	Body        []byte
	Events      [][]byte
}

// Content types.
const (
	ContentJSON = "application/json"
	ContentSSE  = "text/event-stream; charset=utf-8"
)

// ArgumentPiece is the most bytes of a tool call's arguments one streamed
// delta carries (cut at a character boundary): short enough that any
// non-trivial arguments arrive in several deltas, as from the real APIs,
// whose deltas are a token or a few long.
const ArgumentPiece = 8

// Render renders a as the response to req: whole, or streamed when
// req.Stream. A streamed turn's chunks become one content delta each; a
// whole turn's content is one delta of a stream or the message of a whole
// response; a streamed turn asked for whole is one message with the chunks
// joined.
func Render(req *Request, a Answer) Response {
	resp, _ := RenderInto(nil, req, a)
	return resp
}

// RenderInto is Render with the bytes of an OpenAI Chat Completions
// answer, whole or streamed, written into buf when its capacity holds
// them (a buffer the caller reuses from answer to answer). It returns the
// buffer the response's bytes are in, which the caller may reuse once the
// response is written; nil when the response has its own.
func RenderInto(buf []byte, req *Request, a Answer) (Response, []byte) {
	switch {
	case req.API == OpenAIResponses:
		return renderResponses(req, a), nil
	case req.API == AnthropicMessages && req.Stream:
		return Response{ContentType: ContentSSE, Events: anthropicStream(a)}, nil
	case req.API == AnthropicMessages:
		return Response{ContentType: ContentJSON, Body: append(anthropicMessage(a).AppendJSON(nil), '\n')}, nil
	case req.Stream:
		events, buf := openAIStream(buf, a, req.IncludeUsage)
		return Response{ContentType: ContentSSE, Events: events}, buf
	}
	if cap(buf) < 512 {
		buf = make([]byte, 0, 512)
	}
	buf = append(appendOpenAICompletion(buf[:0], a), '\n')
	return Response{ContentType: ContentJSON, Body: buf}, buf
}

// deltas are the text pieces a stream carries: the chunks of a streamed
// turn, else the content in one piece (none when empty).
func deltas(t fakemodel.Turn) []string {
	if t.Streamed() {
		return t.Chunks
	}
	if t.Content == "" {
		return nil
	}
	return []string{t.Content}
}

// arguments is a call's arguments as compact JSON, members in the
// script's order.
func arguments(args jsonv.Value) string { return string(appendArguments(nil, args)) }

// appendArguments appends arguments(args).
func appendArguments(dst []byte, args jsonv.Value) []byte {
	if !args.IsValid() {
		return append(dst, "{}"...)
	}
	return args.AppendJSON(dst)
}

// SplitArguments cuts s into pieces of at most ArgumentPiece bytes, never
// inside a UTF-8 sequence.
func SplitArguments(s string) []string {
	var out []string
	for len(s) > 0 {
		n := pieceLen(s)
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// pieceLen is the length of the first of SplitArguments' pieces of s.
func pieceLen[T string | []byte](s T) int {
	n := min(ArgumentPiece, len(s))
	for n < len(s) && !utf8.RuneStart(s[n]) {
		n++
	}
	return n
}

func zeroUsageOpenAI() jsonv.Value {
	return jsonv.Obj(
		jsonv.M("prompt_tokens", jsonv.Int(0)),
		jsonv.M("completion_tokens", jsonv.Int(0)),
		jsonv.M("total_tokens", jsonv.Int(0)),
	)
}

func openAIFinish(t fakemodel.Turn) string {
	if len(t.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// appendOpenAICompletion appends the whole answer, written straight (the
// bytes of the Values openAICompletionValues builds, members in that
// order; TestOpenAICompletionMatchesValues).
func appendOpenAICompletion(buf []byte, a Answer) []byte {
	t := a.Turn
	buf = jsonv.AppendPyString(append(buf, `{"id":`...), a.ID)
	buf = strconv.AppendInt(append(buf, `,"object":"chat.completion","created":`...), a.Created, 10)
	buf = jsonv.AppendPyString(append(buf, `,"model":`...), a.Model)
	buf = append(buf, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	if text := t.Text(); text == "" && len(t.ToolCalls) > 0 {
		buf = append(buf, "null"...) // as the API sends it for a tool-calls-only answer
	} else {
		buf = jsonv.AppendPyString(buf, text)
	}
	buf = append(buf, `,"refusal":null`...)
	if len(t.ToolCalls) > 0 {
		buf = append(buf, `,"tool_calls":[`...)
		for i, c := range t.ToolCalls {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = jsonv.AppendPyString(append(buf, `{"id":`...), c.ID)
			buf = jsonv.AppendPyString(append(buf, `,"type":"function","function":{"name":`...), c.Name)
			var args [256]byte // the arguments' JSON, written again as a string
			buf = jsonv.AppendPyBytes(append(buf, `,"arguments":`...), appendArguments(args[:0], c.Arguments))
			buf = append(buf, "}}"...)
		}
		buf = append(buf, ']')
	}
	buf = jsonv.AppendPyString(append(buf, `},"logprobs":null,"finish_reason":`...), openAIFinish(t))
	return append(buf, `}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0},"system_fingerprint":null}`...)
}

func openAIStream(buf []byte, a Answer, includeUsage bool) ([][]byte, []byte) {
	// Every chunk is head, its delta, then tail: written straight into
	// one buffer (the bytes the Values of each chunk would give, members
	// in this order; TestOpenAIStreamMatchesValues).
	head := append(make([]byte, 0, 192), `data: {"id":`...)
	head = jsonv.AppendPyString(head, a.ID)
	head = append(head, `,"object":"chat.completion.chunk","created":`...)
	head = strconv.AppendInt(head, a.Created, 10)
	head = append(head, `,"model":`...)
	head = jsonv.AppendPyString(head, a.Model)
	head = append(head, `,"system_fingerprint":null,"choices":[{"index":0,"delta":`...)
	// One allocation for the events: their count, and a guess at their
	// size that holds the usual delta.
	ds := deltas(a.Turn)
	n := 3 + len(ds)
	// The calls' arguments, one after the other in args (argEnds[i] ends
	// call i's), each sent in SplitArguments' pieces.
	var argSpace [512]byte
	var endSpace [8]int
	args, argEnds := argSpace[:0], endSpace[:0]
	for _, c := range a.Turn.ToolCalls {
		start := len(args)
		args = appendArguments(args, c.Arguments)
		argEnds = append(argEnds, len(args))
		for p := args[start:]; len(p) > 0; p = p[pieceLen(p):] {
			n++
		}
		n++
	}
	if includeUsage {
		n++
	}
	size := 0
	for _, d := range ds {
		size += len(d) + len(d)/8
	}
	if want := n*(len(head)+96) + size; cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	buf = buf[:0]
	ends := make([]int, 0, n)
	finishNull := []byte(`,"logprobs":null,"finish_reason":null}]`)
	end := func() {
		if includeUsage {
			buf = append(buf, `,"usage":null`...)
		}
		buf = append(buf, "}\n\n"...)
		ends = append(ends, len(buf))
	}
	buf = append(buf, head...)
	buf = append(buf, `{"role":"assistant","content":""}`...)
	buf = append(buf, finishNull...)
	end()
	for _, d := range ds {
		buf = append(buf, head...)
		buf = jsonv.AppendPyString(append(buf, `{"content":`...), d)
		buf = append(buf, '}')
		buf = append(buf, finishNull...)
		end()
	}
	for i, c := range a.Turn.ToolCalls {
		call := func() {
			buf = append(buf, head...)
			buf = jsonv.AppendInt(append(buf, `{"tool_calls":[{"index":`...), int64(i))
		}
		call()
		buf = jsonv.AppendPyString(append(buf, `,"id":`...), c.ID)
		buf = jsonv.AppendPyString(append(buf, `,"type":"function","function":{"name":`...), c.Name)
		buf = append(buf, `,"arguments":""}}]}`...)
		buf = append(buf, finishNull...)
		end()
		start := 0
		if i > 0 {
			start = argEnds[i-1]
		}
		for p := args[start:argEnds[i]]; len(p) > 0; p = p[pieceLen(p):] {
			call()
			buf = jsonv.AppendPyBytes(append(buf, `,"function":{"arguments":`...), p[:pieceLen(p)])
			buf = append(buf, `}}]}`...)
			buf = append(buf, finishNull...)
			end()
		}
	}
	buf = append(buf, head...)
	buf = jsonv.AppendPyString(append(buf, `{},"logprobs":null,"finish_reason":`...), openAIFinish(a.Turn))
	buf = append(buf, "}]"...)
	end()
	if includeUsage {
		buf = append(buf, `data: {"id":`...)
		buf = jsonv.AppendPyString(buf, a.ID)
		buf = append(buf, `,"object":"chat.completion.chunk","created":`...)
		buf = strconv.AppendInt(buf, a.Created, 10)
		buf = jsonv.AppendPyString(append(buf, `,"model":`...), a.Model)
		buf = append(buf, `,"system_fingerprint":null,"choices":[],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`+"\n\n"...)
		ends = append(ends, len(buf))
	}
	buf = append(buf, "data: [DONE]\n\n"...)
	ends = append(ends, len(buf))
	out := make([][]byte, len(ends))
	start := 0
	for i, e := range ends {
		out[i] = buf[start:e:e]
		start = e
	}
	return out, buf
}

func dataEvent(v jsonv.Value) []byte {
	b := append([]byte("data: "), v.AppendJSON(nil)...)
	return append(b, '\n', '\n')
}

func namedEvent(name string, v jsonv.Value) []byte {
	b := append([]byte("event: "+name+"\ndata: "), v.AppendJSON(nil)...)
	return append(b, '\n', '\n')
}

func anthropicStop(t fakemodel.Turn) string {
	if len(t.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// hasTextBlock reports whether the answer carries a text block: when it
// has text, or when it has nothing else.
func hasTextBlock(t fakemodel.Turn) bool { return t.Text() != "" || len(t.ToolCalls) == 0 }

func zeroUsageAnthropic() jsonv.Value {
	return jsonv.Obj(jsonv.M("input_tokens", jsonv.Int(0)), jsonv.M("output_tokens", jsonv.Int(0)))
}

func anthropicEnvelope(a Answer, content []jsonv.Value, stop jsonv.Value) jsonv.Value {
	return jsonv.Obj(
		jsonv.M("id", jsonv.Str(a.ID)),
		jsonv.M("type", jsonv.Str("message")),
		jsonv.M("role", jsonv.Str("assistant")),
		jsonv.M("model", jsonv.Str(a.Model)),
		jsonv.M("content", jsonv.Arr(content...)),
		jsonv.M("stop_reason", stop),
		jsonv.M("stop_sequence", jsonv.NullValue()),
		jsonv.M("usage", zeroUsageAnthropic()),
	)
}

func anthropicMessage(a Answer) jsonv.Value {
	t := a.Turn
	var content []jsonv.Value
	if hasTextBlock(t) {
		content = append(content, jsonv.Obj(jsonv.M("type", jsonv.Str("text")), jsonv.M("text", jsonv.Str(t.Text()))))
	}
	for _, c := range t.ToolCalls {
		content = append(content, jsonv.Obj(
			jsonv.M("type", jsonv.Str("tool_use")),
			jsonv.M("id", jsonv.Str(c.ID)),
			jsonv.M("name", jsonv.Str(c.Name)),
			jsonv.M("input", c.ArgumentsValue()),
		))
	}
	return anthropicEnvelope(a, content, jsonv.Str(anthropicStop(t)))
}

func anthropicStream(a Answer) [][]byte {
	t := a.Turn
	out := [][]byte{
		namedEvent("message_start", jsonv.Obj(jsonv.M("type", jsonv.Str("message_start")), jsonv.M("message", anthropicEnvelope(a, nil, jsonv.NullValue())))),
		namedEvent("ping", jsonv.Obj(jsonv.M("type", jsonv.Str("ping")))),
	}
	idx := int64(0)
	block := func(start jsonv.Value, deltas []jsonv.Value) {
		out = append(out, namedEvent("content_block_start", jsonv.Obj(
			jsonv.M("type", jsonv.Str("content_block_start")),
			jsonv.M("index", jsonv.Int(idx)),
			jsonv.M("content_block", start),
		)))
		for _, d := range deltas {
			out = append(out, namedEvent("content_block_delta", jsonv.Obj(
				jsonv.M("type", jsonv.Str("content_block_delta")),
				jsonv.M("index", jsonv.Int(idx)),
				jsonv.M("delta", d),
			)))
		}
		out = append(out, namedEvent("content_block_stop", jsonv.Obj(
			jsonv.M("type", jsonv.Str("content_block_stop")),
			jsonv.M("index", jsonv.Int(idx)),
		)))
		idx++
	}
	if hasTextBlock(t) {
		var ds []jsonv.Value
		for _, d := range deltas(t) {
			ds = append(ds, jsonv.Obj(jsonv.M("type", jsonv.Str("text_delta")), jsonv.M("text", jsonv.Str(d))))
		}
		block(jsonv.Obj(jsonv.M("type", jsonv.Str("text")), jsonv.M("text", jsonv.Str(""))), ds)
	}
	for _, c := range t.ToolCalls {
		var ds []jsonv.Value
		for _, p := range SplitArguments(arguments(c.Arguments)) {
			ds = append(ds, jsonv.Obj(jsonv.M("type", jsonv.Str("input_json_delta")), jsonv.M("partial_json", jsonv.Str(p))))
		}
		block(jsonv.Obj(
			jsonv.M("type", jsonv.Str("tool_use")),
			jsonv.M("id", jsonv.Str(c.ID)),
			jsonv.M("name", jsonv.Str(c.Name)),
			jsonv.M("input", jsonv.Obj()),
		), ds)
	}
	out = append(out,
		namedEvent("message_delta", jsonv.Obj(
			jsonv.M("type", jsonv.Str("message_delta")),
			jsonv.M("delta", jsonv.Obj(jsonv.M("stop_reason", jsonv.Str(anthropicStop(t))), jsonv.M("stop_sequence", jsonv.NullValue()))),
			jsonv.M("usage", jsonv.Obj(jsonv.M("output_tokens", jsonv.Int(0)))),
		)),
		namedEvent("message_stop", jsonv.Obj(jsonv.M("type", jsonv.Str("message_stop")))),
	)
	return out
}

// Models is the body of GET /v1/models listing ids: OpenAI's list object,
// or, for an Anthropic client, its page of model objects.
func Models(api API, ids []string, created time.Time) []byte {
	data := make([]jsonv.Value, len(ids))
	var v jsonv.Value
	if api == AnthropicMessages {
		for i, id := range ids {
			data[i] = jsonv.Obj(
				jsonv.M("type", jsonv.Str("model")),
				jsonv.M("id", jsonv.Str(id)),
				jsonv.M("display_name", jsonv.Str(id)),
				jsonv.M("created_at", jsonv.Str(created.UTC().Format(time.RFC3339))),
			)
		}
		first, last := jsonv.NullValue(), jsonv.NullValue()
		if len(ids) > 0 {
			first, last = jsonv.Str(ids[0]), jsonv.Str(ids[len(ids)-1])
		}
		v = jsonv.Obj(jsonv.M("data", jsonv.Arr(data...)), jsonv.M("has_more", jsonv.BoolValue(false)), jsonv.M("first_id", first), jsonv.M("last_id", last))
	} else {
		for i, id := range ids {
			data[i] = jsonv.Obj(
				jsonv.M("id", jsonv.Str(id)),
				jsonv.M("object", jsonv.Str("model")),
				jsonv.M("created", jsonv.Int(created.Unix())),
				jsonv.M("owned_by", jsonv.Str("tracecheck")),
			)
		}
		v = jsonv.Obj(jsonv.M("object", jsonv.Str("list")), jsonv.M("data", jsonv.Arr(data...)))
	}
	return append(v.AppendJSON(nil), '\n')
}
