package tracediff

// One side of a comparison: a goroutine reads the file once, a batch of
// lines at a time (journal.BatchReader: the same line numbers, torn tails
// and line limit as validate), extracts each line's alignment key, parses it when the
// comparison needs the value, and hands the lines over in batches from a
// fixed pool, so memory is bounded by the pool and the longest line.
//
// The same bytes are teed into journal.Validate, which checks the file
// (schema and invariants, run by run) on its own workers while the
// comparison runs: one read of the input, however it is checked. A
// tolerant golden is not a Trace file (its placeholders stand where the
// schema wants numbers and date-times), so it gets the shape check below
// instead.

import (
	"errors"
	"fmt"
	"io"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/tracediff/tolerant"
)

const (
	sourcePool = 4 // batches (journal.BatchReader's) a side holds at most
	// bigSourceBatch: a batch buffer that grew past this (a very long
	// line) is let go once used.
	bigSourceBatch = 4 << 20
)

// key places a line in its file: the run (its session and run identity as
// written) and the sequence.
type key struct {
	session, run string
	seq          int64
}

// srcLine is one line of a side.
type srcLine struct {
	num   int
	raw   []byte // the line without its newline; valid while its batch is held
	k     key
	keyOK bool
	val   jsonv.Value // set when the source parses (parse mode)
	valOK bool
	torn  bool
	// holes: the line compiled as a tolerant golden (compiled: it could
	// be; see tolerant.Compile).
	holes    []tolerant.Hole
	compiled bool
	// lazy: the key is not read yet (checkedCursor.lazy); the comparison
	// reads it (differ.resolve).
	lazy bool
	// twin: the other file's line of the same number has the same bytes
	// (journal.CheckedLine.Twin).
	twin bool
	// event: the validator found the line a schema-valid event
	// (journal.CheckedLine.Event).
	event bool
	// pending: a golden line read by a lexing source, whose shape check
	// is the comparison's to run (goldenCheck.settle).
	pending bool
	// members: where an actual event's top-level members stand in raw
	// (journal.CheckedLine.Members).
	members []journal.MemberSpan
}

type srcBatch struct {
	buf   []byte
	lines []srcLine
	holes []tolerant.Hole // the compiled lines' holes
	ptrs  []byte          // their pointers
}

// source reads one side.
type source struct {
	name     string
	r        io.Reader
	validate bool // tee into journal.Validate
	golden   bool // a tolerant golden: shape-check every line
	parse    bool // parse every line into val
	compile  bool // compile every valid line as a tolerant golden
	// lex: a golden's lines are only read, and handed over pending: the
	// comparison checks them, most by matching them against validated
	// actual lines (differ.settle).
	lex   bool
	check jsonv.Canonicalizer
	keys  keyScanner
	comp  tolerant.Compiler

	out      chan *srcBatch
	free     chan *srcBatch
	problems []*journal.Error
	readErr  *journal.Error // lex: why the input ended early, for the comparison's check
}

func newSource(in Input, validate, golden, parse bool) *source {
	s := &source{name: in.Name, r: in.R, validate: validate, golden: golden, parse: parse,
		out: make(chan *srcBatch, sourcePool), free: make(chan *srcBatch, sourcePool)}
	for i := 0; i < sourcePool; i++ {
		s.free <- &srcBatch{}
	}
	return s
}

// errValidated closes the validator's pipe once it returned: later writes
// are dropped.
var errValidated = errors.New("validation finished")

// dropWriter forwards writes to a pipe until the pipe fails, then drops
// them: a validator that stopped early (too many problems) must not stop the
// comparison reading the same bytes.
type dropWriter struct {
	w      io.Writer
	failed bool
}

func (d *dropWriter) Write(p []byte) (int, error) {
	if !d.failed {
		if _, err := d.w.Write(p); err != nil {
			d.failed = true
		}
	}
	return len(p), nil
}

