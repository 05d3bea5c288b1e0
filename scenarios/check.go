package scenarios

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
	"github.com/tracecheck/tracecheck/reducer"
)

// ForbiddenPayloadKey must appear in no payload, at any depth: traces
// record observable behaviour, never hidden reasoning.
const ForbiddenPayloadKey = "chain_of_thought"

// Check validates a rendered trace: every line against the Trace event
// schema and the journal invariants (journal.Validate, run by run), the
// scenario's expectations (the reference catalog's checks: event count,
// focus event types, run ids, no chain_of_thought; plus the replayed stop
// reason, assistant messages and unanswered calls when the scenario states
// them), that every run is a valid journal on its own, and that
// reducer.History rebuilds from each run's journal exactly the history the
// live agent held. For a scenario with resumes it also checks the session
// store's promises: the file is a valid store session whose runs are the
// rendered ones, every run left the bytes before it unchanged (each run's
// file is a prefix of every later one, and a resume appended at the end of
// what the run before it left), and each resume repaired the calls
// expect.repaired_calls names. It returns one message per problem; none
// means the render is valid.
func Check(r *Rendered) []string {
	sc := r.Scenario
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	for _, e := range journal.Validate(bytes.NewReader(r.Bytes), sc.ID+".trace.jsonl") {
		add("invalid trace: %v", e)
	}

	if !sc.HasExpect {
		add("/expect: the scenario gives no expectations (event_count, focus_event_types): a scenario verify renders needs them; only one written for real agents (tracecheck agent run) goes without")
		return problems
	}
	ex := sc.Expect
	if len(r.Events) != ex.EventCount {
		add("/expect/event_count: expected %d events, actual %d", ex.EventCount, len(r.Events))
	}
	types := map[string]bool{}
	var runIDs []string
	for i := range r.Events {
		e := &r.Events[i]
		types[e.Type] = true
		if !slices.Contains(runIDs, e.Provenance.RunID) {
			runIDs = append(runIDs, e.Provenance.RunID)
		}
		if ptr := findKey(e.Payload, ForbiddenPayloadKey, "/payload"); ptr != "" {
			add("event %s (sequence %d, %s) carries forbidden hidden reasoning at %s", e.EventID, e.Sequence, e.Type, ptr)
		}
	}
	for _, t := range ex.FocusEventTypes {
		if !types[t] {
			add("/expect/focus_event_types: expected a %s event, actual none", t)
		}
	}
	if !slices.Equal(runIDs, ex.RunIDs) {
		add("/expect/run_ids: expected %s, actual %s", showList(ex.RunIDs), showList(runIDs))
	}

	first := r.Runs[0]
	j, err := journal.New(first.Events)
	if err != nil {
		add("first run is not a valid journal: %v", err)
	} else {
		st := reducer.Replay(j)
		if ex.HasStopReason && !equalPtr(st.StopReason, ex.StopReason) {
			add("/expect/stop_reason: expected %s, actual %s (replayed)", showPtr(ex.StopReason), showPtr(st.StopReason))
		}
		if ex.AssistantMessages != nil {
			if p := compareLists("/expect/assistant_messages", ex.AssistantMessages, st.AssistantMessages, true); p != "" {
				add("%s (replayed)", p)
			}
		}
	}
	if ex.HasSystemPrompt {
		if p := checkSystemPrompt(ex.SystemPrompt, first.Requests); p != "" {
			add("%s", p)
		}
	}
	if ex.UnansweredCalls != nil {
		h, err := reducer.History(first.Events[:first.LoopEvents], sc.HistoryConfig())
		if err != nil {
			add("%v", err)
		} else {
			var ids []string
			for _, c := range reducer.UnansweredCalls(h) {
				ids = append(ids, c.ID)
			}
			if p := compareLists("/expect/unanswered_calls", ex.UnansweredCalls, ids, false); p != "" {
				add("%s (tool call ids left open by the run)", p)
			}
		}
	}

	for _, run := range r.Runs[1:] {
		if _, err := journal.New(run.Events); err != nil {
			add("run %s is not a valid journal on its own: %v", run.RunID, err)
		}
	}
	if len(sc.Resumes) > 0 {
		problems = append(problems, checkResumes(r)...)
	}

	for _, run := range r.Runs {
		problems = append(problems, checkHistory(sc, run)...)
	}
	return problems
}

