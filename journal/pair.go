package journal

// CheckFiles: Validate of one or two files whose lines a caller also reads
// (tracediff compares two traces), in one read of each.
//
// Each file has a reader goroutine that reads straight into the buffers
// of its batches ("halves": a pair of them, one per file, is a job) and a
// fixed pool of them; a pairer joins the next batch of each file into one
// job when their lines overlap, and the workers check a job's lines. A
// line whose bytes are those of the other file's line of the same number
// is checked once for both: two versions of one trace are mostly the same
// lines, and a line's verdict depends on its bytes alone. The invariants
// of each file's runs are then checked in file order, as Validate does
// (fileCheck), before the batch goes to the caller, who walks the files
// at its own pace (Next) and gives each batch back when done with it.
//
// The caller may need many lines of one file before the next of the other
// (events only one file has): each file's pool is its own, and the pairer
// sends a batch of one file alone when the other's reader is stuck on an
// empty pool while the caller waits for the first (see pairer.lone).

import (
	"bytes"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

const (
	// halfPool is the batches per file. The caller holds one per file,
	// the workers a few: with 2 cores, 6 keep both busy.
	halfPool = 6
	// readChunk is the least a read asks for: the bytes read past a
	// batch's last line move to the next batch.
	readChunk = 64 << 10
)

// Source is one file for CheckFiles: nil R means no such file.
type Source struct {
	R    io.Reader
	File string
	// Members: give each event line read on the lean path where its
	// members stand (CheckedLine.Members).
	Members bool
}

// CheckedLine is a line as CheckFiles read and judged it.
type CheckedLine struct {
	Num  int
	Raw  []byte // without its newline; valid until the batch is given back
	Torn bool   // the last line, without a newline
	// Event is set when the line is a schema-valid event (its run's
	// invariants aside); its sequence and run identity are then these.
	Event     bool
	Sequence  int64
	SessionID string
	RunID     string
	// Twin: the other file's line of the same number has the same bytes.
	Twin bool
	// Members: when the Source asked for them, for an event in the
	// reference layout (the lean path of LineScanner.Scan), where each
	// top-level member's value stands in Raw, in line order; nil for any
	// other line. Valid as Raw is.
	Members []MemberSpan
}

// Files is a CheckFiles in progress.
type Files struct {
	sides [2]*side
	work  chan *job
	order chan *job
	wake  chan struct{}
}

// side is one file's state.
type side struct {
	src   Source
	free  chan *half
	ready chan *half // read, for the pairer; closed at the end
	out   chan *half // checked, for the caller; closed at the end
	gate  byteGate
	check fileCheck
	// stopped is set once the file's checks stopped: its later lines
	// need no verdict.
	stopped atomic.Bool
	// blocked: the reader waits for a batch back (the pool is empty, or
	// the bytes in flight are at their bound).
	blocked atomic.Bool
	// sent and taken count the batches the pairer sent and the caller
	// received: equal, the caller has every batch of the file sent so far.
	sent, taken atomic.Int64
	cur         *half // the caller's
	problems    []*Error
}

// half is a batch of one file's lines.
type half struct {
	buf   []byte
	lines []batchLine
	res   []lineResult
	twin  []bool
	mem   []members // where each line's members stand (lean path)
	out   []CheckedLine
	// members: the side asked for the lines' Members, which spans holds.
	members bool
	spans   []MemberSpan
	readErr error
}

func (h *half) first() int { return h.lines[0].num }
func (h *half) last() int  { return h.lines[len(h.lines)-1].num }

// job is what the workers check together: a batch of either file or both.
type job struct {
	h    [2]*half
	end  int // 1+side: the marker that the side has no more batches
	done chan struct{}
}

// CheckFiles starts reading and checking a and b (either may have no
// reader). Every problem is found as Validate finds it, in the same order;
// Problems gives them once Next has returned the file's last batch. The
// caller must read both files to the end (Next until nil).
func CheckFiles(a, b Source) *Files {
	f := &Files{wake: make(chan struct{}, 1)}
	workers := runtime.GOMAXPROCS(0)
	f.work = make(chan *job, 2*halfPool+2)
	f.order = make(chan *job, 2*halfPool+2)
	for i, src := range []Source{a, b} {
		s := &side{src: src, free: make(chan *half, halfPool), ready: make(chan *half, halfPool),
			out: make(chan *half, halfPool)}
		s.gate.cond.L = &s.gate.mu
		s.check = fileCheck{file: src.File, groups: newRunGroups()}
		f.sides[i] = s
		for j := 0; j < halfPool; j++ {
			s.free <- &half{members: src.Members}
		}
		if src.R == nil {
			close(s.ready)
			continue
		}
		go f.read(s)
	}
	go f.pair()
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sc lineScanner
			sc.checkOnly = true
			for j := range f.work {
				f.process(j, &sc)
				j.done <- struct{}{}
			}
		}()
	}
	go f.deliver()
	return f
}