// run reads the whole input and closes s.out. It must be drained.
func (s *source) run() {
	defer close(s.out)
	r := s.r
	var vdone chan struct{}
	var pw *io.PipeWriter
	if s.validate {
		var pr *io.PipeReader
		pr, pw = io.Pipe()
		vdone = make(chan struct{})
		go func() {
			defer close(vdone)
			s.problems = journal.Validate(pr, s.name)
			pr.CloseWithError(errValidated)
		}()
		r = io.TeeReader(r, &dropWriter{w: pw})
	}
	var shape *shapeChecker
	if s.golden && !s.lex {
		shape = &shapeChecker{file: s.name}
	}
	rd := journal.NewBatchReader(r)
	var lines []journal.Line
	for end := false; !end; {
		b := <-s.free
		if cap(b.buf) > bigSourceBatch {
			b.buf = nil // a very long line's: not kept for the rest
		}
		b.lines, b.holes, b.ptrs = b.lines[:0], b.holes[:0], b.ptrs[:0]
		var err error
		lines, end, err = rd.Next(&b.buf, lines[:0])
		for _, l := range lines {
			sl := srcLine{num: l.Num, raw: l.Raw, torn: l.Torn}
			s.fill(&sl, shape, b)
			b.lines = append(b.lines, sl)
		}
		clear(lines) // the batch's bytes are the consumer's now
		if len(b.lines) > 0 {
			s.out <- b
		} else {
			s.free <- b
		}
		if err != nil {
			switch {
			case shape != nil:
				shape.add(s.readProblem(err))
			case s.lex:
				s.readErr = s.readProblem(err)
			}
		}
	}
	if s.validate {
		// Whatever stopped the line reader, the validator sees the rest.
		io.Copy(io.Discard, r)
		pw.Close()
		<-vdone
	}
	if shape != nil {
		s.problems = shape.end()
	}
}

// readProblem is the problem of a read that failed with err.
func (s *source) readProblem(err error) *journal.Error {
	var je *journal.Error
	if !errors.As(err, &je) {
		je = &journal.Error{Code: journal.ReadFailed, Msg: err.Error()}
	}
	je.File = s.name
	return je
}

// fill sets the line's key, and its value when the source parses.
func (s *source) fill(l *srcLine, shape *shapeChecker, b *srcBatch) {
	if s.lex {
		l.pending = true // the comparison's to check (differ.settle)
		return
	}
	if shape != nil {
		shape.lines++
	}
	if l.torn {
		if shape != nil {
			shape.add(&journal.Error{File: s.name, Line: l.num, Code: journal.TornTail,
				Msg: fmt.Sprintf("last line has no newline (%d bytes): the writer stopped mid-line", len(l.raw))})
		}
		return
	}
	if !s.parse {
		switch {
		case shape == nil:
			// Validation, beside the read, judges the line.
			if l.k, l.keyOK = scanKey(l.raw, &s.keys.prev, &s.keys.prov); l.keyOK {
				return
			}
		case s.valid(l, b):
			// Valid JSON, as Parse would say, without a tree: the shape
			// check needs only the key, unless the sequence is out of
			// place (then the full check below explains it).
			if k, ok := scanKey(l.raw, &s.keys.prev, &s.keys.prov); ok && shape.inOrder(k) {
				l.k, l.keyOK = k, true
				return
			}
		}
	}
	v, err := jsonv.Parse(l.raw)
	if err != nil {
		if shape != nil {
			shape.lineError(l.num, l.raw, err)
		}
		return
	}
	if s.parse {
		l.val, l.valOK = v, true
	}
	l.k, l.keyOK = keyOf(v)
	if shape != nil {
		shape.check(l, v)
	}
}

// valid reports whether a golden line is valid JSON, as jsonv.Parse says;
// with s.compile it compiles the line as it checks it (l.holes, in b).
func (s *source) valid(l *srcLine, b *srcBatch) bool {
	if !s.compile {
		return s.check.Check(l.raw) == nil
	}
	n := len(b.holes)
	var err error
	b.holes, b.ptrs, l.compiled, err = s.comp.Check(b.holes, b.ptrs, l.raw)
	l.holes = b.holes[n:len(b.holes):len(b.holes)]
	return err == nil
}

// keyOf reads the key from a parsed event: the sequence must be an integer
// (an integral float is one, as the schema reads it).
func keyOf(v jsonv.Value) (key, bool) {
	var k key
	if v.Kind() != jsonv.Object {
		return k, false
	}
	seq, ok := v.Get("sequence")
	if !ok {
		return k, false
	}
	n, ok := seq.Int64()
	if !ok {
		f, fok := seq.Float64()
		if !fok || !seq.IsFloat() || f != float64(int64(f)) {
			return k, false
		}
		n = int64(f)
	}
	k.seq = n
	sid, _ := v.Get("session_id")
	k.session = identity(sid)
	if p, ok := v.Get("provenance"); ok {
		rid, _ := p.Get("run_id")
		k.run = identity(rid)
	}
	return k, true
}

