package journal

// The streaming pipeline behind Scan, Validate and Stream.
//
// One goroutine cuts the input into batches of lines of about batchBytes,
// read straight into the batch's buffer (batchReader: line numbers,
// offsets, torn tails and the line limit behave exactly as in a sequential
// read with Reader); workers, one per
// core, decode, check and canonicalize whole batches in parallel; the caller's
// goroutine takes the batches back in input order and runs what must be
// sequential: the journal invariants, the reducer, the hash. Batches are
// recycled through a fixed pool, and the bytes in flight are bounded too
// (maxInFlight): a batch holding a very long line waits until it is the
// only one in flight, so at most one such line is being decoded at a time.
// Memory is thus a few MB plus a small multiple of the longest line,
// whatever the file's size (see MemoryPerLineByte).

import (
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

const (
	batchBytes = 256 << 10
	batchLines = 1024
	// bigBatch: a batch whose buffer grew past this (a very long line) gives
	// it back instead of keeping it in the pool.
	bigBatch = 4 << 20
	// maxInFlight bounds the line bytes handed to the workers and not yet
	// consumed; a batch larger than this goes alone.
	maxInFlight = 8 << 20
)

// MemoryPerLineByte is the bound this package keeps on the memory a
// streaming pass (Validate, Stream, and so every command built on them)
// needs for its longest line: at most MemoryPerLineByte bytes of heap per
// byte of the longest line, plus a few MB that do not depend on the input.
// A line is held by its batch's buffer (which doubles as a long line is
// read: while it grows, the old buffer and the new one, about three times
// the line) and by its canonical encoding; the payload is never decoded into a tree unless a caller asks
// for it (StreamOptions.Payloads), and the JSON scanner keeps only the open
// containers and the open objects' keys. TestMemoryBoundedByLongestLine
// measures it.
const MemoryPerLineByte = 8

// byteGate bounds the bytes in flight in a pipeline.
type byteGate struct {
	mu     sync.Mutex
	cond   sync.Cond
	used   int
	closed bool
}

// acquire waits until n more bytes fit under maxInFlight, or nothing is in
// flight; it returns false once the gate is closed.
func (g *byteGate) acquire(n int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for !g.closed && g.used > 0 && g.used+n > maxInFlight {
		g.cond.Wait()
	}
	g.used += n
	return !g.closed
}

// tryAcquire is acquire when it need not wait; false (nothing taken)
// when it would.
func (g *byteGate) tryAcquire(n int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed && g.used > 0 && g.used+n > maxInFlight {
		return false
	}
	g.used += n
	return true
}

func (g *byteGate) release(n int) {
	g.mu.Lock()
	g.used -= n
	g.mu.Unlock()
	g.cond.Broadcast()
}

func (g *byteGate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.cond.Broadcast()
}

type pipeMode uint8

const (
	modeFull pipeMode = iota // DecodeLine: Value and Event (Scan)
	modeLean                 // lean scanner: Event and canonical bytes (Stream, Validate)
)

type batchLine struct {
	num  int
	off  int64
	a, b int // the line is buf[a:b]
	torn bool
}

type lineResult struct {
	err    *Error
	ev     Event
	val    jsonv.Value // modeFull
	ca, cb int         // modeLean: canonical bytes are canon[ca:cb]
	pa, pb int         // modeLean: the payload as written is buf[pa:pb]
	perr   *Error      // modeLean: what pipeConfig.payloadCheck found wrong with the payload
	// decoded: CheckFiles gave the line its verdict (it skips the lines
	// of a file whose checks stopped).
	decoded bool
}

type batch struct {
	buf     []byte
	lines   []batchLine
	res     []lineResult
	canon   []byte
	readErr error // the reader's error after these lines; ends the input
	done    chan struct{}
}

// reset empties the batch for reuse. It reports whether it let go of the
// buffers of a very long line.
func (b *batch) reset() (dropped bool) {
	if cap(b.buf) > bigBatch {
		b.buf, dropped = nil, true
	}
	if cap(b.canon) > bigBatch {
		b.canon, dropped = nil, true
	}
	b.buf, b.lines, b.canon, b.readErr = b.buf[:0], b.lines[:0], b.canon[:0], nil
	clear(b.res) // drop references to Values and payloads
	b.res = b.res[:0]
	return dropped
}

// pipeConfig says what the workers do.
type pipeConfig struct {
	mode       pipeMode
	checkOnly  bool                                  // modeLean: check lines, write no canonical encoding (Validate)
	normalized bool                                  // modeLean: write the normalized encoding
	payloads   func(typ string, payload []byte) bool // modeLean: which events get Event.Payload
	workers    int
	firstLine  int    // line number of the input's first line, minus one
	offset     int64  // byte offset of the input's first byte
	run        string // single-run passes: deliver only this run's events (StreamOptions.RunID)
	// payloadCheck, when set, checks the payload of each line whose
	// envelope is valid (modeLean; ValidateOptions.Payload), in the workers.
	payloadCheck PayloadCheck
}

// runPipeline streams r through the workers and hands each batch, in input
// order, to consume; consume returns false to stop early. runPipeline returns
// after every goroutine it started has finished, so r is no longer in use.
func runPipeline(r io.Reader, cfg pipeConfig, consume func(b *batch) bool) {
	workers := cfg.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	nb := 2*workers + 2
	free := make(chan *batch, nb)
	for i := 0; i < nb; i++ {
		free <- &batch{done: make(chan struct{}, 1)}
	}
	work := make(chan *batch, nb)
	ordered := make(chan *batch, nb)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	gate := &byteGate{}
	gate.cond.L = &gate.mu

	wg.Add(1)
	go func() { // the reader
		defer wg.Done()
		defer close(work)
		defer close(ordered)
		rd := batchReader{r: r, max: DefaultMaxLineBytes, num: cfg.firstLine, base: cfg.offset}
		for {
			var b *batch
			select {
			case b = <-free:
			case <-quit:
				return
			}
			// Read on only while the bytes in flight are under the bound:
			// a very long line is not joined by the next one.
			if !gate.acquire(0) {
				return
			}
			end := rd.fill(&b.buf, &b.lines, &b.readErr)
			if len(b.lines) == 0 && b.readErr == nil {
				return // clean end of input
			}
			if !gate.acquire(len(b.buf)) {
				return
			}
			select {
			case ordered <- b:
			case <-quit:
				return
			}
			select {
			case work <- b:
			case <-quit:
				return
			}
			if end {
				return
			}
		}
	}()

	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s lineScanner
			s.normalized = cfg.normalized
			s.checkOnly = cfg.checkOnly
			s.wantPayload = cfg.payloads
			for b := range work {
				b.process(&s, &cfg)
				b.done <- struct{}{}
			}
		}()
	}

	stopped := false
	for b := range ordered {
		if stopped {
			continue // drain; the reader may have quit before handing b to a worker
		}
		<-b.done
		if !consume(b) {
			stopped = true
			close(quit)
			gate.close()
			continue
		}
		gate.release(len(b.buf))
		// Emptied now, not when it is next filled: a batch waiting in the
		// pool must not keep a long line's buffers alive.
		dropped := b.reset()
		free <- b
		if dropped {
			// A very long line's buffers are garbage now: collect them
			// before the next such line is read, so that memory follows
			// the longest line, not the collector's pacing (which lets
			// several lines' garbage pile up). Such lines are rare; a
			// collection costs far less than decoding one.
			runtime.GC()
		}
	}
	if !stopped {
		close(quit)
		gate.close()
	}
	wg.Wait()
}

