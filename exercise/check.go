package exercise

import (
	"fmt"

	"github.com/tracecheck/tracecheck/exercise/reference"
	"github.com/tracecheck/tracecheck/exercise/subject"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Caller sends one request to a subject and returns its response, checked
// against the protocol; the error is a *subject.ProtocolError. A
// *subject.Subject is one; tests use in-process ones.
type Caller interface {
	Call(op string, fields ...jsonv.Member) (*subject.Response, error)
}

// Failure is a criterion's case that the subject answered wrongly: the
// request, and the first field of the response that differs from what
// tracecheck's own implementation answers, as a JSON pointer into the
// response.
type Failure struct {
	Case     string      `json:"case"`
	Request  jsonv.Value `json:"-"`
	Pointer  string      `json:"pointer"`
	Expected string      `json:"expected"`
	Actual   string      `json:"actual"`
	Message  string      `json:"message"`
}

func (f *Failure) Error() string {
	return fmt.Sprintf("%s: at %s: expected %s, actual %s", f.Case, f.Pointer, f.Expected, f.Actual)
}

// conn is a case's view of the subject: every request goes to the subject
// and, for the expected answer, to a fresh reference handler of the case's
// own (so that the store behind append starts empty for each case).
type conn struct {
	c      Caller
	oracle *reference.Handler
	name   string
}

// exchange sends op to the subject and the same request to the oracle.
func (k *conn) exchange(op string, fields ...jsonv.Member) (*subject.Response, jsonv.Value, error) {
	got, err := k.c.Call(op, fields...)
	if err != nil {
		return nil, jsonv.Value{}, err
	}
	return got, k.oracle.Handle(got.Request), nil
}

// expect sends op and compares the subject's answer with the oracle's;
// view, when set, selects what is compared (applied to both responses,
// without their ids).
func (k *conn) expect(view func(jsonv.Value) jsonv.Value, op string, fields ...jsonv.Member) (*subject.Response, error) {
	got, want, err := k.exchange(op, fields...)
	if err != nil {
		return nil, err
	}
	return got, k.compare(got, want, view)
}

// expectCode is expect (comparing whole responses) for a request whose
// refusal is the answer a criterion is about: an expected refusal passes
// only with its code. A refusal without a code is what a subject that does
// not implement the op answers to everything; accepting it would let such
// a subject pass the criterion.
func (k *conn) expectCode(op string, fields ...jsonv.Member) (*subject.Response, error) {
	got, want, err := k.exchange(op, fields...)
	if err != nil {
		return nil, err
	}
	if !member(want, "ok").IsTrue() && !got.OK && got.Error.Code == "" {
		we := member(want, "error")
		code, msg := member(we, "code").Text(), member(we, "message").Text()
		return got, k.failf(got, "/error/code", quote(code), Absent,
			"a refusal without a code (the subject said: %s); op %s must refuse this request with %s (tracecheck says: %s), not with just any error", got.Error.Message, op, code, msg)
	}
	return got, k.compare(got, want, nil)
}

// compare judges got against the oracle's response want. An expected
// error needs an error (with the same code when the subject gives one); an
// expected success needs a success whose view equals want's.
func (k *conn) compare(got *subject.Response, want jsonv.Value, view func(jsonv.Value) jsonv.Value) error {
	wantOK := member(want, "ok").IsTrue()
	if !wantOK {
		we := member(want, "error")
		code, msg := member(we, "code").Text(), member(we, "message").Text()
		if got.OK {
			return k.failf(got, "/ok", "false", "true", "expected an error (%s: %s), the subject answered ok", code, msg)
		}
		if got.Error.Code != "" && got.Error.Code != code {
			return k.failf(got, "/error/code", quote(code), quote(got.Error.Code),
				"the right refusal with the wrong code (tracecheck says %s: %s); give the code of the first violation, or none", code, msg)
		}
		return nil
	}
	if !got.OK {
		code := ""
		if got.Error.Code != "" {
			code = " " + got.Error.Code
		}
		return k.failf(got, "/ok", "true", "false", "the subject answered an error%s: %s", code, got.Error.Message)
	}
	w, g := want.Without("id"), got.Value.Without("id")
	if view != nil {
		w, g = view(w), view(g)
	}
	if d, ok := firstDiff(w, g, ""); ok {
		return k.failf(got, d.Pointer, d.Expected, d.Actual, "the answer differs from tracecheck's")
	}
	return nil
}

func (k *conn) failf(got *subject.Response, ptr, expected, actual, format string, a ...any) *Failure {
	return &Failure{Case: k.name, Request: got.Request, Pointer: ptr, Expected: expected, Actual: actual, Message: fmt.Sprintf(format, a...)}
}

// member returns v's member key, or the zero Value.
func member(v jsonv.Value, key string) jsonv.Value {
	m, _ := v.Get(key)
	return m
}

func quote(s string) string { return show(jsonv.Str(s)) }

// only returns a view keeping the members at the given paths of a response
// (each a list of keys) in their places, so that a criterion compares just
// what it is about and a difference keeps its pointer in the response.
func only(paths ...[]string) func(jsonv.Value) jsonv.Value {
	return func(v jsonv.Value) jsonv.Value {
		out := jsonv.Obj()
		for _, p := range paths {
			x := v
			for _, key := range p {
				x = member(x, key)
			}
			if x.IsValid() {
				out = setPath(out, p, x)
			}
		}
		return out
	}
}

func setPath(v jsonv.Value, path []string, x jsonv.Value) jsonv.Value {
	if len(path) == 1 {
		return v.With(path[0], x)
	}
	inner := member(v, path[0])
	if inner.Kind() != jsonv.Object {
		inner = jsonv.Obj()
	}
	return v.With(path[0], setPath(inner, path[1:], x))
}

// without returns a view dropping one nested member (path of keys).
func without(path ...string) func(jsonv.Value) jsonv.Value {
	return func(v jsonv.Value) jsonv.Value { return dropPath(v, path) }
}

func dropPath(v jsonv.Value, path []string) jsonv.Value {
	if len(path) == 1 {
		return v.Without(path[0])
	}
	inner, ok := v.Get(path[0])
	if !ok || inner.Kind() != jsonv.Object {
		return v
	}
	return v.With(path[0], dropPath(inner, path[1:]))
}
