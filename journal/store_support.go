package journal

// Support for package journal/store, which must check an event before it
// is written without changing anything when the event is rejected.

// TryCheck is Check for a caller that may refuse the event: when the event
// is rejected the checker is left exactly as it was, so the next event is
// checked as if the rejected one had never been offered. When the event is
// accepted it is the same as Check.
func (c *RunChecker) TryCheck(e *Event) *Error {
	saved := *c
	had := c.ids.has(e.EventID)
	err := c.Check(e)
	if err != nil {
		*c = saved
		if !had {
			c.ids.remove(e.EventID) // the bitset and map are shared with saved
		}
	}
	return err
}

// Next returns the sequence the next event of the run must carry.
func (c *RunChecker) Next() int64 { return c.next }

// CheckerMark is a RunChecker's state at one moment (Mark), to return to
// with Rollback.
type CheckerMark struct{ c RunChecker }

// Mark returns c's state now.
func (c *RunChecker) Mark() CheckerMark { return CheckerMark{*c} }

// Rollback returns c, which m was taken from, to the state of m: the events
// c accepted since are forgotten. ids must name them (it may name other
// events c never held, which are ignored) and no event c held at m.
func (c *RunChecker) Rollback(m CheckerMark, ids ...string) {
	*c = m.c
	for _, id := range ids {
		c.ids.remove(id) // the bitset and map are shared with m
	}
}
