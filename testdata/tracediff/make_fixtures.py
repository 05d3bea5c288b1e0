#!/usr/bin/env python3
"""Writes the input traces of the tracediff tests, each case a directory
with expected.jsonl and actual.jsonl, derived from the committed s03 golden
and testdata/good/two-runs.trace.jsonl by changing one thing. Run from this
directory: python3 make_fixtures.py. Standard library only; the output is
deterministic. The reports the tests expect are goldie goldens beside them
(regenerate with go test ./tracediff -update and read the diff).
"""
import json
import os
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def dump(events):
    return "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events)


def write(case, expected, actual):
    d = os.path.join(HERE, case)
    os.makedirs(d, exist_ok=True)
    for name, events in (("expected.jsonl", expected), ("actual.jsonl", actual)):
        text = events if isinstance(events, str) else dump(events)
        with open(os.path.join(d, name), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


def copy(events):
    return json.loads(json.dumps(events))


def real_run(seed, base, start_second):
    """A run of s03 as a real agent writes it: UUID ids, wall-clock
    timestamps with fractions, durations on tool results."""
    events = copy(base)
    ids = {}

    def new_id(old):
        if old not in ids:
            ids[old] = str(uuid.UUID(int=(seed << 64) + len(ids) + 1, version=4))
        return ids[old]

    session, run = new_id("session"), new_id("run")
    for i, e in enumerate(events):
        e["event_id"] = new_id(e["event_id"])
        if "parent_event_id" in e:
            e["parent_event_id"] = new_id(e["parent_event_id"])
        e["session_id"] = session
        e["provenance"]["run_id"] = run
        e["timestamp"] = "2026-09-01T10:%02d:%02d.%03dZ" % (start_second // 60, start_second % 60 + i, seed * 7 % 1000)
        p = e["payload"]
        for call in p.get("tool_calls", []):
            call["id"] = new_id(call["id"])
        if "tool_call_id" in p:
            p["tool_call_id"] = new_id(p["tool_call_id"])
        if e["type"] == "tool.result":
            e["duration_ms"] = 3 + seed
    return events


s03 = read("golden/s03-tool-dispatch.trace.jsonl")

write("same", s03, s03)

changed = copy(s03)
changed[4]["payload"]["arguments"]["text"] = "hullo"
changed[7]["payload"]["content"] = "The echo tool returned hullo."
write("changed", s03, changed)

write("missing", s03, s03[:-1])

extra = copy(s03) + [copy(s03[-1])]
extra[-1].update(event_id="evt-009", sequence=9, parent_event_id="evt-008", timestamp="2026-08-10T00:00:09Z")
write("extra", s03, extra)

reordered = copy(s03)
reordered[2] = {k: reordered[2][k] for k in reversed(list(reordered[2]))}
write("member-order", s03, reordered)

two = read("testdata/good/two-runs.trace.jsonl")
two_changed = copy(two)
for e in two_changed[5:]:
    if e["type"] == "user.message":
        e["payload"]["content"] = "A different question."
write("second-run", two, two_changed)

gap = copy(s03)
for e in gap[5:]:
    e["sequence"] += 1
write("invalid-actual", s03, gap)

many = copy(s03)
for e in many:
    e["actor"]["id"] = "someone-else"
write("many", s03, many)

# Tolerant cases: expected.jsonl is captured with the normalizer from
# real-a.jsonl by the Go test (a goldie golden, tolerant.golden); these are
# the actual runs it is compared with.
a = real_run(1, s03, 0)
b = real_run(2, s03, 120)
d = os.path.join(HERE, "tolerant")
os.makedirs(d, exist_ok=True)
for name, events in (("real-a.jsonl", a), ("real-b.jsonl", b)):
    with open(os.path.join(d, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(dump(events))

mixup = copy(b)
mixup[6]["parent_event_id"] = mixup[4]["event_id"]  # an earlier event, but not the previous one
backwards = copy(b)
backwards[6]["timestamp"] = "2026-09-01T10:00:00.000Z"
other_arg = copy(b)
other_arg[4]["payload"]["arguments"]["text"] = "goodbye"
for name, events in (("mixup.jsonl", mixup), ("backwards.jsonl", backwards), ("other-argument.jsonl", other_arg)):
    with open(os.path.join(d, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(dump(events))
