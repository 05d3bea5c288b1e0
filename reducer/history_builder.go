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
	// size is Size: the bytes the messages hold.
	size int
}

// NewHistoryBuilder starts the history of a session: the system message
// when cfg.SystemPrompt is set.
func NewHistoryBuilder(cfg HistoryConfig) *HistoryBuilder {
	b := &HistoryBuilder{cfg: cfg, open: -1}
	if cfg.SystemPrompt != "" {
		b.push(Message{Role: RoleSystem, Content: cfg.SystemPrompt})
	}
	return b
}

// Size returns the bytes the history's messages hold: their roles,
// contents, names and IDs, and their tool calls' IDs, names and arguments
// as JSON. It is what keeping the history costs (a session checkpoint keeps
// it only up to store.MaxProjectionBytes).
func (b *HistoryBuilder) Size() int { return b.size }

func (b *HistoryBuilder) push(m Message) {
	b.msgs = append(b.msgs, m)
	b.size += messageBytes(m)
}

func messageBytes(m Message) int {
	n := len(m.Role) + len(m.Content) + len(m.Name) + len(m.ToolCallID)
	for _, c := range m.ToolCalls {
		n += callBytes(c)
	}
	return n
}

func callBytes(c ToolCall) int {
	n := len(c.ID) + len(c.Name)
	if c.Arguments.IsValid() {
		n += len(c.Arguments.AppendJSON(nil))
	}
	return n
}

// sizeOf is Size for msgs.
func sizeOf(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += messageBytes(m)
	}
	return n
}

// Messages returns the history so far. It is the builder's own slice: use
// CloneMessages to keep it past the next Apply.
func (b *HistoryBuilder) Messages() []Message { return b.msgs }

// Clone returns a builder that shares nothing with b.
func (b *HistoryBuilder) Clone() *HistoryBuilder {
	return &HistoryBuilder{cfg: b.cfg, msgs: CloneMessages(b.msgs), open: b.open, size: b.size}
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
		b.push(Message{Role: RoleUser, Content: histString(p, "content")})
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
			b.push(Message{Role: RoleAssistant, Content: histString(p, "content"), ToolCalls: calls})
			b.open = len(b.msgs) - 1
		} else if f, _ := p.Get("final"); f.IsTrue() {
			calls, err := histCalls(p, fail)
			if err != nil {
				return err
			}
			b.push(Message{Role: RoleAssistant, Content: histString(p, "accumulated"), ToolCalls: calls})
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
			b.size += callBytes(call)
		}
	case "tool.result":
		b.push(Message{
			Role:       RoleTool,
			Content:    ToolResultContent(p),
			Name:       histString(p, "tool"),
			ToolCallID: histString(p, "tool_call_id"),
		})
	case "context.compact":
		if b.cfg.Compactor == nil {
			err := fail("", "the journal compacts its context here; rebuilding it needs the compactor settings the run used (trigger, kept messages, summary)")
			err.(*HistoryError).Missing = ErrNoCompactor
			return err
		}
		c, err := b.cfg.Compactor.Compact(b.msgs)
		if err != nil {
			return fail("", "%v", err)
		}
		if err := histCheckCompaction(c, p, fail); err != nil {
			return err
		}
		b.msgs = c.Messages
		b.size = sizeOf(b.msgs)
		b.open = -1
	case "context.prune":
		return fail("", "context.prune cannot be replayed: the context budget is not modelled")
	}
	return nil
}
