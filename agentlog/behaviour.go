package agentlog

// What each agent does with a file that has a given problem, as its
// sources (cited in each format's file) show. lint appends these to its
// messages; docs/agent-logs.md gives the same per code.

func skipsBadLine(f Format) string {
	switch f {
	case Codex:
		return "Codex skips the line on resume (a warning and a parse error in its log)"
	case ClaudeCode:
		return "Claude Code skips the line, and what it held is lost to a resume"
	case Pi:
		return "pi skips the line (JSON.parse fails), and what it held is lost"
	case TSHarness:
		return "the harness's resume calls JSON.parse on every line and throws: this session cannot be resumed"
	}
	return "readers skip the line"
}

func orphanCallBehaviour(f Format) string {
	switch f {
	case Codex:
		return "every resume answers it with \"aborted\" at prompt time without persisting it (normalize.rs)"
	case ClaudeCode:
		return "a resume sends a tool_use without its tool_result, which the Messages API rejects unless the client adds one"
	case Pi:
		return "pi answers it with an error toolResult \"No result provided\" at every request (transform-messages.ts)"
	case TSHarness:
		return "the next resume appends a SESSION_RESUME_INTERRUPTED error output for it"
	}
	return ""
}

func orphanResultBehaviour(f Format) string {
	switch f {
	case Codex:
		return "Codex drops it at prompt time and logs an error (remove_orphan_outputs)"
	case ClaudeCode:
		return "the Messages API rejects a tool_result whose tool_use is not in the request (anthropics/claude-code#8484)"
	case Pi:
		return "pi sends it as is, and providers reject a tool result without its call"
	case TSHarness:
		return "a resume replays it as a tool message without its call, and the provider rejects the request"
	}
	return ""
}

func danglingBehaviour(f Format) string {
	switch f {
	case ClaudeCode:
		return "a resume walking parentUuid up from here stops at this entry, so the conversation above it is not loaded (anthropics/claude-code#22526)"
	case Pi:
		return "pi's walk from the leaf stops at this entry, so the entries above it are not in the context"
	}
	return ""
}

func duplicateBehaviour(f Format) string {
	switch f {
	case ClaudeCode:
		return "Claude Code keeps one entry per uuid, so the other entry's children hang off the wrong message (anthropics/claude-code#36583)"
	case Pi:
		return "pi's id index keeps the later entry, so the earlier one's children follow the wrong branch"
	}
	return ""
}

func compactionBehaviour(f Format) string {
	switch f {
	case Codex:
		return "a resume rebuilds the history from this compaction, and the model gets no summary of what came before"
	case ClaudeCode:
		return "a resume loads from the compact boundary on, and the model gets no summary of what came before"
	case Pi:
		return "pi puts an empty summary in place of every message before the first kept entry"
	case TSHarness:
		return "a resume replays the compaction with an empty summary, and the model loses everything before it"
	}
	return ""
}

func headerBehaviour(f Format) string {
	switch f {
	case Codex:
		return "Codex cannot resume it (\"failed to parse thread ID from rollout file\")"
	case Pi:
		return "pi treats the file as empty and overwrites it with a new session when it is opened"
	case TSHarness:
		return "the harness cannot list or resume it (\"Agent session file is missing session_meta\")"
	}
	return ""
}
