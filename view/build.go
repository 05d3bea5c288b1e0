package view

import (
	"fmt"
	"hash/maphash"
	"runtime"
	"strconv"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/reducer"
)

// Lanes are the actor kinds of Trace 0.1.0, in the order the timeline draws
// their lanes. An event whose actor kind is none of these (only an invalid
// one) is drawn in a last lane, "other".
var Lanes = []string{"user", "model", "harness", "tool", "policy", "environment", "agent"}

const otherLane = 7

// Limits bound what one page holds, so that a page of any trace opens in a
// browser and building it needs memory that does not grow with the trace.
// Every byte bound counts bytes as the page writes them, escapes included
// ('<' is six bytes in the page's data, '"' two). What a limit leaves out
// is said in the page.
type Limits struct {
	// Events is the most lines (events and unreadable lines) the timeline
	// holds, over all files; later lines are left out.
	Events int
	// Runs is the most runs the page holds; the lines of later runs, and
	// every line after the first of them, are left out.
	Runs int
	// PayloadBytes is the most bytes one payload's JSON takes in the page;
	// a longer payload is cut, and its row says how long it was.
	PayloadBytes int
	// FieldBytes is the most bytes each envelope string takes in the page
	// (event id, timestamp, type, parent id, duration, actor id, session
	// and run ids, tool name, and every string of the rest of the
	// envelope, keys included), and each id, fingerprint or name the
	// overview shows; the rest of the envelope takes at most four times
	// as much. A longer one is cut and marked as cut.
	FieldBytes int
	// DataBytes bounds the payload text of the whole page: once reached,
	// the later events keep their envelope but not their payload.
	DataBytes int64
	// EnvelopeBytes bounds the rest of the timeline's data (every column
	// but the payloads, and the tables of types, actors, tools and
	// envelopes): once reached, the timeline ends there.
	EnvelopeBytes int64
	// ListItems is how many replayed messages of a run the replay view
	// lists (the first and last halves); TextBytes how much of each, as
	// the page's HTML writes it; ReplayItems how many over all runs (a
	// run past it lists fewer, or none, and says so).
	ListItems   int
	TextBytes   int
	ReplayItems int
}

// DefaultLimits holds a 200,000-event trace of the reference's shape whole,
// and with it a page of at most about 170 MiB for any input.
var DefaultLimits = Limits{Events: 500_000, Runs: 1000, PayloadBytes: 64 << 10, FieldBytes: 1 << 10,
	DataBytes: 96 << 20, EnvelopeBytes: 64 << 20, ListItems: 200, TextBytes: 600, ReplayItems: 10_000}

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
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.Events, d.Events)
	def(&l.Runs, d.Runs)
	def(&l.PayloadBytes, d.PayloadBytes)
	def(&l.FieldBytes, d.FieldBytes)
	def(&l.ListItems, d.ListItems)
	def(&l.TextBytes, d.TextBytes)
	def(&l.ReplayItems, d.ReplayItems)
	if l.DataBytes <= 0 {
		l.DataBytes = d.DataBytes
	}
	if l.EnvelopeBytes <= 0 {
		l.EnvelopeBytes = d.EnvelopeBytes
	}
	return l
}

// Row flags: what the timeline marks on an event. The page's script reads
// the same bits (F in trace.js).
const (
	flagProblem     = 1 << iota // validation reported a problem on this line
	flagOrphan                  // a tool.request no tool.result of its session answers
	flagSynth                   // a tool.result synthesized by resume (SESSION_RESUME_INTERRUPTED)
	flagInterrupted             // a tool.request answered only by such a synthesized result
	flagUnmatched               // a tool.result that answers no earlier tool.request
	flagUnreadable              // not a JSON object: shown as text
	flagPayloadCut              // the payload (or the unreadable line) is longer than the page holds: cut
	flagPayloadGone             // Limits.DataBytes was reached: the payload is left out
	flagForkPoint               // the last event a branch inherits
	flagInherited               // an event some branch inherits
	flagNotReplayed             // after --through: not in the replay view
	flagTorn                    // the last line, without its newline
	flagFieldCut                // an envelope field is longer than Limits.FieldBytes: cut
)

