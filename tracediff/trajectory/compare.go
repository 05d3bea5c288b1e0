// Package trajectory compares the tool-call trajectories of two traces and
// checks an actual trace against reference-free policies.
//
// A trajectory is the tool calls of a trace in file order: each
// tool.request (its tool and arguments) with the tool.result answering it.
// Two calls match when their tools match, their arguments match as the
// Config says for that tool (exact, ignore, subset, superset, or only some
// keys), and, unless Config.Results is false, both have a tool.result or
// neither has, with the same ok. The expected file may be a tolerant golden:
// its placeholders are honoured, with bindings local to each pair of calls
// (a pairing is tried many ways, so bindings cannot carry from one pair to
// the next).
//
// The relations (Mode) say which trajectories pass. The unordered ones
// match calls one to one by a maximum bipartite matching (Hopcroft–Karp),
// so repeated calls to one tool never make a pairing fail that exists; the
// ordered one (contains-in-order) matches each expected call to the
// earliest fitting actual call after the previous one, which finds a
// pairing whenever one exists.
//
// Every failure is a tracediff.EventDiff naming the event (the actual
// tool.request when there is one, else the expected), the JSON pointer of
// each differing field with expected and actual values: an unmatched
// expected call is shown against the closest unmatched actual call, an
// unexpected actual call (subset, same-multiset) against the closest
// unmatched expected call, or, when every expected call is matched, the
// closest of them.
package trajectory

import (
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/tracediff"
	"github.com/tracecheck/tracecheck/tracediff/tolerant"
)

// The kinds of trajectory failures, as tracediff.EventDiff.Kind.
const (
	KindUnmatched  = "unmatched"  // an expected call no actual call matches
	KindUnexpected = "unexpected" // an actual call the relation does not allow
	KindMismatch   = "mismatch"   // exact: the calls at one position differ
	KindPolicy     = "policy"     // a policy check failed
)

// maxCandidates bounds the actual calls an unmatched expected call is
// compared with to find the closest, so diagnostics stay cheap.
const maxCandidates = 256

// Diff reads both traces (each once, side by side) and compares them as cfg
// says: with cfg.Match the tool-call trajectories, else event by event as
// tracediff.Diff does; then cfg.Policy is checked on the actual trace.
// opt.Tolerant reads the expected file as a tolerant golden.
func Diff(expected, actual tracediff.Input, cfg *Config, opt tracediff.Options) *tracediff.Report {
	if cfg.Match == "" {
		return diffEvents(expected, actual, cfg, opt)
	}
	done := make(chan *Trace)
	go func() { done <- Read(expected, opt.Tolerant) }()
	act := Read(actual, false)
	exp := <-done
	return Compare(exp, act, cfg, opt)
}

// diffEvents is tracediff.Diff with the policy added: the actual trace's
// bytes are teed to a second reader that gathers its calls.
func diffEvents(expected, actual tracediff.Input, cfg *Config, opt tracediff.Options) *tracediff.Report {
	if cfg.Policy == nil {
		return tracediff.Diff(expected, actual, opt)
	}
	pr, pw := io.Pipe()
	done := make(chan *Trace)
	go func() {
		t := Read(tracediff.Input{Name: actual.Name, R: pr}, false)
		io.Copy(io.Discard, pr)
		done <- t
	}()
	r := tracediff.Diff(expected, tracediff.Input{Name: actual.Name, R: io.TeeReader(actual.R, pw)}, opt)
	pw.Close()
	act := <-done
	if !r.Invalid() {
		f := newFailures(r, opt)
		checkPolicy(act, cfg.Policy, f, anchorOf(nil))
		r.Equal = r.Differences == 0
	}
	return r
}

