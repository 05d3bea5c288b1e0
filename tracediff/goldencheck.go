package tracediff

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/schema"
	"github.com/tracecheck/tracecheck/tracediff/tolerant"
)

// Values that stand in for placeholders while a tolerant golden is
// validated (ValidateGolden): each is valid wherever the schema wants
// what its placeholder matches.
const (
	standInTimestamp = "1970-01-01T00:00:00Z"
	standInUUID      = "00000000-0000-4000-8000-000000000000"
)

// maxExcusedLines bounds the lines whose verdict ValidateGolden keeps aside
// to correct the validator's; the validator reports at most
// journal.MaxErrors problems, so more would never be asked for.
const maxExcusedLines = 4 * journal.MaxErrors

// ValidateGolden checks a tolerant golden as a Trace file wherever it is
// literal, and returns its problems and how many SCHEMA problems it
// excused because a placeholder caused them: a golden says "[TIMESTAMP]"
// where the schema wants a date-time and "[DURATION]" where it wants a
// number, and those are no problems of the golden; a literal the schema
// refuses (a misspelt type, a missing member) is one, since no actual
// event can then match it, and so is a broken invariant (a sequence gap,
// a duplicate event id: bindings are distinct names).
//
// Each line is validated with its placeholders replaced by values that
// satisfy the schema (a date-time, a UUID, 0, {} for a "{...}" payload;
// a binding keeps its name, so the links between events hold), "..."
// elements and members dropped and escapes undone; a SCHEMA violation
// that is still at a placeholder, or inside one, is excused. A sequence
// placeholder is not: alignment needs a literal one. Memory is bounded by
// the longest line: the lines are streamed to journal.Validate.
func ValidateGolden(golden []byte, name string) (problems []*journal.Error, excused int) {
	pr, pw := io.Pipe()
	done := make(chan []*journal.Error)
	go func() {
		errs := journal.Validate(pr, name)
		pr.CloseWithError(errValidated)
		done <- errs
	}()
	// verdict[n]: line n's SCHEMA problem as its literal parts have it
	// (nil: none, every violation excused).
	verdict := map[int]*journal.Error{}
	bw := bufio.NewWriterSize(&dropWriter{w: pw}, 64<<10)
	var sub []byte
	for num, rest := 1, golden; len(rest) > 0; num++ {
		line, nl := rest, false
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest, nl = rest[:i], rest[i+1:], true
		} else {
			rest = nil
		}
		out := line
		if v, holes, ok := standIn(line); ok && len(verdict) < maxExcusedLines && len(line) < journal.DefaultMaxLineBytes/2 {
			sub = v.AppendJSON(sub[:0])
			out = sub
			if _, _, err := journal.DecodeLine(sub); err != nil && err.Code == journal.Schema {
				verdict[num] = literalViolations(v, holes, err)
			}
		}
		bw.Write(out)
		if nl {
			bw.WriteByte('\n')
		}
	}
	bw.Flush()
	pw.Close()
	for _, e := range <-done {
		if v, ok := verdict[e.Line]; ok && e.Code == journal.Schema {
			if v == nil {
				excused++
				continue
			}
			v.File, v.Line = e.File, e.Line
			e = v
		}
		problems = append(problems, e)
	}
	return problems, excused
}

// standIn is a golden line with its placeholders replaced (see
// ValidateGolden) and the pointers where they stood; ok is false when the
// line has none or is not a JSON object (the validator judges it as
// written).
func standIn(line []byte) (jsonv.Value, []standHole, bool) {
	if bytes.IndexByte(line, '[') < 0 && !bytes.Contains(line, []byte(`"{...}"`)) && !bytes.Contains(line, []byte(`"...`)) && bytes.IndexByte(line, '\\') < 0 {
		return jsonv.Value{}, nil, false // nothing a placeholder needs
	}
	v, err := jsonv.Parse(line)
	if err != nil || v.Kind() != jsonv.Object {
		return jsonv.Value{}, nil, false
	}
	s := stander{}
	out := s.value(v, "")
	if len(s.holes) == 0 && !s.changed {
		return jsonv.Value{}, nil, false
	}
	return out, s.holes, true
}

