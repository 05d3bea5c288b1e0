#!/usr/bin/env python3
"""A reference solution of the tracecheck exercises, in Python (standard library only).

It is a tracecheck subject: it reads one JSON request per line on stdin and
writes one JSON response per line on stdout (docs/protocol.md). Check it with

    tracecheck conform -- python3 exercises/python/solution/subject.py

Exercises A-F are those of the curriculum's lesson s07 (journal, replay,
streaming, branches, duplicate delivery, checkpoints); R is resume, from
chapter 20 of the TypeScript harness. `tracecheck exercise show X` states each.
"""

import copy
import datetime
import hashlib
import json
import sys
import traceback

PROTOCOL = 1
OPS = ["journal", "replay", "branch", "append", "checkpoint", "replay_from_checkpoint", "resume"]


class OpError(Exception):
    """A refused request: becomes {"ok": false, "error": {"message", "code"}}."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        self.code = code


# --- A. The journal: refuse a broken one before any view exists ----------


def check_journal(events):
    """Raise OpError naming the first violation of the journal invariants."""
    if not events:
        raise OpError("a session journal needs at least one event", "EMPTY_JOURNAL")
    session_id = events[0]["session_id"]
    run_id = events[0]["provenance"]["run_id"]
    seen = set()
    for i, event in enumerate(events):
        check_event(event, i, session_id, run_id, seen, where=f"events[{i}]")


def check_event(event, sequence, session_id, run_id, seen, where):
    """Check one event against the invariants, in tracecheck's order."""
    if event["session_id"] != session_id:
        raise OpError(f"{where}: session_id {event['session_id']!r} is not the journal's {session_id!r}", "MIXED_SESSION")
    if event["provenance"]["run_id"] != run_id:
        raise OpError(f"{where}: run_id {event['provenance']['run_id']!r} is not the journal's {run_id!r}", "MIXED_RUN")
    if event["sequence"] != sequence:
        raise OpError(f"{where}: sequence {event['sequence']} where {sequence} was expected", "SEQUENCE_GAP")
    parent = event.get("parent_event_id")
    if parent is not None and parent not in seen:
        raise OpError(f"{where}: parent_event_id {parent!r} names no earlier event", "PARENT_NOT_EARLIER")
    if event["event_id"] in seen:
        raise OpError(f"{where}: event_id {event['event_id']!r} appears earlier", "DUPLICATE_EVENT_ID")
    seen.add(event["event_id"])


def op_journal(req):
    check_journal(req["events"])
    return {}


# --- B and C. Replay, with the final-event rule for streamed responses ----


def empty_view():
    return {
        "applied_sequences": [],
        "user_messages": [],
        "assistant_messages": [],
        "tool_results": [],
        "stop_reason": None,
    }


def text_of(payload, key, default=""):
    value = payload.get(key, default)
    return value if isinstance(value, str) else str(value)


def apply(view, event):
    """Fold one event into the view (the lesson's reducer)."""
    view["applied_sequences"].append(event["sequence"])
    kind = event["type"]
    payload = event.get("payload", {})
    if kind == "user.message":
        view["user_messages"].append(text_of(payload, "content"))
    elif kind == "model.response":
        if "content" in payload:
            view["assistant_messages"].append(text_of(payload, "content"))
        elif payload.get("final") is True:
            view["assistant_messages"].append(text_of(payload, "accumulated"))
    elif kind == "tool.result":
        view["tool_results"].append(dict(payload))
    elif kind == "session.stop":
        view["stop_reason"] = text_of(payload, "reason", "unknown")


