package wire

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// TestDecodeItemsBound: a request of more messages, parts, tool calls and
// tools than DecodeOptions.MaxItems is refused with 413, on every API;
// one at the bound is read.
func TestDecodeItemsBound(t *testing.T) {
	for _, tc := range []struct {
		api      API
		at, past string
	}{
		{OpenAIChat, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}],"tools":[{"function":{"name":"t"}}]}`,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}],"tools":[{"function":{"name":"t"}},{"function":{"name":"u"}}]}`},
		{AnthropicMessages, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}`,
			`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":[{"type":"text","text":"c"},{"type":"text","text":"d"}]}]}`},
		{OpenAIResponses, `{"model":"m","input":[{"role":"user","content":"a"},{"role":"user","content":"b"},{"role":"user","content":"c"},{"role":"user","content":"d"}]}`,
			`{"model":"m","input":[{"role":"user","content":"a"},{"role":"user","content":"b"},{"role":"user","content":"c"},{"role":"user","content":"d"},{"role":"user","content":"e"}]}`},
	} {
		opt := DecodeOptions{MaxItems: 4}
		if _, e := DecodeWith(tc.api, []byte(tc.at), opt); e != nil {
			t.Errorf("%s at the bound: %v", tc.api, e)
		}
		_, e := DecodeWith(tc.api, []byte(tc.past), opt)
		if e == nil || e.Status != 413 || !strings.Contains(e.Message, "more than 4 messages, content parts, tool calls and tools") {
			t.Errorf("%s past the bound: %v", tc.api, e)
		}
	}
}

