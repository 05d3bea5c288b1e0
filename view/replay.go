package view

import (
	"fmt"
	"slices"

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// maxChecks bounds the fingerprint checks of one file: each costs a copy of
// the replay view so far.
const maxChecks = 256

// checkFingerprints recomputes, with package reducer, the fingerprint of
// every prefix an event claims one for (session.replay's fingerprint of
// its applied_events, session.branch's parent_fingerprint of the parent
// run through fork_sequence) and compares. Only the files holding such
// prefixes are read again.
func (p *Page) checkFingerprints(srcs []Source) error {
	byFile := map[int][]*fpCheck{}
	for _, c := range p.checks {
		run := p.runs[c.Run]
		switch {
		case run.Problems > 0:
			c.Verdict, c.Why = "unchecked", "the run it names has validation problems"
		case c.N <= 0 || c.N > int64(run.Rows):
			c.Verdict, c.Why = "unchecked", fmt.Sprintf("it names %d events; the run has %d in this page", c.N, run.Rows)
		case len(byFile[run.File]) >= maxChecks:
			c.Verdict, c.Why = "unchecked", fmt.Sprintf("a page checks at most %d fingerprints per file", maxChecks)
		default:
			byFile[run.File] = append(byFile[run.File], c)
		}
	}
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
		runOf := map[[2]string]int{}
		for i, r := range p.runs {
			if r.File == fi {
				runOf[[2]string{r.Session, r.RunID}] = i
			}
		}
		reds := map[int]*reducer.Reducer{}
		err := scan(srcs[fi], func(l *prepared) error {
			if !l.evOK {
				return nil
			}
			ri, ok := runOf[[2]string{l.ev.SessionID, l.ev.Provenance.RunID}]
			if !ok || want[ri] == nil {
				return nil
			}
			red := reds[ri]
			if red == nil {
				red = reducer.New()
				reds[ri] = red
			}
			red.ApplyCanonical(l.canon, &l.ev)
			if cs := want[ri][int64(red.Applied())]; cs != nil {
				fp := red.State().Fingerprint
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
		case c.Actual == c.Claimed:
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
	StopRow     int
	Fingerprint string
	Users       int
	Assistants  int
	Tools       int
	Items       []replayItem
	// Gap is the index in Items where Omitted items were left out
	// (Limits.ListItems).
	Gap, Omitted int
}

type replayItem struct {
	Row  int
	Role string // user, assistant or tool
	Text string
	Cut  bool
	Tool string
	Fail bool // a tool result with ok false
}

// finishReplays turns each run's reducer into its replay view.
func (p *Page) finishReplays() {
	for _, run := range p.runs {
		st := run.red.State()
		run.red = nil
		s := run.src
		v := &replayView{Applied: s.applied, StopReason: st.StopReason, StopRow: int(s.stop), Fingerprint: st.Fingerprint,
			Users: len(st.UserMessages), Assistants: len(st.AssistantMessages), Tools: len(st.ToolResults)}
		if len(s.users) != len(st.UserMessages) || len(s.assistants) != len(st.AssistantMessages) || len(s.tools) != len(st.ToolResults) {
			// The page's idea of where items came from disagrees with the
			// reducer's: show the reducer's items without links.
			s.users, s.assistants, s.tools = nil, nil, nil
		}
		var items []replayItem
		for i, t := range st.UserMessages {
			items = append(items, replayItem{Row: rowAt(s.users, i), Role: "user", Text: t})
		}
		for i, t := range st.AssistantMessages {
			items = append(items, replayItem{Row: rowAt(s.assistants, i), Role: "assistant", Text: t})
		}
		for i, r := range st.ToolResults {
			items = append(items, toolItem(rowAt(s.tools, i), r))
		}
		// A conversation: items in the order of their events (the order
		// within each kind is the reducer's and is kept).
		slices.SortStableFunc(items, func(a, b replayItem) int { return a.Row - b.Row })
		if n := p.lim.ListItems; len(items) > n {
			v.Gap, v.Omitted = n/2, len(items)-n
			items = append(items[:n/2:n/2], items[len(items)-(n-n/2):]...)
		}
		for i := range items {
			t := cut(items[i].Text, p.lim.TextBytes)
			items[i].Cut = len(t) < len(items[i].Text)
			items[i].Text = t
		}
		v.Items = items
		run.replay = v
	}
}

func rowAt(rows []int32, i int) int {
	if i < len(rows) {
		return int(rows[i])
	}
	return -1
}

// toolItem describes a tool.result payload: the tool, and its result or
// error as text.
func toolItem(row int, payload jsonv.Value) replayItem {
	it := replayItem{Row: row, Role: "tool"}
	if t, ok := payload.Get("tool"); ok && t.Kind() == jsonv.String {
		it.Tool = t.Text()
	}
	if ok, _ := payload.Get("ok"); ok.Kind() == jsonv.Bool && !ok.Bool() {
		it.Fail = true
		if e, has := payload.Get("error"); has && e.Kind() == jsonv.String {
			it.Text = e.Text()
			return it
		}
	}
	if r, ok := payload.Get("result"); ok {
		if r.Kind() == jsonv.String {
			it.Text = r.Text()
		} else {
			it.Text = string(r.AppendJSON(nil))
		}
		return it
	}
	it.Text = string(payload.AppendJSON(nil))
	return it
}
