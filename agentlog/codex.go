package agentlog

import (
	"strings"

	"github.com/tracecheck/tracecheck/agentlog/jsonpeek"
)

// Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl): one
// {timestamp, type, payload} object per line, type one of RolloutItem's
// variants (codex-rs/protocol/src/protocol.rs). Resume
// (RolloutRecorder::load_rollout_items) skips lines that are not JSON and
// lines that are not a known RolloutLine, takes the first session_meta as
// the thread, and repairs calls without output at prompt time
// (context_manager/normalize.rs: output "aborted") without persisting it.

// codexTypes are the RolloutItem variants tracecheck knows.
// token_usage_record (0.171: token usage bookkeeping, whose fields the
// sources read do not give) is a variant of its own, not an event_msg.
// The serde names of RolloutItem in the 0.171 binary are session_meta,
// dynamic_tools_updated, response_item, inter_agent_communication,
// inter_agent_communication_metadata, compacted, turn_context,
// token_usage_record, world_state, retained_context, security_risk_score,
// event_msg and realtime_item. Only those whose role the sources show are
// known here; the others stay UNKNOWN_RECORD (information).
var codexTypes = map[string]bool{
	"session_meta": true, "response_item": true, "compacted": true, "turn_context": true, "event_msg": true,
	"inter_agent_communication": true, "inter_agent_communication_metadata": true, "world_state": true,
	"token_usage_record": true,
}

// codexTurnAbortedTag opens the user message Codex writes for an
// interrupted turn.
const codexTurnAbortedTag = "<turn_aborted>"

func decodeCodex(rec *Record) {
	r := rec.Root
	typ := rec.in.str(r.Get("type"))
	p := r.Get("payload")
	rec.Timestamp = lineView(r.Get("timestamp"))
	rec.NativeType = typ
	if !codexTypes[typ] || p.Kind() != jsonpeek.Object {
		rec.Unknown = true
		return
	}
	switch typ {
	case "session_meta":
		rec.Header = true
		rec.Session = str(p, "id")
		rec.ForkOf = str(p, "forked_from_id")
		rec.Version = str(p, "cli_version")
		rec.Provider = str(p, "model_provider")
		rec.add(Item{Kind: ItemMeta, Body: p})
	case "turn_context":
		rec.Model = rec.in.str(p.Get("model"))
		rec.add(Item{Kind: ItemMeta, Body: p, Text: str(p, "turn_id")})
	case "compacted":
		rec.Compaction = true
		rec.DropsCalls = true
		rec.Summary = !p.Get("message").IsEmpty() || !p.Get("replacement_history").IsEmpty()
		rec.add(Item{Kind: ItemCompaction, Body: p})
		// Calls and outputs kept in the replacement history are loaded
		// after the compaction: they count as if written here.
		p.Get("replacement_history").Elems(func(_ int, it jsonpeek.Value) bool {
			n := len(rec.Items)
			codexResponseItem(rec, it, true)
			for i := n; i < len(rec.Items); i++ {
				rec.Items[i].Replayed = true
			}
			return true
		})
	case "event_msg":
		et := rec.in.str(p.Get("type"))
		rec.NativeType = rec.in.join("event_msg/", p.Get("type"))
		switch et {
		case "turn_aborted":
			// Newer Codex (0.171) carries the turn's error here too.
			rec.add(Item{Kind: ItemAbort, Body: p, Text: "turn_aborted " + str(p, "reason"), Msg: codexErrorMessage(p.Get("error"))})
		case "error":
			// ErrorEvent {message, codex_error_info}: the submission failed.
			rec.add(Item{Kind: ItemError, Body: p, Text: "error", Msg: p.Get("message")})
		case "task_complete", "turn_complete":
			// TurnCompleteEvent: 0.171 adds an error (the turn ended in it);
			// without one it is a turn that succeeded (not imported).
			if e := p.Get("error"); !e.IsEmpty() {
				rec.add(Item{Kind: ItemError, Body: p, Text: et + " error", Msg: codexErrorMessage(e)})
				return
			}
			rec.add(Item{Kind: ItemMeta, Body: p})
		default:
			rec.add(Item{Kind: ItemMeta, Body: p})
		}
	case "response_item":
		rec.NativeType = rec.in.join("response_item/", p.Get("type"))
		codexResponseItem(rec, p, false)
	default:
		rec.add(Item{Kind: ItemMeta, Body: p})
	}
}

