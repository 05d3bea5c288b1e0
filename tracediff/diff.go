// Package tracediff compares two Trace 0.1.0 files event by event and
// reports every difference: each differing event (its run, sequence,
// event_id, type and line in each file), the JSON pointer of each differing
// field with the expected and actual values, the counts, and a unified diff
// of the differing lines with context.
//
// Events are aligned by sequence within a run; the runs of a file are
// numbered in order of first appearance (a run is the events sharing
// session_id and provenance.run_id) and run k of one file is compared with
// run k of the other. An event only the expected file has is "missing", one
// only the actual file has "extra". Two events are equal when their JSON
// values are: member order does not matter, a number's spelling does (as in
// a fingerprint); Options.Bytes makes any other byte difference count too.
// Alignment is a merge of the two files in order, so files whose runs
// interleave differently are reported event by event as missing and extra.
//
// With Options.Tolerant the expected file is a tolerant golden (package
// tolerant): its placeholders match what varies between real runs, with
// bindings held across the whole file, and where it says "[TIMESTAMP]" at
// /timestamp the actual timestamps must never decrease along a run.
//
// Both files are read once, side by side, each by its own goroutine that
// also feeds the bytes to journal.Validate: an actual file (and an exact
// expected one) must be a valid trace, a tolerant golden passes a shape
// check (see shapeChecker), and with Options.NoValidate both files get
// only the shape check. When either fails, the Report lists the
// problems and no differences. Memory is bounded by the longest line, the
// detail kept (Options.MaxEvents events of at most Options.MaxFields
// fields, hunks of cut lines) and, in tolerant mode, the bindings.
//
// Text output (WriteText) prints ids, types and file names through
// textsafe.Quote and JSON values and lines through SafeLine, so nothing from
// the input can move the cursor or forge a line.
package tracediff

import (
	"bytes"
	"io"
	"strconv"
	"time"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/tracediff/tolerant"
)

// Input is one file to compare: its name for messages and its bytes.
type Input struct {
	Name string
	R    io.Reader
}

// Options tune a comparison. Zero values take the defaults.
type Options struct {
	// Tolerant reads the expected file as a tolerant golden.
	Tolerant bool
	// Bytes counts events that are equal as JSON but written with other
	// bytes (member order, spacing, escapes, line endings) as changed.
	Bytes bool
	// NoValidate skips the trace validation of both files: each gets the
	// tolerant golden's shape check instead (one JSON object per line with
	// a literal integer sequence, contiguous per run: what alignment
	// needs). For files whose validity is checked elsewhere or is not the
	// question, such as two versions of one golden.
	NoValidate bool
	// MaxEvents is how many differing events are kept in full (default 20);
	// the others are counted.
	MaxEvents int
	// MaxFields is how many differing fields are kept per event (default 20).
	MaxFields int
	// Context is the number of equal lines around each hunk of the unified
	// diff (default 2; negative for none).
	Context int
	// MaxValueBytes cuts each shown value (default 200); MaxLineBytes each
	// line of the unified diff (default 400).
	MaxValueBytes int
	MaxLineBytes  int
	// NoLineDiff leaves Report.Diff empty: for a caller that shows the
	// differences its own way (the diff page), the hunks would be memory
	// and work for nothing.
	NoLineDiff bool
}

// Defaults of Options.
const (
	DefaultMaxEvents     = 20
	DefaultMaxFields     = 20
	DefaultContext       = 2
	DefaultMaxValueBytes = 200
	DefaultMaxLineBytes  = 400
)

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxEvents, DefaultMaxEvents)
	def(&o.MaxFields, DefaultMaxFields)
	def(&o.MaxValueBytes, DefaultMaxValueBytes)
	def(&o.MaxLineBytes, DefaultMaxLineBytes)
	switch {
	case o.Context == 0:
		o.Context = DefaultContext
	case o.Context < 0:
		o.Context = 0
	}
	return o
}

// DiffBytes compares two traces held in memory.
func DiffBytes(expected, actual []byte, expName, actName string, opt Options) *Report {
	return Diff(Input{expName, bytes.NewReader(expected)}, Input{actName, bytes.NewReader(actual)}, opt)
}