// Compare compares two read trajectories.
func Compare(exp, act *Trace, cfg *Config, opt tracediff.Options) *tracediff.Report {
	r := &tracediff.Report{Mode: "trajectory:" + string(cfg.Match), Tolerant: opt.Tolerant,
		Expected: tracediff.FileSummary{File: exp.File, Events: len(exp.Calls), Runs: runs(exp), Problems: exp.Problems},
		Actual:   tracediff.FileSummary{File: act.File, Events: len(act.Calls), Runs: runs(act), Problems: act.Problems},
		Events:   []tracediff.EventDiff{}}
	if r.Invalid() {
		return r
	}
	c := &comparer{cfg: cfg, m: tolerant.NewMatcher(opt.Tolerant), f: newFailures(r, opt), exp: exp, act: act}
	switch cfg.Match {
	case Exact:
		c.exact()
	case ContainsInOrder:
		c.inOrder()
	default:
		c.unordered()
	}
	if cfg.Policy != nil {
		checkPolicy(act, cfg.Policy, c.f, anchorOf(exp))
	}
	r.Equal = r.Differences == 0
	return r
}

func runs(t *Trace) int {
	n := 0
	for _, c := range t.Calls {
		n = max(n, c.Run+1)
	}
	for run := range t.Turns {
		n = max(n, run+1)
	}
	return n
}

// failures collects a report's failures, keeping the first ones in full.
type failures struct {
	r   *tracediff.Report
	opt tracediff.Options
}

func newFailures(r *tracediff.Report, opt tracediff.Options) *failures {
	if opt.MaxEvents <= 0 {
		opt.MaxEvents = tracediff.DefaultMaxEvents
	}
	if opt.MaxFields <= 0 {
		opt.MaxFields = tracediff.DefaultMaxFields
	}
	return &failures{r: r, opt: opt}
}

// full reports whether the next failure is only counted.
func (f *failures) full() bool { return len(f.r.Events) >= f.opt.MaxEvents }

func (f *failures) add(ed tracediff.EventDiff) {
	f.r.Differences++
	if len(f.r.Events) >= f.opt.MaxEvents {
		f.r.Omitted++
		return
	}
	f.r.Events = append(f.r.Events, ed)
}

func (f *failures) fields(ms []tolerant.Mismatch) ([]tracediff.FieldDiff, int) {
	var out []tracediff.FieldDiff
	for i, m := range ms {
		if i == f.opt.MaxFields {
			return out, len(ms) - i
		}
		out = append(out, tracediff.FieldOf(m, f.opt.MaxValueBytes))
	}
	return out, 0
}

type comparer struct {
	cfg      *Config
	m        *tolerant.Matcher
	f        *failures
	exp, act *Trace
}