def fingerprint(events):
    wire = json.dumps(events, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(wire.encode("utf-8")).hexdigest()


def select(events, through, name="through"):
    check_journal(events)
    if through is None:
        return events
    if not 0 <= through < len(events):
        raise OpError(f"{name} {through} is outside the journal (sequences 0..{len(events) - 1})", "OUT_OF_RANGE")
    return events[: through + 1]


def replay(events, through=None):
    selected = select(events, through)
    view = empty_view()
    for event in selected:
        apply(view, event)
    state = {"session_id": selected[0]["session_id"], "run_id": selected[0]["provenance"]["run_id"]}
    state.update(view)
    state["fingerprint"] = fingerprint(selected)
    return state


def op_replay(req):
    return {"state": replay(req["events"], req.get("through"))}


# --- D. Branches: lineage, not a copied transcript -------------------------


def op_branch(req):
    events, fork, branch_id = req["events"], req["fork_sequence"], req["branch_id"]
    check_journal(events)
    if not branch_id.strip():
        raise OpError("branch_id must be non-empty", "BLANK_BRANCH_ID")
    selected = select(events, fork, "fork_sequence")
    return {
        "branch": {
            "branch_id": branch_id,
            "parent_session_id": selected[0]["session_id"],
            "parent_run_id": selected[0]["provenance"]["run_id"],
            "fork_sequence": fork,
            "inherited_event_ids": [e["event_id"] for e in selected],
            "parent_fingerprint": fingerprint(selected),
        }
    }


# --- E. Duplicate delivery --------------------------------------------------
#
#   stored event_id?  same event?  answer
#   no                -            store it, then "appended"
#   yes               yes          store nothing, "duplicate"
#   yes               no           store nothing, CONFLICT
#
# "Same" compares values (sorted keys), not bytes. The acknowledgement point:
# the answer is written only after the event is in STORE; a store on disk
# would write and fsync it first.

STORE = {}  # session_id -> {event_id: canonical JSON of the stored event}


def canonical(value):
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def op_append(req):
    session_id, event = req["session_id"], req["event"]
    if event.get("session_id") != session_id:
        raise OpError(f"the event's session_id is not {session_id!r}", "WRONG_SESSION")
    stored = STORE.setdefault(session_id, {})
    wire = canonical(event)
    event_id = event["event_id"]
    if event_id in stored:
        if stored[event_id] == wire:
            return {"result": "duplicate"}
        raise OpError(f"event_id {event_id!r} is already stored with different content", "CONFLICT")
    stored[event_id] = wire
    return {"result": "appended"}


# --- F. Checkpoints ---------------------------------------------------------

REDUCER_VERSION = "python-solution-replay/1"


def op_checkpoint(req):
    events, through = req["events"], req["through"]
    state = replay(events, through)
    prefix = events[: through + 1]
    view = {k: state[k] for k in empty_view()}
    return {
        "checkpoint": {
            "reducer_version": REDUCER_VERSION,
            "source_sequence": through,
            "source_fingerprint": state["fingerprint"],
            "session_id": state["session_id"],
            "run_id": state["run_id"],
            "event_ids": [e["event_id"] for e in prefix],
            "projection": view,
        }
    }


def op_replay_from_checkpoint(req):
    cp, tail = req["checkpoint"], req["tail"]
    if not isinstance(cp, dict) or cp.get("reducer_version") != REDUCER_VERSION:
        raise OpError("the checkpoint was made by another reducer: replay from event zero", "STALE_CHECKPOINT")
    view = copy.deepcopy(cp["projection"])
    seen = set(cp["event_ids"])
    first = cp["source_sequence"] + 1
    for i, event in enumerate(tail):
        check_event(event, first + i, cp["session_id"], cp["run_id"], seen, where=f"tail[{i}]")
        apply(view, event)
    state = {"session_id": cp["session_id"], "run_id": cp["run_id"]}
    state.update(view)
    # The fingerprint covers every event from zero; the checkpoint keeps only
    # the prefix's digest, and hashlib cannot continue from a digest.
    state["fingerprint"] = None
    return {"state": state}


# --- R. Resume (chapter 20 of the TypeScript harness) -----------------------

INTERRUPTED_ERROR = (
    "Error [SESSION_RESUME_INTERRUPTED]: This tool call did not finish before the previous run "
    "on this session ended, so no output was recorded. Treat it as not executed and decide "
    "whether to retry it."
)
INTERRUPTED_ERROR_TYPE = "SessionResumeInterrupted"


def tool_content(payload):
    """The content of the tool message for a tool.result payload."""
    if payload.get("ok") is True:
        value = payload.get("result")
    else:
        value = {"ok": False, "error": payload.get("error"), "error_type": payload.get("error_type")}
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def history_text(payload, key):
    value = payload.get(key)
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return json.dumps(value)
    return ""


def rebuild_history(events):
    """The model-visible history after events; assistant messages carry their calls."""
    history = []
    open_turn = None  # the current turn's assistant message
    for event in events:
        kind, payload = event["type"], event.get("payload", {})
        if kind == "user.message":
            history.append({"role": "user", "content": history_text(payload, "content")})
            open_turn = None
        elif kind == "model.request":
            open_turn = None
        elif kind == "model.response":
            if "content" in payload:
                text = history_text(payload, "content")
            elif payload.get("final") is True:
                text = history_text(payload, "accumulated")
            else:
                continue
            calls = [{"id": history_text(c, "id"), "name": history_text(c, "name")} for c in payload.get("tool_calls", [])]
            open_turn = {"role": "assistant", "content": text, "calls": calls}
            history.append(open_turn)
        elif kind == "tool.request":
            call_id = history_text(payload, "tool_call_id")
            if open_turn is None:
                raise OpError(f"tool call {call_id!r} follows no assistant message", "HISTORY")
            if all(c["id"] != call_id for c in open_turn["calls"]):
                open_turn["calls"].append({"id": call_id, "name": history_text(payload, "tool")})
        elif kind == "tool.result":
            history.append(tool_message(payload))
        elif kind in ("context.compact", "context.prune"):
            raise OpError(f"{kind} cannot be replayed by this subject", "HISTORY")
    return history


def tool_message(payload):
    return {
        "role": "tool",
        "content": tool_content(payload),
        "name": history_text(payload, "tool"),
        "tool_call_id": history_text(payload, "tool_call_id"),
    }


def unanswered_calls(history):
    calls = []  # [call, answered]
    for message in history:
        if message["role"] == "assistant":
            calls.extend([call, False] for call in message["calls"])
        elif message["role"] == "tool":
            for entry in calls:
                if not entry[1] and entry[0]["id"] == message["tool_call_id"]:
                    entry[1] = True
                    break
    return [call for call, answered in calls if not answered]


def wire(message):
    out = {"role": message["role"], "content": message["content"]}
    for key in ("name", "tool_call_id"):
        if message.get(key):
            out[key] = message[key]
    return out


def op_resume(req):
    session_id, events, run_id, message = req["session_id"], req["events"], req["run_id"], req["message"]
    if not events:
        raise OpError(f"session not found: {session_id} (nothing was created)", "NOT_FOUND")
    if any(e["provenance"]["run_id"] == run_id for e in events):
        raise OpError(f"run {run_id!r} is already in the session", "RUN_EXISTS")
    history = rebuild_history(events)
    repairs = unanswered_calls(history)

    last = events[-1]
    provenance = dict(last["provenance"], run_id=run_id)
    harness = {"kind": "harness", "id": provenance["agent_id"]}
    start = {}
    user_actor = {"kind": "user", "id": "user"}
    for event in events:
        if event["type"] == "session.start" and isinstance(event.get("payload"), dict):
            start = event["payload"]
        elif event["type"] == "user.message":
            user_actor = event["actor"]
    start = {k: v for k, v in start.items() if k not in ("resumed", "resumes_run_id")}
    start.update(resumed=True, resumes_run_id=last["provenance"]["run_id"])

    taken = {e["event_id"] for e in events}
    position = len(events)
    clock = parse_time(last["timestamp"])
    appended = []

    def emit(kind, actor, payload):
        nonlocal position
        while f"evt-{position:03d}" in taken:
            position += 1
        event = {
            "trace_version": "0.1.0",
            "event_id": f"evt-{position:03d}",
            "session_id": session_id,
            "sequence": len(appended),
            "timestamp": (clock + datetime.timedelta(seconds=len(appended) + 1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "type": kind,
            "actor": actor,
            "payload": payload,
            "provenance": provenance,
            "redaction": {"status": "clean", "fields": []},
        }
        if appended:
            event["parent_event_id"] = appended[-1]["event_id"]
        position += 1
        appended.append(event)

    emit("session.start", harness, start)
    for call in repairs:
        payload = {
            "tool_call_id": call["id"],
            "tool": call["name"],
            "ok": False,
            "error": INTERRUPTED_ERROR,
            "error_type": INTERRUPTED_ERROR_TYPE,
        }
        emit("tool.result", harness, payload)
        history.append(tool_message(payload))
    if message:
        emit("user.message", user_actor, {"content": message})
        history.append({"role": "user", "content": message})
    return {"appended": appended, "history": [wire(m) for m in history]}


def parse_time(text):
    try:
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(datetime.timezone.utc)
    except (ValueError, AttributeError):
        return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


# --- The protocol loop ------------------------------------------------------


def op_hello(req):
    return {"protocol": PROTOCOL, "name": "python reference solution", "language": "python", "ops": OPS}


HANDLERS = {
    "hello": op_hello,
    "journal": op_journal,
    "replay": op_replay,
    "branch": op_branch,
    "append": op_append,
    "checkpoint": op_checkpoint,
    "replay_from_checkpoint": op_replay_from_checkpoint,
    "resume": op_resume,
}


def answer(req):
    handler = HANDLERS.get(req.get("op"))
    try:
        if handler is None:
            raise OpError(f"op {req.get('op')!r} is not supported", "UNSUPPORTED_OP")
        return dict({"id": req["id"], "ok": True}, **handler(req))
    except OpError as e:
        error = {"message": e.message}
        if e.code:
            error["code"] = e.code
        return {"id": req["id"], "ok": False, "error": error}
    except Exception as e:  # a bug: say so on stderr, answer with an error
        traceback.print_exc(file=sys.stderr)
        return {"id": req["id"], "ok": False, "error": {"message": f"{type(e).__name__}: {e}"}}


def main():
    sys.stdin.reconfigure(encoding="utf-8")
    sys.stdout.reconfigure(encoding="utf-8")
    for line in sys.stdin:  # one request per line; stdin ends at the end of the run
        if not line.strip():
            continue
        response = answer(json.loads(line))
        sys.stdout.write(json.dumps(response, ensure_ascii=False) + "\n")
        sys.stdout.flush()  # answer now: tracecheck waits for this line


if __name__ == "__main__":
    main()
