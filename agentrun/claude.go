package agentrun

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tracecheck/tracecheck/internal/placeholder"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver/wire"
	"github.com/tracecheck/tracecheck/reducer"
)

// claudeTools are the tools the preset allows Claude Code to use without
// asking (-p mode cannot ask).
var claudeTools = []string{"Bash", "Read", "Write", "Edit"}

// claudeCode is @anthropic-ai/claude-code: ANTHROPIC_BASE_URL at the
// server (Anthropic Messages), its default model, the prompt on standard
// input of `claude -p --allowedTools Bash,Read,Write,Edit`, telemetry,
// error reporting, the auto-updater and all nonessential traffic off. Its
// log is ~/.claude/projects/<cwd with / as ->/<session-id>.jsonl.
func claudeCode() *Agent {
	return &Agent{
		Name:        "claude-code",
		DisplayName: "Claude Code",
		Package:     "@anthropic-ai/claude-code",
		Tested:      "2.1.332",
		Program:     "claude",
		API:         wire.AnthropicMessages,
		LogPlace:    "~/.claude/projects/<cwd, / as ->/<session-id>.jsonl",
		volatile: []placeholder.Rule{
			// The first system block, x-anthropic-billing-header:
			// cc_version=2.1.332.<hash of the prompt>; ...
			{Re: regexp.MustCompile(`(cc_version=[0-9]+\.[0-9]+\.[0-9]+)\.[0-9a-f]+`), Repl: "${1}." + placeholder.PromptHash},
		},
		pairs: func(s *Setup) []placeholder.Pair {
			return []placeholder.Pair{{Name: WorkspaceSlug, Value: claudeSlug(s.Workspace)}}
		},
		configure:  configureClaude,
		resume:     resumeClaude,
		ResumeFlag: "--continue",
		tool:       claudeTool,
		findLog: func(s *Setup) (string, error) {
			return newestLog(s.Home, ".claude/projects/*/*.jsonl")
		},
	}
}

func configureClaude(s *Setup) (Invocation, error) {
	args := append([]string{"-p", "--allowedTools", strings.Join(claudeTools, ",")}, s.Extra...)
	return Invocation{
		Args: args,
		Env: []string{
			"ANTHROPIC_BASE_URL=" + s.ServerURL,
			"ANTHROPIC_API_KEY=" + dummyKey,
			"DISABLE_TELEMETRY=1",
			"DISABLE_ERROR_REPORTING=1",
			"DISABLE_AUTOUPDATER=1",
			"DISABLE_BUG_COMMAND=1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		},
		Stdin: s.Prompt,
	}, nil
}

// resumeClaude continues the most recent conversation of the workspace.
func resumeClaude(s *Setup) (Invocation, error) {
	inv, err := configureClaude(s)
	inv.Args = append([]string{"-p", "--continue"}, inv.Args[1:]...)
	return inv, err
}

// claudeTool: shell is Claude Code's Bash {command, description},
// read_file its Read {file_path}, which takes an absolute path.
func claudeTool(c reducer.ToolCall, s *Setup) reducer.ToolCall {
	switch c.Name {
	case ToolShell:
		return call(c, "Bash",
			jsonv.M("command", jsonv.Str(argString(c, "command"))),
			jsonv.M("description", jsonv.Str("Run the scenario's command")))
	case ToolReadFile:
		return call(c, "Read", jsonv.M("file_path", jsonv.Str(filepath.Join(s.Workspace, filepath.FromSlash(argString(c, "path"))))))
	}
	return c
}

// WorkspaceSlug stands for the workspace path as Claude Code names its
// project folder under ~/.claude/projects (and quotes it in its prompt).
const WorkspaceSlug = "[WORKSPACE_SLUG]"

// claudeSlug is a path as Claude Code names its project folder: every
// character but an ASCII letter or digit becomes "-".
func claudeSlug(path string) string {
	b := []byte(path)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}
