package exercise

import (
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/exercise/reference"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// refuseOp is tracecheck's implementation except that op answers every
// request with the same error (code may be empty: no code).
func refuseOp(tb testing.TB, op, code string) *inProcess {
	h := reference.NewHandler()
	tb.Cleanup(func() { h.Close() })
	return &inProcess{h: func(req jsonv.Value) jsonv.Value {
		if member(req, "op").Text() != op {
			return h.Handle(req)
		}
		e := []jsonv.Member{jsonv.M("message", jsonv.Str("not implemented"))}
		if code != "" {
			e = append(e, jsonv.M("code", jsonv.Str(code)))
		}
		return jsonv.Obj(jsonv.M("id", member(req, "id")), jsonv.M("ok", jsonv.BoolValue(false)), jsonv.M("error", jsonv.Obj(e...)))
	}}
}

// A subject that does not implement resume, answering every resume request
// with some generic error, passes none of R's criteria: R's refusals
// (NOT_FOUND, RUN_EXISTS) pass only with their documented code.
func TestGenericResumeErrorScoresZero(t *testing.T) {
	fx := loadFixtures(t)
	r, err := Find("R")
	if err != nil {
		t.Fatal(err)
	}
	order := RunOrder(r, nil)
	for _, code := range []string{"", "UNSUPPORTED_OP", "BAD_REQUEST", "HISTORY"} {
		res, err := CheckExercise(refuseOp(t, "resume", code), r, order, Options{Seed: 5, Fixtures: fx})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != Fail || res.Passed() != 0 {
			var passed []string
			for _, c := range res.Criteria {
				if c.Status == Pass {
					passed = append(passed, c.ID+" "+c.Name)
				}
			}
			t.Errorf("resume refused with code %q: %s, %d of %d criteria pass (%s); want 0", code, res.Status, res.Passed(), len(r.Criteria), strings.Join(passed, ", "))
		}
	}
}

// The refusal criteria say why a refusal without a code fails: at
// /error/code, the documented code expected, none given.
func TestResumeRefusalNeedsItsCode(t *testing.T) {
	fx := loadFixtures(t)
	r, _ := Find("R")
	h := reference.NewHandler()
	defer h.Close()
	c := &inProcess{h: func(req jsonv.Value) jsonv.Value {
		resp := h.Handle(req)
		if member(resp, "ok").IsTrue() {
			return resp
		}
		return resp.With("error", member(resp, "error").Without("code")) // right refusal, no code
	}}
	res, err := CheckExercise(c, r, RunOrder(r, nil), Options{Seed: 5, Fixtures: fx})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"R5": `"NOT_FOUND"`, "R6": `"RUN_EXISTS"`}
	for _, cr := range res.Criteria {
		code, refusal := want[cr.ID]
		switch {
		case !refusal && cr.Status != Pass:
			t.Errorf("%s %s: %s, want pass (%+v)", cr.ID, cr.Name, cr.Status, cr.Failure)
		case refusal && cr.Status != Fail:
			t.Errorf("%s %s: %s for a refusal without a code, want fail", cr.ID, cr.Name, cr.Status)
		case refusal && (cr.Failure.Pointer != "/error/code" || cr.Failure.Expected != code || cr.Failure.Actual != Absent ||
			!strings.Contains(cr.Failure.Message, "a refusal without a code")):
			t.Errorf("%s: failure %+v, want at /error/code: expected %s, actual %s", cr.ID, cr.Failure, code, Absent)
		}
	}
}
