package view

import (
	"fmt"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/reducer"
)

// maxChecks bounds the fingerprint checks of one file: each costs a copy of
// the applied sequences so far.
const maxChecks = 256

// checkFingerprints recomputes, with package reducer, the fingerprint of
// every prefix an event claims one for (session.replay's fingerprint of
// its applied_events, session.branch's parent_fingerprint of the parent
// run through fork_sequence) and compares. Only the files holding such
// prefixes are read again, and only each line's canonical encoding is
// made.
func (p *Page) checkFingerprints(srcs []Source) error {
	byFile := map[int][]*fpCheck{}
	for _, c := range p.checks {
		run := p.runs[c.Run]
		switch {
		case run.Problems > 0:
			c.Verdict, c.Why = "unchecked", "the run it names has validation problems"
		case c.N <= 0 || c.N > int64(run.Rows):
			c.Verdict, c.Why = "unchecked", fmt.Sprintf("it names %d events; the run has %d in this page", c.N, run.Rows)
		case c.Claimed.Cut():
			c.Verdict, c.Why = "unchecked", "the fingerprint it records is longer than the page holds (no fingerprint is)"
		case len(byFile[run.File]) >= maxChecks:
			c.Verdict, c.Why = "unchecked", fmt.Sprintf("a page checks at most %d fingerprints per file", maxChecks)
		default:
			byFile[run.File] = append(byFile[run.File], c)
		}
	}
	cfg := *p.cfg
	cfg.canonOnly = true
	for fi := range p.files {
		checks := byFile[fi]
		if len(checks) == 0 {
			continue
		}
		// want[run][n]: the checks of the first n events of run.
		want := map[int]map[int64][]*fpCheck{}
		for _, c := range checks {
			if want[c.Run] == nil {
				want[c.Run] = map[int64][]*fpCheck{}
			}
			want[c.Run][c.N] = append(want[c.Run][c.N], c)
		}
		runOf := map[[2]uint64]int{}
		for i, r := range p.runs {
			if r.File == fi {
				runOf[r.key] = i
			}
		}
		type fpState struct {
			red *reducer.Reducer
			n   int
		}
		reds := map[int]*fpState{}
		_, err := scan(srcs[fi], &cfg, func(l *prepared) error {
			if !l.evOK {
				return nil
			}
			ri, ok := runOf[l.runKey]
			if !ok || want[ri] == nil {
				return nil
			}
			st := reds[ri]
			if st == nil {
				st = &fpState{red: reducer.New()}
				reds[ri] = st
			}
			// Only the fingerprint is wanted: the reducer is given no
			// payload, so that it keeps none (see Page.apply).
			st.red.ApplyCanonical(l.canon, &journal.Event{Sequence: l.seq})
			st.n++
			if cs := want[ri][int64(st.n)]; cs != nil {
				fp := st.red.State().Fingerprint
				for _, c := range cs {
					c.Actual = fp
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("reading %s again: %w", srcs[fi].Name, err)
		}
	}
	for _, c := range p.checks {
		switch {
		case c.Verdict != "":
		case c.Actual == "":
			c.Verdict, c.Why = "unchecked", "the file changed while it was read"
		case c.Actual == c.Claimed.S:
			c.Verdict = "match"
		default:
			c.Verdict = "differ"
		}
	}
	return nil
}

// replayView is a run's replay as the page shows it: what package reducer
// rebuilds from the run's events (through Options.Through), each item with
// the row it came from.
type replayView struct {
	Applied     int
	StopReason  *string
	Stop        clipped // the same, as the page shows it
	StopRow     int
	Fingerprint string
	Users       int
	Assistants  int
	Tools       int
	Items       []replayItem
	// Gap is the index in Items where Omitted items were left out
	// (Limits.ListItems, Limits.ReplayItems); Short says the list is
	// shorter than Limits.ListItems because of Limits.ReplayItems.
	Gap, Omitted int
	Short        bool
}

type replayItem struct {
	Row  int
	Role string // user, assistant or tool
	Text string
	Cut  bool
	Tool string
	Fail bool // a tool result with ok false
}

// finishReplays turns each run's gathered replay into its view.
func (p *Page) finishReplays() {
	half := p.lim.ListItems / 2
	for _, run := range p.runs {
		a := &run.rp
		v := &replayView{Applied: a.applied, StopRow: int(a.stopRow),
			Fingerprint: run.fp.State().Fingerprint, Users: a.users, Assistants: a.assistants, Tools: a.tools}
		if a.stop != nil {
			v.StopReason, v.Stop = &a.stop.S, *a.stop
		}
		run.fp, run.ids = nil, nil
		items := append([]replayItem(nil), a.head...)
		items = append(items, a.tail[a.tailAt:]...)
		items = append(items, a.tail[:a.tailAt]...)
		v.Gap, v.Omitted = len(a.head), a.total-len(items)
		if v.Omitted > 0 && (len(a.head) < half || len(a.tail) < p.lim.ListItems-half) {
			v.Short = true
			p.slotNote = true
		}
		v.Items = items
		a.head, a.tail = nil, nil
		run.replay = v
	}
}