// codexResponseItem adds what one ResponseItem says. nested: it sits in a
// compaction's replacement history (only calls and results count there).
func codexResponseItem(rec *Record, p jsonpeek.Value, nested bool) {
	callID := str(p, "call_id")
	switch rec.in.str(p.Get("type")) {
	case "function_call":
		rec.add(Item{Kind: ItemCall, CallID: callID, CallKey: "f", Tool: rec.in.str(p.Get("name")), Body: p.Get("arguments")})
	case "local_shell_call":
		if callID != "" {
			rec.add(Item{Kind: ItemCall, CallID: callID, CallKey: "f", Tool: "local_shell", Body: p.Get("action")})
		}
	case "custom_tool_call":
		rec.add(Item{Kind: ItemCall, CallID: callID, CallKey: "c", Tool: rec.in.str(p.Get("name")), Body: p.Get("input")})
	case "tool_search_call":
		if callID != "" {
			rec.add(Item{Kind: ItemCall, CallID: callID, CallKey: "s", Tool: "tool_search", Body: p.Get("arguments")})
		}
	case "function_call_output":
		rec.add(Item{Kind: ItemResult, CallID: callID, CallKey: "f", Body: p.Get("output"), IsError: codexOutputFailed(p.Get("output"))})
	case "custom_tool_call_output":
		rec.add(Item{Kind: ItemResult, CallID: callID, CallKey: "c", Body: p.Get("output"), IsError: codexOutputFailed(p.Get("output"))})
	case "tool_search_output":
		// Server-executed searches have no client call to answer.
		if callID != "" && !p.Get("execution").Is("server") {
			rec.add(Item{Kind: ItemResult, CallID: callID, CallKey: "s", Body: p.Get("tools")})
		}
	case "message":
		if nested {
			return
		}
		content := p.Get("content")
		switch rec.in.str(p.Get("role")) {
		case "user":
			if textHasPrefix(content, codexTurnAbortedTag) {
				rec.add(Item{Kind: ItemAbort, Body: content, Text: "turn aborted"})
				return
			}
			if codexContextMessage(p) {
				rec.add(Item{Kind: ItemSystem, Body: content, Text: "user"})
				return
			}
			rec.add(Item{Kind: ItemUser, Body: content})
		case "assistant":
			rec.add(Item{Kind: ItemAssistant, Body: content})
		default:
			rec.add(Item{Kind: ItemSystem, Body: content, Text: rec.in.str(p.Get("role"))})
		}
	case "reasoning":
		if !nested {
			rec.add(Item{Kind: ItemReasoning, Body: p.Get("summary")})
		}
	default:
		if !nested {
			rec.add(Item{Kind: ItemMeta, Body: p})
		}
	}
}

// codexContextTags open the context Codex sends the model in a user
// message at the start of a session: the environment context, the user's
// instructions (older Codex) and the AGENTS.md instructions (codex-rs
// core/src/context, whose contextual user fragments Codex itself does not
// count as the user's turns). Compared case-insensitively, as Codex does.
var codexContextTags = []string{"<environment_context>", "<user_instructions>", "# agents.md instructions for "}

// codexContextMessage reports whether a user-role message is context the
// harness wrote rather than the user's words. Codex 0.171 says where each
// content item came from (internal_chat_message_metadata_passthrough
// .content_item_metadata[].provenance.type: "user" for what the user
// typed, "harness" for the environment context, "skills", ...): the
// message is context when every item names a provenance and none is
// "user". Without that metadata (older Codex), when its first text starts
// with one of codexContextTags.
func codexContextMessage(p jsonpeek.Value) bool {
	meta := p.Path("internal_chat_message_metadata_passthrough", "content_item_metadata")
	if meta.Kind() == jsonpeek.Array && !meta.IsEmpty() {
		context := true
		meta.Elems(func(_ int, m jsonpeek.Value) bool {
			t := m.Path("provenance", "type")
			context = t.Kind() == jsonpeek.String && !t.IsEmpty() && !t.Is("user")
			return context
		})
		return context
	}
	text := ""
	p.Get("content").Elems(func(_ int, e jsonpeek.Value) bool {
		if t := e.Get("text"); t.Kind() == jsonpeek.String {
			text = trimmedPrefix(t, codexContextTagMax)
			return false
		}
		return true
	})
	for _, tag := range codexContextTags {
		if len(text) >= len(tag) && strings.EqualFold(text[:len(tag)], tag) {
			return true
		}
	}
	return false
}

// codexContextTagMax is the length of the longest of codexContextTags.
var codexContextTagMax = func() int {
	n := 0
	for _, t := range codexContextTags {
		n = max(n, len(t))
	}
	return n
}()

// trimmedPrefix returns the text of string t with its leading spaces, tabs
// and newlines trimmed, decoded only as far as its first n bytes after them
// (all of it when shorter): what strings.TrimLeft of the whole text gives,
// up to n bytes and perhaps a few more.
func trimmedPrefix(t jsonpeek.Value, n int) string {
	for k := 4 * n; ; k *= 4 {
		s, whole := t.StrPrefix(k)
		s = strings.TrimLeft(s, " \t\r\n")
		if whole || len(s) >= n {
			return s
		}
	}
}

// codexErrorMessage is the message of a turn's error: the error itself when
// it is a string, else its message member.
func codexErrorMessage(e jsonpeek.Value) jsonpeek.Value {
	if e.Kind() == jsonpeek.String {
		return e
	}
	return e.Get("message")
}

// codexOutputFailed reads FunctionCallOutputPayload's success flag when the
// output is the structured form.
func codexOutputFailed(out jsonpeek.Value) bool {
	ok, isBool := out.Get("success").Bool()
	return isBool && !ok
}