// Diff compares the expected trace with the actual one in one pass over
// both.
func Diff(expected, actual Input, opt Options) *Report {
	r, _ := diff(expected, actual, opt)
	return r
}

// diff is Diff, with the differ it used.
func diff(expected, actual Input, opt Options) (*Report, *differ) {
	opt = opt.withDefaults()
	d := &differ{
		opt: opt,
		m:   tolerant.NewMatcher(opt.Tolerant),
		h:   hunker{context: opt.Context, maxLine: opt.MaxLineBytes},
		rep: &Report{Mode: "events", Tolerant: opt.Tolerant,
			Expected: FileSummary{File: expected.Name}, Actual: FileSummary{File: actual.Name}, Events: []EventDiff{}},
	}
	if opt.Tolerant {
		d.lastTS = map[int]stamp{}
	}
	if opt.NoLineDiff {
		d.h.stop() // no hunk ever opens
	}
	ec, ac, problems := d.open(expected, actual)
	d.run(ec, ac)
	eProblems, aProblems := problems()
	r := d.rep
	r.Diff = d.h.finish(expected.Name, actual.Name)
	r.Expected.Runs, r.Actual.Runs = d.eRuns.len(), d.aRuns.len()
	for _, p := range eProblems {
		r.Expected.Problems = append(r.Expected.Problems, problemOf(p))
	}
	for _, p := range aProblems {
		r.Actual.Problems = append(r.Actual.Problems, problemOf(p))
	}
	r.Expected.Hint = placeholderHint(d.eHole, r.Expected, true)
	r.Actual.Hint = placeholderHint(d.aHole, r.Actual, false)
	if d.broken != nil && !r.Invalid() {
		// Validation explains every line that cannot be aligned; this is
		// only a guard.
		*d.broken = append(*d.broken, Problem{File: d.brokenFile, Line: d.brokenLine, Code: "UNALIGNED",
			Message: "the line's sequence and run could not be read"})
	}
	if r.Invalid() {
		r.Events, r.Diff, r.Omitted = []EventDiff{}, "", 0
		r.Differences, r.Changed, r.Missing, r.Extra = 0, 0, 0, 0
	}
	r.Equal = !r.Invalid() && r.Differences == 0
	return r, d
}

// open starts reading both sides. A side validated as a trace is read
// by journal.CheckFiles (both, when both are: the lines they share are
// checked once); a tolerant golden, and a side that is not validated, by a
// source with the shape check. problems gives each file's problems once
// both cursors are at their ends.
func (d *differ) open(expected, actual Input) (ec, ac lineCursor, problems func() (e, a []*journal.Error)) {
	opt := d.opt
	checkE, checkA := !opt.Tolerant && !opt.NoValidate, !opt.NoValidate
	d.ak = &keyScanner{}
	if slowPaths {
		return d.openSources(expected, actual, checkE, checkA)
	}
	var srcs [2]journal.Source
	if checkE {
		srcs[0] = journal.Source{R: expected.R, File: expected.Name}
	}
	if checkA {
		srcs[1] = journal.Source{R: actual.R, File: actual.Name, Members: opt.Tolerant}
	}
	if !checkA {
		return d.openSources(expected, actual, false, false)
	}
	f := journal.CheckFiles(srcs[0], srcs[1])
	// The actual side's refused lines are keyed as they are compared: a
	// line the expected line it meets has, byte for byte, has its key.
	ac = &checkedCursor{f: f, side: 1, ks: d.ak, lazy: true}
	if checkE {
		ec = &checkedCursor{f: f, side: 0, ks: &keyScanner{}}
		return ec, ac, func() (e, a []*journal.Error) { return f.Problems(0), f.Problems(1) }
	}
	es := d.goldenSource(expected)
	if es.compile {
		// Checked as it is compared, against the validated lines.
		es.lex, d.gc = true, newGoldenCheck(es)
		go es.run()
		return &cursor{s: es}, ac, func() (e, a []*journal.Error) { return d.gc.problems(), f.Problems(1) }
	}
	go es.run()
	return &cursor{s: es}, ac, func() (e, a []*journal.Error) { return es.problems, f.Problems(1) }
}