// Next gives back the side's previous batch (0 is a, 1 is b) and returns
// the next one's lines, nil after the last.
func (f *Files) Next(sideIdx int) []CheckedLine {
	s := f.sides[sideIdx]
	for {
		f.giveBack(s)
		h, ok := <-s.out
		if !ok {
			return nil
		}
		s.cur = h
		// The caller's batch no longer counts against the bound: with
		// lines longer than half of it, the next line of each file could
		// not be read while the caller compares the last ones, and every
		// line would go alone (checked twice, read and checked in turn).
		s.gate.release(len(h.buf))
		if s.taken.Add(1) == s.sent.Load() {
			f.poke() // the pairer may have to send the other file's batches alone
		}
		if len(h.out) > 0 { // not only an error
			return h.out
		}
	}
}

// giveBack returns the caller's batch of the side to its pool.
func (f *Files) giveBack(s *side) {
	h := s.cur
	if h == nil {
		return
	}
	s.cur = nil
	clear(h.out) // drop references to the caller's lines
	dropped := cap(h.buf) > bigBatch
	if dropped {
		h.buf = nil
	}
	s.free <- h
	if dropped {
		// As in runPipeline: a very long line's buffer is garbage now;
		// collect it before the next such line is read.
		runtime.GC()
	}
}

// Problems returns the problems of the side's file, nil when it is valid;
// only after Next has returned nil for it.
func (f *Files) Problems(sideIdx int) []*Error { return f.sides[sideIdx].problems }

func (f *Files) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// getHalf takes a batch from the side's pool, saying so while it waits.
func (f *Files) getHalf(s *side) *half {
	select {
	case h := <-s.free:
		return h
	default:
	}
	s.blocked.Store(true)
	f.poke()
	h := <-s.free
	s.blocked.Store(false)
	return h
}

// acquire takes n bytes of the side's gate, saying so while it waits.
func (f *Files) acquire(s *side, n int) {
	if s.gate.tryAcquire(n) {
		return
	}
	s.blocked.Store(true)
	f.poke()
	s.gate.acquire(n)
	s.blocked.Store(false)
}

// read cuts the side's file into batches.
func (f *Files) read(s *side) {
	defer close(s.ready)
	rd := batchReader{r: s.src.R, max: DefaultMaxLineBytes}
	for {
		h := f.getHalf(s)
		h.lines, h.readErr = h.lines[:0], nil
		f.acquire(s, 0) // read on only while the bytes in flight are under the bound
		end := rd.fill(&h.buf, &h.lines, &h.readErr)
		if len(h.lines) == 0 && h.readErr == nil {
			s.free <- h
			return
		}
		f.acquire(s, len(h.buf))
		s.ready <- h
		if end {
			if h.readErr != nil && rd.tooLong {
				// The old reader read on to the end, and a caller teeing the
				// input (a policy check) expects all of it.
				io.Copy(io.Discard, s.src.R)
			}
			return
		}
	}
}

