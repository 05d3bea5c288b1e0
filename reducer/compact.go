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
	// Summary is the summary of every compaction when Summarize is nil: a
	// fixed text, as the reference's s08 lesson uses (FixedSummary is the
	// same as a function). A rebuild from a session file then reads no
	// dropped message but to hash it, one at a time; Summarize is given
	// them all at once.
	Summary string
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
	p, err := c.plan(messageSlice(msgs))
	if err != nil {
		return Compaction{}, err
	}
	out := make([]Message, 0, len(msgs)-p.recent+2)
	if p.system {
		out = append(out, CloneMessages(msgs[:1])...)
	}
	out = append(out, p.checkpoint)
	out = append(out, CloneMessages(msgs[p.recent:])...)
	p.Messages = out
	return p.Compaction, nil
}

// messageSeq is a history as a compaction reads it: the role and length of
// every message without reading it, a message when it is needed (a
// HistoryBuilder reads it back from its session file).
type messageSeq interface {
	Len() int
	Role(i int) string
	Chars(i int) int
	Message(i int) (Message, error)
}

type messageSlice []Message

func (s messageSlice) Len() int                       { return len(s) }
func (s messageSlice) Role(i int) string              { return s[i].Role }
func (s messageSlice) Chars(i int) int                { return s[i].Chars() }
func (s messageSlice) Message(i int) (Message, error) { return s[i], nil }

// compactionPlan is a compaction of a history h: its report (without
// Messages) and what the new history holds: h's system message (when
// system), the checkpoint message, and h's messages from recent on.
type compactionPlan struct {
	Compaction
	system     bool
	recent     int
	checkpoint Message
}

// plan computes Compact's outcome reading one dropped message at a time
// (unless Summarize needs them all).
func (c *Compactor) plan(h messageSeq) (compactionPlan, error) {
	var p compactionPlan
	n := h.Len()
	first := 0
	if n > 0 && h.Role(0) == RoleSystem {
		p.system, first = true, 1
	}
	keep := min(max(0, c.KeepRecentMessages), n-first)
	p.recent = n - keep
	if p.recent == first {
		return p, ErrNothingToCompact
	}
	summary := c.Summary
	if c.Summarize != nil {
		dropped := make([]Message, 0, p.recent-first)
		for i := first; i < p.recent; i++ {
			m, err := h.Message(i)
			if err != nil {
				return p, err
			}
			dropped = append(dropped, m.withArgumentValues())
		}
		summary = c.Summarize(dropped)
	}
	if summary = pyStrip(summary); summary == "" {
		return p, ErrEmptySummary
	}
	// The digest of jsonv.Arr(wire...).AppendCanonical, written a message
	// at a time.
	sum := sha256.New()
	sum.Write([]byte{'['})
	var buf []byte
	for i := first; i < p.recent; i++ {
		m, err := h.Message(i)
		if err != nil {
			return p, err
		}
		if i > first {
			sum.Write([]byte{','})
		}
		buf = m.Wire().AppendCanonical(buf[:0])
		sum.Write(buf)
	}
	sum.Write([]byte{']'})
	p.checkpoint = Message{Role: RoleAssistant, Content: CheckpointPrefix + summary}
	for i := range n {
		p.OriginalChars += h.Chars(i)
	}
	p.FinalChars = p.checkpoint.Chars()
	if p.system {
		p.FinalChars += h.Chars(0)
	}
	for i := p.recent; i < n; i++ {
		p.FinalChars += h.Chars(i)
	}
	p.Summary, p.Dropped = summary, p.recent-first
	p.SourceSHA256 = hex.EncodeToString(sum.Sum(nil))
	return p, nil
}