// process decodes every line of the batch.
func (b *batch) process(s *lineScanner, cfg *pipeConfig) {
	if cap(b.res) < len(b.lines) {
		b.res = make([]lineResult, len(b.lines))
	}
	b.res = b.res[:len(b.lines)]
	for i, l := range b.lines {
		res := &b.res[i]
		if l.torn {
			continue // reported by the consumer, which knows the mode
		}
		raw := b.buf[l.a:l.b]
		if cfg.mode == modeFull {
			res.val, res.ev, res.err = DecodeLine(raw)
			continue
		}
		res.ca = len(b.canon)
		var out leanLine
		var ok bool
		if b.canon, ok = s.scan(b.canon, raw, &out); ok {
			res.ev = out.ev
			// Built from the line as written, so member order is kept.
			res.ev.Payload = out.value
			res.pa, res.pb = spanIn(b.buf, l.a, raw, out.payload)
		} else {
			env, ev, payload, err := decodeEnvelope(&s.canon, raw)
			if err != nil {
				res.err = err
				continue
			}
			if !cfg.checkOnly {
				if cfg.normalized {
					env = Normalize(env)
				}
				b.canon, _ = appendCanonicalEvent(b.canon, &s.canon, env, payload) // the payload was checked
			}
			res.ev = ev
			res.ev.Payload = jsonv.Value{}
			if cfg.payloads != nil && cfg.payloads(ev.Type, payload) {
				res.ev.Payload, _ = jsonv.Parse(payload)
			}
			res.pa, res.pb = spanIn(b.buf, l.a, raw, payload)
		}
		res.cb = len(b.canon)
		if cfg.payloadCheck != nil {
			res.perr = payloadError(&res.ev, b.buf[res.pa:res.pb], cfg.payloadCheck)
		}
	}
}