// pair joins the sides' batches into jobs, in each side's order.
func (f *Files) pair() {
	defer close(f.work)
	defer close(f.order)
	var next [2]*half
	var ended [2]bool
	for {
		for i, s := range f.sides {
			if next[i] != nil || ended[i] {
				continue
			}
			select {
			case h, ok := <-s.ready:
				if ok {
					next[i] = h
				} else {
					ended[i] = true
					f.order <- &job{end: i + 1}
				}
			default:
			}
		}
		if ended[0] && ended[1] {
			return
		}
		a, b := next[0], next[1]
		switch {
		case a != nil && len(a.lines) == 0: // only an error
			f.send(a, nil)
			next[0] = nil
			continue
		case b != nil && len(b.lines) == 0:
			f.send(nil, b)
			next[1] = nil
			continue
		case a != nil && b != nil:
			switch {
			case a.last() < b.first():
				f.send(a, nil)
				next[0] = nil
			case b.last() < a.first():
				f.send(nil, b)
				next[1] = nil
			default:
				f.send(a, b)
				next[0], next[1] = nil, nil
			}
			continue
		case a != nil && (ended[1] || f.lone(0)):
			f.send(a, nil)
			next[0] = nil
			continue
		case b != nil && (ended[0] || f.lone(1)):
			f.send(nil, b)
			next[1] = nil
			continue
		}
		var ra, rb <-chan *half
		if next[0] == nil && !ended[0] {
			ra = f.sides[0].ready
		}
		if next[1] == nil && !ended[1] {
			rb = f.sides[1].ready
		}
		select {
		case h, ok := <-ra:
			if ok {
				next[0] = h
			} else {
				ended[0] = true
				f.order <- &job{end: 1}
			}
		case h, ok := <-rb:
			if ok {
				next[1] = h
			} else {
				ended[1] = true
				f.order <- &job{end: 2}
			}
		case <-f.wake:
		}
	}
}

// lone reports whether side i's batch must go without the other side's:
// the caller has every batch of side i sent so far (it may be waiting for
// the next), and the other side's reader waits for a batch back, which
// only the caller can give, so waiting for the other side's batch could
// wait for ever. The caller then walks side i alone (events only that file
// has), and the other side follows when it comes back to it.
func (f *Files) lone(i int) bool {
	s, o := f.sides[i], f.sides[1-i]
	return o.blocked.Load() && s.taken.Load() == s.sent.Load()
}

func (f *Files) send(a, b *half) {
	j := &job{h: [2]*half{a, b}, done: make(chan struct{}, 1)}
	for i, h := range j.h {
		if h != nil {
			f.sides[i].sent.Add(1)
		}
	}
	f.order <- j
	f.work <- j
}

// process gives every line of the job its verdict, once for twin lines.
func (f *Files) process(j *job, sc *lineScanner) {
	a, b := j.h[0], j.h[1]
	// The member spans, when a side asked for them, are noted on both: a
	// twin line's are the other file's.
	want := a != nil && a.members || b != nil && b.members
	var skip [2]bool
	for i, h := range j.h {
		if h == nil {
			continue
		}
		skip[i] = f.sides[i].stopped.Load()
		if cap(h.res) < len(h.lines) {
			h.res = make([]lineResult, len(h.lines))
			h.twin = make([]bool, len(h.lines))
		}
		h.res, h.twin = h.res[:len(h.lines)], h.twin[:len(h.lines)]
		clear(h.twin)
		h.mem = h.mem[:0]
		if want {
			if cap(h.mem) < len(h.lines) {
				h.mem = make([]members, len(h.lines))
			}
			h.mem = h.mem[:len(h.lines)]
		}
	}
	if a != nil && !skip[0] {
		for i := range a.lines {
			a.decode(i, sc)
		}
	}
	if b == nil || skip[1] {
		return
	}
	for i, l := range b.lines {
		if a != nil && !skip[0] && len(a.lines) > 0 {
			if k := l.num - a.first(); k >= 0 && k < len(a.lines) && a.same(k, b, i) {
				b.res[i] = a.res[k]
				if want {
					b.mem[i] = a.mem[k]
				}
				if e := a.res[k].err; e != nil {
					c := *e // each file's error names its file
					b.res[i].err = &c
				}
				b.twin[i], a.twin[k] = true, true
				continue
			}
		}
		b.decode(i, sc)
	}
}