// diffs returns how actual call a departs from expected call e; none when
// they match. Bindings made on the way are forgotten.
func (c *comparer) diffs(e, a *Call) []tolerant.Mismatch {
	mark := c.m.Mark()
	defer c.m.Rollback(mark)
	var ms []tolerant.Mismatch
	ms, _ = c.m.Match("/payload/tool", e.Tool, a.Tool, ms, 0)
	const args = "/payload/arguments"
	switch am := c.cfg.argsFor(e.ToolName()); am.kind() {
	case ArgsIgnore:
	case ArgsSuperset:
		if e.Arguments.Kind() != jsonv.Object || a.Arguments.Kind() != jsonv.Object {
			ms, _ = c.m.Match(args, e.Arguments, a.Arguments, ms, 0)
			break
		}
		for _, em := range e.Arguments.Members() {
			if c.m.Tolerant && em.Key == tolerant.AnyMembersKey {
				continue
			}
			av, _ := a.Arguments.Get(em.Key)
			ms, _ = c.m.Match(args+"/"+escapeToken(em.Key), em.Value, av, ms, 0)
		}
	case ArgsSubset:
		if e.Arguments.Kind() != jsonv.Object || a.Arguments.Kind() != jsonv.Object {
			ms, _ = c.m.Match(args, e.Arguments, a.Arguments, ms, 0)
			break
		}
		for _, am := range a.Arguments.Members() {
			ev, ok := e.Arguments.Get(am.Key)
			if !ok {
				ms = append(ms, tolerant.Mismatch{Pointer: args + "/" + escapeToken(am.Key), Actual: am.Value, Reason: "not an argument of the expected call"})
				continue
			}
			ms, _ = c.m.Match(args+"/"+escapeToken(am.Key), ev, am.Value, ms, 0)
		}
	case ArgsKeys:
		for _, k := range am.Keys {
			ev, eok := resolve(e.Arguments, k)
			av, aok := resolve(a.Arguments, k)
			if !eok && !aok {
				continue
			}
			ms, _ = c.m.Match(args+k, ev, av, ms, 0)
		}
	default:
		ms, _ = c.m.Match(args, e.Arguments, a.Arguments, ms, 0)
	}
	if c.cfg.results() {
		switch {
		case e.HasResult && !a.HasResult:
			ms = append(ms, tolerant.Mismatch{Pointer: "/payload/tool_call_id", Expected: jsonv.Str("answered by a tool.result"),
				Actual: a.ToolCallID, Reason: "the call has no tool.result"})
		case !e.HasResult && a.HasResult:
			ms = append(ms, tolerant.Mismatch{Pointer: "/payload/tool_call_id", Expected: e.ToolCallID,
				Actual: jsonv.Str("answered by a tool.result"), Reason: "the expected call has no tool.result"})
		case e.HasResult:
			n := len(ms)
			ms, _ = c.m.Match("/payload/ok", e.ResultOK, a.ResultOK, ms, 0)
			for i := n; i < len(ms); i++ {
				ms[i].Reason = "in the tool.result (actual line " + strconv.Itoa(a.ResultLine) + ")"
			}
		}
	}
	return ms
}

func (c *comparer) fits(e, a *Call) bool {
	if c.m.Tolerant {
		if k, _ := tolerant.Classify(e.ToolName()); k != tolerant.Literal {
			return len(c.diffs(e, a)) == 0
		}
	}
	return e.ToolName() == a.ToolName() && len(c.diffs(e, a)) == 0
}

func escapeToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// resolve finds the value at JSON pointer p inside v.
func resolve(v jsonv.Value, p string) (jsonv.Value, bool) {
	if p == "" {
		return v, v.IsValid()
	}
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v.Kind() {
		case jsonv.Object:
			var ok bool
			if v, ok = v.Get(tok); !ok {
				return jsonv.Value{}, false
			}
		case jsonv.Array:
			i, err := atoi(tok)
			if err || i >= len(v.Elems()) {
				return jsonv.Value{}, false
			}
			v = v.Elems()[i]
		default:
			return jsonv.Value{}, false
		}
	}
	return v, true
}

func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 || len(s) > 1 && s[0] == '0' {
		return 0, true
	}
	n := 0
	for _, ch := range s {
		if ch < '0' || ch > '9' {
			return 0, true
		}
		n = n*10 + int(ch-'0')
	}
	return n, false
}

// onActual is a failure about actual call a (against expected call e, if any).
func (c *comparer) onActual(kind string, a, e *Call, ms []tolerant.Mismatch, note string) tracediff.EventDiff {
	ed := tracediff.EventDiff{Kind: kind, Run: a.Run + 1, Sequence: a.Sequence, EventID: a.EventID, Type: "tool.request",
		ActualLine: a.Line, Note: note}
	ed.Anchor = anchorOf(c.exp)(a)
	if e != nil {
		ed.ExpectedLine, ed.Anchor = e.Line, e.Line
	}
	ed.Fields, ed.FieldsOmitted = c.f.fields(ms)
	return ed
}

// onExpected is a failure about expected call e that has no partner.
func (c *comparer) onExpected(e *Call, note string) tracediff.EventDiff {
	return tracediff.EventDiff{Kind: KindUnmatched, Run: e.Run + 1, Sequence: e.Sequence, EventID: e.EventID, Type: "tool.request",
		ExpectedLine: e.Line, Anchor: e.Line, Note: note}
}

