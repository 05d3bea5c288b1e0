package agentrun

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/internal/placeholder"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver/wire"
	"github.com/tracecheck/tracecheck/reducer"
)

// codex is @openai/codex: a model provider in $CODEX_HOME/config.toml
// speaking the Responses API (the only wire API Codex still supports; its
// own retry limits kept, so a scripted fault meets its real retries),
// analytics, feedback, OpenTelemetry export and the update check off, run
// as `codex exec --skip-git-repo-check
// --dangerously-bypass-approvals-and-sandbox -C WORKSPACE PROMPT` (the run
// is already contained in a throwaway folder, and Codex's own sandbox
// needs user namespaces a CI container often lacks). Its log is
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<timestamp>-<uuid>.jsonl.
func codex() *Agent {
	return &Agent{
		Name:        "codex",
		DisplayName: "Codex",
		Package:     "@openai/codex",
		Tested:      "0.171.0",
		Program:     "codex",
		API:         wire.OpenAIResponses,
		Model:       fakemodel.ID,
		LogPlace:    "$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<timestamp>-<uuid>.jsonl",
		volatile: []placeholder.Rule{
			// exec_command's output header: "Chunk ID: a7c1a0\nWall time:
			// 0.0000 seconds\n...".
			{Re: regexp.MustCompile(`Chunk ID: [0-9a-f]+`), Repl: "Chunk ID: " + ChunkID},
			{Re: regexp.MustCompile(`Wall time: [0-9.]+ seconds`), Repl: "Wall time: " + placeholder.Duration + " seconds"},
		},
		configure:  configureCodex,
		resume:     resumeCodex,
		ResumeFlag: "exec resume --last",
		tool:       codexTool,
		findLog: func(s *Setup) (string, error) {
			return newestLog(s.Home, ".codex/sessions/*/*/*/rollout-*.jsonl")
		},
	}
}

func configureCodex(s *Setup) (Invocation, error) {
	dir := filepath.Join(s.Home, ".codex")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Invocation{}, err
	}
	config := fmt.Sprintf(`# Written by tracecheck agent run: Codex against the scripted model.
model = %q
model_provider = "tracecheck"
check_for_update_on_startup = false

[model_providers.tracecheck]
name = "tracecheck scripted model"
base_url = %q
wire_api = "responses"
env_key = "OPENAI_API_KEY"

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"

# Features that reach beyond the model provider (plugin and app catalogues,
# updates, tool suggestions) off; a connection error is retried as Codex's
# own request and stream retry limits say, not without bound.
[features]
plugins = false
remote_plugin = false
plugin_sharing = false
apps = false
in_app_updates = false
tool_suggest = false
skill_mcp_dependency_install = false
unbounded_connection_retries = false
`, fakemodel.ID, s.ServerURL+"/v1")
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(config), 0o600); err != nil {
		return Invocation{}, err
	}
	args := append([]string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "-C", s.Workspace}, s.Extra...)
	return Invocation{
		Args: append(args, s.Prompt),
		Env:  []string{"CODEX_HOME=" + dir, "OPENAI_API_KEY=" + dummyKey},
	}, nil
}

// resumeCodex resumes the most recent session: codex exec ... resume
// --last PROMPT.
func resumeCodex(s *Setup) (Invocation, error) {
	inv, err := configureCodex(s)
	if err != nil {
		return inv, err
	}
	n := len(inv.Args)
	inv.Args = append(append(inv.Args[:n-1:n-1], "resume", "--last"), s.Prompt)
	return inv, nil
}

// codexTool: shell is Codex's exec_command {cmd}; read_file is exec_command
// with cat (Codex reads files through its shell).
func codexTool(c reducer.ToolCall, s *Setup) reducer.ToolCall {
	switch c.Name {
	case ToolShell:
		return call(c, "exec_command", jsonv.M("cmd", jsonv.Str(argString(c, "command"))))
	case ToolReadFile:
		return call(c, "exec_command", jsonv.M("cmd", jsonv.Str("cat "+shellQuote(argString(c, "path")))))
	}
	return c
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// ChunkID stands for the id Codex gives each exec_command output chunk.
const ChunkID = "[CHUNK_ID]"
