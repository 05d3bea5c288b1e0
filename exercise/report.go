package exercise

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/internal/cireport"
	"github.com/tracecheck/tracecheck/internal/jsonout"
	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// MarshalJSON writes a failure with its whole request.
func (f *Failure) MarshalJSON() ([]byte, error) {
	type plain Failure
	req := json.RawMessage("null")
	if f.Request.IsValid() {
		req = f.Request.AppendJSON(nil)
	}
	return json.Marshal(struct {
		*plain
		Request json.RawMessage `json:"request"`
	}{(*plain)(f), req})
}

// WriteJSON writes the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	return jsonout.Write(w, r)
}

// requestLimit bounds how much of a request the text report quotes.
const requestLimit = 600

// summarizeRequest is the request for a reader: its event lists shortened
// to their length and first and last event ids.
func summarizeRequest(req jsonv.Value) string {
	ms := make([]jsonv.Member, 0, len(req.Members()))
	for _, m := range req.Members() {
		v := m.Value
		if (m.Key == "events" || m.Key == "tail") && v.Kind() == jsonv.Array && v.Len() > 2 {
			es := v.Elems()
			v = jsonv.Str(fmt.Sprintf("<%d events: %s .. %s>", len(es), member(es[0], "event_id").Text(), member(es[len(es)-1], "event_id").Text()))
		}
		ms = append(ms, jsonv.M(m.Key, v))
	}
	return clip(string(jsonv.Obj(ms...).AppendJSON(nil)), requestLimit)
}

