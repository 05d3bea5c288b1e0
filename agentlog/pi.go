package agentlog

import (
	"strconv"

	"github.com/tracecheck/tracecheck/agentlog/jsonpeek"
)

// pi coding agent sessions (~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl;
// badlogic/pi-mono packages/coding-agent/src/core/session-manager.ts and
// docs/session.md). The first line is the session header {type:"session",
// id, version?}; version 1 files (no version) have entries without ids,
// versions 2 and 3 give every entry an id and a parentId. pi loads the
// file by skipping lines JSON.parse rejects, treats a file whose first
// entry is not a header as empty (and rewrites it as a new session), takes
// the last entry as the leaf and walks parentId up to the root; orphan
// tool calls are answered at request time with an error toolResult "No
// result provided" (packages/ai/src/providers/transform-messages.ts), and
// assistant messages whose stopReason is "aborted" or "error" are dropped.

var piTypes = map[string]bool{
	"session": true, "message": true, "thinking_level_change": true, "model_change": true, "compaction": true,
	"branch_summary": true, "custom": true, "custom_message": true, "label": true, "session_info": true,
}

// piKeys and piMessageKeys are the members decodePi reads of an entry
// and of its message, found in one walk each (jsonpeek.Value.Lookup), in
// the order of the p* and pm* indexes below.
var (
	piBlockKeys   = blockKeys("arguments")
	piKeys        = jsonpeek.NewKeys("type", "timestamp", "id", "parentId", "message")
	piMessageKeys = jsonpeek.NewKeys("role", "content", "model", "provider", "stopReason", "errorMessage",
		"toolCallId", "toolName", "isError")
)

const (
	pType = iota
	pTimestamp
	pID
	pParentID
	pMessage
	piKeyCount
)

const (
	pmRole = iota
	pmContent
	pmModel
	pmProvider
	pmStopReason
	pmErrorMessage
	pmToolCallID
	pmToolName
	pmIsError
	piMessageKeyCount
)

func decodePi(rec *Record) {
	r := rec.Root
	var f [piKeyCount]jsonpeek.Value
	r.Lookup(piKeys, f[:])
	typ := rec.in.str(f[pType])
	rec.NativeType = typ
	rec.Timestamp = lineView(f[pTimestamp])
	if typ == "session" {
		rec.Header = true
		rec.Session = str(r, "id")
		if v, ok := r.Get("version").Int(); ok {
			rec.Version = "v" + strconv.FormatInt(v, 10)
		} else {
			rec.Version = "v1"
		}
		rec.Provider = str(r, "provider")
		rec.Model = str(r, "modelId")
		rec.add(Item{Kind: ItemMeta, Body: r})
		return
	}
	if id := f[pID]; id.Kind() == jsonpeek.String {
		rec.setID(id.Str())
		if p := f[pParentID]; p.Kind() == jsonpeek.String {
			rec.Parent, rec.HasParent = lineView(p), true
		}
	}
	rec.Leaf = true
	if !piTypes[typ] {
		rec.Unknown = true
		return
	}
	switch typ {
	case "message":
		msg := f[pMessage]
		var mf [piMessageKeyCount]jsonpeek.Value
		msg.Lookup(piMessageKeys, mf[:])
		rec.NativeType = rec.in.join("message/", mf[pmRole])
		content := mf[pmContent]
		switch rec.in.str(mf[pmRole]) {
		case "user":
			rec.add(Item{Kind: ItemUser, Body: content})
		case "assistant":
			rec.Model, rec.Provider = rec.in.str(mf[pmModel]), rec.in.str(mf[pmProvider])
			assistantBlocks(rec, content, piBlockKeys, "toolCall")
			if sr := rec.in.str(mf[pmStopReason]); sr == "aborted" || sr == "error" {
				rec.add(Item{Kind: ItemAbort, Body: mf[pmErrorMessage], Text: "stopReason " + sr})
			}
		case "toolResult":
			rec.add(Item{Kind: ItemResult, CallID: mf[pmToolCallID].Str(), Tool: rec.in.str(mf[pmToolName]), Body: content, IsError: mf[pmIsError].True()})
		default:
			rec.add(Item{Kind: ItemSystem, Body: msg, Text: rec.in.str(mf[pmRole])})
		}
	case "compaction":
		rec.Compaction = true
		rec.Summary = !r.Get("summary").IsEmpty()
		rec.FirstKept = str(r, "firstKeptEntryId")
		rec.add(Item{Kind: ItemCompaction, Body: r.Get("summary")})
	case "branch_summary":
		rec.add(Item{Kind: ItemSystem, Body: r.Get("summary"), Text: "branch_summary"})
	case "custom_message":
		rec.add(Item{Kind: ItemSystem, Body: r.Get("content"), Text: "custom_message"})
	case "model_change":
		rec.Model, rec.Provider = str(r, "modelId"), str(r, "provider")
		rec.add(Item{Kind: ItemMeta, Body: r})
	default:
		rec.add(Item{Kind: ItemMeta, Body: r})
	}
}