// goldenSource reads a tolerant golden (or an expected file that is not
// validated) with the shape check; a golden is compiled as it is read.
func (d *differ) goldenSource(expected Input) *source {
	es := newSource(expected, false, true, false)
	es.compile = d.opt.Tolerant && !d.opt.Bytes && !slowPaths
	return es
}

// openSources reads each side with a source of its own, a validated one
// teed into journal.Validate (the way before CheckFiles, kept for
// slowPaths and for sides that are not validated).
func (d *differ) openSources(expected, actual Input, checkE, checkA bool) (ec, ac lineCursor, problems func() (e, a []*journal.Error)) {
	var es *source
	if checkE {
		es = newSource(expected, true, false, false)
	} else {
		es = d.goldenSource(expected)
	}
	as := newSource(actual, checkA, !checkA, false)
	d.ak = &as.keys
	go es.run()
	go as.run()
	return &cursor{s: es}, &cursor{s: as}, func() (e, a []*journal.Error) { return es.problems, as.problems }
}

// placeholderHint is what the report says under the problems of a file
// that holds placeholders (p) and failed its checks as a plain trace: it
// looks like a tolerant golden, and --normalize reads it as one (the
// golden first). "" when the file has no problems or no placeholder.
func placeholderHint(p placeholderAt, f FileSummary, expected bool) string {
	if p.line == 0 || len(f.Problems) == 0 {
		return ""
	}
	ptr := p.hole.Ptr
	if ptr == "" {
		ptr = "/"
	}
	how := "add --normalize to read it as one"
	if !expected {
		how = "a tolerant golden goes first, as EXPECTED, with --normalize"
	}
	return "the file holds placeholders (line " + strconv.Itoa(p.line) + ": " + p.text + " at " + ptr +
		") and looks like a tolerant golden, whose placeholders are no valid trace values; " + how +
		": tracecheck diff --normalize GOLDEN ACTUAL"
}

// slowPaths turns off the fast paths (compiled goldens, actual keys from
// the expected line): tests compare the two.
var slowPaths = false

// stamp is the last timestamp of an actual run that a [TIMESTAMP] checked.
type stamp struct {
	t    time.Time
	line int
}

type differ struct {
	opt    Options
	m      *tolerant.Matcher
	h      hunker
	rep    *Report
	eRuns  runs
	aRuns  runs
	lastTS map[int]stamp
	// The last line of each file seen, for anchoring extra and missing
	// events.
	lastE, lastA int
	buf          []tolerant.Mismatch

	broken     *[]Problem
	brokenFile string
	brokenLine int

	ak  *keyScanner  // the actual side's, for the lazy keys resolve reads
	gc  *goldenCheck // a lexed golden's check (settle)
	pre prematch     // an actual line matched against the golden line it was keyed by

	// The first placeholder seen in each file when the expected one is
	// not read as a tolerant golden (notePlaceholders), and the scratch
	// that finds them.
	eHole, aHole placeholderAt
	comp         tolerant.Compiler
	looked       int
}

// placeholderLooks is how many differing pairs notePlaceholders reads.
const placeholderLooks = 8

// placeholderAt is a placeholder found on a line (line 0: none).
type placeholderAt struct {
	line int
	hole tolerant.Hole
	text string // the placeholder as written, quotes included
}

// notePlaceholders looks for a placeholder on two lines that differ, until
// one is found in each file: a file compared as a plain trace that holds
// them is most likely a tolerant golden, and when it is then refused as an
// invalid trace the report says so (FileSummary.Hint). Only lines that
// differ are read (most of a tolerant golden's do): equal lines stay on
// the fast path, and only the first placeholderLooks pairs: a tolerant
// golden's lines all hold its ids' bindings, and two plain traces that
// differ everywhere should not pay a third read of every line.
func (d *differ) notePlaceholders(e, a *srcLine) {
	if d.looked >= placeholderLooks {
		return
	}
	d.looked++
	for _, s := range []struct {
		at *placeholderAt
		l  *srcLine
	}{{&d.eHole, e}, {&d.aHole, a}} {
		if s.at.line != 0 {
			continue
		}
		if h, ok := d.comp.FirstPlaceholder(s.l.raw); ok {
			*s.at = placeholderAt{line: s.l.num, hole: h, text: cutText(string(s.l.raw[h.Start:h.End]), 64)}
		}
	}
}