// anchorOf gives the expected line a failure about an actual call is
// reported at: the expected call at the same position, or the last one.
func anchorOf(exp *Trace) func(a *Call) int {
	return func(a *Call) int {
		if exp == nil || len(exp.Calls) == 0 {
			return 1
		}
		return exp.Calls[len(exp.Calls)-1].Line
	}
}

func describe(e *Call) string {
	return "expected call " + string(e.Tool.AppendJSON(nil)) + " (expected line " + strconv.Itoa(e.Line) + ")"
}

func (c *comparer) exact() {
	es, as := c.exp.Calls, c.act.Calls
	for i := 0; i < max(len(es), len(as)); i++ {
		switch {
		case i >= len(as):
			c.f.add(c.onExpected(&es[i], describe(&es[i])+" is missing: the actual trajectory has "+strconv.Itoa(len(as))+" calls"))
		case i >= len(es):
			c.f.add(c.onActual(KindUnexpected, &as[i], nil, nil, "an extra call: the expected trajectory has "+strconv.Itoa(len(es))+" calls"))
		default:
			if ms := c.diffs(&es[i], &as[i]); len(ms) > 0 {
				c.f.add(c.onActual(KindMismatch, &as[i], &es[i], ms, "call "+strconv.Itoa(i+1)+" differs from "+describe(&es[i])))
			}
		}
	}
}

// inOrder matches each expected call to the earliest fitting actual call
// after the previous match: taking the earliest leaves the most room for
// the rest, so it finds an in-order pairing whenever one exists. Calls
// compared by key are found by binary search in the positions of their
// key; the others by a scan.
func (c *comparer) inOrder() {
	es, as := c.exp.Calls, c.act.Calls
	byKey := map[string][]int{}
	for j := range as {
		if k, ok := c.exactKey(&as[j], false); ok {
			byKey[k] = append(byKey[k], j)
		}
	}
	used := make([]bool, len(as))
	j := 0
	for i := range es {
		k := len(as)
		if key, ok := c.exactKey(&es[i], true); ok {
			ps := byKey[key]
			if n := sort.SearchInts(ps, j); n < len(ps) {
				k = ps[n]
			}
		} else {
			for k = j; k < len(as) && !c.fits(&es[i], &as[k]); k++ {
			}
		}
		if k < len(as) {
			used[k], j = true, k+1
			continue
		}
		c.unmatched(&es[i], used, j, "no actual call after the previous match fits "+describe(&es[i]))
	}
}

// unordered pairs calls one to one as the relation needs and reports what
// may not stay unpaired. Calls compared by key are interchangeable within
// their key, so they are paired by key first; giving a keyed expected call
// its partner never lowers the size of the best pairing (an exchange
// argument: any pairing that leaves it unmatched while its partner serves
// another expected call can swap the two). The calls left go through a
// maximum bipartite matching.
func (c *comparer) unordered() {
	es, as := c.exp.Calls, c.act.Calls
	matchE := make([]int, len(es))
	used := make([]bool, len(as))
	free := map[string][]int{}
	var restA []int
	for j := range as {
		if k, ok := c.exactKey(&as[j], false); ok {
			free[k] = append(free[k], j)
		}
	}
	var restE []int
	for i := range es {
		matchE[i] = -1
		k, ok := c.exactKey(&es[i], true)
		if !ok {
			restE = append(restE, i)
			continue
		}
		if ps := free[k]; len(ps) > 0 {
			matchE[i], used[ps[0]] = ps[0], true
			free[k] = ps[1:]
		}
	}
	if len(restE) > 0 {
		for j := range as {
			if !used[j] {
				restA = append(restA, j)
			}
		}
		adj := make([][]int, len(restE))
		for x, i := range restE {
			for y, j := range restA {
				if c.fits(&es[i], &as[j]) {
					adj[x] = append(adj[x], y)
				}
			}
		}
		mL, _ := maxMatching(len(restE), len(restA), adj)
		for x, y := range mL {
			if y >= 0 {
				matchE[restE[x]], used[restA[y]] = restA[y], true
			}
		}
	}
	unpaired := slices.Clone(used)
	// shown marks the expected calls a failure has named, or the pairing
	// has matched: an unexpected actual call is shown against the closest
	// of the others first.
	shown := make([]bool, len(es))
	for i := range es {
		shown[i] = matchE[i] >= 0
	}
	if c.cfg.Match != Subset {
		for i := range es {
			if matchE[i] < 0 {
				shown[i] = true
				c.unmatched(&es[i], unpaired, 0, describe(&es[i])+" matches no actual call one to one")
			}
		}
	}
	if c.cfg.Match != Superset {
		for j := range as {
			if !unpaired[j] {
				unpaired[j] = true
				c.unexpected(&as[j], shown)
			}
		}
	}
}

