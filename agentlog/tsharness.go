package agentlog

import "github.com/tracecheck/tracecheck/agentlog/jsonpeek"

// The TypeScript harness session store (chapter 20 of the TypeScript
// harness; Liang-HZ/inspectable-agent-harness lib/agent-session-store.ts,
// agent-events.ts, agent-response-items.ts): {timestamp, type, payload}
// lines, type session_meta (first line), turn_context, agent_event or
// response_item. Resume reads every non-blank line with JSON.parse (one
// bad line fails the whole resume), replays compaction_summary rows, and
// answers each function_call without output by appending a
// function_call_output with the SESSION_RESUME_INTERRUPTED error.

var tsTypes = map[string]bool{"session_meta": true, "turn_context": true, "agent_event": true, "response_item": true}

// SessionResumeInterrupted is the output the harness persists for a tool
// call that had none when its session was resumed (FACTS.md, chapter 20).
const SessionResumeInterrupted = "Error [SESSION_RESUME_INTERRUPTED]: This tool call did not finish before the previous run on this session ended, so no output was recorded. Treat it as not executed and decide whether to retry it."

func decodeTSHarness(rec *Record) {
	r := rec.Root
	typ := rec.in.str(r.Get("type"))
	p := r.Get("payload")
	rec.NativeType = typ
	rec.Timestamp = str(r, "timestamp")
	if !tsTypes[typ] || p.Kind() != jsonpeek.Object {
		rec.Unknown = true
		return
	}
	switch typ {
	case "session_meta":
		rec.Header = true
		rec.Session = str(p, "id")
		rec.Model, rec.Provider = str(p, "model"), str(p, "modelProvider")
		if sc := p.Get("sidechain"); sc.Kind() == jsonpeek.Object {
			rec.Sidechain = true
			rec.AgentID = str(sc, "agentId")
			rec.ForkOf = str(sc, "parentSessionId")
		}
		rec.add(Item{Kind: ItemMeta, Body: p})
	case "turn_context":
		rec.Model = rec.in.str(p.Get("model"))
		rec.add(Item{Kind: ItemMeta, Body: p, Text: str(p, "turnId")})
	case "agent_event":
		et := rec.in.str(p.Get("type"))
		rec.NativeType = rec.in.join("agent_event/", p.Get("type"))
		switch et {
		case "run_started":
			rec.Session = rec.in.str(p.Get("sessionId"))
			rec.add(Item{Kind: ItemRunStart, Body: p, Text: str(p, "runId")})
		case "run_succeeded":
			rec.add(Item{Kind: ItemRunEnd, Body: p.Get("result")})
		case "run_failed":
			rec.add(Item{Kind: ItemAbort, Body: p, Text: "run_failed"})
		case "run_cancelled":
			rec.add(Item{Kind: ItemAbort, Body: p, Text: "run_cancelled " + str(p, "reason")})
		case "history_compacted":
			rec.add(Item{Kind: ItemMeta, Body: p, Text: "history_compacted"})
		default:
			rec.add(Item{Kind: ItemMeta, Body: p})
		}
	case "response_item":
		rec.NativeType = rec.in.join("response_item/", p.Get("type"))
		switch rec.in.str(p.Get("type")) {
		case "message":
			switch rec.in.str(p.Get("role")) {
			case "user":
				rec.add(Item{Kind: ItemUser, Body: p.Get("content")})
			case "assistant":
				rec.add(Item{Kind: ItemAssistant, Body: p.Get("content")})
			default:
				rec.add(Item{Kind: ItemSystem, Body: p.Get("content"), Text: rec.in.str(p.Get("role"))})
			}
		case "function_call":
			rec.add(Item{Kind: ItemCall, CallID: str(p, "callId"), Tool: rec.in.str(p.Get("name")), Body: p.Get("argumentsJson")})
		case "function_call_output":
			rec.add(Item{Kind: ItemResult, CallID: str(p, "callId"), Tool: rec.in.str(p.Get("toolName")), Body: p.Get("output"), IsError: p.Get("isError").True()})
		case "compaction_summary":
			rec.Compaction, rec.DropsCalls = true, true
			rec.Summary = !p.Get("content").IsEmpty()
			rec.add(Item{Kind: ItemCompaction, Body: p.Get("content")})
		default:
			rec.add(Item{Kind: ItemMeta, Body: p})
		}
	}
}
