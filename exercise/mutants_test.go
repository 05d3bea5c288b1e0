package exercise

import (
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/exercise/reference"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// A mutant is tracecheck's implementation with one mistake a learner could
// make. Each criterion has one: the mutant must fail exactly that
// criterion first, so that every criterion can fail, and fail for what it
// is about rather than because an earlier one is too strict.
type mutant func(op string, req jsonv.Value, h *reference.Handler) jsonv.Value

// onOp applies f to the responses of op only.
func onOp(op string, f func(req, resp jsonv.Value, h *reference.Handler) jsonv.Value) mutant {
	return func(o string, req jsonv.Value, h *reference.Handler) jsonv.Value {
		resp := h.Handle(req)
		if o != op {
			return resp
		}
		return f(req, resp, h)
	}
}

// rewriteEvents answers op after rewriting the request's events with f.
func rewriteEvents(op, key string, f func(events []jsonv.Value) []jsonv.Value) mutant {
	return func(o string, req jsonv.Value, h *reference.Handler) jsonv.Value {
		if o == op {
			req = req.With(key, jsonv.Arr(f(member(req, key).Elems())...))
		}
		return h.Handle(req)
	}
}

func code(resp jsonv.Value) string { return member(member(resp, "error"), "code").Text() }

func okResponse(req jsonv.Value, fields ...jsonv.Member) jsonv.Value {
	return jsonv.Obj(append([]jsonv.Member{jsonv.M("id", member(req, "id")), jsonv.M("ok", jsonv.BoolValue(true))}, fields...)...)
}

// accept turns the refusals with one of codes into {"ok": true} plus the
// fields of a replay of the same events, whatever they are.
func accept(op string, codes ...string) mutant {
	return onOp(op, func(req, resp jsonv.Value, h *reference.Handler) jsonv.Value {
		for _, c := range codes {
			if code(resp) == c {
				return okResponse(req, fakeFields(op)...)
			}
		}
		return resp
	})
}

// fakeFields are schema-valid fields of an op's answer.
func fakeFields(op string) []jsonv.Member {
	st := jsonv.Obj(jsonv.M("session_id", jsonv.Str("s")), jsonv.M("run_id", jsonv.Str("r")),
		jsonv.M("applied_sequences", jsonv.Arr()), jsonv.M("user_messages", jsonv.Arr()), jsonv.M("assistant_messages", jsonv.Arr()),
		jsonv.M("tool_results", jsonv.Arr()), jsonv.M("stop_reason", jsonv.NullValue()), jsonv.M("fingerprint", jsonv.Str(strings.Repeat("0", 64))))
	switch op {
	case "replay", "replay_from_checkpoint":
		return []jsonv.Member{jsonv.M("state", st)}
	case "branch":
		return []jsonv.Member{jsonv.M("branch", jsonv.Obj(jsonv.M("branch_id", jsonv.Str("b")), jsonv.M("parent_session_id", jsonv.Str("s")),
			jsonv.M("parent_run_id", jsonv.Str("r")), jsonv.M("fork_sequence", jsonv.Int(0)), jsonv.M("inherited_event_ids", jsonv.Arr()),
			jsonv.M("parent_fingerprint", jsonv.Str(strings.Repeat("0", 64)))))}
	case "resume":
		return []jsonv.Member{jsonv.M("appended", jsonv.Arr()), jsonv.M("history", jsonv.Arr())}
	}
	return nil
}

// setIn replaces a nested member of an ok response.
func setIn(resp jsonv.Value, v jsonv.Value, path ...string) jsonv.Value {
	if !member(resp, "ok").IsTrue() {
		return resp
	}
	return setPath(resp, path, v)
}

// chunks rewrites every streamed chunk's final with f(chunk, next event).
func chunks(f func(chunk, next jsonv.Value) jsonv.Value) func([]jsonv.Value) []jsonv.Value {
	return func(evs []jsonv.Value) []jsonv.Value {
		out := append([]jsonv.Value(nil), evs...)
		for i, e := range evs {
			p := member(e, "payload")
			if member(e, "type").Text() != "model.response" || p.Has("content") {
				continue
			}
			var next jsonv.Value
			if i+1 < len(evs) {
				next = evs[i+1]
			}
			out[i] = e.With("payload", p.With("final", f(p, next)))
		}
		return out
	}
}

// textStore is an append store with one of the mistakes of exercise E:
// "text" compares retries as text (member order matters), "dup" answers
// duplicate for any stored id, "overwrite" lets a refused conflict replace
// the stored event, "current" keeps one session only (the last one
// appended to).
func textStore(mode string) mutant {
	stored, current := map[string]string{}, ""
	return func(op string, req jsonv.Value, h *reference.Handler) jsonv.Value {
		if op != "append" {
			return h.Handle(req)
		}
		e := member(req, "event")
		key := member(req, "session_id").Text() + "/" + member(e, "event_id").Text()
		if s := member(req, "session_id").Text(); mode == "current" && s != current {
			stored, current = map[string]string{}, s
		}
		text := string(e.AppendCanonical(nil))
		if mode == "text" {
			text = string(e.AppendJSON(nil))
		}
		old, ok := stored[key]
		switch {
		case !ok:
			stored[key] = text
			return okResponse(req, jsonv.M("result", jsonv.Str("appended")))
		case old == text || mode == "dup":
			return okResponse(req, jsonv.M("result", jsonv.Str("duplicate")))
		}
		if mode == "overwrite" {
			stored[key] = text
		}
		return jsonv.Obj(jsonv.M("id", member(req, "id")), jsonv.M("ok", jsonv.BoolValue(false)),
			jsonv.M("error", jsonv.Obj(jsonv.M("message", jsonv.Str("conflict")), jsonv.M("code", jsonv.Str("CONFLICT")))))
	}
}

func mutants() map[string]func() mutant {
	const interrupted = "SessionResumeInterrupted"
	return map[string]func() mutant{
		"A1": func() mutant {
			return onOp("journal", func(req, resp jsonv.Value, _ *reference.Handler) jsonv.Value {
				if len(member(req, "events").Elems()) > 8 { // refuses long journals
					return jsonv.Obj(jsonv.M("id", member(req, "id")), jsonv.M("ok", jsonv.BoolValue(false)), jsonv.M("error", jsonv.Obj(jsonv.M("message", jsonv.Str("too long")))))
				}
				return resp
			})
		},
		"A2": func() mutant { return accept("journal", "SEQUENCE_GAP") },
		"A3": func() mutant { return accept("journal", "MIXED_SESSION", "MIXED_RUN") },
		"A4": func() mutant { return accept("journal", "EMPTY_JOURNAL") },
		"A5": func() mutant { return accept("journal", "PARENT_NOT_EARLIER", "DUPLICATE_EVENT_ID") },
		"B1": func() mutant {
			return onOp("replay", func(req, resp jsonv.Value, _ *reference.Handler) jsonv.Value {
				if req.Has("through") && member(member(resp, "state"), "stop_reason").Kind() == jsonv.Null {
					return setIn(resp, jsonv.Str("unknown"), "state", "stop_reason")
				}
				return resp
			})
		},
		"B2": func() mutant {
			return onOp("replay", func(req, resp jsonv.Value, _ *reference.Handler) jsonv.Value {
				if !req.Has("through") {
					return setIn(resp, jsonv.Arr(), "state", "tool_results")
				}
				return resp
			})
		},
		"B3": func() mutant {
			return onOp("replay", func(req, resp jsonv.Value, _ *reference.Handler) jsonv.Value {
				return setIn(resp, jsonv.Str(strings.Repeat("ab", 32)), "state", "fingerprint")
			})
		},
		"B4": func() mutant {
			return onOp("replay", func(req, resp jsonv.Value, h *reference.Handler) jsonv.Value {
				if code(resp) == "OUT_OF_RANGE" {
					return h.Handle(req.Without("through"))
				}
				return resp
			})
		},
		"C1": func() mutant {
			return rewriteEvents("replay", "events", chunks(func(jsonv.Value, jsonv.Value) jsonv.Value { return jsonv.BoolValue(true) }))
		},
		"C2": func() mutant { // the last chunk of a stream counts, final or not
			return rewriteEvents("replay", "events", chunks(func(p, next jsonv.Value) jsonv.Value {
				last := member(next, "type").Text() != "model.response" || member(next, "payload").Has("content")
				if last && member(p, "final").Kind() == jsonv.Bool {
					return jsonv.BoolValue(true)
				}
				return member(p, "final")
			}))
		},
		"C3": func() mutant { // final is truthy
			return rewriteEvents("replay", "events", chunks(func(p, _ jsonv.Value) jsonv.Value {
				f := member(p, "final")
				return jsonv.BoolValue(f.IsTrue() || f.Kind() == jsonv.Number || f.Kind() == jsonv.String)
			}))
		},
		"D1": func() mutant {
			return onOp("branch", func(req, resp jsonv.Value, h *reference.Handler) jsonv.Value {
				whole := h.Handle(jsonv.Obj(jsonv.M("id", jsonv.Int(1)), jsonv.M("op", jsonv.Str("replay")), jsonv.M("events", member(req, "events"))))
				return setIn(resp, member(member(whole, "state"), "fingerprint"), "branch", "parent_fingerprint")
			})
		},
		"D2": func() mutant {
			seen := map[string]bool{}
			return onOp("branch", func(req, resp jsonv.Value, _ *reference.Handler) jsonv.Value {
				key := string(member(req, "branch_id").AppendJSON(member(req, "fork_sequence").AppendJSON(nil)))
				if seen[key] { // a second identical request gets another lineage
					ids := member(member(resp, "branch"), "inherited_event_ids").Elems()
					return setIn(resp, jsonv.Arr(ids[1:]...), "branch", "inherited_event_ids")
				}
				seen[key] = true
				return resp
			})
		},
		"D3": func() mutant { return accept("branch", "BLANK_BRANCH_ID") },
		"E1": func() mutant {
			return onOp("append", func(req, resp jsonv.Value, _ *reference.Handler) jsonv.Value {
				return setIn(resp, jsonv.Str("duplicate"), "result")
			})
		},
		"E2": func() mutant { return textStore("text") },
		"E3": func() mutant { return textStore("dup") },
		"E4": func() mutant { return textStore("overwrite") },
		"E5": func() mutant { return textStore("current") },
		"F1": func() mutant { // the tail is ignored
			return rewriteEvents("replay_from_checkpoint", "tail", func([]jsonv.Value) []jsonv.Value { return nil })
		},
		"F2": func() mutant {
			return onOp("replay_from_checkpoint", func(req, resp jsonv.Value, _ *reference.Handler) jsonv.Value {
				if member(req, "tail").Len() == 0 {
					return setIn(resp, jsonv.Str("unknown"), "state", "stop_reason")
				}
				return resp
			})
		},
		"F3": func() mutant { return accept("replay_from_checkpoint", "SEQUENCE_GAP", "MIXED_RUN", "MIXED_SESSION") },
		"R1": func() mutant {
			return onOp("resume", func(req, resp jsonv.Value, _ *reference.Handler) jsonv.Value {
				evs := member(resp, "appended").Elems()
				for i, e := range evs {
					if member(e, "type").Text() == "tool.result" {
						evs[i] = e.With("payload", member(e, "payload").With("error", jsonv.Str("interrupted")))
					}
				}
				return resp
			})
		},
		"R2": func() mutant {
			return onOp("resume", func(req, resp jsonv.Value, _ *reference.Handler) jsonv.Value {
				evs := member(resp, "appended").Elems()
				if len(evs) > 0 {
					file := member(req, "events").Elems()
					evs[0] = evs[0].With("parent_event_id", member(file[len(file)-1], "event_id"))
				}
				return resp
			})
		},
		"R3": func() mutant {
			return onOp("resume", func(req, resp jsonv.Value, _ *reference.Handler) jsonv.Value {
				h := member(resp, "history").Elems()
				if len(h) == 0 {
					return resp
				}
				return setIn(resp, jsonv.Arr(h[:len(h)-1]...), "history")
			})
		},
		"R4": func() mutant { // earlier repairs are not read back
			return rewriteEvents("resume", "events", func(evs []jsonv.Value) []jsonv.Value {
				var out []jsonv.Value
				for _, e := range evs {
					if member(member(e, "payload"), "error_type").Text() != interrupted {
						out = append(out, e)
					}
				}
				return out
			})
		},
		"R5": func() mutant { return accept("resume", "NOT_FOUND") },
		"R6": func() mutant { return accept("resume", "RUN_EXISTS") },
	}
}

func TestEveryCriterionCanFail(t *testing.T) {
	fx := loadFixtures(t)
	ms := mutants()
	for _, ex := range Catalog() {
		for i := range ex.Criteria {
			id := ex.CriterionID(i)
			mk, ok := ms[id]
			if !ok {
				t.Errorf("%s %s has no mutant: nothing shows it can fail", id, ex.Criteria[i].Name)
				continue
			}
			t.Run(id, func(t *testing.T) {
				h := reference.NewHandler()
				defer h.Close()
				m := mk()
				c := &inProcess{h: func(req jsonv.Value) jsonv.Value { return m(member(req, "op").Text(), req, h) }}
				res, err := CheckExercise(c, ex, RunOrder(ex, nil), Options{Seed: 11, Fixtures: fx})
				if err != nil {
					t.Fatal(err)
				}
				f := res.FirstFailure()
				if f == nil {
					t.Fatalf("the mutant passes exercise %s", ex.ID)
				}
				if f.ID != id {
					t.Fatalf("the mutant fails %s first (%s: %s at %s), want %s", f.ID, f.Failure.Case, f.Failure.Message, f.Failure.Pointer, id)
				}
				if f.Failure.Pointer == "" || f.Failure.Expected == "" || f.Failure.Actual == "" || !f.Failure.Request.IsValid() {
					t.Errorf("the failure does not say where: %+v", f.Failure)
				}
			})
		}
	}
}
