package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// codexRequest is shaped as Codex 0.171 sends POST /v1/responses (store
// false, the whole conversation as input, its tool kinds), with every item
// kind a Responses input can hold.
const codexRequest = `{
 "model": "gpt-5-codex",
 "instructions": "You are Codex.",
 "input": [
  {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions instructions>"}]},
  {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>"}, {"type": "input_text", "text": "Fix the bug."}, {"type": "input_image", "image_url": "data:image/png;base64,AA=="}]},
  {"type": "reasoning", "summary": [], "content": null, "encrypted_content": "gAAA"},
  {"type": "message", "role": "assistant", "id": "msg_1", "content": [{"type": "output_text", "text": "Looking."}], "phase": "commentary"},
  {"type": "function_call", "id": "fc_1", "name": "shell", "namespace": null, "arguments": "{\"command\":[\"ls\"]}", "call_id": "call-1"},
  {"type": "function_call", "name": "read", "arguments": "{}", "call_id": "call-2"},
  {"type": "function_call_output", "call_id": "call-1", "output": "a.go\nb.go"},
  {"type": "function_call_output", "call_id": "call-2", "output": [{"type": "input_text", "text": "line 1"}, {"type": "input_image", "image_url": "x"}]},
  {"type": "custom_tool_call", "status": "completed", "call_id": "call-3", "name": "apply_patch", "input": "*** Begin Patch"},
  {"type": "custom_tool_call_output", "call_id": "call-3", "output": "Done!"},
  {"type": "local_shell_call", "call_id": "call-4", "status": "completed", "action": {"type": "exec", "command": ["pwd"], "timeout_ms": null, "working_directory": null, "env": null, "user": null}},
  {"type": "function_call_output", "call_id": "call-4", "output": "/w"},
  {"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "go"}},
  {"role": "user", "content": "Thanks."},
  {"type": "compaction", "encrypted_content": "x"}
 ],
 "tools": [
  {"type": "function", "name": "shell", "description": "Runs a command.", "strict": false, "parameters": {"type": "object", "properties": {}}},
  {"type": "custom", "name": "apply_patch", "description": "Patch.", "format": {"type": "grammar", "syntax": "lark", "definition": "start: x"}},
  {"type": "local_shell"},
  {"type": "web_search", "external_web_access": false},
  {"type": "namespace", "name": "mcp__docs", "description": "Docs.", "tools": [{"type": "function", "name": "search", "parameters": {}}]},
  {"type": "image_generation", "output_format": "png"},
  {"type": "tool_search", "execution": "client", "description": "Find tools.", "parameters": {}},
  {"type": "mcp", "server_label": "deepwiki", "server_url": "https://example.invalid/mcp"},
  {"type": "file_search", "vector_store_ids": ["vs_1"]}
 ],
 "tool_choice": "auto",
 "parallel_tool_calls": false,
 "reasoning": null,
 "store": false,
 "stream": true,
 "include": ["reasoning.encrypted_content"],
 "prompt_cache_key": "0199-thread",
 "text": {"verbosity": "low"},
 "client_metadata": {"x-codex-installation-id": "i"},
 "service_tier": "priority"
}`

