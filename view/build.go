package view

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// Lanes are the actor kinds of Trace 0.1.0, in the order the timeline draws
// their lanes. An event whose actor kind is none of these (only an invalid
// one) is drawn in a last lane, "other".
var Lanes = []string{"user", "model", "harness", "tool", "policy", "environment", "agent"}

const otherLane = 7

// Limits bound what one page holds, so that a page of any trace opens in a
// browser. What a limit leaves out is said in the page.
type Limits struct {
	// Events is the most lines (events and unreadable lines) the timeline
	// holds, over all files; later lines are left out.
	Events int
	// PayloadBytes is the most bytes of one payload's JSON the page holds;
	// a longer payload is cut, and its row says how long it was.
	PayloadBytes int
	// DataBytes bounds the payload text of the whole page: once reached,
	// the later events keep their envelope but not their payload.
	DataBytes int64
	// ListItems is how many replayed messages of a run the replay view
	// lists (the first and last halves); TextBytes how much of each.
	ListItems int
	TextBytes int
}

// DefaultLimits holds a 200,000-event trace of the reference's shape whole.
var DefaultLimits = Limits{Events: 500_000, PayloadBytes: 64 << 10, DataBytes: 96 << 20, ListItems: 200, TextBytes: 600}

// Options select what a page shows.
type Options struct {
	// Through, when HasThrough is set, replays each run through that
	// sequence (inclusive) instead of whole.
	Through    int64
	HasThrough bool
	// Limits; a zero field takes DefaultLimits' value.
	Limits Limits
}

func (o *Options) limits() Limits {
	l, d := o.Limits, DefaultLimits
	if l.Events <= 0 {
		l.Events = d.Events
	}
	if l.PayloadBytes <= 0 {
		l.PayloadBytes = d.PayloadBytes
	}
	if l.DataBytes <= 0 {
		l.DataBytes = d.DataBytes
	}
	if l.ListItems <= 0 {
		l.ListItems = d.ListItems
	}
	if l.TextBytes <= 0 {
		l.TextBytes = d.TextBytes
	}
	return l
}

// Row flags: what the timeline marks on an event. The page's script reads
// the same bits (F in view.js).
const (
	flagProblem     = 1 << iota // validation reported a problem on this line
	flagOrphan                  // a tool.request no tool.result of its session answers
	flagSynth                   // a tool.result synthesized by resume (SESSION_RESUME_INTERRUPTED)
	flagInterrupted             // a tool.request answered only by such a synthesized result
	flagUnmatched               // a tool.result that answers no earlier tool.request
	flagUnreadable              // not a JSON object: shown as text
	flagPayloadCut              // the payload is longer than Limits.PayloadBytes: cut
	flagPayloadGone             // Limits.DataBytes was reached: the payload is left out
	flagForkPoint               // the last event a branch inherits
	flagInherited               // an event some branch inherits
	flagNotReplayed             // after --through: not in the replay view
	flagTorn                    // the last line, without its newline
)

// rows holds the timeline column by column, as the page's data does.
type rows struct {
	file, line, run, typ, lane, actor, parent, env, flags, link, tool []int32
	seq                                                               []int64
	id, ts, payload, dur                                              []string
}

func (r *rows) len() int { return len(r.line) }

// strTable interns strings in order of first appearance.
type strTable struct {
	list  []string
	index map[string]int32
}

func (t *strTable) add(s string) int32 {
	if i, ok := t.index[s]; ok {
		return i
	}
	if t.index == nil {
		t.index = map[string]int32{}
	}
	i := int32(len(t.list))
	s = strings.Clone(s) // s may alias a whole line the page does not keep
	t.list = append(t.list, s)
	t.index[s] = i
	return i
}

type fileInfo struct {
	Name     string
	Origin   string
	Findings []Finding
	First    int // first row
	Rows     int
	Lines    int // lines read (rows may stop earlier at Limits.Events)
	Problems int // validation problems
	Runs     int
}

// problem is a validation problem and the row it is pinned to (-1: the file
// as a whole, or a line the page does not hold).
type problem struct {
	Row int
	Err *journal.Error
}