// checkSystemPrompt compares the system message of the first model
// request with the expected one (nil: none).
func checkSystemPrompt(want *string, requests [][]reducer.Message) string {
	if len(requests) == 0 {
		return "/expect/system_prompt: the run made no model request"
	}
	var got *string
	if first := requests[0]; len(first) > 0 && first[0].Role == reducer.RoleSystem {
		got = &first[0].Content
	}
	if equalPtr(got, want) {
		return ""
	}
	show := func(s *string) string {
		if s == nil {
			return "none"
		}
		return strconv.Quote(*s)
	}
	return fmt.Sprintf("/expect/system_prompt: expected %s, actual %s (the system message of the first model request)", show(want), show(got))
}

// checkHistory checks that reducer.History rebuilds from the run's journal
// the history the live agent held. reducer.History does not replay a
// context budget: for a run with a context.prune it rebuilds the history
// up to the first one, which must be the live history at that point, and
// the prune's recorded numbers must be what the budget makes of it.
func checkHistory(sc *Scenario, run *Run) []string {
	events := append(append([]journal.Event(nil), run.Inherited...), run.Events...)
	live, at := run.History, ""
	if run.PruneIndex >= 0 {
		events = events[:len(run.Inherited)+run.PruneIndex]
		live, at = run.BeforePrune, " before its first context.prune"
	}
	h, err := reducer.History(events, sc.HistoryConfig())
	if err != nil {
		return []string{fmt.Sprintf("run %s: %v", run.RunID, err)}
	}
	if d := diffHistory(live, h); d != "" {
		return []string{fmt.Sprintf("run %s: the history rebuilt from the journal%s differs from the live one: %s", run.RunID, at, d)}
	}
	if run.PruneIndex >= 0 && sc.Budget != nil {
		e := run.Events[run.PruneIndex]
		want := sc.Budget.fit(h).payload()
		if !jsonv.Equal(want, e.Payload) {
			return []string{fmt.Sprintf("run %s: %s %s: expected the budget's prune of the rebuilt history %s, actual %s", run.RunID, e.Type, e.EventID, want.AppendJSON(nil), e.Payload.AppendJSON(nil))}
		}
	}
	return nil
}

// diffHistory describes the first difference between two histories, ""
// when they are equal.
func diffHistory(live, rebuilt []reducer.Message) string {
	for i := 0; i < max(len(live), len(rebuilt)); i++ {
		switch {
		case i >= len(live):
			return fmt.Sprintf("the live history has %d messages, the rebuilt one more: %s", len(live), showMessage(rebuilt[i]))
		case i >= len(rebuilt):
			return fmt.Sprintf("the rebuilt history has %d messages, the live one more: %s", len(rebuilt), showMessage(live[i]))
		}
		if a, b := showMessage(live[i]), showMessage(rebuilt[i]); a != b {
			return fmt.Sprintf("message %d: expected (live) %s, actual (rebuilt) %s", i, a, b)
		}
	}
	return ""
}

