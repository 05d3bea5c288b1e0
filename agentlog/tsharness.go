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

// The keys decodeTSHarness reads, each object's walked once (Lookup).
var (
	tsKeys        = jsonpeek.NewKeys("type", "payload", "timestamp")
	tsPayloadKeys = jsonpeek.NewKeys("type", "id", "model", "modelProvider", "sidechain", "turnId", "sessionId",
		"runId", "result", "reason", "role", "content", "callId", "name", "argumentsJson", "toolName", "output", "isError")
)

const (
	tpType = iota
	tpID
	tpModel
	tpModelProvider
	tpSidechain
	tpTurnID
	tpSessionID
	tpRunID
	tpResult
	tpReason
	tpRole
	tpContent
	tpCallID
	tpName
	tpArgumentsJSON
	tpToolName
	tpOutput
	tpIsError
	tsPayloadKeyCount
)

func decodeTSHarness(rec *Record) {
	var top [3]jsonpeek.Value
	rec.Root.Lookup(tsKeys, top[:])
	typ := rec.in.str(top[0])
	p := top[1]
	rec.NativeType = typ
	rec.Timestamp = lineView(top[2])
	if !tsTypes[typ] || p.Kind() != jsonpeek.Object {
		rec.Unknown = true
		return
	}
	var f [tsPayloadKeyCount]jsonpeek.Value
	p.Lookup(tsPayloadKeys, f[:])
	switch typ {
	case "session_meta":
		rec.Header = true
		rec.Session = f[tpID].Str()
		rec.Model, rec.Provider = f[tpModel].Str(), f[tpModelProvider].Str()
		if sc := f[tpSidechain]; sc.Kind() == jsonpeek.Object {
			rec.Sidechain = true
			rec.AgentID = str(sc, "agentId")
			rec.ForkOf = str(sc, "parentSessionId")
		}
		rec.add(Item{Kind: ItemMeta, Body: p})
	case "turn_context":
		rec.Model = rec.in.str(f[tpModel])
		rec.add(Item{Kind: ItemMeta, Body: p, Text: f[tpTurnID].Str()})
	case "agent_event":
		et := rec.in.str(f[tpType])
		rec.NativeType = rec.in.join("agent_event/", f[tpType])
		switch et {
		case "run_started":
			rec.Session = rec.in.str(f[tpSessionID])
			rec.add(Item{Kind: ItemRunStart, Body: p, Text: f[tpRunID].Str()})
		case "run_succeeded":
			rec.add(Item{Kind: ItemRunEnd, Body: f[tpResult]})
		case "run_failed":
			rec.add(Item{Kind: ItemAbort, Body: p, Text: "run_failed"})
		case "run_cancelled":
			rec.add(Item{Kind: ItemAbort, Body: p, Text: "run_cancelled " + f[tpReason].Str()})
		case "history_compacted":
			rec.add(Item{Kind: ItemMeta, Body: p, Text: "history_compacted"})
		default:
			rec.add(Item{Kind: ItemMeta, Body: p})
		}
	case "response_item":
		rec.NativeType = rec.in.join("response_item/", f[tpType])
		switch rec.in.str(f[tpType]) {
		case "message":
			switch rec.in.str(f[tpRole]) {
			case "user":
				rec.add(Item{Kind: ItemUser, Body: f[tpContent]})
			case "assistant":
				rec.add(Item{Kind: ItemAssistant, Body: f[tpContent]})
			default:
				rec.add(Item{Kind: ItemSystem, Body: f[tpContent], Text: rec.in.str(f[tpRole])})
			}
		case "function_call":
			rec.add(Item{Kind: ItemCall, CallID: f[tpCallID].Str(), Tool: rec.in.str(f[tpName]), Body: f[tpArgumentsJSON]})
		case "function_call_output":
			rec.add(Item{Kind: ItemResult, CallID: f[tpCallID].Str(), Tool: rec.in.str(f[tpToolName]), Body: f[tpOutput], IsError: f[tpIsError].True()})
		case "compaction_summary":
			rec.Compaction, rec.DropsCalls = true, true
			rec.Summary = !f[tpContent].IsEmpty()
			rec.add(Item{Kind: ItemCompaction, Body: f[tpContent]})
		default:
			rec.add(Item{Kind: ItemMeta, Body: p})
		}
	}
}