type runInfo struct {
	File       int
	Session    string
	RunID      string
	First      int // first row
	Rows       int
	Problems   int
	ResumesID  string // session.start payload resumes_run_id
	Resumes    int    // the run it resumes, -1 when unknown
	ResumedRow int    // the session.start row that says so, -1
	ids        map[string]int32
	red        *reducer.Reducer
	src        replaySources
	replay     *replayView
	maxSeq     int64
	stopped    bool // a session.stop was read
}

// replaySources says which rows the replay view's items came from.
type replaySources struct {
	users, assistants, tools []int32
	stop                     int32
	applied                  int
}

type toolRec struct {
	row     int32
	session string
	callID  string
	result  bool
	synth   bool
}

type branchRec struct {
	Row         int
	Run         int // the run that records it
	BranchID    string
	ParentRunID string
	ParentRun   int // -1 when no run of the page has that id
	Fork        int64
	ForkRow     int
	Inherited   int64 // payload inherited_events; -1 when absent
	Fingerprint string
	Check       *fpCheck
}

// fpCheck compares a fingerprint an event records with the one the
// reducer computes for the prefix it names.
type fpCheck struct {
	Row      int
	Run      int   // the run whose prefix is hashed
	N        int64 // events in the prefix
	Claimed  string
	Actual   string
	Verdict  string // "match", "differ" or "unchecked"
	Why      string // for unchecked
	isBranch bool
}

// Page is a built page: Build it, then WriteHTML.
type Page struct {
	opt      Options
	lim      Limits
	files    []fileInfo
	runs     []*runInfo
	rows     rows
	types    strTable
	actors   strTable
	envs     strTable
	tools    strTable
	problems []problem
	branches []branchRec
	checks   []*fpCheck
	notes    []string
	toolRecs []toolRec
	cutSize  map[int32]int    // rows whose payload was cut: its whole length
	dangling map[int32]string // rows whose parent_event_id names no earlier event of the run
	data     int64
	full     bool // Limits.Events reached
	dataFull bool // Limits.DataBytes reached
}

// Events is the number of rows in the timeline (events and unreadable
// lines).
func (p *Page) Events() int { return p.rows.len() }

// Problems is the number of validation problems over all files, and of the
// findings (errors and warnings) their sources came with.
func (p *Page) Problems() int {
	n := 0
	for _, f := range p.files {
		n += f.problemCount()
	}
	return n
}

// problemCount is the file's validation problems and its lint findings
// that are not info.
func (f *fileInfo) problemCount() int {
	n := f.Problems
	for _, x := range f.Findings {
		if x.Severity != "info" {
			n++
		}
	}
	return n
}

// Build reads every source and builds its page. The error is that of
// opening or reading a source; problems in a trace are part of the page.
func Build(srcs []Source, opt Options) (*Page, error) {
	p := &Page{opt: opt, lim: opt.limits(), cutSize: map[int32]int{}, dangling: map[int32]string{}}
	for fi, src := range srcs {
		if err := p.addFile(fi, src); err != nil {
			return nil, err
		}
	}
	if opt.HasThrough {
		last := int64(-1)
		for _, r := range p.runs {
			last = max(last, r.maxSeq)
		}
		if opt.Through > last {
			return nil, &ThroughError{Through: opt.Through, Last: last}
		}
	}
	p.joinTools()
	p.linkRuns()
	if err := p.checkFingerprints(srcs); err != nil {
		return nil, err
	}
	p.finishReplays()
	return p, nil
}

// ThroughError: Options.Through is past the last sequence of every run,
// so it would cut nothing (replay refuses such a sequence too).
type ThroughError struct {
	Through int64
	Last    int64 // the largest sequence of any run; -1 when there is none
}

func (e *ThroughError) Error() string {
	if e.Last < 0 {
		return fmt.Sprintf("--through %d: no run has a sequence", e.Through)
	}
	return fmt.Sprintf("--through %d is past the end of every run (the last sequence is %d)", e.Through, e.Last)
}

