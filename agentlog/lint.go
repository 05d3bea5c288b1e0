package agentlog

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

// Options tune Lint.
type Options struct {
	// Format forces a format; Unknown detects it from the content.
	Format Format
	// MaxLine bounds one line (DefaultMaxLine when 0).
	MaxLine int
	// Detecting: the file was found by walking a directory, so one that is
	// no known format is skipped with an information finding rather than
	// failed.
	Detecting bool
}

// MaxOpenCalls bounds the tool calls awaiting a result that lint tracks at
// once (and with it the map that holds them). Real sessions have a
// handful; past the bound an OPEN_CALL_LIMIT finding says which calls went
// unchecked.
const MaxOpenCalls = 1 << 16

// maxLeaves bounds the childless entries tracked to re-link a dangling
// parent; past it, no dangling parent is re-linked (they are all reported).
const maxLeaves = 4096

// Lint checks one file read from r; name is what findings call it.
func Lint(r io.Reader, name string, opt Options) *FileReport {
	return lint(r, name, opt, false)
}

// lint is Lint; keepIDs leaves the file's entry ids in the report (for a
// repair, which closes them).
func lint(r io.Reader, name string, opt Options, keepIDs bool) *FileReport {
	rep := &FileReport{File: name, Counts: map[Code]int{}}
	lines, rr := sniff(r)
	f := opt.Format
	if f == Unknown {
		f = Detect(lines)
	}
	rep.Format = f
	switch f {
	case Unknown:
		sev := Error
		msg := "not a session log lint reads (Codex, Claude Code, pi, TypeScript harness or Trace); use --from to force one"
		if len(lines) == 0 {
			msg = "the file holds no record"
		}
		if opt.Detecting {
			sev, msg = Info, "skipped: "+msg
		}
		rep.add(Finding{Code: UnknownFormat, Severity: sev, Message: msg})
		return rep
	case Trace:
		lintTrace(rr, rep)
		return rep
	}
	c := newChecker(rep, f)
	n, err := scanFile(rr, f, opt.MaxLine, false, c)
	rep.Lines = n
	if err != nil {
		rep.add(Finding{Line: n + 1, Code: ReadFailed, Severity: Error, Message: err.Error()})
	}
	c.finish()
	c.broken.Close()
	c.calls.Close()
	if keepIDs {
		rep.ids = c.entries
	} else {
		c.entries.Close()
	}
	rep.sortFindings()
	return rep
}

// openCall is a tool call awaiting its result.
type openCall struct {
	line      int
	item      Item // CallID, CallKey, Tool
	entryID   string
	session   string
	agentID   string
	sidechain bool
	timestamp string
	abortLine int
	abortText string
	seq       int    // order of arrival, for stable output
	key       string // its key in checker.open
}

// checker is the lint handler: the state one pass needs.
type checker struct {
	rep    *FileReport
	format Format

	entries IDSet // entry ids seen
	broken  IDSet // entries whose parent chain does not reach a root
	calls   IDSet // generation + call key + call id of every call seen
	gen     int   // compactions that drop earlier calls so far
	open    map[string]*openCall
	openSeq int
	limited bool // OPEN_CALL_LIMIT reported

	lastCompaction int

	// sessions
	records     int
	session     string
	headerLine  int
	forkChain   map[string]bool
	prevSession string
	sessionsRun map[string]bool

	// leaves: childless entries per chain, to re-link a dangling parent
	leaves     map[string]map[string]int
	leafCount  int
	leavesFull bool
	pending    pendingLeaf

	last     leafInfo // the latest leaf-capable entry
	lastMain leafInfo // the latest one off any sidechain

	boundaryLine int // a Claude Code compact boundary awaiting its summary
	boundaryID   string

	tsSummaryLine int // the harness's last compaction_summary row not yet followed by history_compacted

	idsFailed bool // an id set stopped (IDSet.Err): reported once, at its line; no UNREACHABLE from then on

	// lastEntry: the entry id added last (hasLast: there is one), which
	// is in entries: most entries name it as their parent, and asking the
	// set costs more than comparing.
	lastEntry string
	hasLast   bool
	kbuf      []byte // scratch for call keys
}