// prematch is an actual line a matched against golden line e when it was
// keyed (resolve): the bindings made since mark, the timestamp it held.
type prematch struct {
	e, a *srcLine
	mark int
	ts   string
	t    time.Time
}

func (d *differ) run(ec, ac lineCursor) {
	e, a := ec.next(), ac.next()
	d.settle(e, a)
	d.resolve(a, e)
	er, ar := 0, 0
	if e != nil {
		er = d.place(e, &d.eRuns, &d.rep.Expected)
	}
	if a != nil {
		ar = d.place(a, &d.aRuns, &d.rep.Actual)
	}
	for (e != nil || a != nil) && d.broken == nil {
		c := 0
		switch {
		case e == nil:
			c = 1
		case a == nil:
			c = -1
		case er != ar:
			c = er - ar
		case e.k.seq != a.k.seq:
			c = int(e.k.seq - a.k.seq)
		}
		switch {
		case c == 0:
			d.pair(er, e, a)
		case c < 0:
			d.missing(er, e)
		default:
			d.extra(ar, a)
		}
		if d.pre.a != nil {
			// a was matched against e but not paired with it: what that
			// bound is not the comparison's.
			d.m.Rollback(d.pre.mark)
			d.pre = prematch{}
		}
		// Both lines are taken before either is placed: a golden line is
		// settled against the actual line at hand.
		newE, newA := false, false
		if c <= 0 {
			d.lastE = e.num
			e = ec.next()
			newE = e != nil
		}
		if c >= 0 {
			d.lastA = a.num
			a = ac.next()
			newA = a != nil
		}
		if newE {
			d.settle(e, a)
		}
		if newA {
			d.resolve(a, e)
		}
		if newE {
			er = d.place(e, &d.eRuns, &d.rep.Expected)
		}
		if newA {
			ar = d.place(a, &d.aRuns, &d.rep.Actual)
		}
	}
	// After a line that cannot be aligned, count the rest.
	for ; e != nil; e = ec.next() {
		d.settle(e, nil)
		d.rep.Expected.Events++
	}
	for ; a != nil; a = ac.next() {
		d.rep.Actual.Events++
	}
}

// place counts a line and returns its run, or marks the comparison broken.
func (d *differ) place(l *srcLine, rs *runs, f *FileSummary) int {
	f.Events++
	if !l.keyOK {
		if d.broken == nil {
			d.broken, d.brokenFile, d.brokenLine = &f.Problems, f.File, l.num
		}
		return -1
	}
	return rs.of(l.k).index
}

// detail counts a difference of the kind and reports whether it is kept
// in full.
func (d *differ) detail(kind string) bool {
	d.rep.Differences++
	switch kind {
	case KindChanged:
		d.rep.Changed++
	case KindMissing:
		d.rep.Missing++
	case KindExtra:
		d.rep.Extra++
	}
	if len(d.rep.Events) < d.opt.MaxEvents {
		return true
	}
	d.rep.Omitted++
	d.h.stop()
	return false
}

func parsed(l *srcLine) (jsonv.Value, bool) {
	if l.valOK {
		return l.val, true
	}
	v, err := jsonv.Parse(l.raw)
	return v, err == nil
}

