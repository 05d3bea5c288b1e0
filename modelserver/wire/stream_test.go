package wire

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// openAIStreamValues and openAICompletionValues are openAIStream and
// openAICompletion as they were before issue 25, each event a tree of
// Values: the direct writers must give the same bytes.
func openAIStreamValues(a Answer, includeUsage bool) [][]byte {
	chunk := func(delta jsonv.Value, finish jsonv.Value) []byte {
		ms := []jsonv.Member{
			jsonv.M("id", jsonv.Str(a.ID)),
			jsonv.M("object", jsonv.Str("chat.completion.chunk")),
			jsonv.M("created", jsonv.Int(a.Created)),
			jsonv.M("model", jsonv.Str(a.Model)),
			jsonv.M("system_fingerprint", jsonv.NullValue()),
			jsonv.M("choices", jsonv.Arr(jsonv.Obj(
				jsonv.M("index", jsonv.Int(0)),
				jsonv.M("delta", delta),
				jsonv.M("logprobs", jsonv.NullValue()),
				jsonv.M("finish_reason", finish),
			))),
		}
		if includeUsage {
			ms = append(ms, jsonv.M("usage", jsonv.NullValue()))
		}
		return dataEvent(jsonv.Obj(ms...))
	}
	null := jsonv.NullValue()
	out := [][]byte{chunk(jsonv.Obj(jsonv.M("role", jsonv.Str("assistant")), jsonv.M("content", jsonv.Str(""))), null)}
	for _, d := range deltas(a.Turn) {
		out = append(out, chunk(jsonv.Obj(jsonv.M("content", jsonv.Str(d))), null))
	}
	for i, c := range a.Turn.ToolCalls {
		call := func(ms ...jsonv.Member) jsonv.Value {
			return jsonv.Obj(jsonv.M("tool_calls", jsonv.Arr(jsonv.Obj(append([]jsonv.Member{jsonv.M("index", jsonv.Int(int64(i)))}, ms...)...))))
		}
		out = append(out, chunk(call(
			jsonv.M("id", jsonv.Str(c.ID)),
			jsonv.M("type", jsonv.Str("function")),
			jsonv.M("function", jsonv.Obj(jsonv.M("name", jsonv.Str(c.Name)), jsonv.M("arguments", jsonv.Str("")))),
		), null))
		for _, p := range SplitArguments(arguments(c.Arguments)) {
			out = append(out, chunk(call(jsonv.M("function", jsonv.Obj(jsonv.M("arguments", jsonv.Str(p))))), null))
		}
	}
	out = append(out, chunk(jsonv.Obj(), jsonv.Str(openAIFinish(a.Turn))))
	if includeUsage {
		out = append(out, dataEvent(jsonv.Obj(
			jsonv.M("id", jsonv.Str(a.ID)),
			jsonv.M("object", jsonv.Str("chat.completion.chunk")),
			jsonv.M("created", jsonv.Int(a.Created)),
			jsonv.M("model", jsonv.Str(a.Model)),
			jsonv.M("system_fingerprint", jsonv.NullValue()),
			jsonv.M("choices", jsonv.Arr()),
			jsonv.M("usage", zeroUsageOpenAI()),
		)))
	}
	return append(out, []byte("data: [DONE]\n\n"))
}

func openAICompletionValues(a Answer) jsonv.Value {
	t := a.Turn
	text := t.Text()
	content := jsonv.Str(text)
	if text == "" && len(t.ToolCalls) > 0 {
		content = jsonv.NullValue() // as the API sends it for a tool-calls-only answer
	}
	msg := []jsonv.Member{
		jsonv.M("role", jsonv.Str("assistant")),
		jsonv.M("content", content),
		jsonv.M("refusal", jsonv.NullValue()),
	}
	if len(t.ToolCalls) > 0 {
		calls := make([]jsonv.Value, len(t.ToolCalls))
		for i, c := range t.ToolCalls {
			calls[i] = jsonv.Obj(
				jsonv.M("id", jsonv.Str(c.ID)),
				jsonv.M("type", jsonv.Str("function")),
				jsonv.M("function", jsonv.Obj(
					jsonv.M("name", jsonv.Str(c.Name)),
					jsonv.M("arguments", jsonv.Str(arguments(c.Arguments))),
				)),
			)
		}
		msg = append(msg, jsonv.M("tool_calls", jsonv.Arr(calls...)))
	}
	return jsonv.Obj(
		jsonv.M("id", jsonv.Str(a.ID)),
		jsonv.M("object", jsonv.Str("chat.completion")),
		jsonv.M("created", jsonv.Int(a.Created)),
		jsonv.M("model", jsonv.Str(a.Model)),
		jsonv.M("choices", jsonv.Arr(jsonv.Obj(
			jsonv.M("index", jsonv.Int(0)),
			jsonv.M("message", jsonv.Obj(msg...)),
			jsonv.M("logprobs", jsonv.NullValue()),
			jsonv.M("finish_reason", jsonv.Str(openAIFinish(t))),
		))),
		jsonv.M("usage", zeroUsageOpenAI()),
		jsonv.M("system_fingerprint", jsonv.NullValue()),
	)
}

