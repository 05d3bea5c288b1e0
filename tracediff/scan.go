package tracediff

import "github.com/tracecheck/tracecheck/journal/jsonv"

// Event is one parsed line as Scan delivers it.
type Event struct {
	Line     int
	Run      int // 0-based, runs numbered in order of first appearance
	Sequence int64
	Value    jsonv.Value
}

// Scan reads one trace in a streaming pass and calls fn with each event in
// order. A tolerant golden (golden true) gets the shape check, any other
// file is validated as a trace, beside the read as Diff does; the problems
// found are returned (fn may have seen events of an invalid file: do not
// trust what it gathered when problems are returned). Lines that are not
// JSON objects with a readable sequence are not passed to fn.
func Scan(in Input, golden bool, fn func(ev *Event)) (events int, problems []Problem) {
	s := newSource(in, !golden, golden, true)
	go s.run()
	c := &cursor{s: s}
	var rs runs
	var ev Event
	for l := c.next(); l != nil; l = c.next() {
		events++
		if !l.valOK || !l.keyOK {
			continue
		}
		ev = Event{Line: l.num, Run: rs.of(l.k).index, Sequence: l.k.seq, Value: l.val}
		fn(&ev)
	}
	for _, p := range s.problems {
		problems = append(problems, problemOf(p))
	}
	return events, problems
}