func (d *differ) pair(run int, e, a *srcLine) {
	if !d.opt.Tolerant && (e.twin && e.num == a.num || bytes.Equal(e.raw, a.raw)) {
		// Twins were compared by the reader.
		d.h.same(e.num, a.num, e.raw)
		return
	}
	if !d.opt.Tolerant {
		d.notePlaceholders(e, a)
	}
	if p := d.pre; p.a == a && p.e == e {
		// Matched when a was keyed (resolve).
		d.pre = prematch{}
		if p.ts == "" || d.timestampInOrder(run, p.t, a.num) {
			d.h.same(e.num, a.num, e.raw)
			return
		}
		d.m.Rollback(p.mark) // Match and checkTimestamp say why
	} else if e.compiled {
		// Most events of a run match their golden: the actual text
		// against the golden line compiled as it was read, without
		// parsing either (Matcher.MatchHoles), and Match only when that
		// cannot tell.
		d.m.Line = e.num
		mark := d.m.Mark()
		if ok, ts, t := d.m.MatchHoles(e.raw, e.holes, a.raw); ok {
			if ts == "" || d.timestampInOrder(run, t, a.num) {
				d.h.same(e.num, a.num, e.raw)
				return
			}
			d.m.Rollback(mark) // Match and checkTimestamp say why
		}
	}
	ev, eok := parsed(e)
	av, aok := parsed(a)
	var ms []tolerant.Mismatch
	n := 0
	note := ""
	if eok && aok {
		d.m.Line = e.num
		ms, n = d.m.Match("", ev, av, d.buf[:0], d.opt.MaxFields)
		if d.opt.Tolerant {
			ms, n = d.checkTimestamp(run, ev, av, a.num, ms, n)
		}
		d.buf = ms[:0]
	}
	switch {
	case !eok || !aok:
		note = "a line that is not JSON" // validation reports it
	case n == 0 && !d.opt.Bytes:
		d.h.same(e.num, a.num, e.raw)
		return
	case n == 0:
		note = bytesNote(e.raw, a.raw)
	}
	if !d.detail(KindChanged) {
		return
	}
	ed := EventDiff{Kind: KindChanged, Run: run + 1, Sequence: a.k.seq, ExpectedLine: e.num, ActualLine: a.num, Anchor: e.num, Note: note}
	identify(&ed, av)
	if ed.EventID == "" {
		identify(&ed, ev)
	}
	for _, m := range ms {
		ed.Fields = append(ed.Fields, FieldOf(m, d.opt.MaxValueBytes))
	}
	ed.FieldsOmitted = n - len(ms)
	d.rep.Events = append(d.rep.Events, ed)
	shown := a.raw
	if d.opt.Tolerant && eok && aok && d.h.taking() {
		shown = d.inGoldenForm(ev, av, ms, n, a.raw)
	}
	d.h.change(e.num, e.raw, a.num, shown)
}

// inGoldenForm is the actual line a (value av, raw as written) in the
// golden's form (goldenForm) for the unified diff, given the first
// mismatches ms of n with golden event ev. When ms is not all of them,
// Match runs again for the rest: it binds nothing new (every name it meets
// was bound, or failed to bind, the first time), and what it might is
// rolled back; a timestamp out of order (checkTimestamp) is the one it
// does not count.
// When the line cannot be placed it is shown as written.
func (d *differ) inGoldenForm(ev, av jsonv.Value, ms []tolerant.Mismatch, n int, raw []byte) []byte {
	if n > len(ms) {
		mark := d.m.Mark()
		all, k := d.m.Match("", ev, av, nil, maxFormMismatches+1)
		d.m.Rollback(mark)
		if k < n {
			// checkTimestamp's: only the pointer matters here.
			all = append(all, tolerant.Mismatch{Pointer: "/timestamp"})
		}
		ms = all
	}
	if out, ok := goldenForm(ev, av, ms); ok {
		return out
	}
	return raw
}

// resolve reads the key of actual line a when it is lazy: when a is
// expected line e, byte for byte, it has e's key; when a matches
// golden line e (the one it would be paired with if the two are aligned),
// a's key is e's with the values of the holes at /session_id and
// /provenance/run_id in their places, and the match is kept for pair;
// otherwise the key is read from a's text.
func (d *differ) resolve(a, e *srcLine) {
	if a == nil || !a.lazy {
		return
	}
	if e != nil && e.keyOK && !d.opt.Tolerant && bytes.Equal(a.raw, e.raw) {
		// The same bytes: the same key.
		a.lazy, a.k, a.keyOK = false, e.k, true
		return
	}
	if e != nil && e.keyOK && e.compiled {
		d.m.Line = e.num
		mark := d.m.Mark()
		if ok, ts, t := d.m.MatchHoles(e.raw, e.holes, a.raw); ok {
			if k, kok := d.derive(e, a); kok {
				a.lazy, a.k, a.keyOK = false, k, true
				d.pre = prematch{e: e, a: a, mark: mark, ts: ts, t: t}
				return
			}
			d.m.Rollback(mark)
		}
	}
	d.ak.lineKey(a)
}