func TestOpenAIMatchesValues(t *testing.T) {
	args := jsonv.Obj(jsonv.M("query", jsonv.Str("observe \"events\", not hidden state é 😀")), jsonv.M("n", jsonv.Int(3)))
	turns := []fakemodel.Turn{
		{},
		{Content: "I will look it up."},
		{Chunks: []string{"Observe ", "events, ", "not \"hidden\" state\n", "é"}},
		{Content: "x", ToolCalls: []reducer.ToolCall{{ID: "call-1", Name: "lookup", Arguments: args}}},
		{Chunks: []string{"a", "b"}, ToolCalls: []reducer.ToolCall{{ID: "call-1", Name: "lookup", Arguments: args}, {ID: "c\"2", Name: "n\u00e9", Arguments: jsonv.Obj()}, {ID: "c3", Name: "empty"}}},
	}
	for _, tu := range turns {
		for _, usage := range []bool{false, true} {
			for _, a := range []Answer{{ID: "chatcmpl-tracecheck-001", Created: 1786320001, Model: "m", Turn: tu}, {ID: "id \"q\" é", Created: -5, Model: "", Turn: tu}} {
				if got, want := appendOpenAICompletion([]byte("x"), a), openAICompletionValues(a).AppendJSON([]byte("x")); !bytes.Equal(got, want) {
					t.Fatalf("%+v: whole\n%s\nwant\n%s", a, got, want)
				}
				got, _ := openAIStream(nil, a, usage)
				want := openAIStreamValues(a, usage)
				if len(got) != len(want) {
					t.Fatalf("%+v usage=%v: %d events, want %d", a, usage, len(got), len(want))
				}
				for i := range got {
					if !bytes.Equal(got[i], want[i]) {
						t.Fatalf("%+v usage=%v: event %d\n%s\nwant\n%s", a, usage, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestRenderIntoReusesBuffer: answers rendered one after another into one
// buffer (too small at first, then holding the last answer's bytes) are
// the bytes Render gives each, whole and streamed: nothing of an answer
// before is left in the next.
func TestRenderIntoReusesBuffer(t *testing.T) {
	args := jsonv.Obj(jsonv.M("query", jsonv.Str(strings.Repeat("long arguments ", 40))))
	turns := []fakemodel.Turn{
		{Content: strings.Repeat("a long answer, ", 100), ToolCalls: []reducer.ToolCall{{ID: "call-1", Name: "lookup", Arguments: args}}},
		{Content: "short"},
		{Chunks: []string{"Observe ", "events, ", "not hidden state."}, ToolCalls: []reducer.ToolCall{{ID: "call-1", Name: "lookup", Arguments: args}}},
		{Chunks: []string{"x"}},
		{},
	}
	for _, stream := range []bool{false, true} {
		req := &Request{API: OpenAIChat, Model: "m", Stream: stream, IncludeUsage: stream}
		var buf []byte
		for i, tu := range turns {
			a := Answer{ID: fmt.Sprintf("chatcmpl-tracecheck-%03d", i+1), Created: int64(i), Model: "m", Turn: tu}
			want := Render(req, a)
			got, used := RenderInto(buf, req, a)
			if used == nil {
				t.Fatalf("stream=%v turn %d: no buffer returned", stream, i)
			}
			if got.ContentType != want.ContentType || !bytes.Equal(got.Body, want.Body) || len(got.Events) != len(want.Events) {
				t.Fatalf("stream=%v turn %d: %q %q %d events, want %q %q %d", stream, i, got.ContentType, got.Body, len(got.Events), want.ContentType, want.Body, len(want.Events))
			}
			for k := range got.Events {
				if !bytes.Equal(got.Events[k], want.Events[k]) {
					t.Fatalf("stream=%v turn %d event %d: %q, want %q", stream, i, k, got.Events[k], want.Events[k])
				}
			}
			buf = used
		}
	}
}