type leafInfo struct {
	line   int
	id     string
	broken bool
}

func newChecker(rep *FileReport, f Format) *checker {
	return &checker{
		rep: rep, format: f,
		entries: NewIDSet(), broken: NewIDSet(), calls: NewIDSet(),
		open: map[string]*openCall{}, forkChain: map[string]bool{}, sessionsRun: map[string]bool{},
		leaves: map[string]map[string]int{},
	}
}

func (c *checker) add(line int, code Code, sev Severity, msg string, ids ...string) {
	c.rep.add(Finding{Line: line, Code: code, Severity: sev, Message: msg, IDs: ids})
}

func (c *checker) addFix(line int, code Code, msg string, fx *fix, ids ...string) {
	c.rep.add(Finding{Line: line, Code: code, Severity: Error, Message: msg, IDs: ids, fix: fx})
}

// Line-level problems.

// idHint: checkEntry will add the id to the entries seen.
func (c *checker) idHint(id string) { c.entries.Prefetch(id) }

func (c *checker) badLine(num int, last bool, msg string) {
	if last {
		c.addFix(num, TornTail, "the last line is not a whole JSON record ("+msg+"): the writer stopped mid-record; "+skipsBadLine(c.format), &fix{kind: fixSideline})
		return
	}
	c.addFix(num, InvalidJSON, msg+"; "+skipsBadLine(c.format), &fix{kind: fixSideline})
}

func (c *checker) concatenated(num int, parts [][2]int, torn bool) {
	what := fmt.Sprintf("%d whole records", len(parts))
	if torn {
		what = fmt.Sprintf("a torn record and %d whole record(s)", len(parts))
	}
	c.addFix(num, ConcatenatedLines, "the line holds "+what+" glued together (anthropics/claude-code#52387); "+skipsBadLine(c.format),
		&fix{kind: fixSplit, parts: parts, torn: torn})
}

func (c *checker) missingNewline(num int) {
	c.rep.add(Finding{Line: num, Code: TornTail, Severity: Warning,
		Message: "the last line is a whole record without its newline: the next record appended will be glued to it", fix: &fix{kind: fixNewline}})
}

func (c *checker) tooLong(num int, length int64) {
	c.add(num, LineTooLong, Error, fmt.Sprintf("line of %d bytes is longer than the limit; it was not checked, and ids it holds count as missing", length))
}

func (c *checker) invalidUTF8(num int) {
	sev, msg := Warning, "bytes that are not UTF-8: JavaScript readers replace them with U+FFFD"
	if c.format == Codex {
		sev, msg = Error, "bytes that are not UTF-8: Codex reads the rollout as a UTF-8 string, so resuming this file fails"
	}
	c.rep.add(Finding{Line: num, Code: InvalidUTF8, Severity: sev, Message: msg, fix: &fix{kind: fixUTF8}})
}

// record runs every check on one record.
func (c *checker) record(rec *Record) {
	c.records++
	c.rep.Records++
	if rec.Unknown {
		c.add(rec.Line, UnknownRecord, Info, "record type "+q(rec.NativeType)+" is not one tracecheck knows; the agent skips it")
	}
	c.checkHeader(rec)
	mixed := c.checkSession(rec)
	if rec.HasID {
		c.checkEntry(rec, mixed)
	}
	c.checkCompaction(rec)
	for i := range rec.Items {
		it := &rec.Items[i]
		switch it.Kind {
		case ItemCall:
			c.call(rec, it)
		case ItemResult:
			c.result(rec, it)
		case ItemAbort, ItemError:
			// A turn that ended in an error ends as an interrupted one
			// does: a call still open gets no result.
			c.abort(rec.Line, it.Text)
		case ItemRunStart:
			if c.format == TSHarness && c.records > 1 {
				c.abort(rec.Line, "a new run started")
			}
		}
	}
	if !c.idsFailed {
		c.checkIDSets(rec.Line)
	}
}