// derive is the key of actual line a, which matched golden line e: e's
// key with the actual values where the golden has holes at the key's
// members. ok is false when a hole stands for more (the whole
// provenance), and the key must be read from the text.
func (d *differ) derive(e, a *srcLine) (key, bool) {
	k := e.k
	for i := range e.holes {
		switch e.holes[i].Ptr {
		case "/session_id":
			from, to := d.m.ActualSpan(i)
			k.session = d.identityText(a.raw[from:to], d.ak.prev.session)
		case "/provenance/run_id":
			from, to := d.m.ActualSpan(i)
			k.run = d.identityText(a.raw[from:to], d.ak.prev.run)
		case "/provenance", "/sequence", "":
			return key{}, false
		}
	}
	d.ak.prev = k
	return k, true
}

// identityText is identity of the JSON value text v, reusing prev when it
// spells it.
func (d *differ) identityText(v []byte, prev string) string {
	if len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
		return reuse(v[1:len(v)-1], prev)
	}
	val, err := jsonv.Parse(v)
	if err != nil {
		return ""
	}
	return identity(val)
}

// timestampInOrder is checkTimestamp for an actual timestamp (time t)
// that matched [TIMESTAMP]: when it does not go back, it is recorded as
// the run's latest and the answer is true; otherwise nothing changes.
func (d *differ) timestampInOrder(run int, t time.Time, line int) bool {
	if prev, seen := d.lastTS[run]; seen && t.Before(prev.t) {
		return false
	}
	d.lastTS[run] = stamp{t, line}
	return true
}

// checkTimestamp enforces that a [TIMESTAMP] envelope timestamp never goes
// back along the actual run.
func (d *differ) checkTimestamp(run int, ev, av jsonv.Value, line int, ms []tolerant.Mismatch, n int) ([]tolerant.Mismatch, int) {
	et, _ := ev.Get("timestamp")
	if et.Kind() != jsonv.String || et.Text() != tolerant.TimestampToken {
		return ms, n
	}
	at, _ := av.Get("timestamp")
	t, ok := tolerant.ParseTimestamp(at.Text())
	if at.Kind() != jsonv.String || !ok {
		return ms, n // already a mismatch
	}
	prev, seen := d.lastTS[run]
	d.lastTS[run] = stamp{t, line}
	if seen && t.Before(prev.t) {
		n++
		if len(ms) < d.opt.MaxFields {
			ms = append(ms, tolerant.Mismatch{Pointer: "/timestamp", Expected: et, Actual: at,
				Reason: "earlier than the run's previous [TIMESTAMP] (actual line " + strconv.Itoa(prev.line) + "): timestamps never decrease along a run"})
		}
	}
	return ms, n
}

func bytesNote(e, a []byte) string {
	if bytes.Equal(bytes.TrimSuffix(e, []byte("\r")), bytes.TrimSuffix(a, []byte("\r"))) {
		return "the same event; the line endings differ (CRLF)"
	}
	return "the same event written with other bytes (member order, spacing, escaping or number spelling)"
}

func identify(ed *EventDiff, v jsonv.Value) {
	if ed.EventID == "" {
		if s, ok := v.Get("event_id"); ok && s.Kind() == jsonv.String {
			ed.EventID = s.Text()
		}
	}
	if ed.Type == "" {
		if s, ok := v.Get("type"); ok && s.Kind() == jsonv.String {
			ed.Type = s.Text()
		}
	}
}

func (d *differ) missing(run int, e *srcLine) {
	if !d.detail(KindMissing) {
		return
	}
	ed := EventDiff{Kind: KindMissing, Run: run + 1, Sequence: e.k.seq, ExpectedLine: e.num, Anchor: e.num}
	if v, ok := parsed(e); ok {
		identify(&ed, v)
	}
	d.rep.Events = append(d.rep.Events, ed)
	d.h.change(e.num, e.raw, d.lastA, nil)
}

func (d *differ) extra(run int, a *srcLine) {
	if !d.detail(KindExtra) {
		return
	}
	ed := EventDiff{Kind: KindExtra, Run: run + 1, Sequence: a.k.seq, ActualLine: a.num, Anchor: max(d.lastE, 1)}
	if v, ok := parsed(a); ok {
		identify(&ed, v)
	}
	d.rep.Events = append(d.rep.Events, ed)
	d.h.change(d.lastE, nil, a.num, a.raw)
}
