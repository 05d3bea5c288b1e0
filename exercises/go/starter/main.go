// Command starter is your tracecheck subject in Go: the exercises of the
// curriculum's lesson s07 and resume (chapter 20 of the TypeScript harness).
//
// The protocol loop is done: tracecheck writes one JSON request per line on
// stdin, this program answers each with one JSON line on stdout (log to
// stderr, never to stdout). Fill in one op per exercise, then check it:
//
//	tracecheck exercise list                                # where you are
//	tracecheck exercise show A                              # what to build
//	go build -o subject . && tracecheck exercise run A -- ./subject
//	tracecheck exercise show A --hint                       # when stuck
//
// An op returns the fields of its answer (the loop adds "id" and "ok") or an
// error; refuse(code, ...) gives the error a code. docs/protocol.md lists
// every field. Requests are decoded with UseNumber: numbers are json.Number.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// obj is a JSON object as decoded (numbers as json.Number).
type obj = map[string]any

// ops lists the ops this subject answers; tracecheck checks an exercise only
// when every op it needs is listed.
var ops = []string{"journal", "replay", "branch", "append", "checkpoint", "replay_from_checkpoint", "resume"}

// opError is a refused request: {"ok": false, "error": {"message", "code"}}.
type opError struct{ msg, code string }

func (e *opError) Error() string { return e.msg }

// refuse refuses a request with a code (EMPTY_JOURNAL, SEQUENCE_GAP, ...).
func refuse(code, format string, a ...any) error {
	return &opError{msg: fmt.Sprintf(format, a...), code: code}
}

// Exercise A. req["events"]: the events. Return obj{} for a journal, or
// refuse with the code of the first violation.
func opJournal(req obj) (obj, error) {
	// TODO(exercise A): check the journal invariants.
	return nil, errors.New("not implemented yet: exercise A, op journal (see: tracecheck exercise show A)")
}

// Exercises B and C. req["events"], req["through"] (optional). Return
// obj{"state": ...} with session_id, run_id, applied_sequences,
// user_messages, assistant_messages, tool_results, stop_reason, fingerprint.
func opReplay(req obj) (obj, error) {
	// TODO(exercise B): replay events 0..through into the view, with its fingerprint.
	// TODO(exercise C): count only the final chunk of a streamed response.
	return nil, errors.New("not implemented yet: exercise B, op replay (see: tracecheck exercise show B)")
}

// Exercise D. req["events"], req["fork_sequence"], req["branch_id"]. Return
// obj{"branch": ...}.
func opBranch(req obj) (obj, error) {
	// TODO(exercise D): record the branch's lineage.
	return nil, errors.New("not implemented yet: exercise D, op branch (see: tracecheck exercise show D)")
}

// Exercise E. req["session_id"], req["event"]. Keep a store for the length
// of the run; return obj{"result": "appended"} or obj{"result": "duplicate"},
// or refuse with CONFLICT.
func opAppend(req obj) (obj, error) {
	// TODO(exercise E): the duplicate-delivery policy.
	return nil, errors.New("not implemented yet: exercise E, op append (see: tracecheck exercise show E)")
}

// Exercise F. req["events"], req["through"]. Return obj{"checkpoint": any JSON}.
func opCheckpoint(req obj) (obj, error) {
	// TODO(exercise F): checkpoint the replay of events 0..through.
	return nil, errors.New("not implemented yet: exercise F, op checkpoint (see: tracecheck exercise show F)")
}

// Exercise F. req["checkpoint"], req["tail"]. Return obj{"state": ...} equal
// to the replay from event zero (the fingerprint may be nil).
func opReplayFromCheckpoint(req obj) (obj, error) {
	// TODO(exercise F): apply the tail to the checkpointed view.
	return nil, errors.New("not implemented yet: exercise F, op replay_from_checkpoint (see: tracecheck exercise show F)")
}

// Exercise R. req["session_id"], req["events"], req["run_id"],
// req["message"]. Return obj{"appended": [...], "history": [...]}, or refuse
// with NOT_FOUND for a session without events and RUN_EXISTS for a run_id
// the session already holds (these codes are required: a refusal without
// its code does not pass).
func opResume(req obj) (obj, error) {
	// TODO(exercise R): repair interrupted tool calls, append the new run, rebuild the history.
	return nil, errors.New("not implemented yet: exercise R, op resume (see: tracecheck exercise show R)")
}

// --- The protocol loop: nothing to change below ----------------------------

var handlers = map[string]func(obj) (obj, error){
	"hello": func(obj) (obj, error) {
		return obj{"protocol": 1, "name": "my subject", "language": "go", "ops": ops}, nil
	},
	"journal":                opJournal,
	"replay":                 opReplay,
	"branch":                 opBranch,
	"append":                 opAppend,
	"checkpoint":             opCheckpoint,
	"replay_from_checkpoint": opReplayFromCheckpoint,
	"resume":                 opResume,
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n') // one request per line; stdin ends at the end of the run
		if len(bytes.TrimSpace(line)) > 0 {
			b, merr := json.Marshal(answer(line))
			if merr != nil {
				fmt.Fprintln(os.Stderr, "cannot encode the answer:", merr)
				os.Exit(1)
			}
			out.Write(b)
			out.WriteByte('\n')
			out.Flush() // answer now: tracecheck waits for this line
		}
		if err != nil {
			return
		}
	}
}

func answer(line []byte) obj {
	var req obj
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return obj{"id": 0, "ok": false, "error": obj{"message": "not a JSON request: " + err.Error()}}
	}
	op, _ := req["op"].(string)
	h := handlers[op]
	if h == nil {
		return obj{"id": req["id"], "ok": false, "error": obj{"message": fmt.Sprintf("op %q is not supported", op), "code": "UNSUPPORTED_OP"}}
	}
	res, err := h(req)
	if err != nil {
		e := obj{"message": err.Error()}
		var oe *opError
		if errors.As(err, &oe) && oe.code != "" {
			e["code"] = oe.code
		}
		return obj{"id": req["id"], "ok": false, "error": e}
	}
	if res == nil {
		res = obj{}
	}
	res["id"], res["ok"] = req["id"], true
	return res
}
