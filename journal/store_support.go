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
