package view

import (
	"bytes"
	"errors"
	"hash/maphash"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// prepared is one line of a source after the work that needs no other
// line, done on every core: the envelope members the timeline keeps in
// columns, cut to Limits.FieldBytes and written as the data island writes
// them; the payload's text, cut to Limits.PayloadBytes; the rest of the
// envelope as JSON; what the page draws from the payload (tool call ids,
// resume markers, branch and replay records, the replay view's item); and
// for a valid event its canonical encoding (for the fingerprint). Nothing
// in it refers to the line, and no payload becomes a tree: the line is
// read as text (jsonv.EachMember, MemberText), so a line costs a few times
// its length while it is prepared and what the page keeps of it after.
type prepared struct {
	num  int
	torn bool
	size int   // the line's length
	cost int64 // Page.envCost, once known

	// readable is false when the line is not a JSON object (strictly, as
	// package journal parses: a duplicate key, NaN or bad UTF-8 make a
	// line unreadable); text is then the line itself as a literal, cut.
	readable bool

	// Lifted members, each set only when it has its schema's type. The
	// literals are what the island writes for each (appendJSString).
	idLit, tsLit, durLit []byte
	idKey                uint64 // the whole id's hash, 0 when absent
	typ                  string
	hasType              bool
	parentKey            uint64
	parent               string // cut
	hasParent            bool
	seq                  int64 // -1 when absent
	session, runID       clipped
	runKey               [2]uint64 // the whole session and run ids' hashes
	sessHash, runHash    uint64
	lane                 int32
	actor                string // cut
	hasActor             bool
	hasPayload           bool
	text                 []byte // the payload's literal (or the unreadable line's), cut
	textLen, textKept    int    // the text's whole length and the bytes of it kept
	env                  string // the other envelope members' JSON, cut
	cuts                 uint16 // which fields were cut (cut* bits)

	// For a schema-valid event: its canonical encoding.
	evOK  bool
	canon []byte

	// From the payload.
	tool       string // tool.request/tool.result: payload tool, cut
	hasTool    bool
	callKey    [2]uint64 // session and tool_call_id
	hasCall    bool
	synth      bool
	resumed    bool
	resumesID  clipped
	resumesKey uint64
	replayFP   clipped // session.replay
	replayN    int64
	hasReplay  bool
	branch     *branchFacts
	item       *replayItem // the replay view's item this event adds
	stopReason clipped
	hasStop    bool
}

type branchFacts struct {
	id, parentRun, fp clipped
	parentRunKey      uint64
	hasParentRun      bool
	fork, inherited   int64
}

// The cut bits: which lifted fields a row holds cut. trace.js names them
// in the same order (CUT_FIELDS).
const (
	cutID = 1 << iota
	cutTime
	cutType
	cutParent
	cutDuration
	cutActor
	cutSession
	cutRun
	cutEnvelope
	cutTool
)

// unreadableBytes is how much of a line that is not an event the page
// shows, as written.
const unreadableBytes = 2 << 10

// prepCfg is what every worker's preparer shares.
type prepCfg struct {
	lim       Limits
	seeds     [2]maphash.Seed
	canonOnly bool // the fingerprint pass: only the canonical encoding and the run
}

func (c *prepCfg) hash(s string) uint64 { return maphash.String(c.seeds[0], s) }

// pairKey hashes two strings as a pair, each with its length, under both
// seeds: 128 bits, so that two different pairs share a key with
// negligible probability whatever the input.
func (c *prepCfg) pairKey(a, b string) [2]uint64 {
	var k [2]uint64
	var n [8]byte
	for i, seed := range c.seeds {
		var h maphash.Hash
		h.SetSeed(seed)
		putLen(&n, len(a))
		h.Write(n[:])
		h.WriteString(a)
		h.WriteString(b)
		k[i] = h.Sum64()
	}
	return k
}

func putLen(n *[8]byte, l int) {
	for i := range n {
		n[i] = byte(l >> (8 * i))
	}
}

// preparer is one worker's: its scratch space, reused line to line.
type preparer struct {
	cfg     *prepCfg
	canon   jsonv.Canonicalizer
	ls      journal.LineScanner
	scratch []byte
	obj     []byte
}

func (w *preparer) shrink() {
	if cap(w.scratch) > 1<<20 {
		w.scratch = nil
	}
	if cap(w.obj) > 1<<20 {
		w.obj = nil
	}
}

// prepare prepares one line.
func (w *preparer) prepare(num int, raw []byte, torn bool) prepared {
	pl := prepared{num: num, torn: torn, seq: -1, lane: otherLane, size: len(raw)}
	defer w.shrink()
	lim := &w.cfg.lim
	// A torn last line is read too: it may be a whole event that only
	// lacks its newline. A valid event is valid JSON: only the other lines
	// are checked as JSON.
	if out, _, _, _, err := w.ls.Decode(w.scratch[:0], raw); err == nil {
		pl.evOK = true
		pl.canon = bytes.Clone(out)
		w.scratch = out
	} else if err := w.canon.Check(raw); err != nil || jsonv.KindOfText(raw) != jsonv.Object {
		if w.cfg.canonOnly {
			return pl
		}
		pl.text, pl.textKept = appendJSMax(nil, string(raw[:min(len(raw), unreadableBytes+4)]), unreadableBytes)
		pl.textLen = len(raw)
		return pl
	}
	pl.readable = true
	field := lim.FieldBytes
	// The strings read here are views of raw (strView) while the line is
	// prepared; what pl keeps of them is a copy (cutField, lit, clip).
	cutField := func(s string, bit uint16) string {
		t := cutJS(s, field)
		if len(t) < len(s) {
			pl.cuts |= bit
		}
		return strings.Clone(t)
	}
	lit := func(s string, bit uint16) []byte {
		b, kept := appendJSMax(nil, s, field)
		if kept < len(s) {
			pl.cuts |= bit
		}
		return b
	}
	var session, runID string
	var payload []byte
	w.obj = append(w.obj[:0], '{')
	envMembers := 0
	jsonv.EachMember(raw, func(rawKey, v []byte) bool {
		key := unsafeString(rawKey)
		if bytes.IndexByte(rawKey, '\\') >= 0 {
			key = jsonv.KeyText(rawKey)
		}
		lifted := false
		switch key {
		case "event_id":
			if s, ok := strView(v); ok {
				pl.idKey = w.cfg.hash(s) | 1
				pl.idLit = lit(s, cutID)
				lifted = true
			}
		case "timestamp":
			if s, ok := strView(v); ok {
				pl.tsLit = lit(s, cutTime)
				lifted = true
			}
		case "type":
			if s, ok := strView(v); ok {
				pl.typ, pl.hasType = cutField(s, cutType), true
				lifted = true
			}
		case "parent_event_id":
			if s, ok := strView(v); ok {
				pl.parentKey = w.cfg.hash(s) | 1
				pl.parent, pl.hasParent = cutField(s, cutParent), true
				lifted = true
			}
		case "sequence":
			if n, ok := intText(v); ok && n >= 0 {
				pl.seq = n
				lifted = true
			}
		case "duration_ms":
			if jsonv.KindOfText(v) == jsonv.Number {
				pl.durLit = lit(unsafeString(v), cutDuration)
				lifted = true
			}
		case "payload":
			payload = v
			pl.hasPayload = true
			lifted = true
		case "session_id":
			session, _ = strView(v)
		case "provenance":
			if r, ok := jsonv.MemberText(v, "run_id"); ok {
				runID, _ = strView(r)
			}
		case "actor":
			if k, ok := jsonv.MemberText(v, "kind"); ok {
				if s, ok := strView(k); ok {
					for i, name := range Lanes {
						if s == name {
							pl.lane = int32(i)
						}
					}
				}
			}
			if a, ok := jsonv.MemberText(v, "id"); ok {
				if s, ok := strView(a); ok {
					pl.actor, pl.hasActor = cutField(s, cutActor), true
				}
			}
		}
		if !lifted && !w.cfg.canonOnly {
			if envMembers > 0 {
				w.obj = append(w.obj, ',')
			}
			envMembers++
			w.obj = append(w.obj, '"')
			w.obj = append(w.obj, rawKey...)
			w.obj = append(w.obj, '"', ':')
			w.obj = append(w.obj, v...)
		}
		return true
	})
	pl.runKey = w.cfg.pairKey(session, runID)
	pl.sessHash, pl.runHash = w.cfg.hash(session)|1, w.cfg.hash(runID)|1
	if w.cfg.canonOnly {
		return pl
	}
	pl.session, pl.runID = clip(session, field), clip(runID, field)
	if pl.session.Cut() {
		pl.cuts |= cutSession
	}
	if pl.runID.Cut() {
		pl.cuts |= cutRun
	}
	w.obj = append(w.obj, '}')
	// The members were checked. An envelope much longer than the page
	// holds is cut first (clipJSON reads the text, keeps only what fits),
	// then written as AppendOrdered writes it.
	var env []byte
	if len(w.obj) > 8*field {
		c, cut := clipJSON(nil, w.obj, field, 4*field)
		env, _ = w.canon.AppendOrdered(nil, c)
		if cut {
			pl.cuts |= cutEnvelope
		}
	} else {
		env, _ = w.canon.AppendOrdered(nil, w.obj)
		if jsWritten(unsafeString(env)) > field {
			if c, cut := clipJSON(nil, env, field, 4*field); cut {
				env = c
				pl.cuts |= cutEnvelope
			}
		}
	}
	pl.env = string(env)
	if pl.hasPayload {
		w.scratch, _ = w.canon.AppendOrdered(w.scratch[:0], payload)
		pl.text, pl.textKept = appendJSMax(nil, unsafeString(w.scratch), lim.PayloadBytes)
		pl.textLen = len(w.scratch)
		w.payloadFacts(&pl, payload, session)
	}
	return pl
}

// payloadFacts reads what the page draws from a payload: the members
// package reducer and the page's marks look at, nothing else.
func (w *preparer) payloadFacts(pl *prepared, p []byte, session string) {
	field := w.cfg.lim.FieldBytes
	str := func(key string) (string, bool) {
		v, ok := jsonv.MemberText(p, key)
		if !ok {
			return "", false
		}
		return jsonv.StringText(v)
	}
	isTrue := func(key string) bool {
		v, ok := jsonv.MemberText(p, key)
		return ok && string(v) == "true"
	}
	intOf := func(key string) (int64, bool) {
		v, ok := jsonv.MemberText(p, key)
		if !ok {
			return 0, false
		}
		return intText(v)
	}
	switch pl.typ {
	case "tool.request", "tool.result":
		if name, ok := str("tool"); ok {
			pl.tool, pl.hasTool = strings.Clone(cutJS(name, field)), true
			if len(pl.tool) < len(name) {
				pl.cuts |= cutTool
			}
		}
		if call, ok := str("tool_call_id"); ok {
			pl.callKey, pl.hasCall = w.cfg.pairKey(session, call), true
		}
		if pl.typ == "tool.result" {
			t, _ := str("error_type")
			e, _ := str("error")
			pl.synth = t == reducer.InterruptedToolErrorType || e == reducer.InterruptedToolError
		}
	case "session.start":
		if isTrue("resumed") {
			pl.resumed = true
			if id, ok := str("resumes_run_id"); ok {
				pl.resumesID, pl.resumesKey = clip(id, field), w.cfg.hash(id)|1
			}
		}
	case "session.replay":
		fp, ok1 := str("fingerprint")
		n, ok2 := intOf("applied_events")
		if ok1 && ok2 {
			pl.replayFP, pl.replayN, pl.hasReplay = clip(fp, field), n, true
		}
	case "session.branch":
		b := &branchFacts{fork: -1, inherited: -1}
		if s, ok := str("branch_id"); ok {
			b.id = clip(s, field)
		}
		if s, ok := str("parent_run_id"); ok {
			b.parentRun, b.parentRunKey, b.hasParentRun = clip(s, field), w.cfg.hash(s)|1, s != ""
		}
		if s, ok := str("parent_fingerprint"); ok {
			b.fp = clip(s, field)
		}
		if n, ok := intOf("fork_sequence"); ok {
			b.fork = n
		}
		if n, ok := intOf("inherited_events"); ok {
			b.inherited = n
		}
		pl.branch = b
	}
	if pl.evOK {
		w.replayItem(pl, p)
	}
}

// replayItem is what package reducer's replay view takes from the event
// (Reducer.ApplyCanonical's rules, read from the payload's text as its
// streaming replay reads it): a user message's content, an assistant
// message (a response's content, or a streamed response's accumulated text
// at its final delta), a tool result, the stop reason. Texts are Python's
// str() of the member, as the reducer's.
func (w *preparer) replayItem(pl *prepared, p []byte) {
	lim := &w.cfg.lim
	var role, text string
	switch pl.typ {
	case "user.message":
		role, text = "user", w.pyStr(p, "content", "")
	case "model.response":
		if _, ok := jsonv.MemberText(p, "content"); ok {
			role, text = "assistant", w.pyStr(p, "content", "")
		} else if f, ok := jsonv.MemberText(p, "final"); ok && string(f) == "true" {
			role, text = "assistant", w.pyStr(p, "accumulated", "")
		}
	case "tool.result":
		it := w.toolItem(p)
		t := cutHTML(it.Text, lim.TextBytes)
		it.Cut, it.Text = len(t) < len(it.Text), strings.Clone(t)
		it.Tool = strings.Clone(cutJS(it.Tool, lim.FieldBytes))
		pl.item = &it
		return
	case "session.stop":
		pl.stopReason, pl.hasStop = clip(w.pyStr(p, "reason", "unknown"), lim.FieldBytes), true
		return
	}
	if role == "" {
		return
	}
	t := cutHTML(text, lim.TextBytes)
	pl.item = &replayItem{Role: role, Text: strings.Clone(t), Cut: len(t) < len(text)}
}

// pyStr is the reducer's: the member's text when it is a string, else
// Python's repr of it; def when absent.
func (w *preparer) pyStr(p []byte, key, def string) string {
	v, ok := jsonv.MemberText(p, key)
	if !ok {
		return def
	}
	if s, ok := jsonv.StringText(v); ok {
		return s
	}
	out, err := w.canon.AppendPyRepr(nil, v)
	if err != nil {
		return def // unreachable: the payload was checked
	}
	return string(out)
}

// toolItem describes a tool.result payload: the tool, and its result or
// error as text.
func (w *preparer) toolItem(p []byte) replayItem {
	it := replayItem{Role: "tool"}
	if v, ok := jsonv.MemberText(p, "tool"); ok {
		it.Tool, _ = jsonv.StringText(v)
	}
	if ok, has := jsonv.MemberText(p, "ok"); has && string(ok) == "false" {
		it.Fail = true
		if e, has := jsonv.MemberText(p, "error"); has {
			if s, ok := jsonv.StringText(e); ok {
				it.Text = s
				return it
			}
		}
	}
	if r, ok := jsonv.MemberText(p, "result"); ok {
		if s, ok := jsonv.StringText(r); ok {
			it.Text = s
		} else {
			out, _ := w.canon.AppendOrdered(nil, r)
			it.Text = string(out)
		}
		return it
	}
	out, _ := w.canon.AppendOrdered(nil, p)
	it.Text = string(out)
	return it
}

// strView is the text of the JSON string literal lit: a view of lit's
// bytes when it has no escape (valid while lit is), else a decoded copy.
func strView(lit []byte) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(lit, '\\') < 0 {
		return unsafeString(lit[1 : len(lit)-1]), true
	}
	return jsonv.StringText(lit)
}

