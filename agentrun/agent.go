// Package agentrun runs a real coding agent (pi, Claude Code, Codex)
// against tracecheck's scripted model and collects what it did: its own
// session log, that log imported to Trace 0.1.0 and linted, the model
// server's trace, the workspace as the agent left it and its output.
//
// A run is contained and repeatable. The agent gets a fresh HOME and a
// fresh workspace inside the run's output folder (the scenario's workspace
// files written into it), a curated environment instead of the caller's
// (nothing of the user's own configuration, sessions or shell is read),
// its provider configuration pointing at a model server on a free
// loopback port, and a proxy in HTTPS_PROXY and HTTP_PROXY that refuses
// every request and records the host: an agent that tries to reach
// anything beyond loopback fails the run. It runs non-interactively with
// the scenario's prompt and its own real tools, in a process group of its
// own that is killed whole when it exits or times out.
//
// Each agent is a preset (one file each: pi.go, claude.go, codex.go): how
// to configure it, how to invoke it, where it writes its session log, and
// how a scenario's portable tool calls ("shell", "read_file") become calls
// of its own tools.
//
// What varies from run to run (the paths of the run's folder, today's
// date) is replaced by placeholders (internal/placeholder) in the server
// trace and in the portable form of the native trace, so that a golden of
// either holds run after run for one agent version.
package agentrun

import (
	"fmt"
	"strings"

	"github.com/tracecheck/tracecheck/internal/placeholder"
	"github.com/tracecheck/tracecheck/modelserver/wire"
	"github.com/tracecheck/tracecheck/reducer"
)

// Agent is one preset: a real agent tracecheck knows how to drive.
type Agent struct {
	Name        string // pi, claude-code, codex
	DisplayName string // for messages
	Package     string // the npm package that installs it
	// Tested is the version of Package the end-to-end tests pin
	// (agents/npm/package.json; TestPresetsNameThePinnedVersions).
	Tested  string
	Program string   // the command it installs on PATH
	API     wire.API // the wire API the preset points it at
	// Model is the model id the preset configures ("" leaves the agent's
	// default, which the scripted server answers as any other).
	Model string
	// LogPlace says where the agent writes its session log, for --help and
	// the docs.
	LogPlace string

	// volatile are the agent's own per-run values that no path names
	// (replaced after the run's paths; docs/real-agents.md lists them).
	volatile []placeholder.Rule
	// pairs are the agent's own spellings of the run's paths (Claude
	// Code's project folder name), replaced as the paths are.
	pairs func(s *Setup) []placeholder.Pair

	configure func(s *Setup) (Invocation, error)
	// resume invokes the agent again on its last session, in the same
	// HOME and workspace, with s.Prompt as the new message; ResumeFlag
	// names how, for reports.
	resume     func(s *Setup) (Invocation, error)
	ResumeFlag string
	tool       func(c reducer.ToolCall, s *Setup) reducer.ToolCall
	findLog    func(s *Setup) (string, error)
}

// Setup is where and how one run takes place; a preset's configure step
// writes into Home and returns how to invoke the agent.
type Setup struct {
	Home      string // the throwaway HOME
	Workspace string // the agent's working directory
	Out       string // the run's output folder
	Temp      string // TMPDIR
	ServerURL string // the scripted model, http://127.0.0.1:PORT
	Prompt    string
	Extra     []string // arguments the user added after --
}

// Invocation is how a preset runs its agent.
type Invocation struct {
	Args  []string // after the program
	Env   []string // NAME=VALUE, added to the curated environment
	Stdin string
}

// all returns the presets, sorted by name (a new value each call: presets
// hold no state).
func all() []*Agent { return []*Agent{claudeCode(), codex(), pi()} }

// Names lists the presets' names, sorted.
func Names() []string {
	var out []string
	for _, a := range all() {
		out = append(out, a.Name)
	}
	return out
}

// UnknownAgentError is Lookup's error for a name no preset has.
type UnknownAgentError struct{ Name string }

func (e *UnknownAgentError) Error() string {
	return fmt.Sprintf("unknown agent %q: tracecheck drives %s", e.Name, strings.Join(Names(), ", "))
}

// Lookup returns the preset called name.
func Lookup(name string) (*Agent, error) {
	for _, a := range all() {
		if a.Name == name {
			return a, nil
		}
	}
	return nil, &UnknownAgentError{Name: name}
}

// Portable tool names: a scenario written for any agent calls these, and
// each preset turns them into a call of its own tools. A call of any other
// name is sent as it is (a scenario for one agent can call its tools
// directly).
const (
	// ToolShell runs {"command": "..."} in the workspace with the agent's
	// shell tool.
	ToolShell = "shell"
	// ToolReadFile reads {"path": "..."} (relative to the workspace) with
	// the agent's file reading tool, or its shell where it has none.
	ToolReadFile = "read_file"
)

// argString is a string argument of a portable call ("" when absent).
func argString(c reducer.ToolCall, key string) string {
	v, _ := c.ArgumentsValue().Get(key)
	return v.Text()
}