func (p *Page) addFile(fi int, src Source) error {
	rc, err := src.Open()
	if err != nil {
		return err
	}
	errs := journal.Validate(rc, src.Name)
	rc.Close()
	f := fileInfo{Name: src.Name, Origin: src.Origin, Findings: src.Findings, First: p.rows.len(), Problems: len(errs)}
	// Problems by line: a line with a line-level problem is shown but not
	// replayed.
	lineProblem := map[int]bool{}
	for _, e := range errs {
		if e.Line > 0 && !isInvariant(e.Code) {
			lineProblem[e.Line] = true
		}
	}
	runOf := map[[2]string]int{}
	err = scan(src, func(l *prepared) error {
		f.Lines = l.num
		if p.rows.len() >= p.lim.Events {
			if !p.full {
				p.full = true
				p.notes = append(p.notes, fmt.Sprintf("The page holds the first %d lines; %s and any later file are left out from line %d on (Limits.Events).", p.lim.Events, src.Name, l.num))
			}
			return nil
		}
		p.addLine(fi, src.Name, l, runOf, lineProblem[l.num])
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading %s: %w", src.Name, err)
	}
	f.Rows = p.rows.len() - f.First
	f.Runs = len(runOf)
	for _, e := range errs {
		row := -1
		if e.Line > 0 && e.Line <= f.Rows {
			row = f.First + e.Line - 1
			p.rows.flags[row] |= flagProblem
		}
		p.problems = append(p.problems, problem{Row: row, Err: e})
		if row >= 0 && p.rows.run[row] >= 0 {
			p.runs[p.rows.run[row]].Problems++
		}
	}
	p.files = append(p.files, f)
	return nil
}

// isInvariant reports whether code is a journal invariant (the line itself
// was read); the other codes mean the line could not be taken as an event.
func isInvariant(c journal.Code) bool {
	switch c {
	case journal.SequenceGap, journal.MixedSession, journal.MixedRun, journal.ParentNotEarlier, journal.DuplicateEventID:
		return true
	}
	return false
}

// addLine adds a prepared line as a row: the envelope members the
// timeline needs go into columns (see prepare), the rest of the envelope
// is kept as JSON text, deduplicated, so a run's provenance is stored once
// and whatever an invalid event holds is still shown.
func (p *Page) addLine(fi int, name string, pl *prepared, runOf map[[2]string]int, badLine bool) {
	row := int32(p.rows.len())
	r := &p.rows
	r.file = append(r.file, int32(fi))
	r.line = append(r.line, int32(pl.num))
	var flags int32
	if pl.torn {
		flags |= flagTorn
	}
	if !pl.val.IsValid() {
		flags |= flagUnreadable
		p.data += int64(len(pl.text))
		r.run = append(r.run, -1)
		r.seq = append(r.seq, -1)
		r.id = append(r.id, "")
		r.ts = append(r.ts, "")
		r.typ = append(r.typ, -1)
		r.lane = append(r.lane, otherLane)
		r.actor = append(r.actor, -1)
		r.parent = append(r.parent, -1)
		r.payload = append(r.payload, pl.text)
		r.env = append(r.env, -1)
		r.dur = append(r.dur, "")
		r.flags = append(r.flags, flags)
		r.link = append(r.link, -1)
		r.tool = append(r.tool, -1)
		return
	}
	key := [2]string{pl.session, pl.runID}
	ri, ok := runOf[key]
	if !ok {
		ri = len(p.runs)
		runOf[key] = ri
		p.runs = append(p.runs, &runInfo{File: fi, Session: strings.Clone(pl.session), RunID: strings.Clone(pl.runID), First: int(row), Resumes: -1, ResumedRow: -1,
			ids: map[string]int32{}, red: reducer.New(), maxSeq: -1, src: replaySources{stop: -1}})
	}
	run := p.runs[ri]
	run.Rows++
	run.maxSeq = max(run.maxSeq, pl.seq)
	actor := int32(-1)
	if pl.hasActor {
		actor = p.actors.add(pl.actorID)
	}
	parent := int32(-1)
	if pl.hasParent {
		parent = -2 // named, but no earlier event of the run has that id
		if pr, ok := run.ids[pl.parentID]; ok {
			parent = pr
		} else {
			p.dangling[row] = strings.Clone(pl.parentID)
		}
	}
	// The strings of a parsed line share its bytes: the page keeps copies,
	// not the lines.
	id, ts, dur := strings.Clone(pl.id), strings.Clone(pl.ts), strings.Clone(pl.dur)
	if id != "" {
		if _, seen := run.ids[id]; !seen {
			run.ids[id] = row
		}
	}
	text := pl.text
	if pl.hasPayload {
		switch {
		case p.data+int64(len(text)) > p.lim.DataBytes:
			if !p.dataFull {
				p.dataFull = true
				p.notes = append(p.notes, fmt.Sprintf("The page's payload budget (%d MiB) was reached at line %d of %s: later events show their envelope but not their payload (Limits.DataBytes).", p.lim.DataBytes>>20, pl.num, name))
			}
			flags |= flagPayloadGone
			p.cutSize[row] = len(text)
			text = ""
		case len(text) > p.lim.PayloadBytes:
			flags |= flagPayloadCut
			p.cutSize[row] = len(text)
			text = cut(text, p.lim.PayloadBytes)
		}
		p.data += int64(len(text))
	}
	typIdx := int32(-1)
	if pl.hasType {
		typIdx = p.types.add(pl.typ)
	}
	toolIdx := int32(-1)
	if pl.lane == 3 && actor >= 0 {
		toolIdx = p.tools.add(pl.actorID)
	}
	typ, payload := pl.typ, pl.payload
	if pl.hasPayload && (typ == "tool.request" || typ == "tool.result") {
		call, _ := payload.Get("tool_call_id")
		name, _ := payload.Get("tool")
		if name.Kind() == jsonv.String {
			toolIdx = p.tools.add(name.Text())
		}
		if call.Kind() == jsonv.String {
			tr := toolRec{row: row, session: run.Session, callID: strings.Clone(call.Text()), result: typ == "tool.result"}
			if tr.result {
				tr.synth = isSynthesized(payload)
				if tr.synth {
					flags |= flagSynth
				}
			}
			p.toolRecs = append(p.toolRecs, tr)
		}
	}
	r.run = append(r.run, int32(ri))
	r.seq = append(r.seq, pl.seq)
	r.id = append(r.id, id)
	r.ts = append(r.ts, ts)
	r.typ = append(r.typ, typIdx)
	r.lane = append(r.lane, pl.lane)
	r.actor = append(r.actor, actor)
	r.parent = append(r.parent, parent)
	r.payload = append(r.payload, text)
	r.env = append(r.env, p.envs.add(pl.env))
	r.dur = append(r.dur, dur)
	r.link = append(r.link, -1)
	r.tool = append(r.tool, toolIdx)

	p.noteEvent(run, row, pl, badLine, &flags)
	if typ == "session.stop" {
		run.stopped = true
	}
	if pl.hasType && typ == "session.start" && pl.hasPayload {
		if res, _ := payload.Get("resumed"); res.IsTrue() {
			run.ResumedRow = int(row)
			if rid, ok := payload.Get("resumes_run_id"); ok && rid.Kind() == jsonv.String {
				run.ResumesID = rid.Text()
			}
		}
	}
	r.flags = append(r.flags, flags)
}

// noteEvent applies an event to its run's replay and records what the
// page draws from it: branch records and the fingerprints events claim.
func (p *Page) noteEvent(run *runInfo, row int32, pl *prepared, badLine bool, flags *int32) {
	ri := int(p.rows.run[row])
	typ, payload := pl.typ, pl.payload
	if !badLine {
		if pl.evOK {
			if !p.opt.HasThrough || pl.seq <= p.opt.Through {
				run.red.ApplyCanonical(pl.canon, &pl.ev)
				s := &run.src
				s.applied++
				switch typ {
				case "user.message":
					s.users = append(s.users, row)
				case "model.response":
					if payload.Has("content") {
						s.assistants = append(s.assistants, row)
					} else if f, _ := payload.Get("final"); f.IsTrue() {
						s.assistants = append(s.assistants, row)
					}
				case "tool.result":
					s.tools = append(s.tools, row)
				case "session.stop":
					s.stop = row
				}
			} else {
				*flags |= flagNotReplayed
			}
		}
	}
	switch typ {
	case "session.replay":
		fp, _ := payload.Get("fingerprint")
		n, _ := payload.Get("applied_events")
		if k, ok := n.Int64(); ok && fp.Kind() == jsonv.String {
			p.checks = append(p.checks, &fpCheck{Row: int(row), Run: ri, N: k, Claimed: fp.Text()})
		}
	case "session.branch":
		b := branchRec{Row: int(row), Run: ri, ParentRun: -1, Fork: -1, ForkRow: -1, Inherited: -1}
		if s, ok := payload.Get("branch_id"); ok && s.Kind() == jsonv.String {
			b.BranchID = s.Text()
		}
		if s, ok := payload.Get("parent_run_id"); ok && s.Kind() == jsonv.String {
			b.ParentRunID = s.Text()
		}
		if s, ok := payload.Get("parent_fingerprint"); ok && s.Kind() == jsonv.String {
			b.Fingerprint = s.Text()
		}
		if n, ok := payload.Get("fork_sequence"); ok {
			if k, ok := n.Int64(); ok {
				b.Fork = k
			}
		}
		if n, ok := payload.Get("inherited_events"); ok {
			if k, ok := n.Int64(); ok {
				b.Inherited = k
			}
		}
		p.branches = append(p.branches, b)
	}
}

// isSynthesized reports whether a tool.result payload is the repair session
// resume writes for a call that never finished (reducer.InterruptedToolResult).
func isSynthesized(payload jsonv.Value) bool {
	if t, ok := payload.Get("error_type"); ok && t.Kind() == jsonv.String && t.Text() == reducer.InterruptedToolErrorType {
		return true
	}
	e, ok := payload.Get("error")
	return ok && e.Kind() == jsonv.String && e.Text() == reducer.InterruptedToolError
}

// joinTools pairs each tool.result with the earliest open tool.request of
// its session with the same tool_call_id, across runs and files (a resumed
// run answers its predecessor's calls), and marks what stays unpaired.
func (p *Page) joinTools() {
	open := map[[2]string][]int32{}
	answeredBySynth := map[int32]bool{}
	for _, t := range p.toolRecs {
		k := [2]string{t.session, t.callID}
		if !t.result {
			open[k] = append(open[k], t.row)
			continue
		}
		q := open[k]
		if len(q) == 0 {
			p.rows.flags[t.row] |= flagUnmatched
			continue
		}
		req := q[0]
		open[k] = q[1:]
		p.rows.link[req], p.rows.link[t.row] = t.row, req
		if t.synth {
			answeredBySynth[req] = true
			p.rows.flags[req] |= flagInterrupted
		}
	}
	for _, t := range p.toolRecs {
		if !t.result && p.rows.link[t.row] < 0 {
			p.rows.flags[t.row] |= flagOrphan
		}
	}
	p.toolRecs = nil
}

// linkRuns resolves resume markers and branch lineage to runs and rows.
func (p *Page) linkRuns() {
	// findRun is the run with that id (and session, when given), the one
	// in file preferably.
	findRun := func(id, session string, file int) int {
		best := -1
		for i, r := range p.runs {
			if r.RunID != id || (session != "" && r.Session != session) {
				continue
			}
			if best < 0 || (p.runs[best].File != file && r.File == file) {
				best = i
			}
		}
		return best
	}
	for _, r := range p.runs {
		if r.ResumesID != "" {
			r.Resumes = findRun(r.ResumesID, r.Session, r.File)
		}
	}
	for i := range p.branches {
		b := &p.branches[i]
		if b.ParentRunID == "" {
			continue
		}
		b.ParentRun = findRun(b.ParentRunID, "", p.runs[b.Run].File)
		if b.ParentRun < 0 || b.Fork < 0 {
			continue
		}
		pr := p.runs[b.ParentRun]
		for row := pr.First; row < p.rows.len(); row++ {
			if p.rows.run[row] != int32(b.ParentRun) || p.rows.seq[row] < 0 || p.rows.seq[row] > b.Fork {
				continue
			}
			p.rows.flags[row] |= flagInherited
			if p.rows.seq[row] == b.Fork && b.ForkRow < 0 {
				b.ForkRow = row
				p.rows.flags[row] |= flagForkPoint
			}
		}
		c := &fpCheck{Row: b.Row, Run: b.ParentRun, N: b.Fork + 1, Claimed: b.Fingerprint, isBranch: true}
		b.Check = c
		p.checks = append(p.checks, c)
	}
}

// cut shortens s to at most n bytes at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k]
}