// identity is a session or run identity as text: a string's text, anything
// else (a placeholder's binding may stand for any value) its JSON.
func identity(v jsonv.Value) string {
	switch v.Kind() {
	case jsonv.String:
		return v.Text()
	case jsonv.Invalid:
		return ""
	}
	return "\x00" + string(v.AppendCanonical(nil))
}

// shapeChecker checks a tolerant golden: each line one JSON object with a
// literal integer sequence, contiguous from 0 within each run (the runs
// grouped by session_id and provenance.run_id as written, placeholders
// included). The rest of the schema is the actual trace's to meet: every
// literal of the golden must equal the actual's value there, so a golden
// describing an invalid event can never pass.
type shapeChecker struct {
	file  string
	runs  runs
	lines int
	errs  []*journal.Error
}

func (c *shapeChecker) add(e *journal.Error) {
	switch {
	case len(c.errs) < journal.MaxErrors:
		c.errs = append(c.errs, e)
	case len(c.errs) == journal.MaxErrors:
		c.errs = append(c.errs, &journal.Error{File: c.file, Line: e.Line, Code: journal.TooManyErrors,
			Msg: fmt.Sprintf("stopped after %d problems; fix these and run again", journal.MaxErrors)})
	}
}

// end is the file's problems once every line is checked: a file with no
// line holds no event.
func (c *shapeChecker) end() []*journal.Error {
	if c.lines == 0 && len(c.errs) == 0 {
		c.errs = append(c.errs, &journal.Error{File: c.file, Code: journal.EmptyJournal, Msg: "file holds no event"})
	}
	return c.errs
}

func (c *shapeChecker) lineError(line int, raw []byte, err error) {
	e := &journal.Error{File: c.file, Line: line, Code: jsonv.ErrInvalidJSON, Msg: err.Error()}
	var se *jsonv.SyntaxError
	switch {
	case isBlank(raw):
		e.Code, e.Msg = journal.BlankLine, "blank line: every line must hold one event"
	case errors.As(err, &se):
		e.Code, e.Msg = journal.Code(se.Code), fmt.Sprintf("column %d: %s", se.Offset+1, se.Msg)
	}
	c.add(e)
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// inOrder reports whether sequence k.seq is the next of its run, and if
// so counts it as check does; otherwise it changes nothing.
func (c *shapeChecker) inOrder(k key) bool {
	u := c.runs.of(k)
	if u.next != k.seq {
		return false
	}
	u.next = k.seq + 1
	return true
}

func (c *shapeChecker) check(l *srcLine, v jsonv.Value) {
	if v.Kind() != jsonv.Object {
		c.add(&journal.Error{File: c.file, Line: l.num, Code: journal.NotObject,
			Msg: fmt.Sprintf("line holds a JSON %s; an event must be an object", v.Kind())})
		return
	}
	id := ""
	if e, ok := v.Get("event_id"); ok && e.Kind() == jsonv.String {
		id = e.Text()
	}
	if !l.keyOK {
		c.add(&journal.Error{File: c.file, Line: l.num, EventID: id, Code: journal.Schema, Pointer: "/sequence",
			Msg: "a tolerant golden's sequence must be a literal integer: the events are aligned by it"})
		return
	}
	u := c.runs.of(l.k)
	want := u.next
	u.next = l.k.seq + 1
	if l.k.seq != want {
		c.add(&journal.Error{File: c.file, Line: l.num, EventID: id, Code: journal.SequenceGap, Pointer: "/sequence",
			Msg: fmt.Sprintf("sequence %d where %d was expected: sequences start at 0 and are contiguous", l.k.seq, uint64(want))})
	}
}

// cursor walks a source's lines in order, giving each batch back once it
// has moved past it.
type cursor struct {
	s   *source
	b   *srcBatch
	i   int
	eof bool
}

// next returns the next line, or nil at the end. The previous line's raw
// bytes may be reused after this call.
func (c *cursor) next() *srcLine {
	for !c.eof {
		if c.b != nil && c.i < len(c.b.lines) {
			c.i++
			return &c.b.lines[c.i-1]
		}
		if c.b != nil {
			clear(c.b.lines) // drop references to values
			c.s.free <- c.b
		}
		b, ok := <-c.s.out
		if !ok {
			c.b, c.eof = nil, true
			break
		}
		c.b, c.i = b, 0
	}
	return nil
}