func TestDecodeResponses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		body    string
		stream  bool
		msgs    []Message
		tools   []string
		wantErr string // the error body, "" for none
		withReq bool   // the error comes with the decoded request
	}{
		{name: "codex", body: codexRequest, stream: true,
			msgs: []Message{
				{Role: RoleSystem, Text: "You are Codex."},
				{Role: RoleDeveloper, Text: "<permissions instructions>"},
				{Role: RoleUser, Text: "<environment_context>\nFix the bug.\n[image]"},
				{Role: RoleAssistant, ToolCalls: []string{"call-1", "call-2"}, Text: "Looking.\nshell {\"command\":[\"ls\"]}\nread {}"},
				{Role: RoleTool, Answers: "call-1", Text: "a.go\nb.go"},
				{Role: RoleTool, Answers: "call-2", Text: "line 1\n[image]"},
				{Role: RoleAssistant, ToolCalls: []string{"call-3"}, Text: "apply_patch *** Begin Patch"},
				{Role: RoleTool, Answers: "call-3", Text: "Done!"},
				{Role: RoleAssistant, ToolCalls: []string{"call-4"}, Text: `local_shell {"type":"exec","command":["pwd"],"timeout_ms":null,"working_directory":null,"env":null,"user":null}`},
				{Role: RoleTool, Answers: "call-4", Text: "/w"},
				{Role: RoleUser, Text: "Thanks."},
			},
			tools: []string{"shell", "apply_patch", "local_shell", "web_search", "mcp__docs", "image_generation", "tool_search", "mcp", "file_search"},
		},
		{name: "string input", body: `{"model":"m","input":"hi"}`, msgs: []Message{{Role: RoleUser, Text: "hi"}}},
		{name: "instructions and nulls", body: `{"model":"m","instructions":"Be brief.","input":"hi","stream":null,"tools":null,"previous_response_id":null,"conversation":null}`,
			msgs: []Message{{Role: RoleSystem, Text: "Be brief."}, {Role: RoleUser, Text: "hi"}}},
		{name: "empty instructions add no message", body: `{"model":"m","instructions":"","input":[{"role":"system","content":"s"},{"role":"user","content":[]}]}`,
			msgs: []Message{{Role: RoleSystem, Text: "s"}, {Role: RoleUser}}},
		{name: "a call without an assistant message before it", body: `{"model":"m","input":[{"role":"user","content":"go"},{"type":"function_call","call_id":"c","name":"f","arguments":""},{"type":"function_call_output","call_id":"c","output":""}]}`,
			msgs: []Message{{Role: RoleUser, Text: "go"}, {Role: RoleAssistant, ToolCalls: []string{"c"}, Text: "f "}, {Role: RoleTool, Answers: "c"}}},
		{name: "a reasoning item does not break a run of calls", body: `{"model":"m","input":[{"role":"assistant","content":"a"},{"type":"reasoning","summary":[]},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"reasoning","summary":[]},{"type":"function_call","call_id":"d","name":"g","arguments":"{}"},{"type":"function_call_output","call_id":"d","output":"D"},{"type":"function_call_output","call_id":"c","output":"C"}]}`,
			msgs: []Message{{Role: RoleAssistant, ToolCalls: []string{"c", "d"}, Text: "a\nf {}\ng {}"}, {Role: RoleTool, Answers: "d", Text: "D"}, {Role: RoleTool, Answers: "c", Text: "C"}}},
		{name: "two assistant messages stay two", body: `{"model":"m","input":[{"role":"assistant","content":"a"},{"role":"assistant","content":"b"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"custom_tool_call_output","call_id":"c","output":"x"}]}`,
			msgs: []Message{{Role: RoleAssistant, Text: "a"}, {Role: RoleAssistant, ToolCalls: []string{"c"}, Text: "b\nf {}"}, {Role: RoleTool, Answers: "c", Text: "x"}}},
		{name: "local shell items by id", body: `{"model":"m","input":[{"type":"local_shell_call","id":"ls-1","status":"completed","action":{"type":"exec","command":["id"]}},{"type":"local_shell_call_output","id":"ls-1","output":"uid=0"}]}`,
			msgs: []Message{{Role: RoleAssistant, ToolCalls: []string{"ls-1"}, Text: `local_shell {"type":"exec","command":["id"]}`}, {Role: RoleTool, Answers: "ls-1", Text: "uid=0"}}},

		// the tool-call protocol, as the API enforces it
		{name: "a call without its output", body: `{"model":"m","input":[{"role":"user","content":"go"},{"type":"function_call","call_id":"call-a","name":"f","arguments":"{}"},{"type":"function_call","call_id":"call-b","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"call-a","output":"a"},{"role":"user","content":"and?"}]}`,
			wantErr: `{"error":{"message":"No tool output found for function call call-b.","type":"invalid_request_error","param":"input","code":null}}`, withReq: true,
			msgs: []Message{{Role: RoleUser, Text: "go"}, {Role: RoleAssistant, ToolCalls: []string{"call-a", "call-b"}, Text: "f {}\nf {}"}, {Role: RoleTool, Answers: "call-a", Text: "a"}, {Role: RoleUser, Text: "and?"}}},
		{name: "a custom tool call without its output", body: `{"model":"m","input":[{"type":"custom_tool_call","call_id":"ct-1","name":"apply_patch","input":"p"}]}`,
			wantErr: `{"error":{"message":"No tool output found for custom tool call ct-1.","type":"invalid_request_error","param":"input","code":null}}`, withReq: true,
			msgs: []Message{{Role: RoleAssistant, ToolCalls: []string{"ct-1"}, Text: "apply_patch p"}}},
		{name: "a local shell call without its output", body: `{"model":"m","input":[{"type":"local_shell_call","call_id":"ls-1","status":"completed","action":{}}]}`,
			wantErr: `{"error":{"message":"No tool output found for local shell call ls-1.","type":"invalid_request_error","param":"input","code":null}}`, withReq: true,
			msgs: []Message{{Role: RoleAssistant, ToolCalls: []string{"ls-1"}, Text: "local_shell {}"}}},
		{name: "an output without its call", body: `{"model":"m","input":[{"role":"user","content":"go"},{"type":"function_call_output","call_id":"call-x","output":"x"}]}`,
			wantErr: `{"error":{"message":"No tool call found for function call output with call_id call-x.","type":"invalid_request_error","param":"input","code":null}}`, withReq: true,
			msgs: []Message{{Role: RoleUser, Text: "go"}, {Role: RoleTool, Answers: "call-x", Text: "x"}}},
		{name: "an output before its call is the first break", body: `{"model":"m","input":[{"type":"custom_tool_call_output","call_id":"c","output":"x"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}]}`,
			wantErr: `{"error":{"message":"No tool call found for custom tool call output with call_id c.","type":"invalid_request_error","param":"input","code":null}}`, withReq: true,
			msgs: []Message{{Role: RoleTool, Answers: "c", Text: "x"}, {Role: RoleAssistant, ToolCalls: []string{"c"}, Text: "f {}"}}},
		{name: "a call before an unrelated output is the first break", body: `{"model":"m","input":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"local_shell_call_output","call_id":"z","output":"x"}]}`,
			wantErr: `{"error":{"message":"No tool output found for function call c.","type":"invalid_request_error","param":"input","code":null}}`, withReq: true,
			msgs: []Message{{Role: RoleAssistant, ToolCalls: []string{"c"}, Text: "f {}"}, {Role: RoleTool, Answers: "z", Text: "x"}}},

		// no state kept
		{name: "previous_response_id", body: `{"model":"m","input":"hi","previous_response_id":"resp_abc"}`,
			wantErr: `{"error":{"message":"Previous response with id 'resp_abc' not found: the scripted model server keeps no response state, so previous_response_id cannot be used; send the whole conversation in 'input' on every request (with store: false, as Codex does).","type":"invalid_request_error","param":"previous_response_id","code":"previous_response_not_found"}}`},
		{name: "previous_response_id not a string", body: `{"model":"m","input":"hi","previous_response_id":7}`,
			wantErr: `{"error":{"message":"Invalid type for 'previous_response_id': expected a string, but got a JSON number instead.","type":"invalid_request_error","param":"previous_response_id","code":"invalid_type"}}`},
		{name: "conversation", body: `{"model":"m","input":"hi","conversation":"conv_1"}`,
			wantErr: `{"error":{"message":"The scripted model server keeps no conversation state, so 'conversation' cannot be used; send the whole conversation in 'input' on every request (with store: false, as Codex does).","type":"invalid_request_error","param":"conversation","code":null}}`},

		// the request's fields
		{name: "no model", body: `{"input":"hi"}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'model'.","type":"invalid_request_error","param":"model","code":"missing_required_parameter"}}`},
		{name: "model not a string", body: `{"model":5,"input":"hi"}`,
			wantErr: `{"error":{"message":"Invalid type for 'model': expected a string, but got a JSON number instead.","type":"invalid_request_error","param":"model","code":"invalid_type"}}`},
		{name: "empty model", body: `{"model":"","input":"hi"}`,
			wantErr: `{"error":{"message":"Invalid 'model': empty string. Expected a string with minimum length 1, but got an empty string instead.","type":"invalid_request_error","param":"model","code":"empty_string"}}`},
		{name: "stream not a boolean", body: `{"model":"m","input":"hi","stream":"yes"}`,
			wantErr: `{"error":{"message":"Invalid type for 'stream': expected a boolean, but got a JSON string instead.","type":"invalid_request_error","param":"stream","code":null}}`},
		{name: "instructions not a string", body: `{"model":"m","input":"hi","instructions":["x"]}`,
			wantErr: `{"error":{"message":"Invalid type for 'instructions': expected a string, but got a JSON array instead.","type":"invalid_request_error","param":"instructions","code":"invalid_type"}}`},
		{name: "no input", body: `{"model":"m"}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'input'. The scripted model server keeps no state: send the conversation as 'input' (a string or an array of input items).","type":"invalid_request_error","param":"input","code":"missing_required_parameter"}}`},
		{name: "input not an array", body: `{"model":"m","input":{"role":"user","content":"hi"}}`,
			wantErr: `{"error":{"message":"Invalid type for 'input': expected a string or an array of input items, but got a JSON object instead.","type":"invalid_request_error","param":"input","code":"invalid_type"}}`},
		{name: "empty input", body: `{"model":"m","input":[]}`,
			wantErr: `{"error":{"message":"Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead.","type":"invalid_request_error","param":"input","code":"empty_array"}}`},
		{name: "an item not an object", body: `{"model":"m","input":["hi"]}`,
			wantErr: `{"error":{"message":"Invalid type for 'input[0]': expected an object, but got a JSON string instead.","type":"invalid_request_error","param":"input[0]","code":"invalid_type"}}`},
		{name: "an item with neither type nor role", body: `{"model":"m","input":[{"role":"user","content":"a"},{"content":"b"}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'input[1].type'.","type":"invalid_request_error","param":"input[1].type","code":"missing_required_parameter"}}`},
		{name: "an item type not a string", body: `{"model":"m","input":[{"type":1}]}`,
			wantErr: `{"error":{"message":"Invalid type for 'input[0].type': expected a string, but got a JSON number instead.","type":"invalid_request_error","param":"input[0].type","code":"invalid_type"}}`},
		{name: "a message without a role", body: `{"model":"m","input":[{"type":"message","content":"a"}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'input[0].role'.","type":"invalid_request_error","param":"input[0].role","code":"missing_required_parameter"}}`},
		{name: "a message with an unknown role", body: `{"model":"m","input":[{"role":"tool","content":"a"}]}`,
			wantErr: `{"error":{"message":"Invalid value: 'tool'. Supported values are: 'user', 'assistant', 'system', and 'developer'.","type":"invalid_request_error","param":"input[0].role","code":"invalid_value"}}`},
		{name: "a message role not a string", body: `{"model":"m","input":[{"role":["user"],"content":"a"}]}`,
			wantErr: `{"error":{"message":"Invalid value: a JSON array. Supported values are: 'user', 'assistant', 'system', and 'developer'.","type":"invalid_request_error","param":"input[0].role","code":"invalid_value"}}`},
		{name: "a message without content", body: `{"model":"m","input":[{"role":"user"}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'input[0].content'.","type":"invalid_request_error","param":"input[0].content","code":"missing_required_parameter"}}`},
		{name: "content not a string or parts", body: `{"model":"m","input":[{"role":"user","content":5}]}`,
			wantErr: `{"error":{"message":"Invalid type for 'input[0].content': expected a string or an array of content parts, but got a JSON number instead.","type":"invalid_request_error","param":"input[0].content","code":"invalid_type"}}`},
		{name: "a content part not an object", body: `{"model":"m","input":[{"role":"user","content":["a"]}]}`,
			wantErr: `{"error":{"message":"Invalid type for 'input[0].content[0]': expected an object, but got a JSON string instead.","type":"invalid_request_error","param":"input[0].content[0]","code":"invalid_type"}}`},
		{name: "a content part without a type", body: `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"a"},{"text":"b"}]}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'input[0].content[1].type'.","type":"invalid_request_error","param":"input[0].content[1].type","code":"missing_required_parameter"}}`},
		{name: "a text part without text", body: `{"model":"m","input":[{"role":"user","content":[{"type":"input_text"}]}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'input[0].content[0].text'.","type":"invalid_request_error","param":"input[0].content[0].text","code":"missing_required_parameter"}}`},
		{name: "a text part whose text is a number", body: `{"model":"m","input":[{"role":"assistant","content":[{"type":"output_text","text":1}]}]}`,
			wantErr: `{"error":{"message":"Invalid type for 'input[0].content[0].text': expected a string, but got a JSON number instead.","type":"invalid_request_error","param":"input[0].content[0].text","code":"invalid_type"}}`},
		{name: "a call without call_id", body: `{"model":"m","input":[{"type":"function_call","name":"f","arguments":"{}"}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'input[0].call_id'.","type":"invalid_request_error","param":"input[0].call_id","code":"missing_required_parameter"}}`},
		{name: "a call_id not a string", body: `{"model":"m","input":[{"type":"function_call","call_id":7,"name":"f","arguments":"{}"}]}`,
			wantErr: `{"error":{"message":"Invalid type for 'input[0].call_id': expected a string, but got a JSON number instead.","type":"invalid_request_error","param":"input[0].call_id","code":"invalid_type"}}`},
		{name: "an empty call_id", body: `{"model":"m","input":[{"type":"function_call_output","call_id":"","output":"x"}]}`,
			wantErr: `{"error":{"message":"Invalid 'input[0].call_id': empty string. Expected a string with minimum length 1, but got an empty string instead.","type":"invalid_request_error","param":"input[0].call_id","code":"empty_string"}}`},
		{name: "a function call without a name", body: `{"model":"m","input":[{"type":"function_call","call_id":"c","arguments":"{}"}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'input[0].name'.","type":"invalid_request_error","param":"input[0].name","code":"missing_required_parameter"}}`},
		{name: "a function call without arguments", body: `{"model":"m","input":[{"type":"function_call","call_id":"c","name":"f"}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'input[0].arguments'.","type":"invalid_request_error","param":"input[0].arguments","code":"missing_required_parameter"}}`},
		{name: "arguments as an object", body: `{"model":"m","input":[{"type":"function_call","call_id":"c","name":"f","arguments":{}}]}`,
			wantErr: `{"error":{"message":"Invalid type for 'input[0].arguments': expected a string, but got a JSON object instead.","type":"invalid_request_error","param":"input[0].arguments","code":"invalid_type"}}`},
		{name: "a custom tool call without input", body: `{"model":"m","input":[{"type":"custom_tool_call","call_id":"c","name":"apply_patch"}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'input[0].input'.","type":"invalid_request_error","param":"input[0].input","code":"missing_required_parameter"}}`},
		{name: "a local shell call without action", body: `{"model":"m","input":[{"type":"local_shell_call","call_id":"c","status":"completed"}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'input[0].action'.","type":"invalid_request_error","param":"input[0].action","code":"missing_required_parameter"}}`},
		{name: "a local shell call with neither call_id nor id", body: `{"model":"m","input":[{"type":"local_shell_call","status":"completed","action":{}}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'input[0].call_id'.","type":"invalid_request_error","param":"input[0].call_id","code":"missing_required_parameter"}}`},
		{name: "an output without output", body: `{"model":"m","input":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c"}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'input[1].output'.","type":"invalid_request_error","param":"input[1].output","code":"missing_required_parameter"}}`},
		{name: "an output as an object", body: `{"model":"m","input":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":{"content":"x","success":true}}]}`,
			wantErr: `{"error":{"message":"Invalid type for 'input[1].output': expected a string or an array of content parts, but got a JSON object instead.","type":"invalid_request_error","param":"input[1].output","code":"invalid_type"}}`},
		{name: "a local shell output as parts", body: `{"model":"m","input":[{"type":"local_shell_call","call_id":"c","action":{}},{"type":"local_shell_call_output","call_id":"c","output":[]}]}`,
			wantErr: `{"error":{"message":"Invalid type for 'input[1].output': expected a string, but got a JSON array instead.","type":"invalid_request_error","param":"input[1].output","code":"invalid_type"}}`},
		{name: "an output part without a type", body: `{"model":"m","input":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":[{"text":"x"}]}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'input[1].output[0].type'.","type":"invalid_request_error","param":"input[1].output[0].type","code":"missing_required_parameter"}}`},
		{name: "tools not an array", body: `{"model":"m","input":"hi","tools":{"type":"function"}}`,
			wantErr: `{"error":{"message":"Invalid type for 'tools': expected an array of objects, but got a JSON object instead.","type":"invalid_request_error","param":"tools","code":"invalid_type"}}`},
		{name: "a tool not an object", body: `{"model":"m","input":"hi","tools":["shell"]}`,
			wantErr: `{"error":{"message":"Invalid type for 'tools[0]': expected an object, but got a JSON string instead.","type":"invalid_request_error","param":"tools[0]","code":"invalid_type"}}`},
		{name: "a tool without a type", body: `{"model":"m","input":"hi","tools":[{"name":"shell"}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'tools[0].type'.","type":"invalid_request_error","param":"tools[0].type","code":"missing_required_parameter"}}`},
		{name: "a Chat Completions function tool", body: `{"model":"m","input":"hi","tools":[{"type":"function","function":{"name":"shell"}}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'tools[0].name'.","type":"invalid_request_error","param":"tools[0].name","code":"missing_required_parameter"}}`},
		{name: "a custom tool without a name", body: `{"model":"m","input":"hi","tools":[{"type":"local_shell"},{"type":"custom","name":""}]}`,
			wantErr: `{"error":{"message":"Missing required parameter: 'tools[1].name'.","type":"invalid_request_error","param":"tools[1].name","code":"missing_required_parameter"}}`},
		{name: "not JSON", body: `{"model":`,
			wantErr: `{"error":{"message":"the request body is not valid JSON (offset 9: unexpected end of input): send one JSON object","type":"invalid_request_error","param":null,"code":null}}`},
		{name: "not an object", body: `["model"]`,
			wantErr: `{"error":{"message":"the request body is a JSON array: send one JSON object","type":"invalid_request_error","param":null,"code":null}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, e := Decode(OpenAIResponses, []byte(tc.body))
			if tc.wantErr != "" {
				if e == nil {
					t.Fatalf("no error, want %s", tc.wantErr)
				}
				if got := strings.TrimSpace(string(e.Body(OpenAIResponses))); e.Status != 400 || got != tc.wantErr {
					t.Errorf("error %d %s\nwant 400 %s", e.Status, got, tc.wantErr)
				}
				if (req != nil) != tc.withReq {
					t.Fatalf("request %v with the error, want one: %v", req != nil, tc.withReq)
				}
				if req == nil {
					return
				}
			} else if e != nil {
				t.Fatalf("error %s", e.Body(OpenAIResponses))
			}
			if req.API != OpenAIResponses || req.Model == "" || req.Stream != tc.stream {
				t.Errorf("api %s model %q stream %v, want openai.responses, the model, stream %v", req.API, req.Model, req.Stream, tc.stream)
			}
			if !reflect.DeepEqual(req.Messages, tc.msgs) {
				t.Errorf("messages\n%s\nwant\n%s", showMessages(req.Messages), showMessages(tc.msgs))
			}
			if !reflect.DeepEqual(req.Tools, tc.tools) {
				t.Errorf("tools %q, want %q", req.Tools, tc.tools)
			}
		})
	}
}

func showMessages(ms []Message) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "  %s calls=%q answers=%q text=%q\n", m.Role, m.ToolCalls, m.Answers, m.Text)
	}
	return b.String()
}

func TestResponsesPath(t *testing.T) {
	if api, ok := ForPath("/v1/responses"); !ok || api != OpenAIResponses {
		t.Errorf("ForPath(/v1/responses) = %q, %v", api, ok)
	}
	if got := string(Invalid("input", "x").Body(OpenAIResponses)); !strings.HasPrefix(got, `{"error":{"message":"x"`) {
		t.Errorf("a Responses error is not in OpenAI's shape: %s", got)
	}
}

// event is one parsed server-sent event of a Responses stream.
type event struct {
	name string
	data map[string]any
}

func parseEvents(t *testing.T, evs [][]byte) []event {
	t.Helper()
	var out []event
	for _, ev := range evs {
		s := string(ev)
		name, rest, ok := strings.Cut(strings.TrimPrefix(s, "event: "), "\ndata: ")
		if !strings.HasPrefix(s, "event: ") || !ok || !strings.HasSuffix(rest, "\n\n") || strings.Count(s, "\n\n") != 1 {
			t.Fatalf("%q is not one named server-sent event", s)
		}
		var data map[string]any
		if err := json.Unmarshal([]byte(rest), &data); err != nil {
			t.Fatalf("event %s: %v", name, err)
		}
		out = append(out, event{name, data})
	}
	return out
}

func compact(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRenderResponses renders each scripted turn whole and streamed and
// checks what a client reads: the response object and its output items
// (ids from the response id, the scripted call ids, compact arguments),
// and for a stream the event order, the sequence numbers, the text and
// argument deltas rejoined, and the items and response the stream ends
// with equal to the whole response's.
func TestRenderResponses(t *testing.T) {
	turns := append(append([]fakemodel.Turn(nil), script...),
		fakemodel.Turn{},
		fakemodel.Turn{Chunks: []string{"a", "", "b"}, ToolCalls: []reducer.ToolCall{
			{ID: "c1", Name: "one", Arguments: jsonv.Obj(jsonv.M("k", jsonv.Str("a long enough value ✓")))},
			{ID: "c2", Name: "two", Arguments: jsonv.Obj(jsonv.M("n", jsonv.Int(2)))}}})
	for i, turn := range turns {
		t.Run(fmt.Sprint("turn", i+1), func(t *testing.T) {
			req := &Request{API: OpenAIResponses, Body: jsonv.Obj(jsonv.M("store", jsonv.BoolValue(false)), jsonv.M("instructions", jsonv.Str("I")))}
			a := Answer{ID: "resp_tracecheck_007", Created: 1786320001, Model: "m", Turn: turn}
			whole := Render(req, a)
			if whole.ContentType != ContentJSON || whole.Events != nil {
				t.Fatalf("whole: content type %q, %d events", whole.ContentType, len(whole.Events))
			}
			var resp map[string]any
			if err := json.Unmarshal(whole.Body, &resp); err != nil {
				t.Fatal(err)
			}
			for k, want := range map[string]any{"id": "resp_tracecheck_007", "object": "response", "status": "completed", "model": "m",
				"created_at": 1786320001.0, "error": nil, "incomplete_details": nil, "store": false, "instructions": "I",
				"parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}, "previous_response_id": nil} {
				if !reflect.DeepEqual(resp[k], want) {
					t.Errorf("response %s = %v, want %v", k, resp[k], want)
				}
			}
			if got := compact(t, resp["usage"]); got != `{"input_tokens":0,"input_tokens_details":{"cached_tokens":0},"output_tokens":0,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":0}` {
				t.Errorf("usage %s", got)
			}
			output, _ := resp["output"].([]any)
			var wantItems []string
			idx := 0
			if turn.Text() != "" || len(turn.ToolCalls) == 0 {
				text, _ := json.Marshal(turn.Text())
				wantItems = append(wantItems, fmt.Sprintf(`{"content":[{"annotations":[],"logprobs":[],"text":%s,"type":"output_text"}],"id":"msg_tracecheck_007_0","role":"assistant","status":"completed","type":"message"}`, text))
				idx++
			}
			for _, c := range turn.ToolCalls {
				args := string(c.Arguments.AppendJSON(nil))
				if !c.Arguments.IsValid() {
					args = "{}"
				}
				q, _ := json.Marshal(args)
				wantItems = append(wantItems, fmt.Sprintf(`{"arguments":%s,"call_id":%q,"id":"fc_tracecheck_007_%d","name":%q,"status":"completed","type":"function_call"}`, q, c.ID, idx, c.Name))
				idx++
			}
			var gotItems []string
			for _, o := range output {
				gotItems = append(gotItems, compact(t, o))
			}
			if !reflect.DeepEqual(gotItems, wantItems) {
				t.Errorf("output\n%s\nwant\n%s", strings.Join(gotItems, "\n"), strings.Join(wantItems, "\n"))
			}

			sreq := *req
			sreq.Stream = true
			stream := Render(&sreq, a)
			if stream.ContentType != ContentSSE || stream.Body != nil {
				t.Fatalf("stream: content type %q, body %q", stream.ContentType, stream.Body)
			}
			evs := parseEvents(t, stream.Events)
			var names []string
			var text, args strings.Builder
			var textDeltas []string
			argDeltas := map[string]int{}
			var doneItems []string
			for k, ev := range evs {
				names = append(names, ev.name)
				if ev.data["type"] != ev.name || ev.data["sequence_number"] != float64(k) {
					t.Errorf("event %d %s: type %v, sequence_number %v", k, ev.name, ev.data["type"], ev.data["sequence_number"])
				}
				switch ev.name {
				case "response.created", "response.in_progress":
					r, _ := ev.data["response"].(map[string]any)
					if r["status"] != "in_progress" || r["usage"] != nil || compact(t, r["output"]) != "[]" || r["id"] != "resp_tracecheck_007" {
						t.Errorf("%s: response %s", ev.name, compact(t, r))
					}
				case "response.output_text.delta":
					text.WriteString(ev.data["delta"].(string))
					textDeltas = append(textDeltas, ev.data["delta"].(string))
				case "response.output_text.done":
					if ev.data["text"] != turn.Text() {
						t.Errorf("output_text.done text %q, want %q", ev.data["text"], turn.Text())
					}
				case "response.function_call_arguments.delta":
					args.WriteString(ev.data["delta"].(string))
					argDeltas[ev.data["item_id"].(string)]++
				case "response.function_call_arguments.done":
					item := ev.data["item_id"].(string)
					if ev.data["arguments"] != args.String() {
						t.Errorf("%s: the deltas rejoin to %q, done says %q", item, args.String(), ev.data["arguments"])
					}
					if n := argDeltas[item]; len(args.String()) > ArgumentPiece && n < 2 {
						t.Errorf("%s: arguments in %d delta(s), want several", item, n)
					}
					args.Reset()
				case "response.output_item.done":
					doneItems = append(doneItems, compact(t, ev.data["item"]))
				case "response.completed":
					if got, want := compact(t, ev.data["response"]), compact(t, resp); got != want {
						t.Errorf("response.completed carries\n%s\nwant the whole response\n%s", got, want)
					}
				}
			}
			if !reflect.DeepEqual(doneItems, wantItems) {
				t.Errorf("output_item.done items\n%s\nwant\n%s", strings.Join(doneItems, "\n"), strings.Join(wantItems, "\n"))
			}
			if text.String() != turn.Text() {
				t.Errorf("text deltas rejoin to %q, want %q", text.String(), turn.Text())
			}
			wantDeltas := turn.Chunks
			if !turn.Streamed() && turn.Content != "" {
				wantDeltas = []string{turn.Content}
			}
			if (turn.Text() != "" || len(wantDeltas) > 0) && !reflect.DeepEqual(textDeltas, wantDeltas) {
				t.Errorf("text deltas %q, want one per chunk %q", textDeltas, wantDeltas)
			}
			if want := wantEventNames(turn); !reflect.DeepEqual(names, want) {
				t.Errorf("events\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// wantEventNames is the order of a turn's stream, spelled out.
func wantEventNames(turn fakemodel.Turn) []string {
	out := []string{"response.created", "response.in_progress"}
	if turn.Text() != "" || len(turn.ToolCalls) == 0 {
		out = append(out, "response.output_item.added", "response.content_part.added")
		if turn.Text() != "" {
			for range deltas(turn) {
				out = append(out, "response.output_text.delta")
			}
		}
		out = append(out, "response.output_text.done", "response.content_part.done", "response.output_item.done")
	}
	for _, c := range turn.ToolCalls {
		out = append(out, "response.output_item.added")
		for range SplitArguments(arguments(c.Arguments)) {
			out = append(out, "response.function_call_arguments.delta")
		}
		out = append(out, "response.function_call_arguments.done", "response.output_item.done")
	}
	return append(out, "response.completed")
}

// TestRenderResponsesGolden keeps the bytes of each scripted turn's
// Responses answer, whole and streamed, in testdata/responses (regenerate
// with go test -run TestRenderResponsesGolden -update).
func TestRenderResponsesGolden(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir(filepath.Join("testdata", "responses")), goldie.WithNameSuffix(".txt"))
	for i, turn := range script {
		for _, stream := range []bool{false, true} {
			name := fmt.Sprintf("turn%d-whole", i+1)
			if stream {
				name = fmt.Sprintf("turn%d-stream", i+1)
			}
			t.Run(name, func(t *testing.T) {
				resp := Render(&Request{API: OpenAIResponses, Stream: stream}, Answer{ID: "resp_tracecheck_001", Created: 1786320001, Model: "m", Turn: turn})
				out := append([]byte("Content-Type: "+resp.ContentType+"\n\n"), resp.Body...)
				for _, ev := range resp.Events {
					out = append(out, ev...)
				}
				g.Assert(t, name, out)
			})
		}
	}
}

// hostileBodies are request shapes a fuzzer or a confused client sends.
var hostileBodies = []string{
	codexRequest,
	`{"model":"m","input":null}`, `{"model":"m","input":true}`, `{"model":"m","input":[null]}`, `{"model":"m","input":[[]]}`,
	`{"model":"m","input":[{}]}`, `{"model":"m","input":[{"type":null,"role":null}]}`, `{"model":"m","input":[{"role":"user","content":[null]}]}`,
	`{"model":"m","input":[{"role":"user","content":[{"type":{}}]}]}`, `{"model":"m","input":[{"type":"function_call"}]}`,
	`{"model":"m","input":[{"type":"function_call","call_id":null,"name":null,"arguments":null}]}`,
	`{"model":"m","input":[{"type":"function_call_output","call_id":"c","output":[1,{"type":"input_text","text":null}]}]}`,
	`{"model":"m","input":[{"type":"local_shell_call_output","id":{},"output":"x"}]}`,
	`{"model":"m","input":[{"type":"local_shell_call","call_id":"c","action":null}]}`,
	`{"model":"m","input":"x","tools":[null,{"type":null},{"type":""},{"type":"function","name":5}]}`,
	`{"model":"m","input":"x","instructions":{},"stream":1}`,
	`{"model":{"a":1}}`, `{}`, `[]`, `"x"`, `null`, ``, `{"model":"m","input":[{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"no"}]}]}`,
}

// TestDecodeResponsesHostile decodes hostile shapes: never a panic, every
// error a 400 in OpenAI's shape naming what it refuses, and a decoded
// request renders.
func TestDecodeResponsesHostile(t *testing.T) {
	for _, b := range hostileBodies {
		checkHostile(t, []byte(b))
	}
}

func FuzzDecodeResponses(f *testing.F) {
	for _, b := range hostileBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkHostile(t, body) })
}

func checkHostile(t *testing.T, body []byte) {
	t.Helper()
	req, e := Decode(OpenAIResponses, body)
	if _, err := jsonv.Parse(body); err == nil && bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		// Read again without the spans the check recorded: the same.
		read, readErr := decodeBody(OpenAIResponses, rawOf(body), body, DecodeOptions{})
		if !reflect.DeepEqual(read, req) || !reflect.DeepEqual(readErr, e) {
			t.Fatalf("%q: through spans %+v %v, read %+v %v", body, req, e, read, readErr)
		}
	}
	if e != nil {
		var v struct {
			Error struct {
				Message string  `json:"message"`
				Type    string  `json:"type"`
				Param   *string `json:"param"`
			} `json:"error"`
		}
		if err := json.Unmarshal(e.Body(OpenAIResponses), &v); err != nil || e.Status != 400 || v.Error.Message == "" || v.Error.Type != TypeInvalidRequest {
			t.Fatalf("%q: error %d %s (%v)", body, e.Status, e.Body(OpenAIResponses), err)
		}
	}
	if req == nil {
		if e == nil {
			t.Fatalf("%q: neither a request nor an error", body)
		}
		return
	}
	for _, stream := range []bool{false, true} {
		r := *req
		r.Stream = stream
		Render(&r, Answer{ID: "resp_x", Model: req.Model, Turn: fakemodel.Turn{Content: "ok"}})
	}
}