type stander struct {
	holes   []standHole // where placeholders stood
	changed bool        // an escape was undone
}

// standHole is where a placeholder stood: a violation at ptr is its, and
// with inside one under ptr too (a "{...}" or a "..." element stands for
// values the golden does not write).
type standHole struct {
	ptr    string
	inside bool
}

func (s *stander) value(v jsonv.Value, ptr string) jsonv.Value {
	switch v.Kind() {
	case jsonv.String:
		if ptr == "/sequence" {
			return v // a tolerant golden's sequence must be literal: its problem is real
		}
		kind, text := tolerant.Classify(v.Text())
		switch kind {
		case tolerant.Literal:
			return v
		case tolerant.Escaped:
			s.changed = true
			return jsonv.Str(text)
		}
		s.holes = append(s.holes, standHole{ptr, kind == tolerant.Any})
		switch kind {
		case tolerant.Timestamp:
			return jsonv.Str(standInTimestamp)
		case tolerant.UUID:
			return jsonv.Str(standInUUID)
		case tolerant.Duration:
			return jsonv.Int(0)
		case tolerant.Any:
			if ptr == "/payload" {
				return jsonv.Obj() // the schema asks a payload to be an object
			}
		}
		return v // a binding stands for itself; a glob is a string
	case jsonv.Object:
		ms := make([]jsonv.Member, 0, len(v.Members()))
		for _, m := range v.Members() {
			if m.Key == tolerant.AnyMembersKey && m.Value.Kind() == jsonv.String && m.Value.Text() == tolerant.AnyValue {
				s.holes = append(s.holes, standHole{ptr, false}) // what the schema misses here may be among them
				continue
			}
			ms = append(ms, jsonv.M(m.Key, s.value(m.Value, ptr+"/"+pointerToken(m.Key))))
		}
		return jsonv.Obj(ms...)
	case jsonv.Array:
		es := make([]jsonv.Value, 0, len(v.Elems()))
		open := false
		for _, e := range v.Elems() {
			if e.Kind() == jsonv.String && e.Text() == tolerant.AnyElements {
				open = true
				continue
			}
			es = append(es, e)
		}
		if open {
			s.holes = append(s.holes, standHole{ptr, true}) // the elements move: all of them stand for the actual's
		}
		for i := range es {
			es[i] = s.value(es[i], ptr+"/"+strconv.Itoa(i))
		}
		return jsonv.Arr(es...)
	}
	return v
}

// literalViolations is a line's SCHEMA problem (err, from the line with
// its stand-ins, v) without the violations at or inside a placeholder
// (holes): nil when none is left.
func literalViolations(v jsonv.Value, holes []standHole, err *journal.Error) *journal.Error {
	var se *schema.Error
	if verr := schema.ValidateTraceEvent(v.Interface(schema.Number)); !errors.As(verr, &se) || len(se.Violations) == 0 {
		return err // not the library's verdict: kept as it is
	}
	var kept []schema.Violation
	for _, viol := range se.Violations {
		if !atHole(viol.Pointer, holes) {
			kept = append(kept, viol)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	// As journal words a SCHEMA problem: the first violation's pointer,
	// the others with theirs.
	out := &journal.Error{Code: journal.Schema, EventID: err.EventID, Pointer: kept[0].Pointer}
	if out.Pointer == "" {
		out.Pointer = "/"
	}
	msgs := make([]string, len(kept))
	for i, viol := range kept {
		if i == 0 {
			msgs[i] = viol.Message
			continue
		}
		msgs[i] = viol.String()
	}
	out.Msg = strings.Join(msgs, "; ")
	return out
}

func atHole(p string, holes []standHole) bool {
	for _, h := range holes {
		if p == h.ptr || h.inside && strings.HasPrefix(p, h.ptr) && len(p) > len(h.ptr) && p[len(h.ptr)] == '/' {
			return true
		}
	}
	return false
}