// TestAppendJSONIsJsonvs: the text a tool call's arguments make is what
// jsonv.Parse(args).AppendJSON writes, for every kind of value and
// spelling.
func TestAppendJSONIsJsonvs(t *testing.T) {
	for _, in := range []string{
		`{"a" : [1, -0, 0.5, 1e15, 1E2, -1.5e-7, 12345678901234567890, 1e16, 0e0, 2.50]}`,
		`"plain"`, `"esc\"aped\\ \/ \u00e9 \u2028 \ud83d\ude00 \n\t\u0001 \u007f"`, `{"k\u00e9y":"v","\n":null}`,
		`[true,false,null,[],{},[[{}]],""]`, `  { "sp" :  "aces" , "n" : [ 1 , 2 ] }  `, `-12.0`, `123`, `{"x":{"y":{"z":[0.1,0.2,0.30000000000000004]}}}`,
	} {
		want, err := jsonv.Parse([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		d := newDecoder(DecodeOptions{}, []byte(in))
		got, e := d.appendJSON([]byte("x "), rawOf([]byte(in)))
		if e != nil || string(got) != "x "+string(want.AppendJSON(nil)) {
			t.Errorf("%s:\n got %s (%v)\nwant x %s", in, got, e, want.AppendJSON(nil))
		}
	}
}

// TestErrorsQuoteShort: an error message quotes what the client sent cut
// short, whatever its length.
func TestErrorsQuoteShort(t *testing.T) {
	long := strings.Repeat("é", 100_000)
	for _, tc := range []struct {
		api  API
		body string
	}{
		{OpenAIChat, `{"model":"m","messages":[{"role":"` + long + `"}]}`},
		{OpenAIChat, `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f"}}]},{"role":"tool","tool_call_id":"` + long + `","content":"x"}]}`},
		{OpenAIChat, `{"model":"m","messages":[{"role":"assistant","tool_calls":[` + strings.Repeat(`{"id":"`+long[:200]+`","function":{"name":"f"}},`, 50) + `{"id":"z","function":{"name":"f"}}]}]}`},
		{AnthropicMessages, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + long + `"}]}]}`},
		{OpenAIResponses, `{"model":"m","previous_response_id":"` + long + `","input":"x"}`},
		{OpenAIResponses, `{"model":"m","input":[{"type":"function_call_output","call_id":"` + long + `","output":"x"}]}`},
	} {
		_, e := Decode(tc.api, []byte(tc.body))
		if e == nil {
			t.Fatalf("%s: no error", tc.body[:60])
		}
		if len(e.Message) > 1000 || !strings.Contains(e.Message, "…") {
			t.Errorf("%s: a message of %d bytes: %.300s", tc.api, len(e.Message), e.Message)
		}
	}
	if got := Short("short"); got != "short" {
		t.Errorf("Short(short) = %q", got)
	}
	if got := Short(long); got != strings.Repeat("é", ShortRunes)+fmt.Sprintf("… (%d bytes)", len(long)) {
		t.Errorf("Short(long) = %q", got)
	}
}

// TestWalksReadEscapesRight: the walks find each member and element past
// strings ending in backslashes and holding escaped quotes, whether they
// read a container's text or step over it by the spans the check
// recorded.
func TestWalksReadEscapesRight(t *testing.T) {
	obj := ` { "a\\" : "x\\\\" , "q\"" :["\"]", "\\\\\"", {"k":"]}"}], "n":-1.5e3,"t" :true, "z":{}} `
	k := new(checker)
	spanned, err := k.check([]byte(obj))
	if err != nil {
		t.Fatal(err)
	}
	if len(k.ix.spans) != 4 {
		t.Fatalf("spans %v: want the 4 containers", k.ix.spans)
	}
	for name, root := range map[string]val{"read": rawOf([]byte(obj)), "spans": spanned} {
		var keys, values []string
		var arr val
		root.eachMember(func(k []byte, v val) bool {
			keys, values = append(keys, string(k)), append(values, string(v.b))
			if v.Kind() == jsonv.Array {
				arr = v
			}
			return true
		})
		wantKeys := []string{`a\\`, `q\"`, "n", "t", "z"}
		wantValues := []string{`"x\\\\"`, `["\"]", "\\\\\"", {"k":"]}"}]`, "-1.5e3", "true", "{}"}
		if strings.Join(keys, "|") != strings.Join(wantKeys, "|") || strings.Join(values, "|") != strings.Join(wantValues, "|") {
			t.Errorf("%s: members %q %q", name, keys, values)
		}
		var elems []string
		arr.eachElement(func(v val) bool { elems = append(elems, string(v.b)); return true })
		if strings.Join(elems, "|") != `"\"]"|"\\\\\""|{"k":"]}"}` {
			t.Errorf("%s: elements %q", name, elems)
		}
		var f [2]val
		root.pick(f[:], `q"`, "t")
		if string(f[0].b) != wantValues[1] || string(f[1].b) != "true" {
			t.Errorf("%s: pick: %q %q", name, f[0].b, f[1].b)
		}
	}
}

// TestDecodeIsLinearInEscapes: a body of millions of escapes, which every
// member lookup has to skip, decodes in about the time of one pass over it
// (milliseconds; the bound below is a safety net hundreds of times
// larger). A walk that looked for a string's end again from each escape
// took hours over it.
func TestDecodeIsLinearInEscapes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an 8 MiB body")
	}
	esc := strings.Repeat(`\n`, 4<<20)
	body := []byte(`{"messages":[{"content":"` + esc + `","role":"user"}],"stream":false,"model":"m"}`)
	done := make(chan *Request, 1)
	go func() {
		req, e := Decode(OpenAIChat, body)
		if e != nil {
			t.Error(e)
		}
		done <- req
	}()
	select {
	case req := <-done:
		if req != nil && len(req.Messages[0].Text) != 4<<20 {
			t.Errorf("text of %d bytes", len(req.Messages[0].Text))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("decoding 8 MiB of escapes takes more than 30 s")
	}
}

// TestToolResultsNestBounded: tool_result blocks nested in one another's
// content are read up to MaxNesting deep (their text as before), and a
// request nesting them deeper is refused: reading each level goes over
// the levels inside it again.
func TestToolResultsNestBounded(t *testing.T) {
	nest := func(depth int) []byte {
		return []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":` +
			strings.Repeat(`[{"type":"tool_result","content":`, depth-1) + `"deep"` + strings.Repeat(`}]`, depth-1) + `}]}]}`)
	}
	req, e := Decode(AnthropicMessages, nest(MaxNesting))
	if e != nil || req.Messages[1].Text != "deep" {
		t.Errorf("nested %d deep: %v %+v", MaxNesting, e, req)
	}
	if _, e := Decode(AnthropicMessages, nest(MaxNesting+1)); e == nil || e.Status != 400 || !strings.Contains(e.Message, "more than 8 deep") {
		t.Errorf("nested %d deep: %v", MaxNesting+1, e)
	}
}