// showMessage writes a history message for a reader: role, content, and
// the tool fields that are set.
func showMessage(m reducer.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{role %s, content %s", m.Role, strconv.Quote(m.Content))
	if m.Name != "" {
		fmt.Fprintf(&b, ", name %s", m.Name)
	}
	if m.ToolCallID != "" {
		fmt.Fprintf(&b, ", tool_call_id %s", m.ToolCallID)
	}
	for _, c := range m.ToolCalls {
		fmt.Fprintf(&b, ", tool call %s %s %s", c.ID, c.Name, c.ArgumentsValue().AppendJSON(nil))
	}
	b.WriteByte('}')
	return b.String()
}

// compareLists says how actual differs from expected at pointer, "" when
// equal: the first differing item when the lengths agree, else both lists.
func compareLists(pointer string, expected, actual []string, quote bool) string {
	if slices.Equal(expected, nonNilStrings(actual)) {
		return ""
	}
	show := showList
	if quote {
		show = showQuoted
	}
	if len(expected) == len(actual) {
		for i := range expected {
			if expected[i] != actual[i] {
				return fmt.Sprintf("%s/%d: expected %s, actual %s", pointer, i, strconv.Quote(expected[i]), strconv.Quote(actual[i]))
			}
		}
	}
	return fmt.Sprintf("%s: expected %s, actual %s", pointer, show(expected), show(nonNilStrings(actual)))
}

// showList writes ids as [a, b].
func showList(ids []string) string { return "[" + strings.Join(ids, ", ") + "]" }

// showQuoted writes texts as ["a", "b"].
func showQuoted(texts []string) string {
	q := make([]string, len(texts))
	for i, t := range texts {
		q[i] = strconv.Quote(t)
	}
	return showList(q)
}

// checkResumes checks what the store promises a session resumed by the
// scenario's resumes: see Check.
func checkResumes(r *Rendered) []string {
	sc := r.Scenario
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	if len(r.Runs) != 1+len(sc.Resumes) {
		add("%d runs rendered for 1 run and %d resumes", len(r.Runs), len(sc.Resumes))
		return problems
	}
	// The bytes as a session file: valid for the store, with the runs and
	// resume markers rendered.
	dir, err := os.MkdirTemp("", "tracecheck-check-")
	if err != nil {
		add("%v", err)
		return problems
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(dir)
	var path string
	if err == nil {
		path, err = st.Path(sc.SessionID)
	}
	if err == nil {
		err = os.WriteFile(path, r.Bytes, 0o644)
	}
	if err != nil {
		add("%v", err)
		return problems
	}
	rep, err := st.Check(sc.SessionID, false)
	if err != nil {
		add("not a valid session file: %v", err)
	} else {
		var got, want []string
		for _, run := range rep.Runs {
			got = append(got, fmt.Sprintf("%s(%d events, resumes %q)", run.RunID, run.Events, run.ResumesRunID))
		}
		prev := ""
		for _, run := range r.Runs {
			want = append(want, fmt.Sprintf("%s(%d events, resumes %q)", run.RunID, len(run.Events), prev))
			prev = run.RunID
		}
		if !slices.Equal(got, want) {
			add("the runs in the session file: expected %s, actual %s", showList(want), showList(got))
		}
	}

	// Append-only: what each run left is a prefix of everything after it,
	// and each resume appended right at its end.
	for i, run := range r.Runs {
		if run.File == nil {
			add("run %s: the session file was not read when it ended", run.RunID)
			continue
		}
		if !bytes.HasPrefix(r.Bytes, run.File) {
			add("run %s: the %d bytes of the session file when it ended are not an unchanged prefix of the final file", run.RunID, len(run.File))
		}
		if i > 0 && run.Resumed != nil {
			if prev := r.Runs[i-1].File; run.Resumed.Offset != int64(len(prev)) || !bytes.HasPrefix(run.File, prev) {
				add("run %s: the resume appended at offset %d, but the run before it left %d bytes", run.RunID, run.Resumed.Offset, len(prev))
			}
		}
	}

	if sc.Expect.RepairedCalls != nil {
		for i, run := range r.Runs[1:] {
			ids := []string{}
			if run.Resumed != nil {
				for _, c := range run.Resumed.Repaired {
					ids = append(ids, c.ID)
				}
			}
			if p := compareLists(fmt.Sprintf("/expect/repaired_calls/%d", i), sc.Expect.RepairedCalls[i], ids, false); p != "" {
				add("%s (the tool call ids resume %d, run %s, answered)", p, i+1, run.RunID)
			}
		}
	}
	return problems
}

// findKey returns the JSON pointer of the first member named key in v, at
// any depth, or "".
func findKey(v jsonv.Value, key, at string) string {
	switch v.Kind() {
	case jsonv.Object:
		for _, m := range v.Members() {
			p := at + "/" + escapePointer(m.Key)
			if m.Key == key {
				return p
			}
			if found := findKey(m.Value, key, p); found != "" {
				return found
			}
		}
	case jsonv.Array:
		for i, e := range v.Elems() {
			if found := findKey(e, key, fmt.Sprintf("%s/%d", at, i)); found != "" {
				return found
			}
		}
	}
	return ""
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func equalPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func showPtr(s *string) string {
	if s == nil {
		return "null (no session.stop)"
	}
	return fmt.Sprintf("%q", *s)
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