// rows holds the timeline column by column, as the page's data does. The
// string columns are kept as the text the page writes (column.go); a
// row's file and line are not kept: the rows of a file are its lines from
// the first, one after another (fileInfo.First, Rows).
type rows struct {
	run, typ, actor, parent, env, link, tool []int32
	lane                                     []uint8
	flags                                    []uint16
	seq                                      []int64
	id, ts, dur, payload                     *strCol
}

func (r *rows) len() int { return len(r.run) }

// strTable interns strings in order of first appearance.
type strTable struct {
	list  []string
	index map[string]int32
}

// add returns s's index, and whether s is new.
func (t *strTable) add(s string) (int32, bool) {
	if i, ok := t.index[s]; ok {
		return i, false
	}
	if t.index == nil {
		t.index = map[string]int32{}
	}
	i := int32(len(t.list))
	t.list = append(t.list, s)
	t.index[s] = i
	return i, true
}

type fileInfo struct {
	Name     string
	Origin   string
	Findings []Finding
	More     int // findings left out (maxFindings)
	First    int // first row
	Rows     int
	Lines    int // lines read (rows may stop earlier at a limit)
	Problems int // validation problems
	Runs     int
}

// maxFindings bounds the findings of one file the page lists.
const maxFindings = 200

// problem is a validation problem and the row it is pinned to (-1: the file
// as a whole, or a line the page does not hold), its strings cut.
type problem struct {
	Row          int
	Line         int
	File         string
	Code         journal.Code
	Event        clipped
	Pointer, Msg clipped
}

type runInfo struct {
	File       int
	Session    clipped
	RunID      clipped
	key        [2]uint64 // session and run id
	runKey     uint64    // the run id's hash
	sessKey    uint64    // the session id's hash
	First      int       // first row
	Rows       int
	Problems   int
	ResumesID  clipped // session.start payload resumes_run_id
	resumesKey uint64
	Resumes    int // the run it resumes, -1 when unknown
	ResumedRow int // the session.start row that says so, -1
	ids        map[uint64]int32
	fp         *reducer.Reducer // the fingerprint of the replayed events
	rp         replayAcc
	replay     *replayView
	maxSeq     int64
	stopped    bool // a session.stop was read
}

// replayAcc gathers a run's replay view as its events are read: counts,
// the stop reason, and the first and last items (Limits.ListItems).
type replayAcc struct {
	applied                  int
	users, assistants, tools int
	stop                     *clipped
	stopRow                  int32
	head                     []replayItem
	tail                     []replayItem // a ring, oldest at tailAt
	tailAt                   int
	total                    int
}

type toolRec struct {
	row    int32
	key    [2]uint64 // session and tool_call_id
	result bool
	synth  bool
}

type branchRec struct {
	Row         int
	Run         int // the run that records it
	BranchID    clipped
	ParentRunID clipped
	parentKey   uint64
	hasParent   bool
	ParentRun   int // -1 when no run of the page has that id
	Fork        int64
	ForkRow     int
	Inherited   int64 // payload inherited_events; -1 when absent
	Fingerprint clipped
	Check       *fpCheck
}

// fpCheck compares a fingerprint an event records with the one the
// reducer computes for the prefix it names.
type fpCheck struct {
	Row      int
	Run      int   // the run whose prefix is hashed
	N        int64 // events in the prefix
	Claimed  clipped
	Actual   string
	Verdict  string // "match", "differ" or "unchecked"
	Why      string // for unchecked
	isBranch bool
}

// maxBranches and maxReplayChecks bound the branch records and recorded
// replays the overview draws; later ones are rows of the timeline only.
const (
	maxBranches     = 256
	maxReplayChecks = 256
)

type rowCut struct {
	row         int32
	whole, kept int
}

type rowMask struct {
	row  int32
	mask uint16
}

type rowText struct {
	row  int32
	text string
}

