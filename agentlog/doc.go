// Package agentlog checks, imports and repairs the native session logs of
// real coding agents: Codex CLI rollouts, Claude Code transcripts, pi
// sessions and the TypeScript harness session store, and lints Trace 0.1.0
// files with the journal package's own validation.
//
// Lint reads a file once, as a stream, and reports every problem as a
// Finding (file, line, Code, severity, message, the ids involved). The
// format is detected per file from its content (Detect); a caller may
// force one. Each format lives in its own file (codex.go, claude.go,
// pi.go, tsharness.go): a decoder turns one native line into a Record, the
// format-neutral view the checks (lint.go), the importer (import.go) and
// the repairer (repair.go) share; import writes a message's content as the
// text the model reads, not as the native parts (text.go).
// docs/agent-logs.md documents every code with what the agent does with
// such a file, and the import mapping.
//
// Memory is bounded by the longest line plus the id sets: every id the
// checks must remember (entry ids, tool call ids) goes through the IDSet
// interface (ids.go; a few bytes an id in internal/idset, the ids' bytes
// in a temporary file), and calls awaiting a result are kept in a map of
// at most MaxOpenCalls entries.
package agentlog
