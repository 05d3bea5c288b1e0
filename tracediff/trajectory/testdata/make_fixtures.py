#!/usr/bin/env python3
"""Writes the trace pairs of the trajectory tests (TestUnexpectedCallNamesPointer):
each case a directory with expected.jsonl and actual.jsonl, single runs as a
real agent writes them (UUID ids, wall-clock timestamps, durations), so that
the test captures the tolerant golden of expected.jsonl with the normalizer
and compares as 'tracecheck diff --normalize --match MODE' does. Run from
this directory: python3 make_fixtures.py. Standard library only; the output
is deterministic; regenerate rather than edit.
"""
import json
import os
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))

READ_A = ("read", {"path": "a"})
READ_B = ("read", {"path": "b"})
GREP_X = ("grep", {"q": "x"})
GREP_Y = ("grep", {"q": "y"})

# case (named for the relation it is compared with): (expected calls, actual calls)
CASES = {
    "subset-changed-argument": ([READ_A, GREP_X], [GREP_Y]),
    "subset-extra-call": ([GREP_X], [GREP_X, GREP_Y]),
    "subset-repeated-call": ([GREP_X], [GREP_X, GREP_X]),
    "same-multiset-extra-call": ([READ_A, GREP_X], [GREP_X, READ_A, READ_B]),
}


def run(seed, calls):
    ids = []

    def new_id():
        ids.append(str(uuid.UUID(int=(seed << 64) + len(ids) + 1, version=4)))
        return ids[-1]

    session, run_id = new_id(), new_id()
    events = []

    def emit(typ, kind, payload):
        e = {
            "trace_version": "0.1.0",
            "event_id": new_id(),
            "session_id": session,
            "sequence": len(events),
            "timestamp": "2026-09-01T10:00:%02d.%03dZ" % (len(events), seed * 7 % 1000),
            "type": typ,
            "actor": {"kind": kind, "id": "agent" if kind == "agent" else "harness"},
            "payload": payload,
            "provenance": {"agent_id": "agent", "snapshot_id": "agent-1", "surface": "sdk", "harness_mode": "native", "run_id": run_id},
            "redaction": {"status": "clean", "fields": []},
        }
        if events:
            e["parent_event_id"] = events[-1]["event_id"]
        events.append(e)

    emit("session.start", "harness", {"max_turns": 4})
    emit("model.request", "harness", {"turn": 1})
    for tool, args in calls:
        call_id = new_id()
        emit("tool.request", "agent", {"tool_call_id": call_id, "tool": tool, "arguments": args})
        emit("tool.result", "harness", {"tool_call_id": call_id, "tool": tool, "ok": True, "duration_ms": 3 + seed})
    emit("session.stop", "harness", {"reason": "completed"})
    return events


def main():
    for seed, (case, (expected, actual)) in enumerate(sorted(CASES.items()), 1):
        d = os.path.join(HERE, case)
        os.makedirs(d, exist_ok=True)
        for name, calls, s in (("expected.jsonl", expected, 2 * seed), ("actual.jsonl", actual, 2 * seed + 1)):
            with open(os.path.join(d, name), "w", encoding="utf-8", newline="\n") as f:
                for e in run(s, calls):
                    f.write(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
