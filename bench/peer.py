#!/usr/bin/env python3
"""Python peer of `tracecheck replay`: the side-by-side baseline.

What a careful Python user would write with the standard library alone:
read a Trace 0.1.0 JSONL journal line by line, check each event's envelope
by hand (the same rules as schema/trace-event.schema.json: required and
allowed keys, types, enums, the stable-id pattern, RFC 3339 date-time,
unique non-empty redaction fields), check the seed's journal invariants
(sequence 0..n-1, one session_id, one provenance.run_id, parent_event_id
names an earlier event, no event_id twice), replay the view (seed 004
reducer, streamed responses counted by their final delta) and fingerprint
the events exactly as the seed does, streaming into hashlib:

    sha256(json.dumps(events, ensure_ascii=False, sort_keys=True,
                      separators=(",", ":")).encode("utf-8"))

Usage: peer.py FILE [--json]

Prints the fingerprint, the applied event count and the stop reason (or the
whole view as JSON); exit 1 with file:line: message on the first problem.
Not checked here, unlike tracecheck: duplicate keys inside one object
(json.loads keeps the last) and numbers json.loads accepts but the Go side
rejects as overflowing.
"""

import hashlib
import json
import re
import sys
from calendar import monthrange

TRACE_VERSION = "0.1.0"
TYPES = frozenset("""session.start session.stop session.replay session.branch user.message
model.request model.response tool.request tool.result approval.request approval.decision
sandbox.configure network.decision trust.decision instruction.accept instruction.quarantine
checkpoint.create checkpoint.diff checkpoint.rollback file.patch context.prune context.compact
memory.read memory.write skill.load agent.spawn agent.message agent.stop metric.sample error""".split())
ACTOR_KINDS = frozenset("user model agent tool harness policy environment".split())
HARNESS_MODES = frozenset("fake native controlled adversarial".split())
STATUSES = frozenset("clean redacted restricted".split())
TOP_REQUIRED = ("trace_version", "event_id", "session_id", "sequence", "timestamp", "type",
                "actor", "payload", "provenance", "redaction")
TOP_ALLOWED = frozenset(TOP_REQUIRED + ("parent_event_id", "duration_ms"))
ACTOR_ALLOWED = frozenset(("kind", "id", "parent_id"))
PROV_REQUIRED = ("agent_id", "snapshot_id", "surface", "harness_mode", "run_id")
PROV_ALLOWED = frozenset(PROV_REQUIRED + ("experiment_id", "model", "provider"))
RED_ALLOWED = frozenset(("status", "fields", "notes"))
STABLE_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
DATE_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))\Z")


class Invalid(Exception):
    pass


def reject_constant(name):
    raise ValueError("%s is not JSON" % name)


def nonempty_str(v):
    return type(v) is str and v != ""


def valid_date_time(s):
    m = DATE_TIME.match(s)
    if not m:
        return False
    y, mo, d, h, mi, sec = (int(g) for g in m.groups()[:6])
    if not 1 <= mo <= 12 or not 1 <= d <= monthrange(y or 2000, mo)[1]:  # year 0000 is a leap year
        return False
    if h > 23 or mi > 59 or sec > 60:
        return False
    if sec == 60:  # a leap second is only valid at 23:59 UTC
        minutes = h * 60 + mi
        if m.group(7):
            oh, om = int(m.group(8)), int(m.group(9))
            if oh > 23 or om > 59:
                return False
            minutes = (minutes - (1 if m.group(7) == "+" else -1) * (oh * 60 + om)) % 1440
        return minutes == 23 * 60 + 59
    if m.group(7) and (int(m.group(8)) > 23 or int(m.group(9)) > 59):
        return False
    return True