// same reports whether line i of h and line j of o are the same bytes,
// neither of them torn.
func (h *half) same(i int, o *half, j int) bool {
	l, m := h.lines[i], o.lines[j]
	return !l.torn && !m.torn && bytes.Equal(h.buf[l.a:l.b], o.buf[m.a:m.b])
}

// decode is the workers' verdict on line i, as batch.process gives it to
// Validate.
func (h *half) decode(i int, sc *lineScanner) {
	res := &h.res[i]
	*res = lineResult{decoded: true}
	l := h.lines[i]
	if l.torn {
		return
	}
	raw := h.buf[l.a:l.b]
	var out leanLine
	if i < len(h.mem) {
		h.mem[i] = members{}
		sc.mem = &h.mem[i]
	}
	_, ok := sc.scan(nil, raw, &out)
	if sc.mem != nil {
		if !ok {
			*sc.mem = members{} // what a scan that gave up noted
		}
		sc.mem = nil
	}
	if ok {
		res.ev = out.ev
		return
	}
	_, ev, _, err := decodeEnvelope(&sc.canon, raw)
	if err != nil {
		res.err = err
		return
	}
	res.ev = ev
}

// deliver checks each file's runs in order and hands the batches to the
// caller.
func (f *Files) deliver() {
	for j := range f.order {
		if j.end != 0 {
			s := f.sides[j.end-1]
			s.check.groups.close()
			if s.src.R != nil {
				s.problems = s.check.finish()
			}
			close(s.out)
			continue
		}
		<-j.done
		// Both sides are checked before either goes to the caller: a twin
		// line's event aliases the first side's buffer.
		for i, h := range j.h {
			if s := f.sides[i]; h != nil && !s.check.batch(h.lines, h.res, h.readErr) {
				s.stopped.Store(true)
			}
		}
		for _, h := range j.h {
			if h != nil {
				h.fillOut()
			}
		}
		for i, h := range j.h {
			if h != nil {
				f.sides[i].out <- h
			}
		}
	}
}

// fillOut writes the lines as the caller sees them.
func (h *half) fillOut() {
	if cap(h.out) < len(h.lines) {
		h.out = make([]CheckedLine, len(h.lines))
	}
	h.out = h.out[:len(h.lines)]
	n := 0
	if !h.members || len(h.mem) != len(h.lines) {
		h.mem = h.mem[:0] // none to give
	}
	for i := range h.mem {
		n += len(h.mem[i].list())
	}
	if cap(h.spans) < n {
		h.spans = make([]MemberSpan, 0, n)
	}
	h.spans = h.spans[:0]
	for i, l := range h.lines {
		c := CheckedLine{Num: l.num, Raw: h.buf[l.a:l.b:l.b], Torn: l.torn}
		if i < len(h.res) && i < len(h.twin) {
			c.Twin = h.twin[i]
			if r := &h.res[i]; r.decoded && !l.torn && r.err == nil {
				c.Event, c.Sequence, c.SessionID, c.RunID = true, r.ev.Sequence, r.ev.SessionID, r.ev.Provenance.RunID
				if ms := h.memberSpans(i); ms != nil {
					k := len(h.spans)
					h.spans = append(h.spans, ms...)
					c.Members = h.spans[k:len(h.spans):len(h.spans)]
				}
			}
		}
		h.out[i] = c
	}
	clear(h.res) // drop references to the events' strings
}

// memberSpans is line i's member spans, nil when none were noted.
func (h *half) memberSpans(i int) []MemberSpan {
	if i >= len(h.mem) {
		return nil
	}
	return h.mem[i].list()
}
