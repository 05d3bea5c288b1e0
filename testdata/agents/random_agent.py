#!/usr/bin/env python3
"""A small "agent" that writes a Trace 0.1.0 journal the way real agents do:
random UUIDs for the session, the run, every event and every tool call,
wall-clock timestamps, random tool durations, and the three tool calls of its
one turn in a random order. Its behaviour is otherwise fixed, so a tolerant
golden captured from one run (tracecheck normalize) matches every other run
(tracecheck diff --normalize --match same-multiset).

Standard library only. Randomness comes from os.urandom unless --seed is
given. Flags inject real behaviour changes for the tests to catch:

  --change-argument  the search call asks for another query
  --drop-result      the read_file call gets no tool.result
  --fixed-order      the calls in their planned order (then an event-by-event
                     tolerant diff applies too)

Usage: random_agent.py [--out FILE] [--seed N] [flags]   (default: stdout)
"""
import argparse
import datetime
import json
import os
import random
import sys
import uuid

TOOLS = [
    ("read_file", {"path": "README.md"}, {"bytes": 2048, "first_line": "# tracecheck"}),
    ("search", {"query": "golden trace", "limit": 5}, {"hits": ["README.md", "golden/golden.go"]}),
    ("list_dir", {"path": "."}, {"entries": ["README.md", "go.mod", "golden"]}),
]


def main():
    ap = argparse.ArgumentParser(description="write a Trace 0.1.0 journal with random ids, times and tool order")
    ap.add_argument("--out", default="-", help="output file ('-' for standard output)")
    ap.add_argument("--seed", type=int, help="seed the randomness (default: os.urandom)")
    ap.add_argument("--change-argument", action="store_true", help="the search call asks for another query")
    ap.add_argument("--drop-result", action="store_true", help="the read_file call gets no tool.result")
    ap.add_argument("--fixed-order", action="store_true", help="call the tools in their planned order")
    args = ap.parse_args()

    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(8), "big")
    rng = random.Random(seed)

    def new_uuid():
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    session_id, run_id = new_uuid(), "run-" + new_uuid()
    events = []

    def emit(typ, kind, actor_id, payload, duration_ms=None):
        event = {
            "trace_version": "0.1.0",
            "event_id": new_uuid(),
            "session_id": session_id,
            "sequence": len(events),
            "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z"),
            "type": typ,
            "actor": {"kind": kind, "id": actor_id},
            "payload": payload,
            "provenance": {
                "agent_id": "random-agent",
                "snapshot_id": "random-agent-0.1-python",
                "surface": "cli",
                "harness_mode": "native",
                "run_id": run_id,
                "model": "random-model",
                "provider": "local",
            },
            "redaction": {"status": "clean", "fields": []},
        }
        if events:
            event["parent_event_id"] = events[-1]["event_id"]
        if duration_ms is not None:
            event["duration_ms"] = duration_ms
        events.append(event)

    calls = [(name, dict(arguments), result) for name, arguments, result in TOOLS]
    if args.change_argument:
        for name, arguments, _ in calls:
            if name == "search":
                arguments["query"] = "golden traces"
    if not args.fixed_order:
        rng.shuffle(calls)
    call_ids = [new_uuid() for _ in calls]

    emit("session.start", "harness", "random-agent", {"max_turns": 4, "tool_count": len(TOOLS)})
    emit("user.message", "user", "developer", {"content": "Find where goldens are described."})
    emit("model.request", "harness", "random-agent", {"turn": 1, "message_count": 1, "roles": ["user"], "tools": [t[0] for t in TOOLS]})
    emit("model.response", "model", "random-model", {
        "turn": 1, "content": "", "stop": False,
        "tool_calls": [{"id": cid, "name": name, "arguments": arguments} for cid, (name, arguments, _) in zip(call_ids, calls)],
    }, duration_ms=round(rng.uniform(50, 900), 3))
    for cid, (name, arguments, result) in zip(call_ids, calls):
        emit("tool.request", "model", "random-model", {"tool_call_id": cid, "tool": name, "arguments": arguments})
        if args.drop_result and name == "read_file":
            continue
        emit("tool.result", "tool", name, {"tool_call_id": cid, "tool": name, "ok": True, "result": result, "truncated": False},
             duration_ms=round(rng.uniform(0, 40), 3))
    emit("model.request", "harness", "random-agent", {"turn": 2, "message_count": 3, "roles": ["user", "assistant", "tool"], "tools": [t[0] for t in TOOLS]})
    emit("model.response", "model", "random-model", {
        "turn": 2, "content": "Goldens are described in README.md.", "stop": True, "tool_calls": [],
    }, duration_ms=round(rng.uniform(50, 900), 3))
    emit("session.stop", "harness", "random-agent", {"reason": "completed", "turns": 2})

    text = "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


if __name__ == "__main__":
    main()
