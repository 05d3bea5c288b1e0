package journal

// Support for package journal/store, which must check an event before it
// is written without changing anything when the event is rejected.

// TryCheck is Check for a caller that may refuse the event: when the event
// is rejected the checker is left exactly as it was, so the next event is
// checked as if the rejected one had never been offered. When the event is
// accepted it is the same as Check.
func (c *RunChecker) TryCheck(e *Event) *Error {
	saved := *c
	_, had := c.seen[e.EventID]
	err := c.Check(e)
	if err != nil {
		seen := c.seen
		*c = saved
		if !had {
			delete(seen, e.EventID)
		}
	}
	return err
}

// Next returns the sequence the next event of the run must carry.
func (c *RunChecker) Next() int64 { return c.next }
