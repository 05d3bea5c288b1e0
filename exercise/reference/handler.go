package reference

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
	"github.com/tracecheck/tracecheck/schema"
)

// Ops lists every op Handler answers, as hello reports them.
var Ops = []string{"journal", "replay", "branch", "append", "checkpoint", "replay_from_checkpoint", "resume"}

// Handler answers requests. It keeps, for append, a session store in a
// temporary directory of its own, created on the first append and removed
// by Close. A Handler is not safe for concurrent use.
type Handler struct {
	dir     string
	st      *store.Store
	writers map[string]*store.Writer
}

// NewHandler returns a handler with an empty store.
func NewHandler() *Handler { return &Handler{writers: map[string]*store.Writer{}} }

// Close closes the store's sessions and removes its directory.
func (h *Handler) Close() error {
	var first error
	for _, w := range h.writers {
		if err := w.Close(); err != nil && first == nil {
			first = err
		}
	}
	h.writers = map[string]*store.Writer{}
	if h.dir != "" {
		if err := os.RemoveAll(h.dir); err != nil && first == nil {
			first = err
		}
		h.dir, h.st = "", nil
	}
	return first
}

// Append appends event to session sessionID of the handler's store:
// "appended" once durable, "duplicate" for an identical retry of a stored
// event (nothing written), CONFLICT for a different event under a stored
// event_id, and the store's code for an event its rules reject.
func (h *Handler) Append(sessionID string, event jsonv.Value) (string, error) {
	if h.st == nil {
		dir, err := os.MkdirTemp("", "tracecheck-reference-store-")
		if err != nil {
			return "", err
		}
		st, err := store.Open(dir)
		if err != nil {
			os.RemoveAll(dir)
			return "", err
		}
		h.dir, h.st = dir, st
	}
	w := h.writers[sessionID]
	if w == nil {
		var err error
		if w, err = h.st.OpenWriter(sessionID, store.WriterOptions{Create: true, NoCheckpoint: true}); err != nil {
			if errors.Is(err, store.ErrInvalidSessionID) {
				return "", errorf(CodeBadRequest, "%v", err)
			}
			return "", err
		}
		h.writers[sessionID] = w
	}
	ack, err := w.Append(event.AppendJSON(nil))
	var se *store.Error
	switch {
	case err == nil && ack.Duplicate:
		return "duplicate", nil
	case err == nil:
		return "appended", nil
	case errors.Is(err, store.ErrConflict):
		return "", errorf(CodeConflict, "%v", err)
	case errors.Is(err, store.ErrRejected) && errors.As(err, &se):
		code := string(se.Code())
		if code == "" || se.Code() == store.EmbeddedNewline {
			code = CodeBadRequest
		}
		return "", errorf(code, "%v", err)
	}
	return "", err
}

// Handle answers one request (a JSON object with id and op) with its
// response. A request that does not match the protocol's schema is
// BAD_REQUEST, an op it does not know UNSUPPORTED_OP.
func (h *Handler) Handle(req jsonv.Value) jsonv.Value {
	id, _ := req.Get("id")
	if !id.IsValid() {
		id = jsonv.Int(0)
	}
	op, _ := req.Get("op")
	fields, err := h.handle(op.Text(), req)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Code: CodeBadRequest, Msg: err.Error()}
		}
		return jsonv.Obj(jsonv.M("id", id), jsonv.M("ok", jsonv.BoolValue(false)),
			jsonv.M("error", jsonv.Obj(jsonv.M("message", jsonv.Str(e.Msg)), jsonv.M("code", jsonv.Str(e.Code)))))
	}
	return jsonv.Obj(append([]jsonv.Member{jsonv.M("id", id), jsonv.M("ok", jsonv.BoolValue(true))}, fields...)...)
}

func (h *Handler) handle(op string, req jsonv.Value) ([]jsonv.Member, error) {
	known := op == "hello"
	for _, o := range Ops {
		known = known || o == op
	}
	if !known {
		return nil, errorf(CodeUnsupportedOp, "op %q is not one this subject supports", op)
	}
	if err := schema.ValidateProtocol(op+"_request", req.Interface(schema.Number)); err != nil {
		return nil, errorf(CodeBadRequest, "%s request: %v", op, err)
	}
	get := func(key string) jsonv.Value { v, _ := req.Get(key); return v }
	num := func(key string) int64 { n, _ := get(key).Int64(); return n }
	events := get("events").Elems()
	switch op {
	case "hello":
		return []jsonv.Member{
			jsonv.M("protocol", jsonv.Int(1)),
			jsonv.M("name", jsonv.Str("tracecheck reference")),
			jsonv.M("language", jsonv.Str("go")),
			jsonv.M("ops", jsonv.StrArr(Ops)),
		}, nil
	case "journal":
		_, err := Journal(events)
		return nil, err
	case "replay":
		var through *int64
		if req.Has("through") {
			n := num("through")
			through = &n
		}
		st, err := Replay(events, through)
		return []jsonv.Member{jsonv.M("state", st.Value())}, err
	case "branch":
		b, err := Branch(events, num("fork_sequence"), get("branch_id").Text())
		return []jsonv.Member{jsonv.M("branch", b.Value())}, err
	case "append":
		res, err := h.Append(get("session_id").Text(), get("event"))
		return []jsonv.Member{jsonv.M("result", jsonv.Str(res))}, err
	case "checkpoint":
		cp, err := Checkpoint(events, num("through"))
		return []jsonv.Member{jsonv.M("checkpoint", cp)}, err
	case "replay_from_checkpoint":
		st, err := ReplayFromCheckpoint(get("checkpoint"), get("tail").Elems())
		return []jsonv.Member{jsonv.M("state", st.Value())}, err
	default: // resume
		res, err := Resume(get("session_id").Text(), events, get("run_id").Text(), get("message").Text())
		if err != nil {
			return nil, err
		}
		appended, history := ResumeValue(res)
		return []jsonv.Member{jsonv.M("appended", appended), jsonv.M("history", history)}, nil
	}
}

// Serve answers the requests read from r, one per line, on w until r ends,
// then closes the handler. A line that is not a JSON object is answered
// with a BAD_REQUEST error response carrying id 0.
func Serve(r io.Reader, w io.Writer) error {
	h := NewHandler()
	defer h.Close()
	rd := journal.NewReader(r)
	rd.SetMaxLineBytes(256 << 20)
	bw := bufio.NewWriter(w)
	for {
		l, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		var resp jsonv.Value
		if err != nil {
			resp = badRequest(fmt.Sprintf("reading requests: %v", err))
		} else if req, perr := jsonv.Parse(l.Raw); perr != nil || req.Kind() != jsonv.Object {
			resp = badRequest(fmt.Sprintf("line %d is not a JSON object", l.Num))
		} else {
			resp = h.Handle(req)
		}
		if _, werr := bw.Write(append(resp.AppendJSON(nil), '\n')); werr != nil {
			return werr
		}
		if ferr := bw.Flush(); ferr != nil {
			return ferr
		}
		if err != nil {
			return err // the reader stopped (a line too long, a read error)
		}
	}
}

func badRequest(msg string) jsonv.Value {
	return jsonv.Obj(jsonv.M("id", jsonv.Int(0)), jsonv.M("ok", jsonv.BoolValue(false)),
		jsonv.M("error", jsonv.Obj(jsonv.M("message", jsonv.Str(msg)), jsonv.M("code", jsonv.Str(CodeBadRequest)))))
}
