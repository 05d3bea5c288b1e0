package scenarios

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"

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

	ex := sc.Expect
	if len(r.Events) != ex.EventCount {
		add("expected %d events, rendered %d", ex.EventCount, len(r.Events))
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
			add("focus event is missing: %s", t)
		}
	}
	if !slices.Equal(runIDs, ex.RunIDs) {
		add("run ids are [%s], expected [%s]", strings.Join(runIDs, ", "), strings.Join(ex.RunIDs, ", "))
	}

	first := r.Runs[0]
	j, err := journal.New(first.Events)
	if err != nil {
		add("first run is not a valid journal: %v", err)
	} else {
		st := reducer.Replay(j)
		if ex.HasStopReason && !equalPtr(st.StopReason, ex.StopReason) {
			add("replayed stop reason is %s, expected %s", showPtr(st.StopReason), showPtr(ex.StopReason))
		}
		if ex.AssistantMessages != nil && !slices.Equal(nonNilStrings(st.AssistantMessages), ex.AssistantMessages) {
			add("replayed assistant messages differ (-expected +replayed):\n%s", cmp.Diff(ex.AssistantMessages, nonNilStrings(st.AssistantMessages)))
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
			if !slices.Equal(nonNilStrings(ids), ex.UnansweredCalls) {
				add("unanswered tool calls after the run are [%s], expected [%s]", strings.Join(ids, ", "), strings.Join(ex.UnansweredCalls, ", "))
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
		events := append(append([]journal.Event(nil), run.Inherited...), run.Events...)
		h, err := reducer.History(events, sc.HistoryConfig())
		if err != nil {
			add("run %s: %v", run.RunID, err)
			continue
		}
		if diff := cmp.Diff(run.History, h, cmp.Comparer(jsonv.Equal)); diff != "" {
			add("run %s: the history rebuilt from the journal differs from the live one (-live +rebuilt):\n%s", run.RunID, diff)
		}
	}
	return problems
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
			add("the session file holds the runs [%s], expected [%s]", strings.Join(got, ", "), strings.Join(want, ", "))
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
			if want := sc.Expect.RepairedCalls[i]; !slices.Equal(ids, want) {
				add("resume %d (run %s) repaired the calls [%s], expected [%s]", i+1, run.RunID, strings.Join(ids, ", "), strings.Join(want, ", "))
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