// Page is a built page: Build it, then WriteHTML; Close removes its
// temporary file.
type Page struct {
	opt      Options
	lim      Limits
	cfg      *prepCfg
	files    []fileInfo
	runs     []*runInfo
	rows     rows
	cols     *colStore
	types    strTable
	actors   strTable
	envs     strTable
	tools    strTable
	problems []problem
	branches []branchRec
	checks   []*fpCheck
	notes    []string
	toolRecs []toolRec
	cuts     []rowCut  // rows whose payload (or unreadable text) was cut or left out
	fieldCut []rowMask // rows whose envelope fields were cut, and which
	dangling []rowText // rows whose parent_event_id names no earlier event of the run
	data     int64     // payload bytes written
	envBytes int64     // the rest of the timeline's data
	full     bool      // no more lines: a limit was reached
	dataFull bool      // Limits.DataBytes reached
	unread   int       // rows of lines that are not JSON objects
	slots    int       // replay items held, over all runs
	slotNote bool
	skipped  struct{ branches, checks, payloadCuts, fieldCuts int }
}

// Events is the number of rows in the timeline (events and unreadable
// lines).
func (p *Page) Events() int { return p.rows.len() }

// Unreadable is how many rows of the timeline are lines that are not JSON
// objects (blank, torn, not JSON): the rest of Events are events.
func (p *Page) Unreadable() int { return p.unread }

// Lines is the number of lines read over all files: more than Events when
// a limit left later lines out.
func (p *Page) Lines() int {
	n := 0
	for _, f := range p.files {
		n += f.Lines
	}
	return n
}

// Stopped is how many files' validation stopped at its bound on problems
// (journal.MaxErrors): each of them has more problems than Problems
// counts, which includes the one saying so.
func (p *Page) Stopped() int {
	n := 0
	for _, pr := range p.problems {
		if pr.Code == journal.TooManyErrors {
			n++
		}
	}
	return n
}

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
	return n + f.More
}

// Build reads every source and builds its page. The error is that of
// opening or reading a source, or of the page's temporary file; problems
// in a trace are part of the page. Each source is read as a stream, two
// or three times (validation, the page's rows, fingerprint checks when it
// records any), and only what the page holds is kept: memory is bounded
// by Limits whatever the sources' sizes.
func Build(srcs []Source, opt Options) (*Page, error) {
	// The budget of the envelopes starts with what every page writes of
	// its columns and tables: their keys and brackets.
	p := &Page{opt: opt, lim: opt.limits(), cols: &colStore{}, envBytes: 512}
	p.cfg = &prepCfg{lim: p.lim, seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
	p.rows.id, p.rows.ts, p.rows.dur, p.rows.payload = newStrCol(p.cols), newStrCol(p.cols), newStrCol(p.cols), newStrCol(p.cols)
	runtime.AddCleanup(p, func(st *colStore) { st.close() }, p.cols)
	ok := false
	defer func() {
		if !ok {
			p.cols.close()
		}
	}()
	for fi, src := range srcs {
		if err := p.addFile(fi, src); err != nil {
			return nil, err
		}
	}
	if err := p.cols.err; err != nil {
		return nil, fmt.Errorf("keeping the page's data in a temporary file: %w", err)
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
	p.sayCuts()
	ok = true
	return p, nil
}

// Close removes the page's temporary file, if it has one. The page cannot
// be written after.
func (p *Page) Close() error { return p.cols.close() }

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
	f := fileInfo{Name: src.Name, Origin: src.Origin, First: p.rows.len(), Problems: len(errs)}
	fb := p.lim.FieldBytes
	for i, x := range src.Findings {
		if i == maxFindings {
			f.More = len(src.Findings) - maxFindings
			for _, y := range src.Findings[maxFindings:] {
				if y.Severity == "info" {
					f.More--
				}
			}
			p.notes = append(p.notes, fmt.Sprintf("%s has %d findings; the page lists the first %d (tracecheck lint lists them all).", src.Name, len(src.Findings), maxFindings))
			break
		}
		f.Findings = append(f.Findings, Finding{Line: x.Line, Code: cutJS(x.Code, fb), Severity: x.Severity, Message: cutHTML(x.Message, 4*fb)})
	}
	// Problems by line: a line with a line-level problem is shown but not
	// replayed.
	lineProblem := map[int]bool{}
	for _, e := range errs {
		if e.Line > 0 && !isInvariant(e.Code) {
			lineProblem[e.Line] = true
		}
	}
	runOf := map[[2]uint64]int{}
	if !p.full {
		f.Lines, err = scan(src, p.cfg, func(l *prepared) error {
			if why := p.room(l, runOf); why != "" {
				p.full = true
				p.notes = append(p.notes, fmt.Sprintf("The page holds the first %d lines; %s and any later file are left out from line %d on (%s).", p.rows.len(), src.Name, l.num, why))
				return errRest
			}
			p.addLine(fi, src.Name, l, runOf, lineProblem[l.num])
			return nil
		})
	} else {
		f.Lines, err = scan(src, p.cfg, func(*prepared) error { return errRest })
	}
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
		p.problems = append(p.problems, problem{Row: row, Line: e.Line, File: e.File, Code: e.Code,
			Event: clip(e.EventID, fb), Pointer: clip(e.Pointer, fb), Msg: clip(e.Msg, 4*fb)})
		if row >= 0 && p.rows.run[row] >= 0 {
			p.runs[p.rows.run[row]].Problems++
		}
	}
	p.files = append(p.files, f)
	return nil
}