// checkIDSets reports the first error of an id set: from that line on,
// the findings that depend on ids seen earlier are not made.
func (c *checker) checkIDSets(line int) {
	for _, s := range []IDSet{c.entries, c.broken, c.calls} {
		if err := s.Err(); err != nil {
			c.idsFailed = true
			c.rep.idsErr = err
			c.add(line, ReadFailed, Error, err.Error()+"; from this line on DUPLICATE_ID, DANGLING_PARENT, ORPHAN_RESULT, MIXED_SESSION (Claude Code: a line whose parent is not in the file) and UNREACHABLE are not checked")
			return
		}
	}
}

func (c *checker) checkHeader(rec *Record) {
	if c.records != 1 {
		return
	}
	switch c.format {
	case Pi, TSHarness:
		if !rec.Header {
			c.add(rec.Line, MissingHeader, Error, "the first record is "+q(rec.NativeType)+", not the session header; "+headerBehaviour(c.format))
		}
	}
}

// checkSession reports whether rec belongs to another session.
func (c *checker) checkSession(rec *Record) bool {
	if rec.Session == "" {
		return false
	}
	if c.session == "" {
		c.session, c.prevSession = rec.Session, rec.Session
		c.rep.session = rec.Session
		c.sessionsRun[rec.Session] = true
		if rec.Header {
			c.headerLine = rec.Line
			if rec.ForkOf != "" {
				c.forkChain[rec.ForkOf] = true
			}
		}
		return false
	}
	switch c.format {
	case Codex:
		if !rec.Header || rec.Session == c.session {
			return false
		}
		if c.forkChain[rec.Session] {
			// A fork copies its parent's rollout, session_meta included.
			if rec.ForkOf != "" {
				c.forkChain[rec.ForkOf] = true
			}
			return false
		}
		c.add(rec.Line, MixedSession, Error, fmt.Sprintf("session_meta of session %s in the rollout of session %s (line %d), and not a session it was forked from: Codex resumes the first session_meta's thread, so these lines belong to a session that does not see them",
			q(rec.Session), q(c.session), c.headerLine), rec.Session, c.session)
	case ClaudeCode:
		if rec.Session == c.prevSession {
			return false
		}
		prev := c.prevSession
		c.prevSession = rec.Session
		mixed := true
		switch {
		case c.sessionsRun[rec.Session]:
			c.add(rec.Line, MixedSession, Error, fmt.Sprintf("sessionId %s again after lines of session %s: two sessions write to this file (anthropics/claude-code#30802)",
				q(rec.Session), q(prev)), rec.Session, prev)
		case rec.HasParent && !c.hasEntry(rec.Parent):
			c.add(rec.Line, MixedSession, Error, fmt.Sprintf("a line of session %s whose parent is not in this file, after lines of session %s: it was appended to the wrong session's file (anthropics/claude-code#30802)",
				q(rec.Session), q(prev)), rec.Session, prev)
		default:
			mixed = false
		}
		// Otherwise a resume or fork that copied the earlier session's
		// lines goes on under its new id: that is by design.
		c.sessionsRun[rec.Session] = true
		return mixed
	case Pi:
		if rec.Header && rec.Session != c.session {
			c.add(rec.Line, MixedSession, Error, fmt.Sprintf("a second session header (%s) after the header of session %s at line %d: pi reads the first one and ignores this",
				q(rec.Session), q(c.session), c.headerLine), rec.Session, c.session)
			return true
		}
	case TSHarness:
		if rec.Session == c.session || (rec.Header && rec.Line == c.headerLine) {
			return false
		}
		if !rec.Header && c.forkChain[rec.Session] {
			return false // a subagent's run names its parent session
		}
		what := "run_started names session"
		if rec.Header {
			what = "a second session_meta for session"
		}
		c.add(rec.Line, MixedSession, Error, fmt.Sprintf("%s %s in the file of session %s: the harness finds sessions by their first line, so this run is filed under the wrong session",
			what, q(rec.Session), q(c.session)), rec.Session, c.session)
		return true
	}
	return false
}

