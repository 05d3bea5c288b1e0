package scenarios

// The context budget of the reference's lesson s06 (its ContextBudget): a
// character budget for the model-visible history, fitted before every
// model request, and a limit on the encoded size of each tool result.

import (
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
)

// The reference's defaults.
const (
	DefaultMaxInputChars      = 8000
	DefaultMaxToolOutputChars = 2000
	// previewMargin is what a truncated result's preview leaves of
	// max_tool_output_chars for the wrapper around it.
	previewMargin = 96
)

// BudgetSpec is a scenario's context budget.
//
// Before every model request (after a compaction, when both are set) the
// history is fitted to MaxInputChars: the system message stays, then the
// most recent messages are kept while they fit; when even the most recent
// one does not, it is kept with only its last characters. When that
// removes or shortens anything the run records context.prune
// {removed_messages, original_chars, final_chars}.
//
// A successful tool result whose encoding (Python's json.dumps with
// sort_keys) is longer than MaxToolOutputChars is replaced by
// {truncated: true, original_chars, preview} (the first
// MaxToolOutputChars-96 characters of the encoding) and recorded with
// "truncated": true.
type BudgetSpec struct {
	MaxInputChars      int
	MaxToolOutputChars int
}

// fitted is the outcome of fitting a history to the budget.
type fitted struct {
	msgs                    []reducer.Message
	removed, original, kept int
}

// pruned reports whether the fit changed the history (the reference emits
// context.prune only then).
func (f fitted) pruned() bool { return f.removed > 0 || f.kept < f.original }

// payload is the context.prune payload.
func (f fitted) payload() jsonv.Value {
	return jsonv.Obj(
		jsonv.M("removed_messages", jsonv.Int(int64(f.removed))),
		jsonv.M("original_chars", jsonv.Int(int64(f.original))),
		jsonv.M("final_chars", jsonv.Int(int64(f.kept))),
	)
}

// fit is the reference's ContextBudget.fit.
func (b *BudgetSpec) fit(msgs []reducer.Message) fitted {
	original := reducer.TotalChars(msgs)
	if original <= b.MaxInputChars {
		return fitted{msgs: msgs, original: original, kept: original}
	}
	var system []reducer.Message
	if len(msgs) > 0 && msgs[0].Role == reducer.RoleSystem {
		system = msgs[:1]
	}
	used := reducer.TotalChars(system)
	var keptReversed []reducer.Message
	for i := len(msgs) - 1; i >= len(system); i-- {
		m := msgs[i]
		if used+m.Chars() > b.MaxInputChars {
			if len(keptReversed) > 0 {
				continue
			}
			room := max(0, b.MaxInputChars-used)
			m.Content = ""
			if room > 0 {
				m.Content = pyTail(msgs[i].Content, room)
			}
		}
		keptReversed = append(keptReversed, m)
		used += m.Chars()
	}
	out := append([]reducer.Message(nil), system...)
	for i := len(keptReversed) - 1; i >= 0; i-- {
		out = append(out, keptReversed[i])
	}
	return fitted{msgs: reducer.CloneMessages(out), removed: max(0, len(msgs)-len(out)), original: original, kept: reducer.TotalChars(out)}
}

// truncate is the reference's ContextBudget.truncate_tool_result.
func (b *BudgetSpec) truncate(v jsonv.Value) (jsonv.Value, bool) {
	encoded := string(reducer.AppendPySpaced(nil, v))
	n := pyLen(encoded)
	if n <= b.MaxToolOutputChars {
		return v, false
	}
	return jsonv.Obj(
		jsonv.M("truncated", jsonv.BoolValue(true)),
		jsonv.M("original_chars", jsonv.Int(int64(n))),
		jsonv.M("preview", jsonv.Str(pyHead(encoded, max(0, b.MaxToolOutputChars-previewMargin)))),
	), true
}
