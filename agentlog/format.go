package agentlog

import (
	"fmt"

	"github.com/tracecheck/tracecheck/agentlog/jsonpeek"
)

// Format is a session log format.
type Format uint8

// The formats lint reads. Unknown is the zero Format.
const (
	Unknown Format = iota
	Codex
	ClaudeCode
	Pi
	TSHarness
	Trace
)

var formatNames = [...]string{"unknown", "codex", "claude-code", "pi", "ts-harness", "trace"}

func (f Format) String() string { return formatNames[f] }

// ParseFormat returns the format named s (as --format and --from spell it).
func ParseFormat(s string) (Format, error) {
	for i, n := range formatNames {
		if i > 0 && n == s {
			return Format(i), nil
		}
	}
	return Unknown, fmt.Errorf("unknown format %q (want codex, claude-code, pi, ts-harness or trace)", s)
}

// SniffLines is how many non-blank lines Detect looks at, at most.
const SniffLines = 64

// Detect names the format of a file from its first non-blank lines, by
// content alone: the Trace envelope's trace_version; the {timestamp, type,
// payload} envelope of Codex and of the TypeScript harness, told apart by
// the harness's camelCase fields (modelProvider, callId, agent_event);
// pi's session header or message entries; Claude Code's uuid/sessionId
// records. Lines that do not parse are passed over.
func Detect(lines [][]byte) Format {
	var d jsonpeek.Doc
	envelope := false
	for _, l := range lines {
		if d.Parse(l) != nil || d.Root().Kind() != jsonpeek.Object {
			continue
		}
		r := d.Root()
		if r.Get("trace_version").Exists() {
			return Trace
		}
		typ := r.Get("type")
		if p := r.Get("payload"); p.Kind() == jsonpeek.Object && typ.Kind() == jsonpeek.String && r.Get("timestamp").Exists() {
			envelope = true
			switch {
			case typ.Is("agent_event"):
				return TSHarness
			case typ.Is("event_msg"), typ.Is("compacted"):
				return Codex
			case typ.Is("session_meta"):
				if p.Get("modelProvider").Exists() || p.Get("wireApi").Exists() || p.Get("policy").Exists() || p.Get("source").Is("api_agent_stream") {
					return TSHarness
				}
				if p.Get("cli_version").Exists() || p.Get("originator").Exists() || p.Get("model_provider").Exists() {
					return Codex
				}
			case typ.Is("turn_context"):
				if p.Get("turnId").Exists() || p.Get("wireApi").Exists() {
					return TSHarness
				}
				if p.Get("approval_policy").Exists() || p.Get("sandbox_policy").Exists() {
					return Codex
				}
			case typ.Is("response_item"):
				if p.Get("callId").Exists() || p.Get("argumentsJson").Exists() || p.Get("isError").Exists() || p.Get("runtimeRole").Exists() {
					return TSHarness
				}
				if p.Get("call_id").Exists() {
					return Codex
				}
			}
			continue
		}
		switch {
		case typ.Is("session") && r.Get("id").Kind() == jsonpeek.String:
			return Pi
		case typ.Is("message") && r.Get("message").Kind() == jsonpeek.Object:
			return Pi
		case r.Get("uuid").Exists() || r.Get("sessionId").Exists() || r.Get("leafUuid").Exists() ||
			typ.Is("file-history-snapshot") || typ.Is("queue-operation"):
			return ClaudeCode
		}
	}
	if envelope {
		// Only records both formats write: Codex is the older and larger
		// population.
		return Codex
	}
	return Unknown
}
