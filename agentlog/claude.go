package agentlog

import "github.com/tracecheck/tracecheck/agentlog/jsonpeek"

// Claude Code transcripts (~/.claude/projects/<cwd-slug>/<sessionId>.jsonl,
// subagents in agent-*.jsonl or <session>/subagents/): one record per line,
// closed source; described by daaain/claude-code-log and
// kvsankar/agent-history. Entries carry uuid and parentUuid; a resume
// loads the chain from the latest message up through parentUuid. A
// compact boundary (system/compact_boundary) starts a new root
// (parentUuid null, logicalParentUuid naming the last entry before it) and
// the next message (isCompactSummary) carries the summary. Lines of one
// model reply share message.id and requestId: those ids repeat by design
// and are not entry ids.

// claudeTypes are the record types tracecheck knows. Claude Code 2.1.332
// writes the last seven in every session (seen in real transcripts; the
// bundle's resume code loads user, assistant, system, attachment and
// progress as the conversation and the others as bookkeeping). None has a
// uuid of its own:
//   - last-prompt {lastPrompt, leafUuid, explicit?, sessionId}: the last
//     prompt typed and the entry to resume from.
//   - atis-latch {atis, sessionId}: a session setting latched for resume
//     (the bundle keeps the last one).
//   - tools-used {tools, sessionId}: the names of the tools the session has
//     used so far (the last one wins).
//   - api-request-shape {shapeHash, shape: {system, tools}, timestamp,
//     version}, api-request-blob {hash, message} and api-request {id,
//     shapeHash, params, base?, keep, tail, cacheControl, requestDigest}:
//     the request log, each API request's parameters with its system
//     prompt, tools and messages stored once by hash; the messages repeat
//     the transcript's.
//   - cost-state {totalCostUSD, totalAPIDuration, totalToolDuration,
//     totalDuration, totalLinesAdded, totalLinesRemoved, startTime,
//     modelUsage, ...}: the session's running cost and usage totals as the
//     process ended, which the bundle reads back when it loads the session
//     (the last valid one per session). Not imported: it is a running total (each assistant line
//     carries its own request's usage), and its wall-clock totals differ
//     from run to run, so a metric.sample of it would make two imports of
//     the same conversation differ.
var claudeTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true, "file-history-snapshot": true,
	"queue-operation": true, "progress": true, "attachment": true, "custom-title": true, "last-prompt": true,
	"atis-latch": true, "tools-used": true, "api-request-shape": true, "api-request-blob": true, "api-request": true,
	"cost-state": true,
}

// claudeSyntheticModel is the model Claude Code names on the assistant
// messages it writes itself (an API error, a notice): no model wrote them.
const claudeSyntheticModel = "<synthetic>"

// claudeInterruptPrefix opens the user message Claude Code writes when the
// user interrupts a turn ("[Request interrupted by user]" and "... for tool
// use]").
const claudeInterruptPrefix = "[Request interrupted by user"

// claudeKeys are the top-level members decodeClaude reads, found in one
// walk over a record (jsonpeek.Value.Lookup), in the order of the c*
// indexes below.
var claudeKeys = jsonpeek.NewKeys("type", "timestamp", "sessionId", "version", "uuid", "parentUuid",
	"isSidechain", "agentId", "message", "isCompactSummary", "isMeta", "isApiErrorMessage", "error",
	"subtype", "compactMetadata", "content")

const (
	cType = iota
	cTimestamp
	cSessionID
	cVersion
	cUUID
	cParentUUID
	cIsSidechain
	cAgentID
	cMessage
	cIsCompactSummary
	cIsMeta
	cIsAPIErrorMessage
	cError
	cSubtype
	cCompactMetadata
	cContent
	claudeKeyCount
)

// claudeMessageKeys are the keys read of a record's message, and
// claudeBlockKeys of a content block (blockKeys' and a tool result's).
var (
	claudeMessageKeys = jsonpeek.NewKeys("content", "model")
	claudeBlockKeys   = blockKeys("input", "tool_use_id", "content", "is_error")
)