// room says why the page takes no more lines ("" when it takes l): a
// limit is reached.
func (p *Page) room(l *prepared, runOf map[[2]uint64]int) string {
	switch {
	case p.rows.len() >= p.lim.Events:
		return "Limits.Events"
	case p.envBytes+p.envCostOf(l, runOf) > p.lim.EnvelopeBytes:
		return fmt.Sprintf("the page's budget of %s for the timeline's envelopes was reached, Limits.EnvelopeBytes", fmtBytes(p.lim.EnvelopeBytes))
	}
	if _, seen := runOf[l.runKey]; l.readable && !seen && len(p.runs) >= p.lim.Runs {
		return fmt.Sprintf("it holds at most %d runs, Limits.Runs", p.lim.Runs)
	}
	return ""
}

// envCostOf is envCost, computed once per line.
func (p *Page) envCostOf(l *prepared, runOf map[[2]uint64]int) int64 {
	if l.cost == 0 {
		l.cost = p.envCost(l, runOf)
	}
	return l.cost
}

// envCost is what a line adds to the timeline's data besides its payload,
// as written: its literals, the numbers of its row (its flags and link,
// set later, at their widest), its cut, field-cut and dangling-parent
// entries, and the table entries it adds.
func (p *Page) envCost(l *prepared, runOf map[[2]uint64]int) int64 {
	lit := func(b []byte) int64 {
		if b == nil {
			return 3 // "",
		}
		return int64(len(b)) + 1
	}
	num := func(n int) int64 { return int64(digits(int64(n))) + 1 }
	rowRef := num(p.rows.len())
	n := lit(l.idLit) + lit(l.tsLit) + lit(l.durLit)
	n += num(len(p.files)) + num(l.num) + num(len(p.runs)) + int64(digits(l.seq)) + 1
	n += 2 + 6 + 2*rowRef // lane, flags (13 bits), parent, link
	n += 4 * num(max(len(p.types.list), len(p.actors.list), len(p.envs.list), len(p.tools.list))+1)
	if l.hasParent {
		dangling := true
		if ri, ok := runOf[l.runKey]; ok {
			_, found := p.runs[ri].ids[l.parentKey]
			dangling = !found
		}
		if dangling {
			n += int64(jsWritten(l.parent)) + rowRef + 6
		}
	}
	if len(l.text) > 0 && l.textKept < l.textLen || p.dataFull {
		n += rowRef + 2*num(l.textLen) + 4 // [row,whole,kept],
	}
	if l.cuts != 0 {
		n += rowRef + 8
	}
	newStr := func(t *strTable, s string, ok bool) {
		if _, seen := t.index[s]; ok && !seen {
			n += int64(jsWritten(s)) + 3
		}
	}
	newStr(&p.types, l.typ, l.hasType)
	newStr(&p.actors, l.actor, l.hasActor)
	newStr(&p.envs, l.env, l.readable)
	newStr(&p.tools, l.tool, l.hasTool)
	newStr(&p.tools, l.actor, l.hasActor && l.lane == 3 && l.actor != l.tool)
	return n
}