func chainKey(rec *Record) string {
	if rec.Sidechain {
		return "agent\x00" + rec.AgentID
	}
	return ""
}

func (c *checker) checkEntry(rec *Record, mixed bool) {
	key := chainKey(rec)
	brk := false
	if rec.HasParent {
		switch {
		case !c.hasEntry(rec.Parent):
			brk = true
			parent := strings.Clone(rec.Parent) // the finding keeps it; rec.Parent is the line's
			msg := fmt.Sprintf("entry %s names parent %s, which is no earlier entry of this file: %s", q(rec.ID), q(parent), danglingBehaviour(c.format))
			if to, ok := c.relinkCandidate(key); ok && !mixed {
				c.addFix(rec.Line, DanglingParent, msg+fmt.Sprintf("; exactly one earlier entry can be its parent (%s, line %d)", q(to), c.leaves[key][to]),
					&fix{kind: fixRelink, parent: to}, rec.ID, parent)
			} else {
				c.add(rec.Line, DanglingParent, Error, msg+"; no single earlier entry fits, so it is not re-linked", rec.ID, parent)
			}
		case !c.idsFailed && c.broken.Has(rec.Parent):
			brk = true
		}
		c.unleaf(rec.Parent)
	}
	added := c.entries.Add(rec.ID)
	c.lastEntry, c.hasLast = rec.ID, true
	if !added {
		c.add(rec.Line, DuplicateID, Error, fmt.Sprintf("entry id %s appears earlier in this file: %s", q(rec.ID), duplicateBehaviour(c.format)), rec.ID)
	} else {
		c.leaf(key, rec.ID, rec.Line)
	}
	if brk {
		c.broken.Add(rec.ID)
	}
	if rec.Leaf {
		li := leafInfo{line: rec.Line, id: rec.ID, broken: brk}
		c.last = li
		if !rec.Sidechain {
			c.lastMain = li
		}
	}
}

// hasEntry is entries.Has(id).
func (c *checker) hasEntry(id string) bool {
	if c.hasLast && id == c.lastEntry {
		return true
	}
	return c.entries.Has(id)
}

// relinkCandidate returns the one childless entry of a chain, if there is
// exactly one.
func (c *checker) relinkCandidate(key string) (string, bool) {
	c.flushLeaf()
	if c.leavesFull || len(c.leaves[key]) != 1 {
		return "", false
	}
	for id := range c.leaves[key] {
		return id, true
	}
	return "", false
}

// The newest leaf waits in c.pending (counted in leafCount) until another
// comes: most are the parent of the next entry, which unleafs it, so they
// never reach the maps.
type pendingLeaf struct {
	key, id string
	line    int
	set     bool
}

// flushLeaf moves the pending leaf into the maps.
func (c *checker) flushLeaf() {
	p := c.pending
	if !p.set {
		return
	}
	c.pending = pendingLeaf{}
	m := c.leaves[p.key]
	if m == nil {
		m = map[string]int{}
		c.leaves[p.key] = m
	}
	m[p.id] = p.line
}

func (c *checker) leaf(key, id string, line int) {
	if c.leavesFull {
		return
	}
	if c.leafCount >= maxLeaves {
		c.leavesFull, c.leaves, c.pending = true, nil, pendingLeaf{}
		return
	}
	c.flushLeaf()
	c.pending = pendingLeaf{key: key, id: id, line: line, set: true}
	c.leafCount++
}