def check_envelope(ev):
    if type(ev) is not dict:
        raise Invalid("line is not a JSON object")
    for k in TOP_REQUIRED:
        if k not in ev:
            raise Invalid("missing property %r" % k)
    for k in ev:
        if k not in TOP_ALLOWED:
            raise Invalid("additional property %r" % k)
    if ev["trace_version"] != TRACE_VERSION or type(ev["trace_version"]) is not str:
        raise Invalid("/trace_version must be %r" % TRACE_VERSION)
    if not nonempty_str(ev["event_id"]):
        raise Invalid("/event_id must be a non-empty string")
    if not nonempty_str(ev["session_id"]):
        raise Invalid("/session_id must be a non-empty string")
    seq = ev["sequence"]
    if type(seq) is float and seq.is_integer():
        seq = int(seq)
    if type(seq) is not int or seq < 0:
        raise Invalid("/sequence must be an integer >= 0")
    ts = ev["timestamp"]
    if type(ts) is not str or not valid_date_time(ts):
        raise Invalid("/timestamp must be an RFC 3339 date-time")
    if type(ev["type"]) is not str or ev["type"] not in TYPES:
        raise Invalid("/type is not a Trace event type")
    actor = ev["actor"]
    if type(actor) is not dict or "kind" not in actor or "id" not in actor or not ACTOR_ALLOWED.issuperset(actor):
        raise Invalid("/actor must be {kind, id, parent_id?}")
    if type(actor["kind"]) is not str or actor["kind"] not in ACTOR_KINDS:
        raise Invalid("/actor/kind is not an actor kind")
    if not nonempty_str(actor["id"]) or ("parent_id" in actor and not nonempty_str(actor["parent_id"])):
        raise Invalid("/actor ids must be non-empty strings")
    if type(ev["payload"]) is not dict:
        raise Invalid("/payload must be an object")
    prov = ev["provenance"]
    if type(prov) is not dict or not PROV_ALLOWED.issuperset(prov) or any(k not in prov for k in PROV_REQUIRED):
        raise Invalid("/provenance has missing or extra properties")
    for k in ("agent_id", "experiment_id"):
        if k in prov and (type(prov[k]) is not str or not STABLE_ID.match(prov[k])):
            raise Invalid("/provenance/%s does not match the stable id pattern" % k)
    for k in ("snapshot_id", "surface", "run_id"):
        if not nonempty_str(prov[k]):
            raise Invalid("/provenance/%s must be a non-empty string" % k)
    if type(prov["harness_mode"]) is not str or prov["harness_mode"] not in HARNESS_MODES:
        raise Invalid("/provenance/harness_mode is not a harness mode")
    for k in ("model", "provider"):
        if k in prov and type(prov[k]) is not str:
            raise Invalid("/provenance/%s must be a string" % k)
    red = ev["redaction"]
    if type(red) is not dict or "status" not in red or "fields" not in red or not RED_ALLOWED.issuperset(red):
        raise Invalid("/redaction must be {status, fields, notes?}")
    if type(red["status"]) is not str or red["status"] not in STATUSES:
        raise Invalid("/redaction/status is not a redaction status")
    fields = red["fields"]
    if type(fields) is not list or not all(nonempty_str(f) for f in fields) or len(set(fields)) != len(fields):
        raise Invalid("/redaction/fields must be unique non-empty strings")
    if "notes" in red and type(red["notes"]) is not str:
        raise Invalid("/redaction/notes must be a string")
    if "parent_event_id" in ev and not nonempty_str(ev["parent_event_id"]):
        raise Invalid("/parent_event_id must be a non-empty string")
    if "duration_ms" in ev:
        d = ev["duration_ms"]
        if type(d) not in (int, float) or d < 0:
            raise Invalid("/duration_ms must be a number >= 0")
    return seq


def py_str(payload, key, default):
    v = payload.get(key, default)
    return v if type(v) is str else str(v)


def replay(path):
    h = hashlib.sha256(b"[")
    seen = set()
    session = run = None
    users, assistants, tool_results, stop = [], [], [], None
    n = 0
    dumps = json.dumps
    loads = json.JSONDecoder(parse_constant=reject_constant).decode
    with open(path, "rb") as f:
        for num, raw in enumerate(f, 1):
            where = "%s:%d" % (path, num)
            if not raw.endswith(b"\n"):
                raise Invalid("%s: last line has no newline" % where)
            try:
                ev = loads(raw.decode("utf-8"))
                seq = check_envelope(ev)
            except (ValueError, UnicodeDecodeError, Invalid) as e:
                raise Invalid("%s: %s" % (where, e))
            if seq != n:
                raise Invalid("%s: sequence %d where %d was expected" % (where, seq, n))
            if n == 0:
                session, run = ev["session_id"], ev["provenance"]["run_id"]
            elif ev["session_id"] != session:
                raise Invalid("%s: a second session_id" % where)
            elif ev["provenance"]["run_id"] != run:
                raise Invalid("%s: a second run_id" % where)
            parent = ev.get("parent_event_id")
            if parent is not None and parent not in seen:
                raise Invalid("%s: parent_event_id %r names no earlier event" % (where, parent))
            eid = ev["event_id"]
            if eid in seen:
                raise Invalid("%s: event_id %r appears earlier" % (where, eid))
            seen.add(eid)
            if n:
                h.update(b",")
            h.update(dumps(ev, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8"))
            n += 1
            t, p = ev["type"], ev["payload"]
            if t == "user.message":
                users.append(py_str(p, "content", ""))
            elif t == "model.response":
                if "content" in p:
                    assistants.append(py_str(p, "content", ""))
                elif p.get("final") is True:
                    assistants.append(py_str(p, "accumulated", ""))
            elif t == "tool.result":
                tool_results.append(p)
            elif t == "session.stop":
                stop = py_str(p, "reason", "unknown")
    if n == 0:
        raise Invalid("%s: a session journal needs at least one event" % path)
    h.update(b"]")
    return {
        "session_id": session, "run_id": run, "applied_sequences": list(range(n)),
        "user_messages": users, "assistant_messages": assistants, "tool_results": tool_results,
        "stop_reason": stop, "fingerprint": h.hexdigest(),
    }


def main(argv):
    if len(argv) < 2:
        print(next(l for l in __doc__.splitlines() if l.startswith("Usage:")), file=sys.stderr)
        return 2
    try:
        state = replay(argv[1])
    except Invalid as e:
        print(e, file=sys.stderr)
        return 1
    if "--json" in argv[2:]:
        print(json.dumps(state, ensure_ascii=False, separators=(",", ":")))
    else:
        print("fingerprint: %s" % state["fingerprint"])
        print("applied:     %d events" % len(state["applied_sequences"]))
        print("stop_reason: %s" % state["stop_reason"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
