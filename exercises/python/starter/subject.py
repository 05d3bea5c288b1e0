#!/usr/bin/env python3
"""Your tracecheck subject: the exercises of lesson s07 and resume, in Python.

The protocol loop is done: tracecheck writes one JSON request per line on
stdin, this program answers each with one JSON line on stdout (print logs to
stderr, never to stdout). Fill in one op per exercise, then check it:

    tracecheck exercise list                                  # where you are
    tracecheck exercise show A                                # what to build
    tracecheck exercise run A -- python3 subject.py           # check it
    tracecheck exercise show A --hint                         # when stuck

An op answers with a dict of its fields (tracecheck adds "id" and "ok"), or
raises OpError(message, code) to refuse the request. docs/protocol.md lists
every field.
"""

import json
import sys
import traceback

PROTOCOL = 1
# The ops this subject answers. tracecheck checks an exercise only when every
# op it needs is listed here.
OPS = ["journal", "replay", "branch", "append", "checkpoint", "replay_from_checkpoint", "resume"]


class OpError(Exception):
    """A refused request: {"ok": false, "error": {"message", "code"}}. code is optional."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        self.code = code


def op_journal(req):
    """Exercise A. req["events"]: a list of events.

    Return {} when they form a journal; raise OpError (code EMPTY_JOURNAL,
    SEQUENCE_GAP, MIXED_SESSION, MIXED_RUN, PARENT_NOT_EARLIER or
    DUPLICATE_EVENT_ID) at the first violation.
    """
    # TODO(exercise A): check the journal invariants.
    raise NotImplementedError("exercise A: op journal (see: tracecheck exercise show A)")


def op_replay(req):
    """Exercises B and C. req["events"], req.get("through").

    Return {"state": {"session_id", "run_id", "applied_sequences",
    "user_messages", "assistant_messages", "tool_results", "stop_reason",
    "fingerprint"}}.
    """
    # TODO(exercise B): replay events 0..through into the view, with its fingerprint.
    # TODO(exercise C): count only the final chunk of a streamed response.
    raise NotImplementedError("exercise B: op replay (see: tracecheck exercise show B)")


def op_branch(req):
    """Exercise D. req["events"], req["fork_sequence"], req["branch_id"].

    Return {"branch": {"branch_id", "parent_session_id", "parent_run_id",
    "fork_sequence", "inherited_event_ids", "parent_fingerprint"}}.
    """
    # TODO(exercise D): record the branch's lineage.
    raise NotImplementedError("exercise D: op branch (see: tracecheck exercise show D)")


def op_append(req):
    """Exercise E. req["session_id"], req["event"].

    Keep a store for the length of the run (a module-level dict is enough).
    Return {"result": "appended"} or {"result": "duplicate"}; raise
    OpError(..., "CONFLICT") for a different event under a stored event_id.
    """
    # TODO(exercise E): the duplicate-delivery policy.
    raise NotImplementedError("exercise E: op append (see: tracecheck exercise show E)")


def op_checkpoint(req):
    """Exercise F. req["events"], req["through"].

    Return {"checkpoint": <any JSON>}: tracecheck sends it back later.
    """
    # TODO(exercise F): checkpoint the replay of events 0..through.
    raise NotImplementedError("exercise F: op checkpoint (see: tracecheck exercise show F)")


def op_replay_from_checkpoint(req):
    """Exercise F. req["checkpoint"], req["tail"].

    Return {"state": {...}} equal to the replay from event zero (the
    fingerprint may be None).
    """
    # TODO(exercise F): apply the tail to the checkpointed view.
    raise NotImplementedError("exercise F: op replay_from_checkpoint (see: tracecheck exercise show F)")


def op_resume(req):
    """Exercise R. req["session_id"], req["events"], req["run_id"], req["message"].

    Return {"appended": [events], "history": [messages]}; raise
    OpError(..., "NOT_FOUND") for a session without events and
    OpError(..., "RUN_EXISTS") for a run_id the session already holds (these
    codes are required: a refusal without its code does not pass).
    """
    # TODO(exercise R): repair interrupted tool calls, append the new run, rebuild the history.
    raise NotImplementedError("exercise R: op resume (see: tracecheck exercise show R)")


# --- The protocol loop: nothing to change below ----------------------------


def op_hello(req):
    return {"protocol": PROTOCOL, "name": "my subject", "language": "python", "ops": OPS}


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
    except NotImplementedError as e:
        return {"id": req["id"], "ok": False, "error": {"message": f"not implemented yet: {e}"}}
    except Exception as e:  # a bug: the traceback goes to stderr, tracecheck shows its tail
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