func (c *checker) unleaf(parent string) {
	if c.pending.set && c.pending.id == parent {
		c.pending = pendingLeaf{}
		c.leafCount--
		return
	}
	for _, m := range c.leaves {
		if _, ok := m[parent]; ok {
			delete(m, parent)
			c.leafCount--
			return
		}
	}
}

func (c *checker) checkCompaction(rec *Record) {
	if c.format == ClaudeCode && c.boundaryLine > 0 && rec.HasID && !rec.Sidechain && !rec.Boundary {
		if !rec.IsSummary {
			c.add(c.boundaryLine, CompactionWithoutSummary, Error, fmt.Sprintf("compact boundary %s is not followed by its summary message (isCompactSummary); %s", q(c.boundaryID), compactionBehaviour(c.format)), c.boundaryID)
		}
		c.boundaryLine = 0
	}
	if c.format == TSHarness {
		for _, it := range rec.Items {
			if it.Kind == ItemMeta && it.Text == "history_compacted" {
				if c.tsSummaryLine == 0 {
					c.add(rec.Line, CompactionWithoutSummary, Error, "history_compacted without a compaction_summary row before it: a resume replays the whole uncompacted history, not what the run continued with")
				}
				c.tsSummaryLine = 0
			}
		}
	}
	if !rec.Compaction {
		return
	}
	c.lastCompaction = rec.Line
	if rec.DropsCalls {
		c.gen++
		for k := range c.open {
			delete(c.open, k) // calls before a compaction are not loaded after it
		}
	}
	switch {
	case rec.Boundary:
		c.boundaryLine, c.boundaryID = rec.Line, rec.ID
	case rec.IsSummary:
	case !rec.Summary:
		c.add(rec.Line, CompactionWithoutSummary, Error, "compaction without a summary: "+compactionBehaviour(c.format))
	}
	if c.format == TSHarness && rec.Summary {
		c.tsSummaryLine = rec.Line
	}
	if c.format == Pi && rec.FirstKept != "" && !c.hasEntry(rec.FirstKept) {
		c.add(rec.Line, DanglingParent, Error, fmt.Sprintf("compaction names first kept entry %s, which is no earlier entry: pi keeps none of the messages before the compaction", q(rec.FirstKept)), rec.FirstKept)
	}
}