// wholeRequest is a request as one line of JSON that is safe on a
// terminal: the characters textsafe would escape (controls, bidirectional
// and invisible formatting characters; in JSON they can only be inside
// strings) are written as \u escapes, so that the line still holds the
// very request and can be given to the subject as it is.
func wholeRequest(req jsonv.Value) string {
	raw := string(req.AppendJSON(nil))
	if textsafe.Displayable(raw) {
		return raw
	}
	var b strings.Builder
	for _, r := range raw {
		if r != utf8.RuneError && textsafe.Displayable(string(r)) {
			b.WriteRune(r)
			continue
		}
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			fmt.Fprintf(&b, "\\u%04x\\u%04x", r1, r2)
		} else {
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	return b.String()
}

// TextOptions change the text report.
type TextOptions struct {
	// WholeRequests shows each failure's whole request (wholeRequest)
	// instead of a summary whose event lists are shortened to their
	// length and first and last ids.
	WholeRequests bool
	// WholeRequestFlag, when set, is the flag named after a shortened
	// request as the way to see it whole ("--show-request").
	WholeRequestFlag string
}

// WriteText writes the report for a person: each exercise's criteria, the
// detail of each failure with its hint, and what to do next. rerun is the
// command line that repeats the run with the same cases.
func (r *Report) WriteText(w io.Writer, rerun string) { r.WriteTextOptions(w, rerun, TextOptions{}) }

// WriteTextOptions is WriteText with options.
func (r *Report) WriteTextOptions(w io.Writer, rerun string, opts TextOptions) {
	fmt.Fprintf(w, "%s, seed %d, subject %s\n", r.Command, r.Seed, r.subjectName())
	if r.Command == "conform" {
		r.writeTable(w)
	}
	for _, ex := range r.Exercises {
		if r.Command != "conform" || ex.Status == Fail {
			writeExercise(w, ex, r.Command == "conform", opts)
		}
	}
	if len(r.Stderr) > 0 && r.Status == Fail {
		fmt.Fprintf(w, "subject stderr (last %d lines):\n", len(r.Stderr))
		for _, l := range r.Stderr {
			fmt.Fprintf(w, "  | %s\n", textsafe.Escape(l))
		}
	}
	if r.Message != "" {
		fmt.Fprintf(w, "%s\n", textsafe.Escape(r.Message))
	}
	if r.Status == Fail && rerun != "" && r.anyFailed() {
		fmt.Fprintf(w, "run again with the same cases: %s\n", textsafe.Escape(rerun))
	}
}

func (r *Report) anyFailed() bool {
	for _, ex := range r.Exercises {
		if ex.Status == Fail {
			return true
		}
	}
	return false
}

func (r *Report) subjectName() string {
	if r.Hello == nil {
		return textsafe.Escape(ShellJoin(r.Argv))
	}
	return fmt.Sprintf("%s (%s): %s", textsafe.Quote(r.Hello.Name), textsafe.Quote(r.Hello.Language), textsafe.Escape(ShellJoin(r.Argv)))
}

// ShellJoin writes a command line as a POSIX shell would read it back:
// words with characters other than letters, digits and -_./=:,+@% are
// single-quoted.
func ShellJoin(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
			parts[i] = a
		} else {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(parts, " ")
}

func (r *Report) writeTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXERCISE\tTITLE\tCRITERIA\tRESULT")
	pass, fail, skip := 0, 0, 0
	for _, ex := range r.Exercises {
		result, counts := "pass", fmt.Sprintf("%d/%d", ex.Passed(), len(ex.Criteria))
		switch ex.Status {
		case Pass:
			pass++
		case Skipped:
			skip++
			result, counts = "skipped: needs "+quoteOps(ex.Missing), "-"
		case Fail:
			fail++
			f := ex.FirstFailure()
			result = fmt.Sprintf("FAIL from %s %s", f.ID, f.Name)
		default:
			result = string(ex.Status)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ex.ID, ex.Title, counts, result)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d of %d exercises pass, %d fail, %d skipped\n", pass, len(r.Exercises), fail, skip)
}

func writeExercise(w io.Writer, ex ExerciseResult, onlyFailures bool, opts TextOptions) {
	if !onlyFailures {
		fmt.Fprintf(w, "exercise %s: %s\n", ex.ID, ex.Title)
	}
	for _, c := range ex.Criteria {
		if onlyFailures && c.Status != Fail {
			continue
		}
		label := map[Status]string{Pass: "ok", Fail: "FAIL", NotRun: "-"}[c.Status]
		note := ""
		switch {
		case c.Status == Pass && c.Recheck:
			note = "(" + cases(c.Cases) + ", re-checked)"
		case c.Status == Pass:
			note = "(" + cases(c.Cases) + ")"
		case c.Status == NotRun:
			note = "not run"
		}
		fmt.Fprintf(w, "  %-4s %s %s", label, c.ID, c.Name)
		if note != "" {
			fmt.Fprintf(w, " %s", note)
		}
		fmt.Fprintln(w)
		if c.Status == Fail {
			writeFailure(w, c, opts)
		}
	}
	if !onlyFailures && ex.Status != Skipped {
		fmt.Fprintf(w, "%s: %d of %d criteria pass\n", ex.ID, ex.Passed(), len(ex.Criteria))
	}
}

func writeFailure(w io.Writer, c CriterionResult, opts TextOptions) {
	f := c.Failure
	fmt.Fprintf(w, "       criterion: %s\n", c.Accept)
	fmt.Fprintf(w, "       case:      %s\n", textsafe.Escape(f.Case))
	switch req := summarizeRequest(f.Request); {
	case opts.WholeRequests:
		fmt.Fprintf(w, "       request:   %s\n", wholeRequest(f.Request))
	case opts.WholeRequestFlag != "" && req != string(f.Request.AppendJSON(nil)):
		fmt.Fprintf(w, "       request:   %s (shortened; %s shows it whole)\n", textsafe.Escape(req), opts.WholeRequestFlag)
	default:
		fmt.Fprintf(w, "       request:   %s\n", textsafe.Escape(req))
	}
	fmt.Fprintf(w, "       at %s: expected %s, actual %s\n", textsafe.Escape(f.Pointer), textsafe.Escape(f.Expected), textsafe.Escape(f.Actual))
	fmt.Fprintf(w, "       %s\n", textsafe.Escape(f.Message))
	fmt.Fprintf(w, "       hint: %s\n", strings.ReplaceAll(c.Hint, "\n", "\n             "))
}

// Exercism results.json, version 3 (the Exercism test-runner interface).
type exercismResults struct {
	Version int            `json:"version"`
	Status  string         `json:"status"`
	Message *string        `json:"message"`
	Tests   []exercismTest `json:"tests"`
}

type exercismTest struct {
	Name     string  `json:"name"`
	TestCode string  `json:"test_code"`
	Status   string  `json:"status"`
	Message  *string `json:"message"`
	Output   *string `json:"output"`
	TaskID   int     `json:"task_id"`
}

// exercismOutputLimit is the interface's limit on a test's output.
const exercismOutputLimit = 500

// WriteExercism writes the report as an Exercism results.json (version 3):
// one test per criterion that ran, in catalogue order; task_id is the
// criterion's number within its exercise for `exercise run`, the
// exercise's number in the catalogue for `conform`. A protocol error is the
// status ("error") of the criterion it interrupted, last; when no criterion
// completed before it, of the whole run ("no test was executed"), with the
// subject's stderr in the message.
func (r *Report) WriteExercism(w io.Writer) error {
	out := exercismResults{Version: 3, Status: "pass", Tests: []exercismTest{}}
	output := r.exercismOutput()
	cat := Catalog()
	var broken *exercismTest // the criterion a protocol error interrupted
	for _, ex := range r.Exercises {
		exNum := 1 + indexOfExercise(cat, ex.ID)
		crits := append([]CriterionResult(nil), ex.Criteria...)
		sort.SliceStable(crits, func(i, j int) bool { return crits[i].Index < crits[j].Index })
		for _, c := range crits {
			if c.Status == NotRun {
				continue
			}
			t := exercismTest{Name: fmt.Sprintf("%s %s", c.ID, c.Name), TestCode: c.Accept, Status: "pass", TaskID: c.Index + 1}
			if r.Command == "conform" {
				t.TaskID = exNum
			}
			switch c.Status {
			case Fail:
				msg := failureText(c)
				t.Status, t.Message, t.Output = "fail", &msg, output
				t.TestCode += "\n" + summarizeRequest(c.Failure.Request)
				out.Status = "fail"
			case Broken:
				broken = &t
				continue
			}
			out.Tests = append(out.Tests, t)
		}
	}
	switch {
	case r.Status == Broken && len(out.Tests) == 0:
		// Nothing completed: the run errored (Exercism's "no test was executed").
		msg := "the subject broke the protocol: " + r.Protocol
		if len(r.Stderr) > 0 {
			msg += "\nsubject stderr:\n" + strings.Join(r.Stderr, "\n")
		}
		out.Status, out.Message = "error", &msg
	case r.Status == Broken:
		out.Status = "fail"
		if broken != nil {
			msg := "the subject broke the protocol: " + r.Protocol
			broken.Status, broken.Message, broken.Output = "error", &msg, output
			out.Tests = append(out.Tests, *broken)
		}
	case r.Status != Pass:
		out.Status = "fail"
		if r.Message != "" {
			msg := r.Message
			out.Message = &msg
		}
	}
	return jsonout.Write(w, out)
}

func (r *Report) exercismOutput() *string {
	if len(r.Stderr) == 0 {
		return nil
	}
	s := strings.Join(r.Stderr, "\n")
	if utf8.RuneCountInString(s) > exercismOutputLimit {
		const note = "\nOutput was truncated. Please limit to 500 chars"
		rs := []rune(s)
		s = string(rs[len(rs)-(exercismOutputLimit-utf8.RuneCountInString(note)):]) + note
	}
	return &s
}

func indexOfExercise(cat []*Exercise, id string) int {
	for i, ex := range cat {
		if ex.ID == id {
			return i
		}
	}
	return -1
}

// failureText is a failed criterion in a few lines, for reports that are
// not the terminal's.
func failureText(c CriterionResult) string {
	f := c.Failure
	return fmt.Sprintf("case: %s\nrequest: %s\nat %s: expected %s, actual %s\n%s\nhint: %s",
		f.Case, summarizeRequest(f.Request), f.Pointer, f.Expected, f.Actual, f.Message, c.Hint)
}

// JUnitSuites returns the report as JUnit suites: one per exercise, one
// case per criterion. A protocol error is an <error> on the criterion it
// interrupted, or on a case of its own when none was running.
func (r *Report) JUnitSuites() []cireport.Suite {
	var suites []cireport.Suite
	for _, ex := range r.Exercises {
		s := cireport.Suite{Name: fmt.Sprintf("exercise %s %s", ex.ID, ex.Slug)}
		if ex.Status == Skipped {
			s.Cases = append(s.Cases, cireport.Case{Name: ex.ID + " " + ex.Title, Skipped: "the subject does not support " + quoteOps(ex.Missing)})
		}
		for _, c := range ex.Criteria {
			jc := cireport.Case{Name: c.ID + " " + c.Name}
			switch c.Status {
			case Fail:
				jc.Failure = &cireport.Failure{Message: c.Failure.Message + " at " + c.Failure.Pointer, Type: "criterion", Text: failureText(c)}
			case Broken:
				jc.Error = &cireport.Failure{Message: "the subject broke the protocol", Type: "protocol", Text: r.Protocol}
			case NotRun:
				jc.Skipped = "not run: an earlier criterion failed"
			}
			s.Cases = append(s.Cases, jc)
		}
		suites = append(suites, s)
	}
	if r.Status == Broken && !anyBroken(r.Exercises) {
		suites = append(suites, cireport.Suite{Name: "subject", Cases: []cireport.Case{{
			Name: "protocol", Error: &cireport.Failure{Message: "the subject broke the protocol", Type: "protocol", Text: r.Protocol},
		}}})
	}
	return suites
}

func anyBroken(res []ExerciseResult) bool {
	for _, ex := range res {
		for _, c := range ex.Criteria {
			if c.Status == Broken {
				return true
			}
		}
	}
	return false
}

// cases is "1 case" or "N cases".
func cases(n int) string {
	if n == 1 {
		return "1 case"
	}
	return fmt.Sprintf("%d cases", n)
}
