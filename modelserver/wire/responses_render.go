package wire

import (
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// This file renders scripted answers as OpenAI Responses API responses.
//
// A turn's output is a message item (when the turn has text, or nothing
// else) followed by one function_call item per tool call, whose call_id is
// the scripted call id. Item ids are derived from the response id: for
// resp_tracecheck_001, msg_tracecheck_001_0, fc_tracecheck_001_1, … (the
// suffix is the item's output index).
//
// Whole, the answer is one response object. Streamed, it is the named
// events the API sends, each with its type and a sequence_number counting
// from 0: response.created and response.in_progress (the response in
// progress, no output), then per output item response.output_item.added,
// for a message response.content_part.added, one response.output_text.delta
// per delta, response.output_text.done and response.content_part.done, for
// a function call one response.function_call_arguments.delta per piece of
// SplitArguments and response.function_call_arguments.done, then
// response.output_item.done; last response.completed with the whole
// response and its usage (Codex fails a stream that ends without it).

// renderResponses renders a as the Responses API answer to req.
func renderResponses(req *Request, a Answer) Response {
	if req.Stream {
		return Response{ContentType: ContentSSE, Events: responsesStream(req, a)}
	}
	out := responsesOutput(a)
	items := make([]jsonv.Value, len(out))
	for i, o := range out {
		items[i] = o.done()
	}
	return Response{ContentType: ContentJSON, Body: append(responseObject(req, a, true, items).AppendJSON(nil), '\n')}
}

// outputItem is one item of a response's output.
type outputItem struct {
	id   string
	text string            // a message's text
	call *reducer.ToolCall // a function call; nil for a message
}

// responsesOutput lists the output items of a's turn.
func responsesOutput(a Answer) []outputItem {
	t := a.Turn
	base := strings.TrimPrefix(a.ID, "resp_")
	var out []outputItem
	id := func(prefix string) string { return prefix + "_" + base + "_" + strconv.Itoa(len(out)) }
	if hasTextBlock(t) {
		out = append(out, outputItem{id: id("msg"), text: t.Text()})
	}
	for k := range t.ToolCalls {
		out = append(out, outputItem{id: id("fc"), call: &t.ToolCalls[k]})
	}
	return out
}

// done is the item complete, as response.output_item.done and the
// response's output carry it.
func (o outputItem) done() jsonv.Value {
	if o.call != nil {
		return o.functionCall(arguments(o.call.Arguments), "completed")
	}
	return o.message([]jsonv.Value{outputTextPart(o.text)}, "completed")
}

// added is the item as response.output_item.added carries it: no content
// yet, no arguments yet.
func (o outputItem) added() jsonv.Value {
	if o.call != nil {
		return o.functionCall("", "in_progress")
	}
	return o.message(nil, "in_progress")
}

func (o outputItem) message(content []jsonv.Value, status string) jsonv.Value {
	return jsonv.Obj(
		jsonv.M("id", jsonv.Str(o.id)),
		jsonv.M("type", jsonv.Str("message")),
		jsonv.M("status", jsonv.Str(status)),
		jsonv.M("content", jsonv.Arr(content...)),
		jsonv.M("role", jsonv.Str("assistant")),
	)
}

func (o outputItem) functionCall(args, status string) jsonv.Value {
	return jsonv.Obj(
		jsonv.M("id", jsonv.Str(o.id)),
		jsonv.M("type", jsonv.Str("function_call")),
		jsonv.M("status", jsonv.Str(status)),
		jsonv.M("arguments", jsonv.Str(args)),
		jsonv.M("call_id", jsonv.Str(o.call.ID)),
		jsonv.M("name", jsonv.Str(o.call.Name)),
	)
}

// outputTextPart is a message's output_text content part.
func outputTextPart(text string) jsonv.Value {
	return jsonv.Obj(
		jsonv.M("type", jsonv.Str("output_text")),
		jsonv.M("annotations", jsonv.Arr()),
		jsonv.M("logprobs", jsonv.Arr()),
		jsonv.M("text", jsonv.Str(text)),
	)
}

func zeroUsageResponses() jsonv.Value {
	return jsonv.Obj(
		jsonv.M("input_tokens", jsonv.Int(0)),
		jsonv.M("input_tokens_details", jsonv.Obj(jsonv.M("cached_tokens", jsonv.Int(0)))),
		jsonv.M("output_tokens", jsonv.Int(0)),
		jsonv.M("output_tokens_details", jsonv.Obj(jsonv.M("reasoning_tokens", jsonv.Int(0)))),
		jsonv.M("total_tokens", jsonv.Int(0)),
	)
}

// responseObject is the response: completed with output and usage, or in
// progress with neither. It echoes what the request set of instructions,
// tool_choice, parallel_tool_calls and store, as the API does, and the
// API's defaults for the rest.
func responseObject(req *Request, a Answer, completed bool, output []jsonv.Value) jsonv.Value {
	status, completedAt, usage := jsonv.Str("in_progress"), jsonv.NullValue(), jsonv.NullValue()
	if completed {
		status, completedAt, usage = jsonv.Str("completed"), jsonv.Int(a.Created), zeroUsageResponses()
	}
	echo := func(key string, k jsonv.Kind, def jsonv.Value) jsonv.Value {
		if v, ok := req.Body.Get(key); ok && (v.Kind() == k || k == jsonv.Invalid && v.Kind() != jsonv.Null) {
			return v
		}
		return def
	}
	return jsonv.Obj(
		jsonv.M("id", jsonv.Str(a.ID)),
		jsonv.M("object", jsonv.Str("response")),
		jsonv.M("created_at", jsonv.Int(a.Created)),
		jsonv.M("status", status),
		jsonv.M("background", jsonv.BoolValue(false)),
		jsonv.M("completed_at", completedAt),
		jsonv.M("error", jsonv.NullValue()),
		jsonv.M("incomplete_details", jsonv.NullValue()),
		jsonv.M("instructions", echo("instructions", jsonv.String, jsonv.NullValue())),
		jsonv.M("max_output_tokens", jsonv.NullValue()),
		jsonv.M("model", jsonv.Str(a.Model)),
		jsonv.M("output", jsonv.Arr(output...)),
		jsonv.M("parallel_tool_calls", echo("parallel_tool_calls", jsonv.Bool, jsonv.BoolValue(true))),
		jsonv.M("previous_response_id", jsonv.NullValue()),
		jsonv.M("reasoning", jsonv.Obj(jsonv.M("effort", jsonv.NullValue()), jsonv.M("summary", jsonv.NullValue()))),
		jsonv.M("store", echo("store", jsonv.Bool, jsonv.BoolValue(true))),
		jsonv.M("temperature", jsonv.Int(1)),
		jsonv.M("text", jsonv.Obj(jsonv.M("format", jsonv.Obj(jsonv.M("type", jsonv.Str("text")))), jsonv.M("verbosity", jsonv.Str("medium")))),
		jsonv.M("tool_choice", echo("tool_choice", jsonv.Invalid, jsonv.Str("auto"))),
		jsonv.M("tools", jsonv.Arr()),
		jsonv.M("top_p", jsonv.Int(1)),
		jsonv.M("truncation", jsonv.Str("disabled")),
		jsonv.M("usage", usage),
		jsonv.M("user", jsonv.NullValue()),
		jsonv.M("metadata", jsonv.Obj()),
	)
}

func responsesStream(req *Request, a Answer) [][]byte {
	var out [][]byte
	seq := int64(0)
	emit := func(typ string, ms ...jsonv.Member) {
		head := []jsonv.Member{jsonv.M("type", jsonv.Str(typ)), jsonv.M("sequence_number", jsonv.Int(seq))}
		out = append(out, namedEvent(typ, jsonv.Obj(append(head, ms...)...)))
		seq++
	}
	emit("response.created", jsonv.M("response", responseObject(req, a, false, nil)))
	emit("response.in_progress", jsonv.M("response", responseObject(req, a, false, nil)))
	items := responsesOutput(a)
	done := make([]jsonv.Value, len(items))
	for i, o := range items {
		at := []jsonv.Member{jsonv.M("item_id", jsonv.Str(o.id)), jsonv.M("output_index", jsonv.Int(int64(i)))}
		with := func(ms ...jsonv.Member) []jsonv.Member { return append(append([]jsonv.Member(nil), at...), ms...) }
		emit("response.output_item.added", jsonv.M("output_index", jsonv.Int(int64(i))), jsonv.M("item", o.added()))
		if o.call == nil {
			part := jsonv.M("content_index", jsonv.Int(0))
			emit("response.content_part.added", with(part, jsonv.M("part", outputTextPart("")))...)
			var ds []string
			if o.text != "" {
				ds = deltas(a.Turn)
			}
			for _, d := range ds {
				emit("response.output_text.delta", with(part, jsonv.M("delta", jsonv.Str(d)), jsonv.M("logprobs", jsonv.Arr()))...)
			}
			emit("response.output_text.done", with(part, jsonv.M("text", jsonv.Str(o.text)), jsonv.M("logprobs", jsonv.Arr()))...)
			emit("response.content_part.done", with(part, jsonv.M("part", outputTextPart(o.text)))...)
		} else {
			args := arguments(o.call.Arguments)
			for _, p := range SplitArguments(args) {
				emit("response.function_call_arguments.delta", with(jsonv.M("delta", jsonv.Str(p)))...)
			}
			emit("response.function_call_arguments.done", with(jsonv.M("name", jsonv.Str(o.call.Name)), jsonv.M("arguments", jsonv.Str(args)))...)
		}
		done[i] = o.done()
		emit("response.output_item.done", jsonv.M("output_index", jsonv.Int(int64(i))), jsonv.M("item", done[i]))
	}
	emit("response.completed", jsonv.M("response", responseObject(req, a, true, done)))
	return out
}