// spanIn returns where sub, a part of raw = buf[a:...], is in buf; an
// empty span for nil.
func spanIn(buf []byte, a int, raw, sub []byte) (int, int) {
	if sub == nil {
		return a, a
	}
	off := a + cap(raw) - cap(sub)
	return off, off + len(sub)
}

// Normalize drops session_id, timestamp and provenance.run_id from an
// event, as the reference labs' normalized fingerprint does. A missing
// provenance becomes {} as in the reference.
func Normalize(v jsonv.Value) jsonv.Value {
	v = v.Without("session_id").Without("timestamp")
	prov, ok := v.Get("provenance")
	if !ok || prov.Kind() != jsonv.Object {
		prov = jsonv.Obj()
	}
	return v.With("provenance", prov.Without("run_id"))
}

// Entry is one checked event as Stream delivers it.
type Entry struct {
	Line   int
	Offset int64 // of the line's first byte
	End    int64 // just past the line's newline
	// Raw is the line as written, Canonical the event's canonical encoding
	// (normalized with StreamOptions.Normalized). Both, and every string in
	// Event, are only valid until the callback returns: copy what you keep.
	// Event.Payload is set only for the types StreamOptions.Payloads selects;
	// it may be kept. Event.Redaction.Fields may be shared between entries
	// and must not be modified.
	Raw       []byte
	Canonical []byte
	Event     *Event
	// PayloadText is the payload as written (valid JSON, checked as
	// strictly as jsonv.Parse checks), valid until the callback returns:
	// a caller can take what it needs from it (jsonv.MemberText,
	// Canonicalizer.AppendOrdered) without a tree of the whole payload.
	PayloadText []byte
}

// StreamOptions tune Stream.
type StreamOptions struct {
	// Normalized makes Entry.Canonical the normalized encoding (no
	// session_id, timestamp or provenance.run_id).
	Normalized bool
	// Payloads selects the event types whose payload is decoded into
	// Event.Payload; nil decodes none. The payload as written is passed too,
	// so a caller may look at it (see PayloadMembers) and decline events it
	// would ignore. A decoded payload is a tree, several times the size of
	// its text: a caller that needs only parts of it reads
	// Entry.PayloadText instead.
	Payloads func(typ string, payload []byte) bool
	// Workers is the number of decoding goroutines; 0 is one per core.
	Workers int
	// RunID, when set, reads one run of a multi-run file: the events whose
	// provenance.run_id is RunID, wherever they are (the runs of a session
	// store follow one another; interleaved runs are read the same way).
	// Every line is still decoded and checked against the schema; the
	// other runs' events are then skipped, and the selected ones must form
	// a single-run journal on their own. A RunID no event carries is a
	// *RunNotFoundError.
	RunID string
	// Resume continues a journal whose prefix was checked earlier: r starts
	// at byte Offset of the file, just after line Line, and the invariants
	// continue from Checker's state (which Stream updates). An empty tail is
	// then not an error.
	Resume *Resume
}

