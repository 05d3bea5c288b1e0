package view

import (
	"bytes"
	"runtime"
	"sync"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// prepared is one line of a source after the work that needs no other
// line: parsing, the envelope members the timeline keeps in columns, the
// payload's and the rest of the envelope's JSON text, the event and its
// canonical encoding (for the reducer). Workers prepare lines on every
// core; the page takes them in order.
type prepared struct {
	num  int
	torn bool
	// val is the line's JSON object; the zero Value when the line is not
	// one (strictly, as package journal parses: a duplicate key, NaN or bad
	// UTF-8 make a line unreadable), and text is then the line itself, cut.
	val jsonv.Value
	// Lifted members, each set only when it has its schema's type.
	id, ts, typ, parentID, dur string
	hasType, hasParent         bool
	seq                        int64 // -1 when absent
	session, runID             string
	lane                       int32
	actorID                    string
	hasActor                   bool
	payload                    jsonv.Value
	hasPayload                 bool
	text                       string // the payload's JSON
	env                        string // the other envelope members' JSON
	ev                         journal.Event
	evOK                       bool
	canon                      []byte
}

// unreadableBytes is how much of a line that is not an event the page
// shows.
const unreadableBytes = 2 << 10

// prepare prepares one line; scratch is the caller's buffer, reused.
func prepare(num int, raw []byte, torn bool, scratch *[]byte) prepared {
	pl := prepared{num: num, torn: torn, seq: -1, lane: otherLane}
	// A torn last line is parsed too: it may be a whole event that only
	// lacks its newline.
	v, err := jsonv.Parse(raw)
	if err != nil || v.Kind() != jsonv.Object {
		pl.text = cut(string(raw), unreadableBytes)
		return pl
	}
	pl.val = v
	str := func(key string) (string, bool) {
		f, ok := v.Get(key)
		if !ok || f.Kind() != jsonv.String {
			return "", false
		}
		return f.Text(), true
	}
	var lifted liftSet
	var ok bool
	pl.id, ok = str("event_id")
	lifted.set("event_id", ok)
	pl.ts, ok = str("timestamp")
	lifted.set("timestamp", ok)
	pl.typ, pl.hasType = str("type")
	lifted.set("type", pl.hasType)
	pl.parentID, pl.hasParent = str("parent_event_id")
	lifted.set("parent_event_id", pl.hasParent)
	if s, ok := v.Get("sequence"); ok && s.Kind() == jsonv.Number && !s.IsFloat() {
		if n, ok := s.Int64(); ok && n >= 0 {
			pl.seq = n
			lifted.set("sequence", true)
		}
	}
	if d, ok := v.Get("duration_ms"); ok && d.Kind() == jsonv.Number {
		pl.dur = d.Text()
		lifted.set("duration_ms", true)
	}
	pl.session, _ = str("session_id")
	if prov, ok := v.Get("provenance"); ok {
		if f, ok := prov.Get("run_id"); ok && f.Kind() == jsonv.String {
			pl.runID = f.Text()
		}
	}
	if a, ok := v.Get("actor"); ok {
		if k, ok := a.Get("kind"); ok && k.Kind() == jsonv.String {
			for i, name := range Lanes {
				if k.Text() == name {
					pl.lane = int32(i)
				}
			}
		}
		if aid, ok := a.Get("id"); ok && aid.Kind() == jsonv.String {
			pl.actorID, pl.hasActor = aid.Text(), true
		}
	}
	pl.payload, pl.hasPayload = v.Get("payload")
	lifted.set("payload", pl.hasPayload)
	if pl.hasPayload {
		*scratch = pl.payload.AppendJSON((*scratch)[:0])
		pl.text = string(*scratch)
	}
	var env []jsonv.Member
	for _, m := range v.Members() {
		if !lifted.has(m.Key) {
			env = append(env, m)
		}
	}
	*scratch = jsonv.Obj(env...).AppendJSON((*scratch)[:0])
	pl.env = string(*scratch)
	if ev, err := journal.FromValue(v); err == nil {
		pl.ev, pl.evOK = ev, true
		pl.canon = v.AppendCanonical(make([]byte, 0, len(raw)))
	}
	return pl
}

// liftSet is the set of envelope members a row holds in columns.
type liftSet uint8

var liftable = [...]string{"event_id", "timestamp", "type", "sequence", "parent_event_id", "duration_ms", "payload"}

func (s *liftSet) set(key string, ok bool) {
	if !ok {
		return
	}
	for i, k := range liftable {
		if k == key {
			*s |= 1 << i
		}
	}
}

func (s liftSet) has(key string) bool {
	for i, k := range liftable {
		if k == key {
			return s&(1<<i) != 0
		}
	}
	return false
}

// batchLines is how many lines go to a worker at a time.
const batchLines = 512

type batch struct {
	idx   int
	nums  []int
	raws  [][]byte
	torns []bool
	out   []prepared
}

// scan prepares the lines of src on every core and calls fn with each, in
// order, from the caller's goroutine. It stops quietly at a line over
// journal.DefaultMaxLineBytes or a read that fails midway (validation
// reports both as problems); it returns the error of opening src, or the
// first of fn. Memory is bounded by the batches in flight.
func scan(src Source, fn func(pl *prepared) error) error {
	rc, err := src.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	workers := max(1, runtime.GOMAXPROCS(0))
	jobs := make(chan *batch, workers)
	done := make(chan *batch, workers)
	stop := make(chan struct{})
	go func() {
		defer close(jobs)
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
			b.nums = append(b.nums, l.Num)
			b.raws = append(b.raws, bytes.Clone(l.Raw))
			b.torns = append(b.torns, l.Torn)
			if len(b.nums) == batchLines && !send() {
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scratch []byte
			for b := range jobs {
				b.out = make([]prepared, len(b.nums))
				for i := range b.nums {
					b.out[i] = prepare(b.nums[i], b.raws[i], b.torns[i], &scratch)
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
			for i := range nb.out {
				if err := fn(&nb.out[i]); err != nil {
					ferr = err
					close(stop)
					break
				}
			}
			if ferr != nil {
				break
			}
		}
	}
	return ferr
}