const (
	cbToolUseID = blockKeyCount + iota
	cbContent
	cbIsError
	claudeBlockKeyCount
)

func decodeClaude(rec *Record) {
	r := rec.Root
	var f [claudeKeyCount]jsonpeek.Value
	r.Lookup(claudeKeys, f[:])
	typ := rec.in.str(f[cType])
	rec.NativeType = typ
	rec.Timestamp = lineView(f[cTimestamp])
	rec.Session = rec.in.str(f[cSessionID])
	rec.Version = rec.in.str(f[cVersion])
	if id := f[cUUID]; id.Kind() == jsonpeek.String {
		rec.setID(id.Str())
		if p := f[cParentUUID]; p.Kind() == jsonpeek.String {
			rec.Parent, rec.HasParent = lineView(p), true
		}
	}
	rec.Sidechain = f[cIsSidechain].True()
	rec.AgentID = rec.in.str(f[cAgentID])
	if !claudeTypes[typ] {
		rec.Unknown = true
		return
	}
	var mf [2]jsonpeek.Value
	f[cMessage].Lookup(claudeMessageKeys, mf[:])
	content, model := mf[0], mf[1]
	switch typ {
	case "user":
		rec.Leaf = rec.HasID
		if f[cIsCompactSummary].True() {
			rec.IsSummary = true
			rec.add(Item{Kind: ItemCompaction, Body: content, Text: "summary"})
			return
		}
		if textHasPrefix(content, claudeInterruptPrefix) {
			rec.add(Item{Kind: ItemAbort, Body: content, Text: "interrupted by the user"})
			return
		}
		userText := false
		content.Elems(func(_ int, b jsonpeek.Value) bool {
			var bf [claudeBlockKeyCount]jsonpeek.Value
			b.Lookup(claudeBlockKeys, bf[:])
			if bf[bType].Is("tool_result") {
				rec.add(Item{Kind: ItemResult, CallID: bf[cbToolUseID].Str(), Body: bf[cbContent], IsError: bf[cbIsError].True()})
			} else {
				userText = true
			}
			return true
		})
		if content.Kind() != jsonpeek.Array || userText {
			kind := ItemUser
			if f[cIsMeta].True() {
				kind = ItemSystem
			}
			rec.add(Item{Kind: kind, Body: content})
		}
	case "assistant":
		rec.Leaf = rec.HasID
		if m := rec.in.str(model); m != claudeSyntheticModel {
			rec.Model = m
		}
		if f[cIsAPIErrorMessage].True() {
			// The message Claude Code writes in place of a reply when the
			// API request failed: {isApiErrorMessage: true, error, apiError,
			// message: {model: "<synthetic>", content: [{type: "text",
			// text: "API Error: 400 ..."}]}}. No model said it.
			detail := "API error"
			if e := f[cError].Str(); e != "" {
				detail += " " + e
			}
			rec.add(Item{Kind: ItemError, Body: r, Text: detail, Msg: content})
			return
		}
		assistantBlocks(rec, content, claudeBlockKeys, "tool_use", "server_tool_use")
		if content.Kind() == jsonpeek.String {
			rec.add(Item{Kind: ItemAssistant, Body: content})
		}
	case "system":
		rec.Leaf = rec.HasID
		rec.NativeType = rec.in.join("system/", f[cSubtype])
		if f[cSubtype].Is("compact_boundary") {
			rec.Compaction, rec.Boundary, rec.DropsCalls = true, true, true
			rec.add(Item{Kind: ItemCompaction, Body: f[cCompactMetadata], Text: "boundary"})
			return
		}
		rec.add(Item{Kind: ItemSystem, Body: f[cContent]})
	default:
		rec.add(Item{Kind: ItemMeta, Body: r})
	}
}
