package scenarios

import (
	"fmt"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/reducer"
)

// Observed is what a render shows, in the terms of a scenario's "expect"
// block: the values its expectations would need for Check to pass. Its
// JSON form can be pasted into a scenario file.
type Observed struct {
	EventCount int `json:"event_count"`
	// FocusEventTypes lists every event type of the trace in order of
	// first appearance; a scenario keeps the ones it is about.
	FocusEventTypes []string `json:"focus_event_types"`
	RunIDs          []string `json:"run_ids"`
	// StopReason is the first run's replayed stop reason; nil (null) when
	// it has no session.stop.
	StopReason        *string  `json:"stop_reason"`
	AssistantMessages []string `json:"assistant_messages"`
	UnansweredCalls   []string `json:"unanswered_calls"`
	// RepairedCalls holds one list per resume; absent without resumes.
	RepairedCalls [][]string `json:"repaired_calls,omitempty"`
}

// Observe reads off a render the values Check compares with the
// scenario's expectations, the same way Check computes them.
func Observe(r *Rendered) (Observed, error) {
	o := Observed{
		EventCount:        len(r.Events),
		FocusEventTypes:   []string{},
		RunIDs:            []string{},
		AssistantMessages: []string{},
		UnansweredCalls:   []string{},
	}
	seenType, seenRun := map[string]bool{}, map[string]bool{}
	for i := range r.Events {
		e := &r.Events[i]
		if !seenType[e.Type] {
			seenType[e.Type] = true
			o.FocusEventTypes = append(o.FocusEventTypes, e.Type)
		}
		if id := e.Provenance.RunID; !seenRun[id] {
			seenRun[id] = true
			o.RunIDs = append(o.RunIDs, id)
		}
	}
	if len(r.Runs) == 0 {
		return o, fmt.Errorf("%s: the render holds no run", r.Scenario.ID)
	}
	first := r.Runs[0]
	j, err := journal.New(first.Events)
	if err != nil {
		return o, fmt.Errorf("first run is not a valid journal: %w", err)
	}
	st := reducer.Replay(j)
	o.StopReason = st.StopReason
	o.AssistantMessages = append(o.AssistantMessages, st.AssistantMessages...)
	h, err := reducer.History(first.Events[:first.LoopEvents], r.Scenario.HistoryConfig())
	if err != nil {
		return o, err
	}
	for _, c := range reducer.UnansweredCalls(h) {
		o.UnansweredCalls = append(o.UnansweredCalls, c.ID)
	}
	if len(r.Scenario.Resumes) > 0 {
		o.RepairedCalls = [][]string{}
		for _, run := range r.Runs[1:] {
			ids := []string{}
			if run.Resumed != nil {
				for _, c := range run.Resumed.Repaired {
					ids = append(ids, c.ID)
				}
			}
			o.RepairedCalls = append(o.RepairedCalls, ids)
		}
	}
	return o, nil
}
