package agentrun

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver/wire"
	"github.com/tracecheck/tracecheck/reducer"
)

// piProvider is the provider name the preset writes into pi's models.json.
const piProvider = "tracecheck"

// pi is @mariozechner/pi-coding-agent: a provider in
// ~/.pi/agent/models.json speaking OpenAI Chat Completions, run as
// `pi -p --provider tracecheck --model ID PROMPT` with PI_OFFLINE=1 (no
// update or package checks). Its log is
// ~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl.
func pi() *Agent {
	return &Agent{
		Name:        "pi",
		DisplayName: "pi",
		Package:     "@mariozechner/pi-coding-agent",
		Tested:      "0.73.1",
		Program:     "pi",
		API:         wire.OpenAIChat,
		Model:       fakemodel.ID,
		LogPlace:    "~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl",
		configure:   configurePi,
		resume:      resumePi,
		ResumeFlag:  "--continue",
		tool:        piTool,
		findLog: func(s *Setup) (string, error) {
			return newestLog(s.Home, ".pi/agent/sessions/*/*.jsonl")
		},
	}
}

func configurePi(s *Setup) (Invocation, error) {
	models := map[string]any{"providers": map[string]any{piProvider: map[string]any{
		"baseUrl": s.ServerURL + "/v1",
		"api":     "openai-completions",
		"apiKey":  dummyKey,
		"models":  []map[string]any{{"id": fakemodel.ID}},
	}}}
	b, err := json.MarshalIndent(models, "", "  ")
	if err != nil {
		return Invocation{}, err
	}
	dir := filepath.Join(s.Home, ".pi", "agent")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Invocation{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, "models.json"), append(b, '\n'), 0o600); err != nil {
		return Invocation{}, err
	}
	args := append([]string{"-p", "--provider", piProvider, "--model", fakemodel.ID}, s.Extra...)
	return Invocation{
		Args: append(args, s.Prompt),
		Env:  []string{"PI_OFFLINE=1"},
	}, nil
}

// resumePi continues the most recent session of the workspace.
func resumePi(s *Setup) (Invocation, error) {
	args := append([]string{"-p", "--continue", "--provider", piProvider, "--model", fakemodel.ID}, s.Extra...)
	return Invocation{Args: append(args, s.Prompt), Env: []string{"PI_OFFLINE=1"}}, nil
}

// piTool: shell is pi's bash {command}, read_file its read {path}.
func piTool(c reducer.ToolCall, s *Setup) reducer.ToolCall {
	switch c.Name {
	case ToolShell:
		return call(c, "bash", jsonv.M("command", jsonv.Str(argString(c, "command"))))
	case ToolReadFile:
		return call(c, "read", jsonv.M("path", jsonv.Str(argString(c, "path"))))
	}
	return c
}

// call is c renamed with new arguments.
func call(c reducer.ToolCall, name string, args ...jsonv.Member) reducer.ToolCall {
	return reducer.ToolCall{ID: c.ID, Name: name, Arguments: jsonv.Obj(args...)}
}