// unexpected reports actual call a, which no expected call is left to
// match, shown against the closest expected call: one not matched nor
// shown yet (which it then uses up), else, when every expected call is
// taken, the closest of all, so that the failure names the pointers where
// they differ with both values, as every other failure does.
func (c *comparer) unexpected(a *Call, shown []bool) {
	const note = "no expected call is left for this call to match"
	if c.f.full() || len(c.exp.Calls) == 0 { // only counted, or nothing to compare with
		c.f.add(c.onActual(KindUnexpected, a, nil, nil, note))
		return
	}
	best, bestMs := -1, []tolerant.Mismatch(nil)
	for _, free := range []bool{true, false} {
		tried := 0
		for pass := 0; pass < 2 && best < 0; pass++ {
			for i := 0; i < len(c.exp.Calls) && tried < maxCandidates; i++ {
				e := &c.exp.Calls[i]
				if shown[i] == free || (pass == 0) != (e.ToolName() == a.ToolName()) {
					continue
				}
				tried++
				ms := c.diffs(e, a)
				if best < 0 || len(ms) < len(bestMs) {
					best, bestMs = i, ms
				}
			}
		}
		if best >= 0 {
			e := &c.exp.Calls[best]
			switch {
			case free:
				shown[best] = true
				c.f.add(c.onActual(KindUnexpected, a, e, bestMs, note+"; the closest unmatched "+describe(e)+" differs as shown"))
			case len(bestMs) == 0:
				c.f.add(c.onActual(KindUnexpected, a, e, nil, note+": it repeats "+describe(e)+", which another actual call matches"))
			default:
				c.f.add(c.onActual(KindUnexpected, a, e, bestMs, note+"; every expected call is matched, the closest, "+describe(e)+", differs as shown"))
			}
			return
		}
	}
}

// unmatched reports expected call e, shown against the closest actual call
// not used yet, which it then uses up; after is where an ordered match
// would have had to find it (a closer call before that is out of order).
func (c *comparer) unmatched(e *Call, used []bool, after int, note string) {
	if c.f.full() { // only counted: spare the search
		c.f.add(c.onExpected(e, note))
		return
	}
	best, bestMs := -1, []tolerant.Mismatch(nil)
	tried := 0
	for pass := 0; pass < 2 && best < 0; pass++ {
		for j := 0; j < len(used) && tried < maxCandidates; j++ {
			a := &c.act.Calls[j]
			if used[j] || (pass == 0) != (a.ToolName() == e.ToolName()) {
				continue
			}
			tried++
			ms := c.diffs(e, a)
			if best < 0 || len(ms) < len(bestMs) {
				best, bestMs = j, ms
			}
		}
	}
	if best < 0 {
		c.f.add(c.onExpected(e, note+"; no actual call is left to compare it with"))
		return
	}
	used[best] = true
	switch {
	case best < after && len(bestMs) == 0:
		note += "; the same call comes before the previous match: out of order"
	case best < after:
		note += "; the closest actual call (before the previous match: out of order) differs as shown"
	default:
		note += "; the closest actual call differs as shown"
	}
	c.f.add(c.onActual(KindUnmatched, &c.act.Calls[best], e, bestMs, note))
}