func digits(n int64) int {
	return len(strconv.AppendInt(nil, n, 10))
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
func (p *Page) addLine(fi int, name string, pl *prepared, runOf map[[2]uint64]int, badLine bool) {
	p.envBytes += p.envCostOf(pl, runOf)
	row := int32(p.rows.len())
	r := &p.rows
	var flags uint16
	if pl.torn {
		flags |= flagTorn
	}
	lit := func(c *strCol, b []byte) {
		if b == nil {
			c.addLit([]byte(`""`))
			return
		}
		c.addLit(b)
	}
	// The payload column: the payload's text, or the unreadable line's,
	// while the page's budget lasts.
	text := func() {
		if pl.text == nil {
			lit(r.payload, nil)
			return
		}
		n := int64(len(pl.text)) + 1
		switch {
		case p.data+n > p.lim.DataBytes:
			if !p.dataFull {
				p.dataFull = true
				p.notes = append(p.notes, fmt.Sprintf("The page's payload budget (%s as written) was reached at line %d of %s: later events show their envelope but not their payload (Limits.DataBytes).", fmtBytes(p.lim.DataBytes), pl.num, name))
			}
			flags |= flagPayloadGone
			p.cuts = append(p.cuts, rowCut{row: row, whole: pl.textLen})
			lit(r.payload, nil)
			return
		case pl.textKept < pl.textLen:
			flags |= flagPayloadCut
			p.cuts = append(p.cuts, rowCut{row: row, whole: pl.textLen, kept: pl.textKept})
			p.skipped.payloadCuts++
		}
		p.data += n
		r.payload.addLit(pl.text)
	}
	if !pl.readable {
		p.unread++
		flags |= flagUnreadable
		r.run = append(r.run, -1)
		r.seq = append(r.seq, -1)
		lit(r.id, nil)
		lit(r.ts, nil)
		r.typ = append(r.typ, -1)
		r.lane = append(r.lane, otherLane)
		r.actor = append(r.actor, -1)
		r.parent = append(r.parent, -1)
		text()
		r.env = append(r.env, -1)
		lit(r.dur, nil)
		r.flags = append(r.flags, flags)
		r.link = append(r.link, -1)
		r.tool = append(r.tool, -1)
		return
	}
	ri, ok := runOf[pl.runKey]
	if !ok {
		ri = len(p.runs)
		runOf[pl.runKey] = ri
		p.runs = append(p.runs, &runInfo{File: fi, Session: pl.session, RunID: pl.runID, key: pl.runKey, runKey: pl.runHash, sessKey: pl.sessHash,
			First: int(row), Resumes: -1, ResumedRow: -1, ids: map[uint64]int32{}, fp: reducer.New(), maxSeq: -1, rp: replayAcc{stopRow: -1}})
	}
	run := p.runs[ri]
	run.Rows++
	run.maxSeq = max(run.maxSeq, pl.seq)
	actor := int32(-1)
	if pl.hasActor {
		actor, _ = p.actors.add(pl.actor)
	}
	parent := int32(-1)
	if pl.hasParent {
		parent = -2 // named, but no earlier event of the run has that id
		if pr, ok := run.ids[pl.parentKey]; ok {
			parent = pr
		} else {
			p.dangling = append(p.dangling, rowText{row: row, text: pl.parent})
		}
	}
	if pl.idKey != 0 {
		if _, seen := run.ids[pl.idKey]; !seen {
			run.ids[pl.idKey] = row
		}
	}
	if pl.hasPayload {
		text()
	} else {
		lit(r.payload, nil)
	}
	typIdx := int32(-1)
	if pl.hasType {
		typIdx, _ = p.types.add(pl.typ)
	}
	toolIdx := int32(-1)
	if pl.lane == 3 && actor >= 0 {
		toolIdx, _ = p.tools.add(pl.actor)
	}
	if pl.hasTool {
		toolIdx, _ = p.tools.add(pl.tool)
	}
	if pl.hasCall {
		tr := toolRec{row: row, key: pl.callKey, result: pl.typ == "tool.result"}
		if tr.result && pl.synth {
			tr.synth = true
			flags |= flagSynth
		}
		p.toolRecs = append(p.toolRecs, tr)
	}
	if pl.cuts != 0 {
		flags |= flagFieldCut
		p.fieldCut = append(p.fieldCut, rowMask{row: row, mask: pl.cuts})
		p.skipped.fieldCuts++
	}
	r.run = append(r.run, int32(ri))
	r.seq = append(r.seq, pl.seq)
	lit(r.id, pl.idLit)
	lit(r.ts, pl.tsLit)
	r.typ = append(r.typ, typIdx)
	r.lane = append(r.lane, uint8(pl.lane))
	r.actor = append(r.actor, actor)
	r.parent = append(r.parent, parent)
	envIdx, _ := p.envs.add(pl.env)
	r.env = append(r.env, envIdx)
	lit(r.dur, pl.durLit)
	r.link = append(r.link, -1)
	r.tool = append(r.tool, toolIdx)

	p.noteEvent(run, ri, row, pl, badLine, &flags)
	if pl.typ == "session.stop" {
		run.stopped = true
	}
	if pl.resumed && pl.typ == "session.start" {
		run.ResumedRow = int(row)
		run.ResumesID, run.resumesKey = pl.resumesID, pl.resumesKey
	}
	r.flags = append(r.flags, flags)
}

// noteEvent applies an event to its run's replay and records what the
// page draws from it: branch records and the fingerprints events claim.
func (p *Page) noteEvent(run *runInfo, ri int, row int32, pl *prepared, badLine bool, flags *uint16) {
	if !badLine && pl.evOK {
		if !p.opt.HasThrough || pl.seq <= p.opt.Through {
			p.apply(run, row, pl)
		} else {
			*flags |= flagNotReplayed
		}
	}
	switch {
	case pl.hasReplay:
		if len(p.checks)-len(p.branches) >= maxReplayChecks {
			p.skipped.checks++
			break
		}
		p.checks = append(p.checks, &fpCheck{Row: int(row), Run: ri, N: pl.replayN, Claimed: pl.replayFP})
	case pl.branch != nil:
		if len(p.branches) >= maxBranches {
			p.skipped.branches++
			break
		}
		b := pl.branch
		p.branches = append(p.branches, branchRec{Row: int(row), Run: ri, BranchID: b.id, ParentRunID: b.parentRun,
			parentKey: b.parentRunKey, hasParent: b.hasParentRun,
			ParentRun: -1, Fork: b.fork, ForkRow: -1, Inherited: b.inherited, Fingerprint: b.fp})
	}
}

// apply folds a valid event into its run's replay: package reducer hashes
// it into the fingerprint, and the replay view counts and lists what the
// reducer's view would hold (prepared.item, by the reducer's rules), only
// the items the page lists being kept.
func (p *Page) apply(run *runInfo, row int32, pl *prepared) {
	a := &run.rp
	// The reducer is given only what its fingerprint needs (and the ids it
	// records from the first event), so that it keeps no message: the page
	// keeps its own bounded list.
	ev := journal.Event{Sequence: pl.seq}
	if a.applied == 0 {
		ev.SessionID, ev.Provenance.RunID = pl.session.S, pl.runID.S
	}
	run.fp.ApplyCanonical(pl.canon, &ev)
	a.applied++
	if pl.hasStop {
		c := pl.stopReason
		a.stop, a.stopRow = &c, row
	}
	it := pl.item
	if it == nil {
		return
	}
	switch it.Role {
	case "user":
		a.users++
	case "assistant":
		a.assistants++
	case "tool":
		a.tools++
	}
	item := *it
	item.Row = int(row)
	a.total++
	half := p.lim.ListItems / 2
	rest := p.lim.ListItems - half
	// The first half of the list fills first; once the page's budget of
	// items is spent (it never comes back) a list keeps the slots it has.
	if len(a.head) < half && p.slots < p.lim.ReplayItems {
		p.slots++
		a.head = append(a.head, item)
		return
	}
	// The last items: a ring, in order while it grows.
	if len(a.tail) < rest && p.slots < p.lim.ReplayItems {
		p.slots++
		a.tail = append(a.tail, item)
		return
	}
	if len(a.tail) > 0 {
		a.tail[a.tailAt] = item
		a.tailAt = (a.tailAt + 1) % len(a.tail)
	}
}

// joinTools pairs each tool.result with the earliest open tool.request of
// its session with the same tool_call_id, across runs and files (a resumed
// run answers its predecessor's calls), and marks what stays unpaired.
func (p *Page) joinTools() {
	open := map[[2]uint64][]int32{}
	for _, t := range p.toolRecs {
		if !t.result {
			open[t.key] = append(open[t.key], t.row)
			continue
		}
		q := open[t.key]
		if len(q) == 0 {
			p.rows.flags[t.row] |= flagUnmatched
			continue
		}
		req := q[0]
		open[t.key] = q[1:]
		p.rows.link[req], p.rows.link[t.row] = t.row, req
		if t.synth {
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
	findRun := func(id, session uint64, file int) int {
		best := -1
		for i, r := range p.runs {
			if r.runKey != id || (session != 0 && r.sessKey != session) {
				continue
			}
			if best < 0 || (p.runs[best].File != file && r.File == file) {
				best = i
			}
		}
		return best
	}
	for _, r := range p.runs {
		if r.resumesKey != 0 {
			r.Resumes = findRun(r.resumesKey, r.sessKey, r.File)
		}
	}
	for i := range p.branches {
		b := &p.branches[i]
		if !b.hasParent {
			continue
		}
		b.ParentRun = findRun(b.parentKey, 0, p.runs[b.Run].File)
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

// sayCuts adds the notes of what the page cut but keeps.
func (p *Page) sayCuts() {
	if n := p.skipped.payloadCuts; n > 0 {
		p.notes = append(p.notes, fmt.Sprintf("%d %s longer than the page holds (%s of a payload, %s of a line that is not an event, as written): cut, %s row says how long and which line to read (Limits.PayloadBytes).",
			n, pluralS(n, "payload or unreadable line is", "payloads or unreadable lines are"), fmtBytes(int64(p.lim.PayloadBytes)), fmtBytes(unreadableBytes), pluralS(n, "its", "each")))
	}
	if n := p.skipped.fieldCuts; n > 0 {
		p.notes = append(p.notes, fmt.Sprintf("%d %s envelope fields (ids, type, actor, timestamp…) longer than the page holds (%s each as written): they are cut, marked “field cut” (Limits.FieldBytes).",
			n, pluralS(n, "event has", "events have"), fmtBytes(int64(p.lim.FieldBytes))))
	}
	if n := p.skipped.branches; n > 0 {
		p.notes = append(p.notes, fmt.Sprintf("The overview draws the first %d branch records; %d more are rows of the timeline only.", maxBranches, n))
	}
	if n := p.skipped.checks; n > 0 {
		p.notes = append(p.notes, fmt.Sprintf("The overview checks the fingerprints of the first %d recorded replays; %d more are rows of the timeline only.", maxReplayChecks, n))
	}
	if p.slotNote {
		p.notes = append(p.notes, fmt.Sprintf("The replay views list at most %d messages over all runs (Limits.ReplayItems); some runs list fewer, or none, and say so. Every message is in the timeline.", p.lim.ReplayItems))
	}
}