// unsafeString is b as a string, without a copy: for reading it while b is
// not written to.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// intText reads a JSON integer (no fraction or exponent) that fits int64.
func intText(v []byte) (int64, bool) {
	if jsonv.KindOfText(v) != jsonv.Number || bytes.ContainsAny(v, ".eE") {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// The pipeline: batches of lines, bounded by count and by bytes, and the
// bytes of all batches in flight (read, being prepared, waiting for the
// page) bounded too, so that memory does not follow the input's size or
// its longest lines' number: a line longer than the whole budget goes
// alone.
const (
	batchLines    = 512
	batchBytes    = 1 << 20
	inFlightBytes = 8 << 20
)

type batch struct {
	idx   int
	nums  []int
	raws  [][]byte
	torns []bool
	bytes int
	out   []prepared
}

// byteSem bounds the bytes in flight.
type byteSem struct {
	mu      sync.Mutex
	cond    sync.Cond
	used    int
	max     int
	stopped bool
}

func newByteSem(max int) *byteSem {
	s := &byteSem{max: max}
	s.cond.L = &s.mu
	return s
}

// acquire waits until n more bytes fit (or nothing is in flight); false
// once the pass stopped.
func (s *byteSem) acquire(n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.used > 0 && s.used+n > s.max && !s.stopped {
		s.cond.Wait()
	}
	s.used += n
	return !s.stopped
}

func (s *byteSem) release(n int) {
	s.mu.Lock()
	s.used -= n
	s.cond.Broadcast()
	s.mu.Unlock()
}

func (s *byteSem) stop() {
	s.mu.Lock()
	s.stopped = true
	s.cond.Broadcast()
	s.mu.Unlock()
}

// errRest, returned by scan's callback, says the page takes no more lines:
// scan only counts the rest.
var errRest = errors.New("view: no more lines")

// scan prepares the lines of src on every core and calls fn with each, in
// order, from the caller's goroutine, until fn returns errRest (the later
// lines are then only counted) or another error (returned). It stops
// quietly at a line over journal.DefaultMaxLineBytes or a read that fails
// midway (validation reports both as problems). It returns how many lines
// it read.
func scan(src Source, cfg *prepCfg, fn func(pl *prepared) error) (int, error) {
	rc, err := src.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	workers := max(1, runtime.GOMAXPROCS(0))
	jobs := make(chan *batch)
	done := make(chan *batch, workers)
	stop := make(chan struct{})
	sem := newByteSem(inFlightBytes)
	var skipping atomic.Bool
	lines := make(chan int, 1)
	go func() {
		defer close(jobs)
		last := 0
		defer func() { lines <- last }()
		r := journal.NewReader(rc)
		b := &batch{}
		send := func() bool {
			if len(b.nums) == 0 {
				return true
			}
			select {
			case jobs <- b:
			case <-stop:
				return false
			}
			b = &batch{idx: b.idx + 1}
			return true
		}
		for {
			l, err := r.Next()
			if err != nil {
				// io.EOF, or a *journal.Error (a line too long, a read
				// that failed) validation reports.
				send()
				return
			}
			last = l.Num
			if skipping.Load() {
				continue
			}
			if !sem.acquire(len(l.Raw)) {
				return
			}
			b.nums = append(b.nums, l.Num)
			b.raws = append(b.raws, bytes.Clone(l.Raw))
			b.torns = append(b.torns, l.Torn)
			b.bytes += len(l.Raw)
			if (len(b.nums) == batchLines || b.bytes >= batchBytes) && !send() {
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &preparer{cfg: cfg}
			for b := range jobs {
				b.out = make([]prepared, len(b.nums))
				for i := range b.nums {
					if !skipping.Load() {
						b.out[i] = w.prepare(b.nums[i], b.raws[i], b.torns[i])
					}
					b.raws[i] = nil
				}
				b.raws = nil
				select {
				case done <- b:
				case <-stop:
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	pending := map[int]*batch{}
	next := 0
	var ferr error
	for b := range done {
		if ferr != nil {
			continue // draining, so that every goroutine ends
		}
		pending[b.idx] = b
		for nb := pending[next]; nb != nil; nb = pending[next] {
			delete(pending, next)
			next++
			if !skipping.Load() {
				for i := range nb.out {
					err := fn(&nb.out[i])
					if err == errRest {
						skipping.Store(true)
						break
					}
					if err != nil {
						ferr = err
						close(stop)
						sem.stop()
						break
					}
				}
			}
			nb.out = nil
			sem.release(nb.bytes)
			if ferr != nil {
				break
			}
		}
	}
	if ferr != nil {
		return 0, ferr
	}
	return <-lines, nil
}