// Resume says where a tail starts; see StreamOptions.Resume.
type Resume struct {
	Checker *RunChecker
	Line    int
	Offset  int64
}

// Stream reads a single-run journal in one parallel streaming pass: every
// line is decoded, schema-checked and canonicalized by a pool of workers, and
// fn sees the events in order after the run invariants have been checked.
// It stops at the first problem, with the same *Error that Scan reports, or
// at the first error from fn. Memory stays flat whatever the input's size.
func Stream(r io.Reader, file string, opt StreamOptions, fn func(e *Entry) error) error {
	cfg := pipeConfig{mode: modeLean, normalized: opt.Normalized, payloads: opt.Payloads, workers: opt.Workers, run: opt.RunID}
	c := NewRunChecker()
	if opt.Resume != nil {
		c = opt.Resume.Checker
		cfg.firstLine, cfg.offset = opt.Resume.Line, opt.Resume.Offset
	}
	var e Entry
	n, err := runSingle(r, file, cfg, c, func(b *batch, i int) error {
		l, res := b.lines[i], &b.res[i]
		raw := b.buf[l.a:l.b]
		e = Entry{Line: l.num, Offset: l.off, End: l.off + int64(len(raw)) + 1, Raw: raw, Canonical: b.canon[res.ca:res.cb], Event: &res.ev,
			PayloadText: b.buf[res.pa:res.pb]}
		return fn(&e)
	})
	if err == nil && n == 0 && opt.Resume == nil {
		err = emptyJournal(file)
		if opt.RunID != "" {
			err = &RunNotFoundError{File: file, RunID: opt.RunID}
		}
	}
	return err
}

// RunNotFoundError says that no event of a file carries the run id asked
// for (StreamOptions.RunID).
type RunNotFoundError struct{ File, RunID string }

func (e *RunNotFoundError) Error() string {
	return fmt.Sprintf("%s: no event of run %s", textsafe.Quote(e.File), textsafe.Quote(e.RunID))
}

// runSingle is the consumer of a single-run pass (Scan, Stream): each line
// must pass stopAt before emit sees it, in order. It returns how many lines
// emit saw and the first problem or error from emit.
func runSingle(r io.Reader, file string, cfg pipeConfig, c *RunChecker, emit func(b *batch, i int) error) (int, error) {
	var out error
	n := 0
	runPipeline(r, cfg, func(b *batch) bool {
		for i, l := range b.lines {
			if res := &b.res[i]; cfg.run != "" && !l.torn && res.err == nil && res.ev.Provenance.RunID != cfg.run {
				continue // another run's event: decoded and schema-checked, not this journal's
			}
			if lerr := stopAt(file, l, &b.res[i], c); lerr != nil {
				out = lerr
				return false
			}
			n++
			if err := emit(b, i); err != nil {
				out = err
				return false
			}
		}
		if b.readErr != nil {
			out = asError(b.readErr, file, 0)
			return false
		}
		return true
	})
	return n, out
}

func tornTail(file string, line, n int) *Error {
	return &Error{File: file, Line: line, Code: TornTail, Msg: tornMsg(n)}
}

// stopAt returns the problem that ends a single-run pass at line l, if any:
// a torn tail, a line that did not decode, or an invariant violation.
func stopAt(file string, l batchLine, res *lineResult, c *RunChecker) *Error {
	if l.torn {
		return tornTail(file, l.num, l.b-l.a)
	}
	if res.err != nil {
		res.err.File, res.err.Line = file, l.num
		return res.err
	}
	if cerr := c.checkAt(&res.ev, l.off); cerr != nil {
		cerr.File, cerr.Line = file, l.num
		cerr.EventID = string([]byte(cerr.EventID)) // lean events alias the batch
		return cerr
	}
	return nil
}