// callKey is the key of a call in checker.calls: the generation, the
// call's family and its id. It is built in c.kbuf: a view, valid until the
// next call (the id set copies what it keeps).
func (c *checker) callKey(gen int, it *Item) string {
	b := strconv.AppendInt(c.kbuf[:0], int64(gen), 10)
	b = append(b, 0)
	b = append(b, it.CallKey...)
	b = append(b, 0)
	b = append(b, it.CallID...)
	c.kbuf = b
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// openKey is the key of a call in checker.open, in c.kbuf (a view, as
// callKey's).
func (c *checker) openKey(it *Item) string {
	b := append(c.kbuf[:0], it.CallKey...)
	b = append(b, 0)
	b = append(b, it.CallID...)
	c.kbuf = b
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func (c *checker) call(rec *Record, it *Item) {
	if it.CallID == "" {
		c.add(rec.Line, OrphanCall, Error, "a tool call ("+q(it.Tool)+") without a call id: no result can answer it")
		return
	}
	if !c.calls.Add(c.callKey(c.gen, it)) {
		c.add(rec.Line, DuplicateID, Error, fmt.Sprintf("tool call id %s is used by an earlier call: its results cannot be told apart", q(it.CallID)), it.CallID)
		return
	}
	if len(c.open) >= MaxOpenCalls {
		if !c.limited {
			c.limited = true
			c.add(rec.Line, OpenCallLimit, Info, fmt.Sprintf("more than %d tool calls await results at once; calls from here on are not checked for ORPHAN_CALL", MaxOpenCalls))
		}
		return
	}
	c.openSeq++
	key := it.CallKey + "\x00" + it.CallID
	c.open[key] = &openCall{line: rec.Line, item: *it, entryID: rec.ID, session: rec.Session,
		agentID: rec.AgentID, sidechain: rec.Sidechain, timestamp: strings.Clone(rec.Timestamp), seq: c.openSeq, key: key}
}

func (c *checker) result(rec *Record, it *Item) {
	if oc, ok := c.open[c.openKey(it)]; ok {
		if oc.item.Tool != "" && it.Tool == "" {
			it.Tool = oc.item.Tool
		}
		delete(c.open, oc.key)
		return
	}
	if c.calls.Has(c.callKey(c.gen, it)) {
		return // answered twice, or tracked past the open-call bound
	}
	for g := c.gen - 1; g >= 0 && g >= c.gen-64; g-- {
		if c.calls.Has(c.callKey(g, it)) {
			c.add(rec.Line, OrphanResult, Error, fmt.Sprintf("result for tool call %s, whose call is before the compaction at line %d and is not loaded with it: %s",
				q(it.CallID), c.lastCompaction, orphanResultBehaviour(c.format)), it.CallID)
			return
		}
	}
	c.add(rec.Line, OrphanResult, Error, fmt.Sprintf("result for tool call %s, which no earlier call in this file made: %s", q(it.CallID), orphanResultBehaviour(c.format)), it.CallID)
}

func (c *checker) abort(line int, what string) {
	for _, oc := range c.open {
		if oc.abortLine == 0 {
			oc.abortLine, oc.abortText = line, what
		}
	}
}

// finish reports what only the end of the file tells.
func (c *checker) finish() {
	if c.boundaryLine > 0 {
		c.add(c.boundaryLine, CompactionWithoutSummary, Error, fmt.Sprintf("the file ends after compact boundary %s, before its summary message; %s", q(c.boundaryID), compactionBehaviour(c.format)), c.boundaryID)
	}
	if c.format == Codex && c.records > 0 && c.headerLine == 0 {
		c.add(1, MissingHeader, Error, "no session_meta record: "+headerBehaviour(c.format))
	}
	open := make([]*openCall, 0, len(c.open))
	for _, oc := range c.open {
		open = append(open, oc)
	}
	sort.Slice(open, func(i, j int) bool { return open[i].seq < open[j].seq })
	for _, oc := range open {
		follow := "nothing after it says the turn was interrupted: the agent stopped (or crashed) while the tool ran"
		if oc.abortLine > 0 {
			follow = fmt.Sprintf("an interruption follows (%s at line %d)", oc.abortText, oc.abortLine)
		}
		tool := ""
		if oc.item.Tool != "" {
			tool = " (" + q(oc.item.Tool) + ")"
		}
		if c.format == Pi && oc.abortLine == oc.line {
			c.add(oc.line, OrphanCall, Info, fmt.Sprintf("tool call %s%s has no result, in an assistant message that ended with %s: pi drops such messages when it builds a request, so the call is never sent (not repaired: an answer would orphan)",
				q(oc.item.CallID), tool, oc.abortText), oc.item.CallID)
			continue
		}
		cp := *oc
		c.addFix(oc.line, OrphanCall, fmt.Sprintf("tool call %s%s has no result; %s; %s", q(oc.item.CallID), tool, follow, orphanCallBehaviour(c.format)),
			&fix{kind: fixAnswer, call: &cp}, oc.item.CallID)
	}
	leaf := c.lastMain
	if leaf.line == 0 {
		leaf = c.last
	}
	if leaf.broken && !c.idsFailed {
		total := c.entries.Len()
		c.add(leaf.line, Unreachable, Error, fmt.Sprintf("the latest entry %s descends from a dangling parent (see DANGLING_PARENT): a resume starts here and loads only the entries below the break; the %d entries of this file above it are never loaded",
			q(leaf.id), total-c.broken.Len()), leaf.id)
	}
}
