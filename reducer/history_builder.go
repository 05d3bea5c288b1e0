package reducer

import (
	"fmt"

	"github.com/tracecheck/tracecheck/journal"
)

// HistoryBuilder rebuilds the model-visible history one event at a time,
// with History's rules (History is a loop over it). Its state can be kept
// with a session checkpoint (see resume_checkpoint.go), so that a resume
// applies only the events after it.
type HistoryBuilder struct {
	cfg  HistoryConfig
	msgs []Message
	// open is the index of the current turn's assistant message, or -1.
	open int
}

// NewHistoryBuilder starts the history of a session: the system message
// when cfg.SystemPrompt is set.
func NewHistoryBuilder(cfg HistoryConfig) *HistoryBuilder {
	b := &HistoryBuilder{cfg: cfg, open: -1}
	if cfg.SystemPrompt != "" {
		b.msgs = append(b.msgs, Message{Role: RoleSystem, Content: cfg.SystemPrompt})
	}
	return b
}

// Messages returns the history so far. It is the builder's own slice: use
// CloneMessages to keep it past the next Apply.
func (b *HistoryBuilder) Messages() []Message { return b.msgs }

// Clone returns a builder that shares nothing with b.
func (b *HistoryBuilder) Clone() *HistoryBuilder {
	return &HistoryBuilder{cfg: b.cfg, msgs: CloneMessages(b.msgs), open: b.open}
}

// Apply applies the next event (see History for the rules). On error the
// builder must not be used further.
func (b *HistoryBuilder) Apply(e *journal.Event) error {
	fail := func(pointer, format string, args ...any) error {
		return &HistoryError{Sequence: e.Sequence, EventID: e.EventID, Type: e.Type, Pointer: pointer, Msg: fmt.Sprintf(format, args...)}
	}
	p := e.Payload
	switch e.Type {
	case "user.message":
		b.msgs = append(b.msgs, Message{Role: RoleUser, Content: histString(p, "content")})
		b.open = -1
	case "model.request":
		if err := histCheckRequest(b.msgs, p, fail); err != nil {
			return err
		}
		b.open = -1
	case "model.response":
		if p.Has("content") {
			calls, err := histCalls(p, fail)
			if err != nil {
				return err
			}
			b.msgs = append(b.msgs, Message{Role: RoleAssistant, Content: histString(p, "content"), ToolCalls: calls})
			b.open = len(b.msgs) - 1
		} else if f, _ := p.Get("final"); f.IsTrue() {
			calls, err := histCalls(p, fail)
			if err != nil {
				return err
			}
			b.msgs = append(b.msgs, Message{Role: RoleAssistant, Content: histString(p, "accumulated"), ToolCalls: calls})
			b.open = len(b.msgs) - 1
		}
	case "tool.request":
		call := ToolCall{ID: histString(p, "tool_call_id"), Name: histString(p, "tool")}
		if a, ok := p.Get("arguments"); ok {
			call.Arguments = a
		}
		if b.open < 0 {
			return fail("/tool_call_id", "tool call %q follows no assistant message of the current turn", call.ID)
		}
		listed := false
		for _, c := range b.msgs[b.open].ToolCalls {
			if c.ID == call.ID {
				listed = true
				break
			}
		}
		if !listed {
			b.msgs[b.open].ToolCalls = append(b.msgs[b.open].ToolCalls, call)
		}
	case "tool.result":
		b.msgs = append(b.msgs, Message{
			Role:       RoleTool,
			Content:    ToolResultContent(p),
			Name:       histString(p, "tool"),
			ToolCallID: histString(p, "tool_call_id"),
		})
	case "context.compact":
		if b.cfg.Compactor == nil {
			return fail("", "the journal compacts its context here; rebuilding it needs the run's compactor (HistoryConfig.Compactor)")
		}
		c, err := b.cfg.Compactor.Compact(b.msgs)
		if err != nil {
			return fail("", "%v", err)
		}
		if err := histCheckCompaction(c, p, fail); err != nil {
			return err
		}
		b.msgs = c.Messages
		b.open = -1
	case "context.prune":
		return fail("", "context.prune cannot be replayed: the context budget is not modelled")
	}
	return nil
}
