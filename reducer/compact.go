package reducer

// Context compaction (the curriculum's lesson s08, after s07): when the
// model-visible history grows past a threshold, replace its older messages
// by one "[compacted checkpoint]" assistant message carrying a summary,
// keep the system message and the most recent messages, and record in a
// context.compact event what was dropped: how many messages, the character
// counts before and after, the summary's length and the SHA-256 of the
// dropped messages' wire form. The journal keeps every original event, so
// the compaction is a projection, never a rewrite.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// CheckpointPrefix opens the content of the assistant message that replaces
// the compacted messages; the summary follows it.
const CheckpointPrefix = "[compacted checkpoint]\n"

// Compaction errors.
var (
	ErrNothingToCompact = errors.New("compaction has no older messages to summarize")
	ErrEmptySummary     = errors.New("compaction summary must be non-empty")
)

// Compactor is the reference's ContextCompactor: a character threshold, a
// number of recent messages to keep verbatim, and an injected summarizer.
// Summarize must be deterministic: History calls it again, on the same
// dropped messages, to rebuild a journal's history.
type Compactor struct {
	// TriggerChars: compact when the history's total characters
	// (TotalChars) exceed it.
	TriggerChars int
	// KeepRecentMessages: how many of the newest non-system messages
	// survive verbatim after the checkpoint (negative counts as 0).
	KeepRecentMessages int
	// Summarize returns the summary of the dropped messages. Surrounding
	// whitespace is stripped, as Python's str.strip() does.
	Summarize func(dropped []Message) string
}

// FixedSummary returns a summarizer that always answers s, as the
// reference's s08 lesson does.
func FixedSummary(s string) func([]Message) string {
	return func([]Message) string { return s }
}

// ShouldCompact reports whether msgs exceed the trigger.
func (c *Compactor) ShouldCompact(msgs []Message) bool {
	return TotalChars(msgs) > c.TriggerChars
}

// Compaction is the outcome of Compactor.Compact: the reference's
// CompactionReport.
type Compaction struct {
	Messages      []Message // the new history
	Summary       string    // the stripped summary
	Dropped       int       // messages replaced by the checkpoint
	OriginalChars int       // TotalChars before
	FinalChars    int       // TotalChars after
	SourceSHA256  string    // digest of the dropped messages (see Compact)
}

// SummaryChars is len(summary) in code points, as the event records it.
func (c Compaction) SummaryChars() int { return utf8.RuneCountInString(c.Summary) }

// Payload is the context.compact payload, keys in the reference's order:
// dropped_messages, original_chars, final_chars, summary_chars,
// source_sha256.
func (c Compaction) Payload() jsonv.Value {
	return jsonv.Obj(
		jsonv.M("dropped_messages", jsonv.Int(int64(c.Dropped))),
		jsonv.M("original_chars", jsonv.Int(int64(c.OriginalChars))),
		jsonv.M("final_chars", jsonv.Int(int64(c.FinalChars))),
		jsonv.M("summary_chars", jsonv.Int(int64(c.SummaryChars()))),
		jsonv.M("source_sha256", jsonv.Str(c.SourceSHA256)),
	)
}

// Compact splits msgs into a leading system message (kept), the dropped
// older messages and the KeepRecentMessages newest ones (kept), and returns
// system + checkpoint + recent. The checkpoint is an assistant message with
// content CheckpointPrefix + summary.
//
// SourceSHA256 is the SHA-256 hex of Python's json.dumps([m.to_wire() for
// m in dropped], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
// as UTF-8: each dropped message's role, content and, for tool messages,
// name and tool_call_id (never the tool calls).
//
// With nothing to drop Compact returns ErrNothingToCompact; a summary that
// is blank after stripping is ErrEmptySummary. msgs is not modified.
func (c *Compactor) Compact(msgs []Message) (Compaction, error) {
	var system []Message
	if len(msgs) > 0 && msgs[0].Role == RoleSystem {
		system = msgs[:1]
	}
	remaining := msgs[len(system):]
	keep := min(max(0, c.KeepRecentMessages), len(remaining))
	dropped := remaining[:len(remaining)-keep]
	recent := remaining[len(remaining)-keep:]
	if len(dropped) == 0 {
		return Compaction{}, ErrNothingToCompact
	}
	summary := ""
	if c.Summarize != nil {
		summary = pyStrip(c.Summarize(CloneMessages(dropped)))
	}
	if summary == "" {
		return Compaction{}, ErrEmptySummary
	}
	wire := make([]jsonv.Value, len(dropped))
	for i, m := range dropped {
		wire[i] = m.Wire()
	}
	sum := sha256.Sum256(jsonv.Arr(wire...).AppendCanonical(nil))

	out := make([]Message, 0, len(system)+1+len(recent))
	out = append(out, CloneMessages(system)...)
	out = append(out, Message{Role: RoleAssistant, Content: CheckpointPrefix + summary})
	out = append(out, CloneMessages(recent)...)
	return Compaction{
		Messages:      out,
		Summary:       summary,
		Dropped:       len(dropped),
		OriginalChars: TotalChars(msgs),
		FinalChars:    TotalChars(out),
		SourceSHA256:  hex.EncodeToString(sum[:]),
	}, nil
}
